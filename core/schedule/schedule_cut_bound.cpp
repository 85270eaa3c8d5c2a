// The cut bound: a lower bound per op by a minimum cut, stronger than the per-op bound of
// schedule_bounds.cpp (which counts only the tensors every order must hold while an op runs).
//
// Why it bounds every order from below. While op o runs, the ops already executed form a down-set
// D (closed under predecessors) that holds every ancestor of o and no descendant of o, nor o; under
// the set model (detail/schedule_model.h) the bytes live during o are live(D) + o's outputs + its
// scratch, and live(D) depends on D alone. So min over such D of live(D), plus o's own bytes, is at
// most o's step in every order, and the largest of these over all ops is at most every order's
// peak (the model ignores only asynchronous read extensions, which add bytes).
//
// Why a minimum cut finds that minimum. Put D on the source side. Each tensor costs its bytes when
//   - produced in D and kept to the end:            producer in D          (edge producer -> sink),
//   - produced in D and read by an op outside D:    producer in D, a consumer not
//                                                   (producer -> x, x -> every consumer, x a node
//                                                   of its own: cutting anything but the first edge
//                                                   is infinite, and no consumer outside D frees x),
//   - a graph input read by an op outside D:        a consumer not in D    (source -> x -> consumers);
// "D is a down-set" is an infinite edge from each op to each of its predecessors, "D holds o's
// ancestors" merges them into the source and "D holds no descendant of o, nor o" merges those
// into the sink. Each cost term is submodular in D, so the minimum cut is the minimum of live(D).
// Buffers merged by in-place aliasing (a group of several tensors) are live when any member is,
// which a cut cannot express: such a group counts only when o reads or writes it (always live
// then), which can only lower the bound.
//
// The cuts run one op at a time, the most promising first (by an upper estimate: the bytes live
// after exactly o's ancestors, or before exactly its non-descendants), and every op finished is a
// valid bound on its own, so the search can stop at any moment.
#include <algorithm>
#include <chrono>
#include <limits>

#include "core/schedule/detail/schedule_internal.h"

