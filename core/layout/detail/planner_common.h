// Shared machinery of the planners: the compressed time axis (MiniMalloc's "sections") and the
// conflict graph (which buffers are live at the same time). Internal to core/planner*.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan::planner {

// Time compressed to sections: section s covers steps [points[s], points[s + 1]). Only the steps
// where some buffer starts or ends matter, so a MiniMalloc file with times up to 2^20 stays small.
struct TimeAxis {
  std::vector<int64_t> points;    // distinct section starts, ascending (last entry ends the axis)
  std::vector<int> begin, end;    // per buffer: its sections are [begin, end)
  std::vector<Bytes> live_bytes;  // per section: bytes of the buffers live in it
  int sections() const { return points.empty() ? 0 : static_cast<int>(points.size()) - 1; }
};
TimeAxis build_time_axis(const LayoutProblem& problem);

// Buffers live at a common step, as adjacency lists (compressed rows). Built by a sweep over
// time in O(n log n + edges).
struct ConflictGraph {
  std::vector<int64_t> row;  // neighbours of b are col[row[b] .. row[b + 1])
  std::vector<int> col;
  int64_t degree(int b) const { return row[b + 1] - row[b]; }
};
// std::nullopt when there would be more than `max_edges` (directed) entries: callers fall back to
// an algorithm that needs no graph.
std::optional<ConflictGraph> build_conflicts(const LayoutProblem& problem, int64_t max_edges);

inline bool live_together(const LayoutBuffer& a, const LayoutBuffer& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Throws InputError naming the buffer for what no planner can honour: negative sizes, zero
// alignment, last < first, misaligned or negative fixed offsets, fixed buffers that collide.
void check_problem(const LayoutProblem& problem);

}  // namespace arenaplan::planner
