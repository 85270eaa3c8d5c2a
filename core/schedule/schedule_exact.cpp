// The exact minimum-peak search (Liberis & Lane / SERENITY family): best-first over sets of
// executed ops ordered by the running peak, memoised on the set (the live set after a set of ops
// does not depend on their order), pruned by the incumbent, with three reductions that keep an
// optimal order reachable:
//  - ops reading only constants run as a block right before their first consumer (sinking them
//    never raises the peak), so they are not choices of their own;
//  - dominance: an op that neither raises the running peak nor the live bytes after it is run at
//    once, as the only successor (moving it first in any completion raises no step);
//  - cut ops (ordered with respect to every other op) split the graph into segments solved one at
//    a time, bottleneck first; a segment whose incumbent is at or below what is already proven
//    for the whole graph is left as it is.
#include <algorithm>

#include "core/schedule/detail/schedule_internal.h"

namespace arenaplan::schedule_detail {

MacroGraph::MacroGraph(const LiveModel& m) : m_(&m) {
  const Graph& g = m.graph();
  const int n = m.ops();
  main_preds_.assign(n, {});
  sinkable_preds_.assign(n, {});
  for (OpId o = 0; o < n; ++o) {
    if (!m.sinkable(o)) {
      main_.push_back(o);
    } else {
      bool read = false;
      for (TensorId t : g.ops[o].outputs) read = read || !g.tensors[t].consumers.empty();
      if (!read) terminal_.push_back(o);
    }
    for (OpId p : m.preds()[o]) {
      if (m.sinkable(p)) sinkable_preds_[o].push_back(p);
      else main_preds_[o].push_back(p);
    }
  }
}

bool MacroGraph::ready(const Word* set, OpId o) const {
  if (test_bit(set, o)) return false;
  for (OpId p : main_preds_[o])
    if (!test_bit(set, p)) return false;
  return true;
}

Bytes MacroGraph::run(Word* set, OpId o, Bytes& live, bool finish) const {
  Bytes peak = 0;
  auto one = [&](OpId x) {
    StepCost c = m_->step(LiveModel::SetView(*m_, set), x, live);
    peak = std::max(peak, c.during);
    live = c.after;
    set_bit(set, x);
  };
  for (OpId s : sinkable_preds_[o])
    if (!test_bit(set, s)) one(s);
  one(o);
  if (finish)
    for (OpId s : terminal_)
      if (!test_bit(set, s)) one(s);
  return peak;
}

Schedule MacroGraph::expand(const std::vector<OpId>& main_ops) const {
  std::vector<char> done(m_->ops(), 0);
  Schedule out;
  out.reserve(m_->ops());
  for (OpId o : main_ops) {
    for (OpId s : sinkable_preds_[o])
      if (!done[s]) done[s] = 1, out.push_back(s);
    done[o] = 1;
    out.push_back(o);
  }
  for (OpId s : terminal_)
    if (!done[s]) done[s] = 1, out.push_back(s);
  return out;
}

ExactSearch::ExactSearch(const MacroGraph& mg, const Schedule& incumbent, Bytes floor,
                         int64_t memory_cap)
    : mg_(&mg), floor_(floor), memory_cap_(memory_cap), table_(mg.model().words()) {
  const LiveModel& m = mg.model();
  const int n = m.ops(), w = m.words();
  Schedule sunk = sink(m, incumbent);
  std::vector<OpId> inc_main;
  for (OpId o : sunk)
    if (!m.sinkable(o)) inc_main.push_back(o);

  // Ancestors among main ops (in incumbent order, which is topological) to find cut ops.
  std::vector<Word> anc(static_cast<size_t>(n) * w, 0);
  std::vector<int> anc_count(n, 0), desc_count(n, 0);
  for (OpId o : inc_main) {
    Word* a = &anc[static_cast<size_t>(o) * w];
    for (OpId p : m.preds()[o]) {
      if (m.sinkable(p)) continue;
      const Word* ap = &anc[static_cast<size_t>(p) * w];
      for (int i = 0; i < w; ++i) a[i] |= ap[i];
      set_bit(a, p);
    }
    for (int i = 0; i < w; ++i) anc_count[o] += __builtin_popcountll(a[i]);
  }
  for (OpId o : inc_main)
    for (OpId x : inc_main)
      if (test_bit(&anc[static_cast<size_t>(o) * w], x)) ++desc_count[x];
  const int main_count = static_cast<int>(inc_main.size());

  std::vector<Word> set(w, 0);
  Bytes live = m.empty_live();
  Segment seg;
  seg.start = set;
  seg.start_live = live;
  for (int i = 0; i < main_count; ++i) {
    OpId o = inc_main[i];
    const bool last_op = i + 1 == main_count;
    seg.main.push_back(o);
    seg.incumbent.push_back(o);
    seg.incumbent_peak = std::max(seg.incumbent_peak, mg.run(set.data(), o, live, last_op));
    const bool cut = anc_count[o] + desc_count[o] == main_count - 1;
    if (cut || last_op) {
      seg.goal = set;
      seg.best = seg.incumbent;
      seg.best_peak = seg.incumbent_peak;
      seg.last = last_op;
      segments_.push_back(seg);
      seg = Segment();
      seg.start = set;
      seg.start_live = live;
    }
  }
  if (segments_.empty()) {  // every op is sinkable: their order is fixed, one trivial segment
    Segment only;
    only.start = set;
    only.start_live = live;
    Schedule all = mg.expand({});
    for (OpId o : all) set_bit(set.data(), o);
    only.goal = set;
    only.incumbent_peak = only.best_peak = model_peak(m, all);
    only.last = true;
    segments_.push_back(only);
  }
  for (size_t i = 0; i < segments_.size(); ++i) seg_order_.push_back(static_cast<int>(i));
  std::stable_sort(seg_order_.begin(), seg_order_.end(), [&](int a, int b) {
    return segments_[a].incumbent_peak > segments_[b].incumbent_peak;
  });
  scratch_set_.assign(w, 0);
}

int64_t ExactSearch::memory_now() const {
  return table_.memory_bytes() +
         static_cast<int64_t>((g_.capacity() + live_.capacity()) * sizeof(Bytes) +
                              (parent_.capacity() + op_.capacity() + depth_.capacity()) * sizeof(int32_t) +
                              heap_.capacity() * sizeof(QueueEntry));
}

void ExactSearch::begin_segment() {
  Segment& seg = segments_[current_];
  table_ = SetTable(mg_->model().words());
  g_.clear();
  live_.clear();
  parent_.clear();
  op_.clear();
  depth_.clear();
  heap_.clear();
  bool inserted = false;
  table_.find_or_insert(seg.start.data(), inserted);
  g_.push_back(0);
  live_.push_back(seg.start_live);
  parent_.push_back(-1);
  op_.push_back(-1);
  depth_.push_back(0);
  heap_.push_back({0, 0, 0});
  current_lb_ = 0;
}

void ExactSearch::end_segment(bool proven) {
  Segment& seg = segments_[current_];
  seg.proven = proven;
  if (proven) floor_ = std::max(floor_, seg.best_peak);
  else proven_ = false;
  current_ = -1;
  table_ = SetTable(1);
  std::vector<Bytes>().swap(g_);
  std::vector<Bytes>().swap(live_);
  std::vector<int32_t>().swap(parent_);
  std::vector<int32_t>().swap(op_);
  std::vector<int32_t>().swap(depth_);
  std::vector<QueueEntry>().swap(heap_);
}

bool ExactSearch::advance(int64_t& budget) {
  const int w = mg_->model().words();
  while (!finished_ && budget > 0) {
    if (current_ < 0) {
      while (next_seg_ < seg_order_.size() && segments_[seg_order_[next_seg_]].incumbent_peak <= floor_)
        ++next_seg_;  // already good enough: the whole graph cannot go below floor_
      if (next_seg_ >= seg_order_.size()) {
        finished_ = true;
        break;
      }
      current_ = seg_order_[next_seg_++];
      begin_segment();
    }
    Segment& seg = segments_[current_];
    bool segment_done = false;
    while (budget > 0 && !segment_done) {
      if (heap_.empty()) {  // everything below the incumbent was explored: it is optimal
        end_segment(true);
        segment_done = true;
        break;
      }
      std::pop_heap(heap_.begin(), heap_.end());
      QueueEntry top = heap_.back();
      heap_.pop_back();
      if (top.g != g_[top.state]) continue;  // stale: the state was reached with a lower peak
      current_lb_ = std::max(current_lb_, top.g);
      if (top.g >= seg.best_peak) {  // nothing left below the incumbent: it is optimal
        end_segment(true);
        segment_done = true;
        break;
      }
      const Word* key = table_.key(top.state);
      if (std::equal(key, key + w, seg.goal.data())) {
        std::vector<OpId> path;
        for (int32_t s = top.state; parent_[s] >= 0; s = parent_[s]) path.push_back(op_[s]);
        std::reverse(path.begin(), path.end());
        seg.best = path;
        seg.best_peak = top.g;
        end_segment(true);
        segment_done = true;
        break;
      }
      --budget;
      ++states_;
      const Bytes g = top.g, live = live_[top.state];
      const int32_t depth = depth_[top.state];
      const bool finishing = seg.last && depth + 1 == static_cast<int32_t>(seg.main.size());
      std::vector<Child>& children = children_;
      std::vector<Word>& child_keys = child_keys_;
      children.clear();
      child_keys.clear();
      for (OpId o : seg.main) {
        const Word* cur = table_.key(top.state);
        if (!mg_->ready(cur, o)) continue;
        std::copy(cur, cur + w, scratch_set_.begin());
        Bytes l = live;
        Bytes peak = std::max(g, mg_->run(scratch_set_.data(), o, l, finishing));
        if (peak <= g && l <= live) {  // dominance: run it now, nothing else
          children.assign(1, {o, peak, l});
          child_keys.assign(scratch_set_.begin(), scratch_set_.end());
          break;
        }
        if (peak >= seg.best_peak) continue;  // cannot beat the incumbent
        children.push_back({o, peak, l});
        child_keys.insert(child_keys.end(), scratch_set_.begin(), scratch_set_.end());
      }
      for (size_t c = 0; c < children.size(); ++c) {
        if (children[c].g >= seg.best_peak) continue;
        // Never exceed the cap: check what the next insertion could grow to before making it.
        int64_t grow = table_.memory_after_growth() - table_.memory_bytes();
        if (g_.size() == g_.capacity())
          grow += static_cast<int64_t>(g_.capacity() * (2 * sizeof(Bytes) + 3 * sizeof(int32_t)));
        if (heap_.size() == heap_.capacity()) grow += static_cast<int64_t>(heap_.capacity() * sizeof(QueueEntry));
        if (memory_now() + grow > memory_cap_) {
          cap_hit_ = true;
          end_segment(false);
          finished_ = true;
          return true;
        }
        bool inserted = false;
        int64_t idx = table_.find_or_insert(&child_keys[c * w], inserted);
        if (inserted) {
          g_.push_back(children[c].g);
          live_.push_back(children[c].live);
          parent_.push_back(top.state);
          op_.push_back(children[c].op);
          depth_.push_back(depth + 1);
        } else if (children[c].g < g_[idx]) {
          g_[idx] = children[c].g;
          parent_[idx] = top.state;
          op_[idx] = children[c].op;
        } else {
          continue;
        }
        heap_.push_back({children[c].g, depth + 1, static_cast<int32_t>(idx)});
        std::push_heap(heap_.begin(), heap_.end());
        memory_peak_ = std::max(memory_peak_, memory_now());
      }
    }
  }
  return finished_;
}

Schedule ExactSearch::order() const {
  std::vector<OpId> main;
  for (const Segment& s : segments_) main.insert(main.end(), s.best.begin(), s.best.end());
  return mg_->expand(main);
}

Bytes ExactSearch::peak() const {
  Bytes p = 0;
  for (const Segment& s : segments_) p = std::max(p, s.best_peak);
  return p;
}

Bytes ExactSearch::lower_bound() const {
  Bytes lb = floor_;
  if (current_ >= 0) lb = std::max(lb, std::min(current_lb_, segments_[current_].best_peak));
  return std::min(lb, peak());
}

}  // namespace arenaplan::schedule_detail
