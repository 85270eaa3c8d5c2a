// The layout text's fragmentation line comes from fragmentation_summary, which must give the same
// headline as the full report (that also lists every section's holes).
#include <doctest/doctest.h>

#include "core/layout/fragmentation.h"
#include "core/layout/pipeline.h"
#include "core/schedule/schedule_generators.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;

TEST_CASE("fragmentation summary: the full report's headline, for every planner on a many-outputs chain") {
  const Graph g = many_outputs_chain_graph(400, 100, 3);
  for (const std::string planner : {"naive", "tflm-greedy", "portfolio"}) {
    CAPTURE(planner);
    const GraphPlan p = plan_graph(g, g.file_order(), {.planner = planner, .time_limit_seconds = 0});
    const FragmentationReport full = fragmentation_report(p.problem, p.plan.offsets, p.plan.arena_bytes);
    const FragmentationReport summary = fragmentation_summary(p.problem, p.plan.arena_bytes);
    CHECK(summary.arena_bytes == full.arena_bytes);
    CHECK(summary.lower_bound_bytes == full.lower_bound_bytes);
    CHECK(summary.excess_bytes == full.excess_bytes);
    CHECK(summary.excess_percent == full.excess_percent);
    CHECK(summary.sections.empty());
    CHECK_FALSE(full.sections.empty());
    CHECK(layout_text(p.problem, p.plan, 64).find("above the bound: " + std::to_string(full.excess_bytes) + " B") !=
          std::string::npos);
  }
}
