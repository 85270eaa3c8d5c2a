// write_layout_json (what `arenaplan layout --json` prints) is byte for byte layout_json().dump(2),
// on graphs' problems, random problems, a proven plan (optimality sentence), odd names and none.
#include <doctest/doctest.h>

#include <sstream>

#include "core/layout/layout.h"
#include "core/layout/layout_generators.h"
#include "core/layout/pipeline.h"
#include "core/schedule/schedule_generators.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using arenaplan::test::add_buffer;
using arenaplan::test::example_graph;

namespace {

void check_same(const LayoutProblem& p, const ArenaPlan& plan) {
  std::ostringstream streamed;
  write_layout_json(streamed, p, plan);
  CHECK(streamed.str() == layout_json(p, plan).dump(2));
}

}  // namespace

TEST_CASE("the streamed layout JSON is byte for byte layout_json().dump(2)") {
  const std::vector<Graph> graphs = {example_graph("two_branch"), many_outputs_chain_graph(200, 40, 2), recent_reads_graph(300, 3)};
  for (const Graph& g : graphs) {
    CAPTURE(g.name);
    const GraphPlan gp = plan_graph(g, g.file_order(), {.planner = "best", .time_limit_seconds = 0.2});
    check_same(gp.problem, gp.plan);
  }
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const LayoutProblem p = random_layout_problem(150, seed, seed % 2 == 0);
    check_same(p, plan_arena(p, {.planner = "portfolio"}));
  }
  LayoutProblem odd;
  add_buffer(odd, "a \"quoted\" name\\with\nnewline", 48, 0, 2);
  add_buffer(odd, "", 16, 1, 1);
  ArenaPlan plan = plan_arena(odd, {.planner = "naive"});
  plan.seconds = 0.000123456789;
  check_same(odd, plan);
  check_same(LayoutProblem{}, ArenaPlan{});
}
