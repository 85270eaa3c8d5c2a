// One sentence per buffer of a layout placed one at a time (explain.h); the schedule's steps are
// explained in explain_schedule.cpp.
#include "core/teach/explain.h"

#include <algorithm>

namespace arenaplan {

namespace {

// The buffer a placed buffer sits on: among those placed before it (lowest offset first) and live
// at some common step, the one ending highest at or below its offset (the first placed on a tie).
// A segment tree over the time points keeps, per node, the best (highest end, earliest placed)
// over the buffers covering the node whole and over its subtree, so each placement and each
// question costs O(log steps): scanning every placed buffer per buffer took minutes at 100,000.
class PlacedBelow {
 public:
  explicit PlacedBelow(const LayoutProblem& problem) {
    for (const LayoutBuffer& b : problem.buffers) {
      times_.push_back(b.first);
      times_.push_back(b.last);
    }
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    size_ = std::max<size_t>(times_.size(), 1);
    covering_.assign(4 * size_, kNone);
    subtree_.assign(4 * size_, kNone);
  }

  void add(const LayoutBuffer& b, Bytes end, int rank) { update(1, 0, size_ - 1, index(b.first), index(b.last), {end, rank}); }

  // The best placed buffer live at some step of [first, last]: (end, rank), or end -1 for none.
  std::pair<Bytes, int> best(const LayoutBuffer& b) const {
    return query(1, 0, size_ - 1, index(b.first), index(b.last));
  }

 private:
  using Entry = std::pair<Bytes, int>;  // (end, rank)
  static constexpr Entry kNone{-1, -1};
  static Entry better(const Entry& a, const Entry& b) {
    if (a.first != b.first) return a.first > b.first ? a : b;
    return a.second >= 0 && (b.second < 0 || a.second < b.second) ? a : b;
  }
  size_t index(Step t) const { return static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), t) - times_.begin()); }
  void update(size_t node, size_t lo, size_t hi, size_t from, size_t to, const Entry& e) {
    if (to < lo || hi < from) return;
    subtree_[node] = better(subtree_[node], e);
    if (from <= lo && hi <= to) {
      covering_[node] = better(covering_[node], e);
      return;
    }
    const size_t mid = (lo + hi) / 2;
    update(2 * node, lo, mid, from, to, e);
    update(2 * node + 1, mid + 1, hi, from, to, e);
  }
  Entry query(size_t node, size_t lo, size_t hi, size_t from, size_t to) const {
    if (to < lo || hi < from) return kNone;
    if (from <= lo && hi <= to) return subtree_[node];
    const size_t mid = (lo + hi) / 2;
    return better(covering_[node], better(query(2 * node, lo, mid, from, to), query(2 * node + 1, mid + 1, hi, from, to)));
  }

  std::vector<Step> times_;  // every first and last step, ascending, distinct
  size_t size_ = 1;
  std::vector<Entry> covering_, subtree_;  // per node of the tree (node 1 the root, 2n and 2n+1 its children)
};

}  // namespace

std::vector<PlacementExplanation> explain_layout(const LayoutProblem& problem, const std::vector<Bytes>& offsets) {
  std::vector<int> order(problem.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return offsets[a] != offsets[b] ? offsets[a] < offsets[b] : problem.buffers[a].first < problem.buffers[b].first;
  });
  std::vector<PlacementExplanation> out;
  std::vector<int> placed;
  PlacedBelow below_index(problem);
  Bytes arena = 0;
  for (int i : order) {
    const LayoutBuffer& b = problem.buffers[i];
    PlacementExplanation e;
    e.buffer = i;
    e.offset = offsets[i];
    std::string where = "at the bottom (offset 0)";
    if (offsets[i] > 0) {
      // The highest-ending buffer below it that is live at some common step: it sets the offset.
      const auto [end, rank] = below_index.best(b);
      int below = end >= 0 && end <= offsets[i] ? placed[static_cast<size_t>(rank)] : -1;
      if (end > offsets[i]) {
        // Only when buffers live together overlap in space (an unverified plan, or a zero-size
        // buffer inside another): look through them all.
        below = -1;
        for (int p : placed) {
          const LayoutBuffer& q = problem.buffers[p];
          const bool together = q.first <= b.last && b.first <= q.last;
          if (together && offsets[p] + q.size <= offsets[i] &&
              (below < 0 || offsets[p] + q.size > offsets[below] + problem.buffers[below].size))
            below = p;
        }
      }
      where = below < 0 ? "at " + format_bytes(offsets[i]) + ", above nothing live at its steps"
                        : "at " + format_bytes(offsets[i]) + ", above " + problem.buffers[below].name + " (live at the same time, ends at " +
                              format_bytes(offsets[below] + problem.buffers[below].size) + ")";
    }
    arena = std::max(arena, offsets[i] + b.size);
    e.arena_so_far = arena;
    e.sentence = "Place " + b.name + " (" + format_bytes(b.size) + ", steps " + std::to_string(b.first) + ".." +
                 std::to_string(b.last) + ") " + where + "; the arena is now " + format_bytes(arena) + ".";
    below_index.add(b, offsets[i] + b.size, static_cast<int>(placed.size()));
    placed.push_back(i);
    out.push_back(std::move(e));
  }
  return out;
}

JsonOut layout_explanation_json(const LayoutProblem& problem, const std::vector<PlacementExplanation>& steps) {
  JsonOut out = JsonOut::array();
  for (const PlacementExplanation& e : steps)
    out.push_back({{"buffer", problem.buffers[e.buffer].name},
                   {"offset", e.offset},
                   {"arena_so_far", e.arena_so_far},
                   {"sentence", e.sentence}});
  return out;
}

}  // namespace arenaplan
