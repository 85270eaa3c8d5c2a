// The lower bound from the end of the schedule: a best-first search over the sets of ops that run
// LAST (the exact search's mirror image), ordered by the highest step among those last ops.
//
// Why it bounds every order from below. Reverse an order: its last op, then the one before, ...;
// after k of them the ops still to run first form a down-set D (closed under predecessors) and,
// under the set model (schedule_model.h), the live bytes between the two parts, live(D), depend
// on D alone, as does the step of the op o removed next: during(o, D \ {o}). Call g(D) the highest
// step of the ops after D. g only grows along a path, so popping states by increasing g (Dijkstra
// on the bottleneck cost, each set kept once with its smallest g) pops every set with its
// smallest g, and every order's reversed path has, at any moment, a first state that was not yet
// popped; that state is in the queue with a g no higher than the order's own steps after it, or
// was dropped because its g reached the incumbent. So no order peaks below min(the last popped
// g, the incumbent), and when D = {} is popped its g is the optimum under the model (its path is
// an optimal order). The set model ignores only asynchronous read extensions, which can only add
// bytes, so the bound holds for analyze_lifetimes' peaks too.
//
// Dominance (the mirror of the exact search's): when o can run last among `set` without raising g
// and without raising the live bytes at the cut (live(set \ o) <= live(set)), o is the only child.
// Proof: take any way to finish from `set` in which o runs after ops X (still in `set`). Moving o
// last among them removes it from every cut set \ X between: o's forward step there frees no
// more than at `set \ o` (its inputs have fewer finished readers), so live(set \ X \ o) <=
// live(set \ X), and each op x of X sees the same increments (x is no successor of o, so it
// reads none of o's outputs), so its step does not rise; o's own step is <= g. Not applied when
// unread graph inputs make the first step special (an empty cut adds bytes).
//
// Why it is strong on wide graphs: tensors kept to the end (graph outputs, retained) are all live
// during the last steps whatever the order, so the very first expansion already proves "every
// graph output + the cheapest last op's inputs", which the per-op bound (schedule_bounds.cpp)
// never sees; the forward searches meet that wall only at their last levels.
#include <algorithm>

#include "core/schedule/detail/schedule_internal.h"

