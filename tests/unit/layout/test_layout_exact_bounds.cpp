// The exact solver's bound, capacity ladder and proofs against an independent exhaustive search on
// small random instances with shared divisors and alignments (the granularity argument's cases).
#include <doctest/doctest.h>

#include <random>
#include <set>

#include "core/layout/detail/exact_capacity.h"
#include "core/layout/layout.h"
#include "core/layout/planner_exact.h"
#include "tests/unit/layout_truth.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

// Sizes share a random divisor (2, 3 or 4); alignments are 1 or a multiple of it, as in real
// arenas (sizes rounded to 16, alignment 16 or 64) and MiniMalloc's files (everything x 1024).
LayoutProblem random_problem(std::mt19937& rng) {
  const Bytes unit = 2 + static_cast<Bytes>(rng() % 3);
  LayoutProblem p;
  const int n = 3 + static_cast<int>(rng() % 4);
  for (int i = 0; i < n; ++i) {
    LayoutBuffer b;
    b.name = "b" + std::to_string(i);
    b.size = unit * (1 + static_cast<Bytes>(rng() % 4));
    b.alignment = rng() % 3 != 0 ? unit * (1 + static_cast<Bytes>(rng() % 3)) : 1;
    Step x = static_cast<Step>(rng() % 5), y = static_cast<Step>(rng() % 5);
    b.first = std::min(x, y);
    b.last = std::max(x, y);
    p.buffers.push_back(b);
  }
  return p;
}

}  // namespace

TEST_CASE("exact with shared divisors and alignments: optimum, proof and bounds against exhaustive search") {
  std::mt19937 rng(1907);
  int above_live_bound = 0, proven_by_search = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const LayoutProblem p = random_problem(rng);
    const Bytes optimum = exhaustive_optimum(p);
    CAPTURE(trial);
    // The bounds never exceed the optimum; the rounded one is at least the live bytes.
    const Bytes live = layout_lower_bound(p);
    const Bytes rounded = planner::granular_lower_bound(p);
    CHECK(live <= rounded);
    CHECK(rounded <= optimum);
    CHECK(rounded % planner::offset_granularity(p) == 0);
    // The solver, stepped in small slices from a naive seed: its bound never passes the optimum,
    // and its incumbent always verifies.
    const ArenaPlan seed = plan_arena(p, {"naive", 1});
    ExactSolver solver(p, seed.offsets, seed.arena_bytes);
    for (int i = 0; i < 10000 && !solver.done(); ++i) {
      solver.step(7);
      CHECK(solver.lower_bound_bytes() <= optimum);
      CHECK(verify_plan(p, solver.best_so_far(), solver.best_arena_bytes()).ok());
    }
    REQUIRE(solver.done());
    CHECK(solver.best_arena_bytes() == optimum);
    CHECK(solver.proven_optimal());
    CHECK(!solver.optimality_proof().empty());
    // Through plan_arena: the same optimum, verified, and the proof in the JSON view.
    const ArenaPlan plan = plan_arena(p, {"exact", 5});
    CHECK(plan.arena_bytes == optimum);
    CHECK(plan.verified);
    CHECK(plan.proven_optimal);
    CHECK(layout_json(p, plan)["optimality"] == plan.optimality);
    above_live_bound += optimum > live;
    proven_by_search += solver.optimality_proof().find("exhaustive search") != std::string::npos;
  }
  // The instances exercise both kinds of proof, not only "the bound is met".
  CHECK(above_live_bound > 10);
  CHECK(proven_by_search > 5);
}

