// The article's scratch question (docs/DESIGN.md): 48 KiB of scratch during D in order ABCDEF.
#include <doctest/doctest.h>

#include "core/layout/fragmentation.h"
#include "core/layout/layout.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

Graph two_branch_with_scratch(const std::string& amount) {
  std::string text = *find_example("two_branch");
  text.replace(text.find(R"("inputs": ["A"], "outputs": ["D"])"), 33,
               R"("inputs": ["A"], "outputs": ["D"], "scratch_bytes": ")" + amount + R"(")");
  return parse_graph_json(text);
}

}  // namespace

TEST_CASE("scratch 48 KiB during D: the old 136 KiB placement's largest hole is 32 KiB, a reservation costs 184 KiB") {
  Graph g = example_graph("two_branch");
  LiveAnalysis live = analyze_lifetimes(g, parse_order(g, "A,B,C,D,E,F"));
  LayoutProblem p = layout_problem(g, live);
  // The 136 KiB placement TFLM's rule builds (worked by hand in test_layout.cpp): during D (step 3)
  // A sits at 96..128 KiB, C at 128..136, D at 0..64, leaving one hole of 64..96 KiB.
  ArenaPlan old = plan_arena(p, {"tflm-greedy", 1});
  REQUIRE(old.arena_bytes == 136 * KiB);
  ScratchFit fit = scratch_fit(p, old.offsets, old.arena_bytes, 3, 48 * KiB);
  CHECK_FALSE(fit.fits);
  CHECK(fit.largest_hole == 32 * KiB);
  CHECK(fit.reservation_arena == 184 * KiB);
  std::vector<Hole> holes = holes_at(p, old.offsets, old.arena_bytes, 3);
  REQUIRE(holes.size() == 1);
  CHECK(holes[0].begin == 64 * KiB);
  CHECK(holes[0].end == 96 * KiB);
  // 32 KiB would fit, at the hole's start.
  ScratchFit small = scratch_fit(p, old.offsets, old.arena_bytes, 3, 32 * KiB);
  CHECK(small.fits);
  CHECK(small.offset == 64 * KiB);
}

TEST_CASE("scratch 48 KiB during D: bound 152 KiB and the planner constructs a verified 152 KiB plan") {
  Graph g = two_branch_with_scratch("48KiB");
  LayoutProblem p = layout_problem(g, analyze_lifetimes(g, parse_order(g, "A,B,C,D,E,F")));
  ArenaPlan plan = plan_arena(p, {"best", 5});
  CHECK(plan.lower_bound_bytes == 152 * KiB);
  CHECK(plan.arena_bytes == 155648);
  CHECK(plan.verified);
  CHECK(plan.proven_optimal);
  CHECK(verify_plan(p, plan.offsets, 152 * KiB).ok());
  // bound max(136, 104 + S) for other amounts: S = 16 KiB keeps 136 KiB.
  Graph g16 = two_branch_with_scratch("16KiB");
  LayoutProblem p16 = layout_problem(g16, analyze_lifetimes(g16, g16.file_order()));
  CHECK(plan_arena(p16, {"best", 5}).arena_bytes == 136 * KiB);
}

TEST_CASE("fragmentation report: holes per section and the excess over the bound") {
  Graph g = example_graph("two_branch");
  LayoutProblem p = layout_problem(g, analyze_lifetimes(g, g.file_order()));
  ArenaPlan naive = plan_arena(p, {"naive", 1});  // 240 KiB, nothing shared
  FragmentationReport r = fragmentation_report(p, naive.offsets, naive.arena_bytes);
  CHECK(r.excess_bytes == (240 - 136) * KiB);
  REQUIRE(r.sections.size() == 6);
  // Live KiB per step 48, 128, 136, 104, 80, 32: the holes add up to the rest of 240.
  const Bytes live[] = {48, 128, 136, 104, 80, 32};
  for (int s = 0; s < 6; ++s) {
    Bytes free = 0;
    for (const Hole& h : r.sections[s].holes) free += h.bytes();
    CHECK(r.sections[s].live_bytes == live[s] * KiB);
    CHECK(free == (240 - live[s]) * KiB);
  }
  CHECK(fragmentation_json(r)["sections"].size() == 6);
}

// The Budget's separate-scratch policy places scratch by this rule; it used to take the largest
// hole only, which after aligning its start can be too small while a smaller aligned one holds it.
TEST_CASE("scratch over a step range: the lowest aligned hole that holds it, not the largest hole") {
  LayoutProblem p;
  // X at [0, 3) during steps 0..1, Y at [40, 64) during 0..2, Z at [96, 100) at step 2, W at [64, 96) at step 0.
  p.buffers = {{"X", 3, 1, 0, 1}, {"Y", 24, 8, 0, 2}, {"Z", 4, 4, 2, 2}, {"W", 32, 32, 0, 0}};
  const std::vector<Bytes> offsets = {0, 40, 96, 64};
  const std::vector<Hole> holes = holes_during(p, offsets, 100, 1, 2);
  REQUIRE(holes.size() == 2);
  CHECK(holes[0].begin == 3);
  CHECK(holes[0].end == 40);  // the largest, 37 bytes: 32-aligned, only 8 of them are left
  CHECK(holes[1].begin == 64);
  CHECK(holes[1].end == 96);
  const ScratchFit fit = scratch_fit(p, offsets, 100, 1, 2, 32, 32);
  CHECK(fit.fits);
  CHECK(fit.offset == 64);
  CHECK(fit.largest_hole == 37);
  // Step 0 alone: W fills [64, 96), so only [3, 40) and [96, 100) are free: nothing holds 32 at 32.
  CHECK_FALSE(scratch_fit(p, offsets, 100, 0, 0, 32, 32).fits);
  // Over 0..2 the holes are those free during every step of it.
  CHECK(holes_during(p, offsets, 100, 0, 2).size() == 1);
}