namespace arenaplan::schedule_detail {

SuffixSearch::SuffixSearch(const LiveModel& m, Bytes incumbent, int64_t memory_cap)
    : m_(&m), incumbent_(incumbent), memory_cap_(memory_cap), table_(m.words()) {
  const int n = m.ops(), w = m.words();
  stamp_.assign(n, -1);
  for (OpId o = 0; o < n; ++o)
    if (m.succs()[o].empty()) sinks_.push_back(o);
  set_.assign(w, 0);
  for (OpId o = 0; o < n; ++o) set_bit(set_.data(), o);
  if (n == 0) {
    finished_ = complete_ = true;
    return;
  }
  bool inserted = false;
  table_.find_or_insert(set_.data(), inserted);
  g_.push_back(0);
  live_.push_back(m.live_after_set(set_.data()));
  parent_.push_back(-1);
  op_.push_back(-1);
  depth_.push_back(0);
  heap_.push_back({0, 0, 0});
}

int64_t SuffixSearch::memory_now() const {
  return table_.memory_bytes() +
         static_cast<int64_t>((g_.capacity() + live_.capacity()) * sizeof(Bytes) +
                              (parent_.capacity() + op_.capacity() + depth_.capacity()) * sizeof(int32_t) +
                              heap_.capacity() * sizeof(Entry));
}

// The ops that may run last among those of `set`: in it, with no successor in it. Those are the
// graph's sinks in the set and predecessors of ops already removed whose successors all are.
void SuffixSearch::last_candidates(const Word* set, std::vector<OpId>& out) {
  const LiveModel& m = *m_;
  ++round_;
  out.clear();
  auto consider = [&](OpId o) {
    if (stamp_[o] == round_ || !test_bit(set, o)) return;
    stamp_[o] = round_;
    for (OpId s : m.succs()[o])
      if (test_bit(set, s)) return;
    out.push_back(o);
  };
  for (OpId o : sinks_) consider(o);
  const int n = m.ops();
  for (int wi = 0; wi < m.words(); ++wi) {
    Word removed = ~set[wi];
    while (removed) {
      const int u = wi * 64 + __builtin_ctzll(removed);
      removed &= removed - 1;
      if (u >= n) break;
      for (OpId p : m.preds()[u]) consider(p);
    }
  }
}

bool SuffixSearch::advance(int64_t& budget) {
  const LiveModel& m = *m_;
  const int w = m.words();
  while (!finished_ && budget > 0) {
    if (heap_.empty()) {  // every continuation reaches the incumbent: no order beats it
      popped_ = incumbent_;
      finished_ = true;
      break;
    }
    std::pop_heap(heap_.begin(), heap_.end());
    const Entry top = heap_.back();
    heap_.pop_back();
    if (top.g != g_[top.state]) continue;  // stale: reached again with a lower g
    popped_ = std::max(popped_, top.g);
    if (top.g >= incumbent_) {
      popped_ = incumbent_;
      finished_ = true;
      break;
    }
    if (depth_[top.state] == m.ops()) {  // nothing left to run first: an optimal order
      goal_ = top.state;
      finished_ = complete_ = true;
      break;
    }
    ++states_;
    const Bytes g = top.g, live = live_[top.state];
    const int32_t depth = depth_[top.state];
    std::copy(table_.key(top.state), table_.key(top.state) + w, set_.begin());
    last_candidates(set_.data(), candidates_);
    // First every child's g (no memory needed), so that a cap reached while inserting them still
    // leaves a bound: every order through this set goes through one of its children.
    children_.clear();
    Bytes min_child = incumbent_;
    for (OpId o : candidates_) {
      --budget;
      set_[o >> 6] &= ~(Word{1} << (o & 63));
      // Run o right after set_: its step's increments do not depend on the live bytes given.
      const StepCost delta = m.step(LiveModel::SetView(m, set_.data()), o, 0);
      set_bit(set_.data(), o);
      const Bytes before = live - delta.after;  // live(set_ - o), as live(set_) = before + after
      const Child c{o, before, std::max(g, before + delta.during)};
      if (c.g <= g && before <= live && m.first_step_extra() == 0) {  // dominant: the only child
        children_.assign(1, c);
        min_child = c.g;
        break;
      }
      children_.push_back(c);
      min_child = std::min(min_child, c.g);
    }
    for (const Child& c : children_) {
      if (c.g >= incumbent_) continue;
      int64_t grow = table_.memory_after_growth() - table_.memory_bytes();
      if (g_.size() == g_.capacity())
        grow += static_cast<int64_t>(g_.capacity() * (2 * sizeof(Bytes) + 3 * sizeof(int32_t)));
      if (heap_.size() == heap_.capacity()) grow += static_cast<int64_t>(heap_.capacity() * sizeof(Entry));
      if (memory_now() + grow > memory_cap_) {  // keep the bound reached; stop growing
        const Bytes queued = heap_.empty() ? incumbent_ : heap_.front().g;
        popped_ = std::max(popped_, std::min(min_child, queued));
        cap_hit_ = finished_ = true;
        return true;
      }
      set_[c.op >> 6] &= ~(Word{1} << (c.op & 63));
      bool inserted = false;
      const int64_t idx = table_.find_or_insert(set_.data(), inserted);
      set_bit(set_.data(), c.op);
      if (inserted) {
        g_.push_back(c.g);
        live_.push_back(c.live);
        parent_.push_back(top.state);
        op_.push_back(c.op);
        depth_.push_back(depth + 1);
      } else if (c.g < g_[idx]) {
        g_[idx] = c.g;
        parent_[idx] = top.state;
        op_[idx] = c.op;
      } else {
        continue;
      }
      heap_.push_back({c.g, depth + 1, static_cast<int32_t>(idx)});
      std::push_heap(heap_.begin(), heap_.end());
      memory_peak_ = std::max(memory_peak_, memory_now());
    }
  }
  return finished_;
}

Schedule SuffixSearch::order() const {
  Schedule order;
  if (!complete_) return order;
  // From the goal up: the op removed last runs first.
  for (int32_t s = goal_; s >= 0 && parent_[s] >= 0; s = parent_[s]) order.push_back(op_[s]);
  return order;
}

Bytes SuffixSearch::lower_bound() const {
  // Every open set is in the queue with a g at least the queue's smallest entry (stale entries
  // only add higher copies), unless the cap stopped an expansion halfway.
  Bytes open = popped_;
  if (!cap_hit_ && !finished_ && !heap_.empty()) open = std::max(open, heap_.front().g);
  return std::min(open, incumbent_);
}

}  // namespace arenaplan::schedule_detail

namespace arenaplan {

SuffixBound suffix_lower_bound(const Graph& g, int64_t max_expansions, int64_t memory_cap_bytes) {
  const schedule_detail::LiveModel m(g);
  // No incumbent: every order is below "more than every byte of the graph".
  Bytes all = 1;
  for (const Tensor& t : g.tensors) all += align_up(t.bytes, g.alignment);
  for (const Op& op : g.ops) all += align_up(op.scratch_bytes, g.alignment);
  schedule_detail::SuffixSearch search(m, all, memory_cap_bytes);
  while (!search.finished() && search.states() < max_expansions) {
    int64_t one = 1;  // one expansion per call: the budget runs out inside it
    search.advance(one);
  }
  SuffixBound b;
  b.bytes = search.lower_bound();
  b.optimal = search.complete();
  b.order = search.order();
  b.expansions = search.states();
  return b;
}

}  // namespace arenaplan
