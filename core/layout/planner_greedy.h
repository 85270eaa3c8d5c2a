// The fast planners: naive, linear, an exact replica of TFLM's GreedyMemoryPlanner, and a
// portfolio of greedy orders. Each returns offsets for every buffer (fixed buffers keep theirs).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan::planner {

struct GreedyPlan {
  std::vector<Bytes> offsets;
  Bytes arena_bytes = 0;  // max over buffers of offset + size (TFLM: size rounded up to 16)
  std::string member;     // which order/fit produced it, e.g. "size/lowest-gap"
};

// Every buffer its own space in buffer order, above the fixed buffers.
GreedyPlan plan_naive(const LayoutProblem& problem);
// TFLM LinearMemoryPlanner: offset = sum of the sizes added before; the same numbers as naive.
GreedyPlan plan_linear(const LayoutProblem& problem);

// TFLM GreedyMemoryPlanner (tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc):
// sizes rounded up to 16 bytes; offline (fixed) buffers first in index order; then the others by
// size, largest first, equal sizes in DESCENDING index order (TFLM fills its sort array from the
// tail and bubble-sorts it, which is stable); each at the first gap, walking the time-overlapping
// placed buffers by offset (ties in placement order), that holds it.
GreedyPlan plan_tflm_greedy(const LayoutProblem& problem);

// Greedy orders (size, area, lifetime, conflicts, busiest section, TFLM's) x {lowest gap, best
// fit}; the smallest arena wins (never larger than plan_tflm_greedy).
GreedyPlan plan_portfolio(const LayoutProblem& problem);

// The portfolio within `deadline`: a run still going then is dropped and no further run starts.
// Candidates replace the best so far only when strictly smaller: TFLM's run, then `fallback` (a
// plan made beforehand: the answer when no run completes in time), then each member.
using Deadline = std::chrono::steady_clock::time_point;
GreedyPlan improve_with_portfolio(const LayoutProblem& problem, GreedyPlan fallback, Deadline deadline);

// Pairs of buffers live at a common step (each pair once): what a greedy run's walks cost at most.
int64_t overlapping_pairs(const LayoutProblem& problem);

// A heap allocator's run: steps in order; at each step the buffers whose last step has passed
// are freed (free neighbours merge) and the buffers born there, largest first, each take the
// smallest free block that holds it (lowest address among equals), else the top. O(n log n)
// whatever the live sets, so it answers first on graphs with tens of thousands of buffers live at
// once (where a greedy run walks them all for every buffer). std::nullopt when a buffer has a fixed
// offset (an allocator cannot keep a future buffer's bytes free).
std::optional<GreedyPlan> plan_online_best_fit(const LayoutProblem& problem);

}  // namespace arenaplan::planner
