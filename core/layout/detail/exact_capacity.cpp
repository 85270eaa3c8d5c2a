#include "core/layout/detail/exact_capacity.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace arenaplan::planner {

Bytes offset_granularity(const LayoutProblem& problem) {
  Bytes g = 0;
  for (const LayoutBuffer& b : problem.buffers) {
    if (b.size > 0) g = std::gcd(g, b.size);
    if (b.alignment > 1) g = std::gcd(g, b.alignment);
  }
  return std::max<Bytes>(g, 1);
}

Bytes granular_lower_bound(const LayoutProblem& problem) {
  const Bytes g = offset_granularity(problem);
  return (layout_lower_bound(problem) + g - 1) / g * g;
}

CapacityLadder::CapacityLadder(Bytes granularity, int64_t min_node_limit)
    : g_(std::max<Bytes>(granularity, 1)), min_limit_(std::max<int64_t>(min_node_limit, 64)), limit_(2 * min_limit_) {}

Bytes CapacityLadder::granules(int rung) const {
  Bytes step = 1;
  for (int i = 0; i < rung; ++i) step = i < 7 ? step + 1 : step + (step + 1) / 2;
  return step;
}

int64_t CapacityLadder::node_limit() const {
  // The bound gets half the round's limit per static order. Rungs near the incumbent get a quarter,
  // halving every four rungs further down: low capacities are the likeliest to be infeasible, and
  // the search there mostly burns its limit without an answer.
  if (kind_ == Next::kAtBound) return std::max(limit_ / 2, min_limit_);
  const int halvings = std::min(rung_ / 4, 30);
  return std::max((limit_ / 4) >> halvings, min_limit_);
}

void CapacityLadder::found() {
  jump_ = kind_ == Next::kRung ? 2 * last_step_ : 0;
  rung_ = 0;
}

void CapacityLadder::gave_up() {
  if (kind_ != Next::kRung) return;
  if (jump_ > 0)
    jump_ = 0;  // the jump failed: walk the ladder from the top
  else
    ++rung_;
}

Bytes CapacityLadder::next(Bytes bound, Bytes best) {
  while (true) {
    if (!at_bound_done_) {
      at_bound_done_ = true;
      kind_ = Next::kAtBound;
      return bound;
    }
    kind_ = Next::kRung;
    // best is a multiple of g once the search found it; the seed may not be: round down first.
    const Bytes top = (best - 1) / g_ * g_;
    if (jump_ > 0) {
      last_step_ = jump_;
      if (top - bound > (jump_ - 1) * g_) return top - (jump_ - 1) * g_;
      jump_ = 0;
    }
    last_step_ = granules(rung_);
    if (top - bound > (last_step_ - 1) * g_) return top - (last_step_ - 1) * g_;
    // The ladder reached the bound: next round, twice the nodes.
    if (limit_ < std::numeric_limits<int64_t>::max() / 4) limit_ *= 2;
    ++round_;
    rung_ = 0;
    at_bound_done_ = false;
  }
}

}  // namespace arenaplan::planner
