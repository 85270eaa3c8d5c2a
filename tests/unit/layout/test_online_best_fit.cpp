// The first plan of "best" on large problems (planner_greedy.h): the online best-fit allocator,
// the overlap count that decides when it is used, and the portfolio stopped by a deadline. Every
// plan is checked by the independent verifier; no timing here (bench/scale_bench.cpp measures it).
#include <doctest/doctest.h>

#include <chrono>

#include "core/layout/layout.h"
#include "core/layout/layout_generators.h"
#include "core/layout/planner_greedy.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using arenaplan::test::add_buffer;

TEST_CASE("the online best-fit allocator's plans pass the verifier and never go below the live-bytes bound") {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    for (bool dense : {false, true}) {
      const LayoutProblem p = random_layout_problem(400, seed, dense, 20, 60);
      const std::optional<planner::GreedyPlan> plan = planner::plan_online_best_fit(p);
      REQUIRE(plan);
      const VerifyResult check = verify_plan(p, plan->offsets, plan->arena_bytes);
      INFO("seed " << seed << (dense ? " dense" : " nn") << ": " << check.message);
      CHECK(check.ok());
      CHECK(plan->arena_bytes >= layout_lower_bound(p));
    }
  }
}

TEST_CASE("the online allocator reuses a freed block: two buffers one after another share offset 0") {
  LayoutProblem p;
  add_buffer(p, "a", 64, 0, 1);
  add_buffer(p, "b", 64, 2, 3);
  add_buffer(p, "c", 32, 0, 3);
  const planner::GreedyPlan plan = *planner::plan_online_best_fit(p);
  CHECK(plan.offsets[0] == plan.offsets[1]);
  CHECK(plan.arena_bytes == 96);
  CHECK(verify_plan(p, plan.offsets, plan.arena_bytes).ok());
}

TEST_CASE("the online allocator declines problems with fixed offsets") {
  LayoutProblem p;
  add_buffer(p, "a", 64, 0, 1);
  p.buffers[0].fixed_offset = 128;
  CHECK_FALSE(planner::plan_online_best_fit(p).has_value());
}

TEST_CASE("overlapping_pairs counts each pair of buffers live at a common step once") {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const LayoutProblem p = random_layout_problem(300, seed, seed % 2 == 0, 20, 60);
    int64_t naive = 0;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      for (size_t j = i + 1; j < p.buffers.size(); ++j)
        naive += p.buffers[i].first <= p.buffers[j].last && p.buffers[j].first <= p.buffers[i].last;
    CHECK(planner::overlapping_pairs(p) == naive);
  }
}

TEST_CASE("a portfolio whose deadline has passed answers with the plan it was given") {
  const LayoutProblem p = random_layout_problem(300, 3, true, 20, 60);
  const planner::GreedyPlan fallback = *planner::plan_online_best_fit(p);
  const planner::GreedyPlan late =
      planner::improve_with_portfolio(p, fallback, std::chrono::steady_clock::now() - std::chrono::seconds(1));
  CHECK(late.offsets == fallback.offsets);
  CHECK(late.member == "online best fit");
  // With time, it is the smaller of the fallback and the whole portfolio.
  const planner::GreedyPlan whole = planner::plan_portfolio(p);
  const planner::GreedyPlan timely =
      planner::improve_with_portfolio(p, fallback, std::chrono::steady_clock::now() + std::chrono::hours(1));
  CHECK(timely.arena_bytes == std::min(whole.arena_bytes, fallback.arena_bytes));
  CHECK(verify_plan(p, timely.offsets, timely.arena_bytes).ok());
}
