// Quick schedules: greedy rules, random orders and the constant-op sinking normal form. They give
// the baselines the benchmark compares against and the first incumbent of the optimiser.
#include <algorithm>

#include "core/schedule/schedule.h"
#include "core/schedule/detail/schedule_internal.h"
#include "core/schedule/detail/schedule_model.h"

namespace arenaplan {

using schedule_detail::LiveModel;

std::optional<Bytes> order_peak(const Graph& g, const Schedule& order) {
  try {
    return analyze_lifetimes(g, order).peak_bytes;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

namespace schedule_detail {

Schedule greedy_order(const LiveModel& m, GreedyRule rule) {
  LiveModel::Walker w(m);
  std::vector<OpId> ready;
  for (OpId o = 0; o < m.ops(); ++o)
    if (w.ready(o)) ready.push_back(o);
  Schedule order;
  while (!ready.empty()) {
    size_t best = 0;
    StepCost best_cost = w.cost(ready[0]);
    for (size_t i = 1; i < ready.size(); ++i) {
      StepCost c = w.cost(ready[i]);
      bool better = false;
      switch (rule) {
        case GreedyRule::kSmallestFootprint:
          better = c.during < best_cost.during || (c.during == best_cost.during && ready[i] < ready[best]);
          break;
        case GreedyRule::kMostFreed:
          better = c.after < best_cost.after ||
                   (c.after == best_cost.after && (c.during < best_cost.during ||
                                                   (c.during == best_cost.during && ready[i] < ready[best])));
          break;
      }
      if (better) {
        best = i;
        best_cost = c;
      }
    }
    OpId o = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    w.apply(o);
    order.push_back(o);
    for (OpId s : m.succs()[o])
      if (w.ready(s)) ready.push_back(s);
  }
  return order;
}

Bytes model_peak(const LiveModel& m, const Schedule& order) {
  LiveModel::Walker w(m);
  Bytes peak = 0;
  for (OpId o : order) {
    peak = std::max(peak, w.cost(o).during);
    w.apply(o);
  }
  return peak;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Schedule random_order(const LiveModel& m, uint64_t& rng) {
  const auto& preds = m.preds();
  std::vector<int> missing(m.ops());
  std::vector<OpId> ready;
  for (OpId o = 0; o < m.ops(); ++o) {
    missing[o] = static_cast<int>(preds[o].size());
    if (missing[o] == 0) ready.push_back(o);
  }
  Schedule order;
  order.reserve(m.ops());
  while (!ready.empty()) {
    size_t i = static_cast<size_t>(splitmix64(rng) % ready.size());
    OpId o = ready[i];
    ready[i] = ready.back();
    ready.pop_back();
    order.push_back(o);
    for (OpId s : m.succs()[o])
      if (--missing[s] == 0) ready.push_back(s);
  }
  return order;
}

Schedule sink(const LiveModel& m, const Schedule& order) {
  const Graph& g = m.graph();
  Schedule main;
  std::vector<OpId> sinkable;
  for (OpId o : order) (m.sinkable(o) ? sinkable : main).push_back(o);
  if (sinkable.empty()) return order;
  // Each sinkable op goes right before the first op (of the remaining order) reading its outputs.
  std::vector<int> position(g.ops.size(), -1);
  for (size_t i = 0; i < main.size(); ++i) position[main[i]] = static_cast<int>(i);
  std::vector<std::vector<OpId>> before(main.size() + 1);
  for (OpId s : sinkable) {
    int first = static_cast<int>(main.size());
    for (TensorId t : g.ops[s].outputs)
      for (OpId c : g.tensors[t].consumers) first = std::min(first, position[c]);
    before[first].push_back(s);
  }
  Schedule out;
  out.reserve(order.size());
  for (size_t i = 0; i <= main.size(); ++i) {
    out.insert(out.end(), before[i].begin(), before[i].end());
    if (i < main.size()) out.push_back(main[i]);
  }
  return out;
}

}  // namespace schedule_detail

struct PeakEvaluator::Impl {
  LiveModel model;
  explicit Impl(const Graph& g) : model(g) {}
};
PeakEvaluator::PeakEvaluator(const Graph& g) : impl_(std::make_unique<Impl>(g)) {}
PeakEvaluator::~PeakEvaluator() = default;
bool PeakEvaluator::exact() const { return impl_->model.exact(); }
Bytes PeakEvaluator::peak(const Schedule& order) const { return schedule_detail::model_peak(impl_->model, order); }

Schedule greedy_smallest_footprint(const Graph& g) {
  LiveModel m(g);
  return schedule_detail::greedy_order(m, schedule_detail::GreedyRule::kSmallestFootprint);
}

Schedule random_topological_order(const Graph& g, uint64_t seed) {
  LiveModel m(g);
  uint64_t rng = seed;
  return schedule_detail::random_order(m, rng);
}

RandomOrderSampler::RandomOrderSampler(const Graph& g, uint64_t seed) : rng_(seed) {
  const auto preds = op_predecessors(g);
  succs_.assign(g.ops.size(), {});
  pred_count_.assign(g.ops.size(), 0);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    pred_count_[o] = static_cast<int>(preds[o].size());
    for (OpId p : preds[o]) succs_[p].push_back(static_cast<OpId>(o));
  }
}

Schedule RandomOrderSampler::next() {
  std::vector<int> missing = pred_count_;
  std::vector<OpId> ready;
  for (size_t o = 0; o < missing.size(); ++o)
    if (missing[o] == 0) ready.push_back(static_cast<OpId>(o));
  Schedule order;
  order.reserve(missing.size());
  while (!ready.empty()) {
    size_t i = static_cast<size_t>(schedule_detail::splitmix64(rng_) % ready.size());
    OpId o = ready[i];
    ready[i] = ready.back();
    ready.pop_back();
    order.push_back(o);
    for (OpId s : succs_[o])
      if (--missing[s] == 0) ready.push_back(s);
  }
  return order;
}

Schedule sink_constant_ops(const Graph& g, const Schedule& order) {
  LiveModel m(g);
  return schedule_detail::sink(m, order);
}

}  // namespace arenaplan