TEST_CASE("granularity: the common divisor of sizes and alignments above 1") {
  LayoutProblem p;
  auto add = [&](Bytes size, Bytes alignment, Step first, Step last) {
    add_buffer(p, "b" + std::to_string(p.buffers.size()), size, first, last, alignment);
  };
  add(96, 1, 0, 1);
  add(160, 1, 1, 2);
  CHECK(planner::offset_granularity(p) == 32);
  add(64, 16, 0, 0);  // an alignment of 16 caps it at 16
  CHECK(planner::offset_granularity(p) == 16);
  // live bytes: step 0 = 96 + 64, step 1 = 96 + 160 = 256 (a multiple of 16 already)
  CHECK(planner::granular_lower_bound(p) == 256);
  add(8, 1, 1, 1);  // 264 live at step 1, granularity 8: the bound stays 264
  CHECK(planner::offset_granularity(p) == 8);
  CHECK(planner::granular_lower_bound(p) == 264);
  add(0, 1, 0, 2);  // zero-size buffers do not count
  CHECK(planner::offset_granularity(p) == 8);
}

TEST_CASE("the capacity ladder: the bound first each round, then multiples of the granularity below the incumbent") {
  const Bytes g = 1024, bound = 100 * g;
  Bytes best = 160 * g;
  planner::CapacityLadder ladder(g, 100);
  Bytes c = ladder.next(bound, best);
  for (int round = 0; round < 3; ++round) {
    CHECK(c == bound);
    CHECK(ladder.kind() == planner::CapacityLadder::Next::kAtBound);
    const int64_t bound_limit = ladder.node_limit();
    CHECK(bound_limit == std::max<int64_t>(100, int64_t{100} << round));  // half the round's limit, doubling
    ladder.gave_up();
    std::set<Bytes> asked;
    Bytes last = best;
    while (true) {
      c = ladder.next(bound, best);
      if (ladder.kind() == planner::CapacityLadder::Next::kAtBound) break;  // the next round began
      CHECK(c % g == 0);
      CHECK(c > bound);
      CHECK(c < last);  // walking down, each capacity asked once per round
      CHECK(asked.insert(c).second);
      CHECK(ladder.node_limit() >= 100);
      last = c;
      ladder.gave_up();
    }
    // The top eight rungs are every granule below the incumbent.
    for (Bytes k = 1; k <= 8; ++k) CHECK(asked.count(best - k * g) == 1);
    CHECK(asked.size() < 30);  // then spaced out geometrically down to the bound
  }
  ladder.gave_up();  // the fourth round's attempt at the bound
  // After a success the ladder restarts from the new incumbent, first trying twice the step.
  CHECK(ladder.next(bound, best) == best - g);
  ladder.gave_up();
  c = ladder.next(bound, best);
  CHECK(c == best - 2 * g);
  best = c;  // found a plan exactly at the capacity
  ladder.found();
  CHECK(ladder.next(bound, best) == best - 4 * g);
  ladder.gave_up();  // the jump failed: back to one granule below
  CHECK(ladder.next(bound, best) == best - g);
}

TEST_CASE("decide_capacity: fits at the optimum with a verified plan, proven not to fit one granule below") {
  std::mt19937 rng(2929);
  for (int trial = 0; trial < 150; ++trial) {
    const LayoutProblem p = random_problem(rng);
    const Bytes optimum = exhaustive_optimum(p);
    const Bytes g = planner::offset_granularity(p);
    CAPTURE(trial);
    for (int heuristic = 0; heuristic < 3; ++heuristic) {
      const CapacityDecision at = decide_capacity(p, optimum, 1'000'000, heuristic);
      REQUIRE(at.verdict == CapacityVerdict::kFits);
      CHECK(verify_plan(p, at.offsets, optimum).ok());
      if (optimum >= g) CHECK(decide_capacity(p, optimum - g, 1'000'000, heuristic).verdict == CapacityVerdict::kDoesNotFit);
    }
  }
  // A node limit too small for a verdict says so instead of guessing.
  std::mt19937 big_rng(5);
  LayoutProblem wide;
  for (int i = 0; i < 40; ++i) {
    const Step first = static_cast<Step>(big_rng() % 9);
    add_buffer(wide, "w" + std::to_string(i), 16 * (1 + static_cast<Bytes>(big_rng() % 7)), first, first + 2, 1);
  }
  CHECK(decide_capacity(wide, layout_lower_bound(wide), 1, 0).verdict == CapacityVerdict::kUnknown);
}
