// One sentence per buffer of a layout placed one at a time (explain.h); the schedule's steps are
// explained in explain_schedule.cpp.
#include "core/teach/explain.h"

#include <algorithm>

namespace arenaplan {

std::vector<PlacementExplanation> explain_layout(const LayoutProblem& problem, const std::vector<Bytes>& offsets) {
  std::vector<int> order(problem.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return offsets[a] != offsets[b] ? offsets[a] < offsets[b] : problem.buffers[a].first < problem.buffers[b].first;
  });
  std::vector<PlacementExplanation> out;
  std::vector<int> placed;
  Bytes arena = 0;
  for (int i : order) {
    const LayoutBuffer& b = problem.buffers[i];
    PlacementExplanation e;
    e.buffer = i;
    e.offset = offsets[i];
    std::string where = "at the bottom (offset 0)";
    if (offsets[i] > 0) {
      // The highest-ending buffer below it that is live at some common step: it sets the offset.
      int below = -1;
      for (int p : placed) {
        const LayoutBuffer& q = problem.buffers[p];
        const bool together = q.first <= b.last && b.first <= q.last;
        if (together && offsets[p] + q.size <= offsets[i] &&
            (below < 0 || offsets[p] + q.size > offsets[below] + problem.buffers[below].size))
          below = p;
      }
      where = below < 0 ? "at " + format_bytes(offsets[i]) + ", above nothing live at its steps"
                        : "at " + format_bytes(offsets[i]) + ", above " + problem.buffers[below].name + " (live at the same time, ends at " +
                              format_bytes(offsets[below] + problem.buffers[below].size) + ")";
    }
    arena = std::max(arena, offsets[i] + b.size);
    e.arena_so_far = arena;
    e.sentence = "Place " + b.name + " (" + format_bytes(b.size) + ", steps " + std::to_string(b.first) + ".." +
                 std::to_string(b.last) + ") " + where + "; the arena is now " + format_bytes(arena) + ".";
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
