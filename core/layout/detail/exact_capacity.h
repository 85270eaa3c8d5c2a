// The exact solver's outer loop, kept apart from the search itself: which capacity to ask the
// branch and bound next, and the lower bound it starts from. Internal to core/layout.
#pragma once

#include <cstdint>

#include "core/layout/layout.h"

namespace arenaplan::planner {

// Every size and every alignment above 1 is a multiple of this (1 when nothing is shared). The
// search only ever produces canonical plans (each buffer at the lowest aligned offset above the
// buffers under it), and any plan can be pushed down into one, so an optimal arena is a sum of
// sizes rounded up to alignments: a multiple of the granularity. The MiniMalloc instances have
// 1024, so only one capacity in 1024 needs asking and "arena - 1024 is infeasible" proves optimality.
Bytes offset_granularity(const LayoutProblem& problem);

// The live-bytes bound rounded up to the granularity: no arena below it exists. For problems
// without fixed offsets (the solver searches no others).
Bytes granular_lower_bound(const LayoutProblem& problem);

// Which capacity to try next. Solve times of one capacity are erratic (on MiniMalloc's J, 1035264 B
// is found in ~17k nodes while 1037312 B and 1034240 B are not within 100k), so instead of a
// bisection that keeps asking the same few capacities, every round walks a ladder of capacities
// down from the incumbent (step 1, 2, ..., 8 granules, then growing by half) with a small node
// limit each, after one attempt at the bound itself with a larger one; the limits double each round.
class CapacityLadder {
 public:
  enum class Next { kAtBound, kRung };
  // `min_node_limit`: fewest nodes an attempt gets (a plan without backtracking takes one per
  // buffer); a round's limit starts at twice that and doubles per round (see node_limit()).
  CapacityLadder(Bytes granularity, int64_t min_node_limit);

  // The next capacity, given the current proven bound and incumbent (bound < best).
  Bytes next(Bytes bound, Bytes best);
  Next kind() const { return kind_; }
  int64_t node_limit() const;  // for the attempt `next` just chose
  int rung() const { return rung_; }
  int64_t round() const { return round_; }

  // A plan at or below the capacity: walk down from the new incumbent, first trying twice the step
  // that just worked (far above the optimum plans come at the first dive, and one granule at a
  // time would take hundreds of attempts to come down from a greedy seed).
  void found();
  // The node limit ran out (every order, at the bound; one otherwise): the next rung.
  void gave_up();

 private:
  Bytes granules(int rung) const;

  Bytes g_;
  int64_t min_limit_, limit_;
  int rung_ = 0;
  Bytes jump_ = 0;       // granules to try before rung 0 after a success (0: none)
  Bytes last_step_ = 0;  // granules below the incumbent of the capacity `next` chose
  int64_t round_ = 0;
  bool at_bound_done_ = false;
  Next kind_ = Next::kAtBound;
};

}  // namespace arenaplan::planner