namespace arenaplan::schedule_detail {

namespace {

constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 4;

}  // namespace

// Dinic's maximum flow on a graph rebuilt for every op; node 0 is the source, node 1 the sink.
void CutBoundSearch::Network::reset(int nodes) {
  arcs.clear();
  first.assign(nodes, -1);
}

void CutBoundSearch::Network::add(int from, int to, int64_t capacity) {
  arcs.push_back({to, first[from], capacity});
  first[from] = static_cast<int>(arcs.size()) - 1;
  arcs.push_back({from, first[to], 0});
  first[to] = static_cast<int>(arcs.size()) - 1;
}

bool CutBoundSearch::Network::levels_from_source() {
  level.assign(first.size(), -1);
  queue.assign(1, 0);
  level[0] = 0;
  for (size_t i = 0; i < queue.size(); ++i)
    for (int a = first[queue[i]]; a >= 0; a = arcs[a].next)
      if (arcs[a].capacity > 0 && level[arcs[a].to] < 0) {
        level[arcs[a].to] = level[queue[i]] + 1;
        queue.push_back(arcs[a].to);
      }
  return level[1] >= 0;
}

int64_t CutBoundSearch::Network::push(int v, int64_t limit) {
  if (v == 1) return limit;
  for (int& a = cursor[v]; a >= 0; a = arcs[a].next) {
    Arc& arc = arcs[a];
    if (arc.capacity <= 0 || level[arc.to] != level[v] + 1) continue;
    const int64_t pushed = push(arc.to, std::min(limit, arc.capacity));
    if (pushed > 0) {
      arc.capacity -= pushed;
      arcs[a ^ 1].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

int64_t CutBoundSearch::Network::max_flow(int64_t& work) {
  int64_t flow = 0;
  while (levels_from_source()) {
    work += static_cast<int64_t>(arcs.size());
    cursor = first;
    while (const int64_t pushed = push(0, kInfinite)) flow += pushed;
  }
  return flow;
}

CutBoundSearch::CutBoundSearch(const LiveModel& m) : m_(&m) {
  const Graph& g = m.graph();
  const int n = m.ops();
  words_ = m.words();
  // Ancestor and descendant sets as bitsets (ops x ops bits: the caller keeps n moderate).
  const std::vector<OpId> topo = topological_order(g);
  ancestors_.assign(static_cast<size_t>(n) * words_, 0);
  descendants_.assign(static_cast<size_t>(n) * words_, 0);
  for (OpId o : topo)
    for (OpId p : m.preds()[o]) {
      Word* a = &ancestors_[static_cast<size_t>(o) * words_];
      const Word* pa = &ancestors_[static_cast<size_t>(p) * words_];
      for (int w = 0; w < words_; ++w) a[w] |= pa[w];
      set_bit(a, p);
    }
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    for (OpId s : m.succs()[*it]) {
      Word* d = &descendants_[static_cast<size_t>(*it) * words_];
      const Word* sd = &descendants_[static_cast<size_t>(s) * words_];
      for (int w = 0; w < words_; ++w) d[w] |= sd[w];
      set_bit(d, s);
    }
  // Single-member groups are the cut's terms; the others count only for the ops touching them.
  std::vector<int> members(m.groups(), 0);
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (m.group(static_cast<TensorId>(t)) >= 0) ++members[m.group(static_cast<TensorId>(t))];
  single_.assign(g.tensors.size(), 0);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const int grp = m.group(static_cast<TensorId>(t));
    single_[t] = grp >= 0 && members[grp] == 1;
  }
  // The order of trial: by the smaller of two feasible cuts (an upper estimate of each op's bound).
  for (OpId o = 0; o < n; ++o) {
    const Word* anc = &ancestors_[static_cast<size_t>(o) * words_];
    const Word* desc = &descendants_[static_cast<size_t>(o) * words_];
    Bytes after_ancestors = own_bytes(o), before_rest = own_bytes(o);
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      const TensorId id = static_cast<TensorId>(t);
      if (!single_[t] || m.always_live(id)) continue;
      const Tensor& tensor = g.tensors[t];
      const Bytes size = m.group_bytes(m.group(id));
      auto live_at = [&](auto in_d) {
        const bool made = m.graph_input(id) || (m.produced(id) && in_d(tensor.producer));
        if (!made) return false;
        if (m.produced(id) && m.pinned(id)) return true;
        for (OpId c : tensor.consumers)
          if (!in_d(c)) return true;
        return false;
      };
      if (live_at([&](OpId v) { return test_bit(anc, v); })) after_ancestors += size;
      if (live_at([&](OpId v) { return v != o && !test_bit(desc, v); })) before_rest += size;
    }
    queue_.push_back({std::min(after_ancestors, before_rest), o});
  }
  std::sort(queue_.begin(), queue_.end(), [](const Estimate& a, const Estimate& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.op < b.op;
  });
}

Bytes CutBoundSearch::own_bytes(OpId o) const {
  const LiveModel& m = *m_;
  const Graph& g = m.graph();
  // Live while o runs whatever the rest: persistent state, o's scratch, and o's outputs; o's
  // inputs are among the cut's terms (forced: produced by an ancestor, read by o) unless their
  // group has several members, which the cut leaves out.
  Bytes own = m.scratch(o);
  std::vector<int> counted;
  auto count = [&](TensorId t) {
    const int grp = m.group(t);
    if (grp < 0 || std::find(counted.begin(), counted.end(), grp) != counted.end()) return;
    counted.push_back(grp);
    own += m.group_bytes(grp);
  };
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (m.always_live(static_cast<TensorId>(t))) count(static_cast<TensorId>(t));
  for (TensorId t : g.ops[o].outputs) count(t);
  for (TensorId t : g.ops[o].inputs)
    if (!single_[t]) count(t);
  return own;
}

Bytes CutBoundSearch::cut(OpId o, std::vector<TensorId>* live) {
  const LiveModel& m = *m_;
  const Graph& g = m.graph();
  const int n = m.ops();
  const Word* anc = &ancestors_[static_cast<size_t>(o) * words_];
  const Word* desc = &descendants_[static_cast<size_t>(o) * words_];
  auto node = [&](OpId v) { return test_bit(anc, v) ? 0 : (v == o || test_bit(desc, v)) ? 1 : 2 + v; };
  net_.reset(2 + n + static_cast<int>(g.tensors.size()));
  for (OpId v = 0; v < n; ++v) {
    const int from = node(v);
    if (from < 2) continue;
    for (OpId p : m.preds()[v])
      if (node(p) != 0) net_.add(from, node(p), kInfinite);  // v in D needs p in D
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const TensorId id = static_cast<TensorId>(t);
    if (!single_[t] || m.always_live(id)) continue;
    const Tensor& tensor = g.tensors[t];
    const Bytes size = m.group_bytes(m.group(id));
    const int x = 2 + n + static_cast<int>(t);
    if (m.graph_input(id)) {
      net_.add(0, x, size);
      for (OpId c : tensor.consumers)
        if (node(c) != 0) net_.add(x, node(c), kInfinite);
      continue;
    }
    if (!m.produced(id) || node(tensor.producer) == 1) continue;  // o's outputs are in own_bytes
    if (m.pinned(id)) {
      net_.add(node(tensor.producer), 1, size);
      continue;
    }
    bool read_later = false;
    for (OpId c : tensor.consumers)
      if (node(c) != 0) net_.add(x, node(c), kInfinite), read_later = true;
    if (read_later) net_.add(node(tensor.producer), x, size);
  }
  const Bytes flow = net_.max_flow(work_);
  if (live) {
    // The cheapest D: what the source still reaches; a tensor is live there when its term's first
    // edge crosses the cut.
    live->clear();
    net_.levels_from_source();
    auto in_d = [&](OpId v) { const int k = node(v); return k == 0 || (k >= 2 && net_.level[k] >= 0); };
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      const TensorId id = static_cast<TensorId>(t);
      if (!single_[t] || m.always_live(id)) continue;
      const Tensor& tensor = g.tensors[t];
      const bool made = m.graph_input(id) || (m.produced(id) && tensor.producer != o && in_d(tensor.producer));
      if (!made) continue;
      bool on = m.produced(id) && m.pinned(id);
      for (OpId c : tensor.consumers) on = on || !in_d(c);
      if (on) live->push_back(id);
    }
  }
  return flow;
}

bool CutBoundSearch::advance(int64_t& budget) {
  while (next_ < queue_.size() && budget > 0) {
    const Estimate e = queue_[next_];
    if (e.bytes <= std::max(best_, floor_)) {  // no op left can raise the bound: it is final
      next_ = queue_.size();
      break;
    }
    ++next_;
    const int64_t before = work_;
    const Bytes bound = own_bytes(e.op) + cut(e.op, nullptr);
    budget -= std::max<int64_t>(1, work_ - before);
    ++cuts_;
    if (bound > best_) best_ = bound, best_op_ = e.op;
  }
  return finished();
}

std::vector<TensorId> CutBoundSearch::witness() {
  std::vector<TensorId> live;
  if (best_op_ >= 0) cut(best_op_, &live);
  return live;
}

}  // namespace arenaplan::schedule_detail

namespace arenaplan {

CutBound cut_lower_bound(const Graph& g, double time_limit_seconds) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const schedule_detail::LiveModel m(g);
  schedule_detail::CutBoundSearch search(m);
  while (!search.finished()) {
    int64_t slice = 1 << 16;
    search.advance(slice);
    if (std::chrono::duration<double>(clock::now() - start).count() >= time_limit_seconds) break;
  }
  CutBound b;
  b.bytes = search.lower_bound();
  b.op = search.op();
  b.complete = search.finished();
  b.cuts = search.cuts();
  if (b.op >= 0) {
    b.own_bytes = search.own_bytes(b.op);
    b.live_before = search.witness();
  }
  b.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return b;
}

}  // namespace arenaplan
