// Lazy enumeration of topological orders: a depth-first walk that keeps one order, its prefix
// peaks and one live-set model, so memory is O(ops + tensors) however many orders there are.
#include <algorithm>

#include "core/schedule/schedule.h"
#include "core/schedule/detail/schedule_model.h"

namespace arenaplan {

using schedule_detail::LiveModel;

struct OrderEnumerator::Impl {
  const Graph& g;
  LiveModel model;
  LiveModel::Walker walker;
  Schedule order;
  std::vector<Bytes> prefix_peak;  // prefix_peak[i]: peak over steps 0..i
  Bytes peak = 0;
  int64_t visited = 0;
  bool started = false, finished = false;

  explicit Impl(const Graph& graph) : g(graph), model(graph), walker(model) {}

  int n() const { return model.ops(); }

  void push(OpId o) {
    Bytes during = walker.cost(o).during;
    prefix_peak.push_back(std::max(prefix_peak.empty() ? 0 : prefix_peak.back(), during));
    walker.apply(o);
    order.push_back(o);
  }
  OpId pop() {
    OpId o = order.back();
    order.pop_back();
    prefix_peak.pop_back();
    walker.undo(o);
    return o;
  }
  // Extends the prefix with the smallest ready op at every depth; false if some depth has none.
  bool descend() {
    while (static_cast<int>(order.size()) < n()) {
      OpId next = -1;
      for (OpId o = 0; o < n() && next < 0; ++o)
        if (walker.ready(o)) next = o;
      if (next < 0) return false;  // a cycle: validate_graph rejects these, but never loop
      push(next);
    }
    return true;
  }
  void finish_order() {
    ++visited;
    if (model.exact()) {
      peak = prefix_peak.empty() ? 0 : prefix_peak.back();
    } else {
      auto p = order_peak(g, order);
      peak = p ? *p : -1;  // the order breaks an in-place declaration (async read still running)
    }
  }
  bool next() {
    if (finished) return false;
    if (!started) {
      started = true;
      if (!descend()) return finished = true, false;
      finish_order();
      return true;
    }
    while (!order.empty()) {
      OpId last = pop();
      OpId alt = -1;
      for (OpId o = last + 1; o < n() && alt < 0; ++o)
        if (walker.ready(o)) alt = o;
      if (alt < 0) continue;
      push(alt);
      if (!descend()) break;
      finish_order();
      return true;
    }
    finished = true;
    return false;
  }
};

OrderEnumerator::OrderEnumerator(const Graph& g) : impl_(std::make_unique<Impl>(g)) {}
OrderEnumerator::~OrderEnumerator() = default;
bool OrderEnumerator::next() { return impl_->next(); }
const Schedule& OrderEnumerator::order() const { return impl_->order; }
Bytes OrderEnumerator::peak() const { return impl_->peak; }
int64_t OrderEnumerator::visited() const { return impl_->visited; }

Enumeration enumerate_orders(const Graph& g, int64_t limit, int64_t scan_limit, int64_t count_level_cap) {
  Enumeration out;
  out.count = count_orders(g, count_level_cap);
  OrderEnumerator e(g);
  scan_limit = std::max(scan_limit, limit);
  bool first = true;
  while (out.scanned < scan_limit && e.next()) {
    ++out.scanned;
    if (static_cast<int64_t>(out.orders.size()) < limit) out.orders.push_back({e.order(), e.peak()});
    if (e.peak() < 0) continue;
    out.min_peak_bytes = first ? e.peak() : std::min(out.min_peak_bytes, e.peak());
    out.max_peak_bytes = first ? e.peak() : std::max(out.max_peak_bytes, e.peak());
    first = false;
  }
  out.scanned_all = out.scanned < scan_limit || !e.next();
  return out;
}

}  // namespace arenaplan
