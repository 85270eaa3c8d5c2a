// The planner registry (core/layout/planner.h) and the one pipeline (core/layout/pipeline.h):
// every planner is reachable by name, plans the article's graph to a verified arena, and the
// pipeline gives what the hand-built sequence gives.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/layout/layout_generators.h"
#include "core/layout/pipeline.h"
#include "core/layout/planner.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using arenaplan::test::example_graph;

TEST_CASE("the registry holds the six planners layout.h documents, in the UI's order") {
  const std::vector<std::string> documented = {"naive", "linear", "tflm-greedy", "portfolio", "exact", "best"};
  CHECK(planner_names() == documented);
  for (const std::string& name : documented) {
    const Planner* p = find_planner(name);
    REQUIRE(p != nullptr);
    CHECK(p->name == name);
    CHECK_FALSE(p->description.empty());
    CHECK(static_cast<bool>(p->plan));
  }
  CHECK(find_planner("greedy") == nullptr);
  CHECK(planner_list_text(", ", " or ") == "naive, linear, tflm-greedy, portfolio, exact or best");
  CHECK(planner_list_text("|", "|") == "naive|linear|tflm-greedy|portfolio|exact|best");
}

TEST_CASE("an unknown planner is refused with every registered name in the message") {
  const LayoutProblem p = random_layout_problem(8, 1, true);
  CHECK_THROWS_WITH_AS(plan_arena(p, {.planner = "greedy"}),
                       "planner: unknown planner \"greedy\" (expected naive, linear, tflm-greedy, portfolio, exact or best)",
                       InputError);
}

TEST_CASE("every registered planner plans two-branch (peak 136 KiB during C) to a verified arena") {
  const Graph g = example_graph("two_branch");
  for (const Planner& p : planners()) {
    CAPTURE(p.name);
    const GraphPlan r = plan_graph(g, g.file_order(), {.planner = p.name, .time_limit_seconds = 1.0});
    CHECK(r.plan.planner == p.name);
    CHECK(r.plan.verified);
    CHECK(r.plan.lower_bound_bytes == 136 * 1024);
    CHECK(r.plan.arena_bytes >= 136 * 1024);
    CHECK(verify_plan(r.problem, r.plan.offsets, r.plan.arena_bytes).ok());
  }
}

TEST_CASE("plan_graph is lifetimes -> layout problem -> plan, as built by hand") {
  const Graph g = example_graph("inception_cell");
  const Schedule order = topological_order(g);
  const GraphPlan piped = plan_graph(g, order, {.planner = "tflm-greedy"});
  const LiveAnalysis live = analyze_lifetimes(g, order);
  const LayoutProblem problem = layout_problem(g, live);
  const ArenaPlan by_hand = plan_arena(problem, {.planner = "tflm-greedy"});
  CHECK(piped.live.peak_bytes == live.peak_bytes);
  CHECK(piped.live.order == live.order);
  REQUIRE(piped.problem.buffers.size() == problem.buffers.size());
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    CHECK(piped.problem.buffers[i].name == problem.buffers[i].name);
    CHECK(piped.problem.buffers[i].size == problem.buffers[i].size);
  }
  CHECK(piped.plan.offsets == by_hand.offsets);
  CHECK(piped.plan.arena_bytes == by_hand.arena_bytes);
}

TEST_CASE("only the interactive planners run on every edit, and the anytime one names its seed") {
  int anytime = 0;
  for (const Planner& p : planners()) {
    if (!p.start_search) continue;
    ++anytime;
    CHECK_FALSE(p.interactive);
    const Planner* seed = find_planner(p.seed_planner);
    REQUIRE(seed != nullptr);
    CHECK(seed->interactive);
  }
  CHECK(anytime == 1);
  CHECK(find_planner("portfolio")->interactive);
  CHECK_FALSE(find_planner("best")->interactive);
}

TEST_CASE("the exact planner's anytime search only improves its seed and ends on a verified plan") {
  const Planner& exact = *find_planner("exact");
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    const LayoutProblem p = random_layout_problem(14, seed, true);
    const ArenaPlan start = plan_arena(p, {.planner = exact.seed_planner});
    auto search = exact.start_search(p, start.offsets, start.arena_bytes);
    int slices = 0;
    while (!search->done() && slices < 2000) {
      search->step(64);
      ++slices;
      CHECK(search->best_arena_bytes() <= start.arena_bytes);
      CHECK(search->progress() >= 0.0);
      CHECK(search->progress() <= 1.0);
    }
    if (!search->done()) search->cancel();
    CHECK(search->done());
    CHECK(verify_plan(p, search->best_so_far(), search->best_arena_bytes()).ok());
    CHECK(search->best_arena_bytes() >= layout_lower_bound(p));
    CHECK_FALSE(search->status_text().empty());
    CHECK(search->progress_text().find("best ") == 0);
  }
}
