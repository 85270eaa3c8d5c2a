// The fast planners: naive, linear, an exact replica of TFLM's GreedyMemoryPlanner, and a
// portfolio of greedy orders. Each returns offsets for every buffer (fixed buffers keep theirs).
#pragma once

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

}  // namespace arenaplan::planner
