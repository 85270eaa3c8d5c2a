// Layout planners against independently known truths: the article's two-branch numbers, TFLM's
// GreedyMemoryPlanner worked by hand and measured on the MiniMalloc files, and random instances.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/layout/layout.h"
#include "core/layout/minimalloc_csv.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

LayoutBuffer buf(const std::string& name, Bytes size, Step first, Step last, Bytes alignment = 16) {
  LayoutBuffer b;
  b.name = name;
  b.size = size;
  b.first = first;
  b.last = last;
  b.alignment = alignment;
  return b;
}

int index_of(const LayoutProblem& p, const std::string& name) {
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].name == name) return static_cast<int>(i);
  FAIL("no buffer " << name);
  return -1;
}

LayoutProblem two_branch_problem(const std::string& order = "A,B,C,D,E,F") {
  Graph g = example_graph("two_branch");
  return layout_problem(g, analyze_lifetimes(g, parse_order(g, order)));
}

}  // namespace

TEST_CASE("two-branch ABCDEF: every planner verifies, the bound is 136 KiB and tflm-greedy meets it") {
  LayoutProblem p = two_branch_problem();
  CHECK(layout_lower_bound(p) == 136 * KiB);
  for (const std::string& name : planner_names()) {
    ArenaPlan plan = plan_arena(p, {name, 2.0});
    CAPTURE(name);
    CHECK(plan.verified);
    CHECK(plan.lower_bound_bytes == 136 * KiB);
    CHECK(plan.arena_bytes >= 136 * KiB);
    CHECK(verify_plan(p, plan.offsets, plan.arena_bytes).ok());
  }
  // No reuse at all: every tensor its own space, 240 KiB.
  CHECK(plan_arena(p, {"naive", 1}).arena_bytes == 240 * KiB);
  CHECK(plan_arena(p, {"linear", 1}).arena_bytes == 240 * KiB);
  // Worked by hand with TFLM's rule: B 0, D 0, A 96K, F 0, I 0, E 64K, C 128K -> 136 KiB.
  ArenaPlan greedy = plan_arena(p, {"tflm-greedy", 1});
  CHECK(greedy.offsets[index_of(p, "B")] == 0);
  CHECK(greedy.offsets[index_of(p, "D")] == 0);
  CHECK(greedy.offsets[index_of(p, "A")] == 96 * KiB);
  CHECK(greedy.offsets[index_of(p, "F")] == 0);
  CHECK(greedy.offsets[index_of(p, "I")] == 0);
  CHECK(greedy.offsets[index_of(p, "E")] == 64 * KiB);
  CHECK(greedy.offsets[index_of(p, "C")] == 128 * KiB);
  CHECK(greedy.arena_bytes == 139264);
  CHECK(greedy.proven_optimal);
  ArenaPlan best = plan_arena(p, {"best", 2});
  CHECK(best.arena_bytes == 139264);
  CHECK(best.proven_optimal);
}

TEST_CASE("two-branch ABDCEF: the bound is 192 KiB and best reaches it") {
  LayoutProblem p = two_branch_problem("A,B,D,C,E,F");
  ArenaPlan best = plan_arena(p, {"best", 2});
  CHECK(best.lower_bound_bytes == 192 * KiB);
  CHECK(best.arena_bytes == 192 * KiB);
}

TEST_CASE("tflm-greedy: equal sizes are placed in descending buffer index (TFLM fills its sort array from the tail)") {
  // x [0,0], y [1,1], z [0,1], all 32 bytes. TFLM order z, y, x: z at 0, y and x above it at 32.
  LayoutProblem p;
  p.buffers = {buf("x", 32, 0, 0), buf("y", 32, 1, 1), buf("z", 32, 0, 1)};
  ArenaPlan plan = plan_arena(p, {"tflm-greedy", 1});
  CHECK(plan.offsets == std::vector<Bytes>{32, 32, 0});
  CHECK(plan.arena_bytes == 64);
}

TEST_CASE("tflm-greedy: sizes round up to 16 bytes; the first gap in offset order that holds the buffer wins") {
  // a 100 B -> 112, b 40 -> 48, c 8 -> 16; all live together at step 1.
  LayoutProblem p;
  p.buffers = {buf("a", 100, 0, 1, 1), buf("b", 40, 1, 2, 1), buf("c", 8, 1, 1, 1)};
  ArenaPlan plan = plan_arena(p, {"tflm-greedy", 1});
  CHECK(plan.offsets == std::vector<Bytes>{0, 112, 160});
  CHECK(plan.arena_bytes == 176);  // TFLM's GetMaximumMemorySize counts the rounded size
}

TEST_CASE("tflm-greedy: offline-planned buffers keep their offsets and are placed first") {
  // f fixed at 64 (32 B, steps 0..2); then by size: g 64 B [2,3] at 0 (gap below f holds it),
  // h 48 B [0,1] at 0, k 16 B [1,2]: walks g(0) h(0) f(64) and lands on top of f at 96.
  LayoutProblem p;
  p.buffers = {buf("f", 32, 0, 2), buf("h", 48, 0, 1), buf("k", 16, 1, 2), buf("g", 64, 2, 3)};
  p.buffers[0].fixed_offset = 64;
  ArenaPlan plan = plan_arena(p, {"tflm-greedy", 1});
  CHECK(plan.offsets == std::vector<Bytes>{64, 0, 96, 0});
  CHECK(plan.arena_bytes == 112);
  // Every planner keeps the fixed offset.
  for (const std::string& name : planner_names()) CHECK(plan_arena(p, {name, 1}).offsets[0] == 64);
}

TEST_CASE("tflm-greedy reproduces the real TFLM GreedyMemoryPlanner on MiniMalloc-format instances") {
  // tests/unit/data/minimalloc/: written by generate.py there; GetMaximumMemorySize() of TFLM's own
  // GreedyMemoryPlanner (tflite-micro 90b983c2) for each, recorded in that folder's README.
  const std::string dir = source_path("tests/unit/data/minimalloc/");
  const std::vector<std::pair<std::string, Bytes>> expected = {
      {"P", 3953152}, {"Q", 8729088}, {"R", 10164736}, {"S", 17806848}};
  for (const auto& entry : expected) {
    const std::string& name = entry.first;
    const Bytes arena = entry.second;
    CAPTURE(name);
    MiniMallocCsv csv = parse_minimalloc_csv(read_test_file(dir + name + ".csv"));
    ArenaPlan plan = plan_arena(csv.problem, {"tflm-greedy", 1});
    CHECK(plan.arena_bytes == arena);
    CHECK(plan.verified);
  }
}

TEST_CASE("unknown planner names and impossible problems are input errors") {
  LayoutProblem p;
  p.buffers = {buf("a", 16, 0, 1)};
  CHECK_THROWS_WITH_AS(plan_arena(p, {"magic", 1}), doctest::Contains("unknown planner \"magic\""), InputError);
  p.buffers[0].fixed_offset = 8;
  CHECK_THROWS_WITH_AS(plan_arena(p, {"naive", 1}), doctest::Contains("not a multiple of the alignment"), InputError);
  p.buffers[0].fixed_offset.reset();
  p.buffers[0].last = -1;
  CHECK_THROWS_WITH_AS(plan_arena(p, {"naive", 1}), doctest::Contains("before first step"), InputError);
  LayoutProblem clash;
  clash.buffers = {buf("a", 32, 0, 1), buf("b", 32, 1, 2)};
  clash.buffers[0].fixed_offset = 0;
  clash.buffers[1].fixed_offset = 16;
  CHECK_THROWS_WITH_AS(plan_arena(clash, {"tflm-greedy", 1}), doctest::Contains("overlap"), InputError);
}

TEST_CASE("an empty problem plans to an empty arena") {
  for (const std::string& name : planner_names()) {
    ArenaPlan plan = plan_arena(LayoutProblem{}, {name, 1});
    CHECK(plan.arena_bytes == 0);
    CHECK(plan.verified);
  }
}

TEST_CASE("property: on random instances every planner's plan verifies, is >= the bound, and best <= tflm-greedy") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 60; ++trial) {
    LayoutProblem p;
    const int n = 1 + static_cast<int>(rng() % 40);
    const int horizon = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      Step a = static_cast<Step>(rng() % horizon), b = static_cast<Step>(rng() % horizon);
      const Bytes align = Bytes{1} << (rng() % 6);
      p.buffers.push_back(buf("b" + std::to_string(i), static_cast<Bytes>(rng() % 5000), std::min(a, b), std::max(a, b), align));
    }
    const Bytes bound = layout_lower_bound(p);
    Bytes tflm = 0;
    for (const std::string& name : planner_names()) {
      CAPTURE(trial);
      CAPTURE(name);
      ArenaPlan plan = plan_arena(p, {name, 0.05});
      CHECK(verify_plan(p, plan.offsets, plan.arena_bytes).ok());
      CHECK(plan.arena_bytes >= bound);
      if (name == "tflm-greedy") tflm = plan.arena_bytes;
      if (name == "best" || name == "portfolio") CHECK(plan.arena_bytes <= tflm);
    }
  }
}

TEST_CASE("layout_json follows the CLI contract") {
  LayoutProblem p = two_branch_problem();
  ArenaPlan plan = plan_arena(p, {"tflm-greedy", 1});
  auto j = layout_json(p, plan);
  CHECK(j["planner"] == "tflm-greedy");
  CHECK(j["arena_bytes"] == 139264);
  CHECK(j["lower_bound_bytes"] == 139264);
  CHECK(j["verified"] == true);
  CHECK(j["buffers"].size() == 7);
  CHECK(j["buffers"][0]["name"] == "I");
  CHECK(j["buffers"][0].contains("offset"));
  CHECK(j["buffers"][0]["first"] == 0);
}

TEST_CASE("plan_picture draws one row per step, time down, address across") {
  LayoutProblem p = two_branch_problem();
  ArenaPlan plan = plan_arena(p, {"tflm-greedy", 1});
  std::string pic = plan_picture(p, plan.offsets, 34);
  // 136 KiB over 34 columns = 4 KiB per column; step 2 (op C) holds B (0..96K), A (96..128K) and
  // C (128..136K): the whole arena, no free column.
  std::istringstream lines(pic);
  std::string row0, row1, row2;
  std::getline(lines, row0);
  std::getline(lines, row1);
  std::getline(lines, row2);
  CHECK(row2.find('.') == std::string::npos);
  CHECK(row0.find('.') != std::string::npos);
  CHECK(pic.find("B: offset 0, size 98304, steps 1..2") != std::string::npos);
}

TEST_CASE("category usage: head, temp and tail reported separately") {
  std::string text = *find_example("two_branch");
  text.replace(text.find(R"("inputs": ["A"], "outputs": ["D"])"), 33,
               R"("inputs": ["A"], "outputs": ["D"], "scratch_bytes": "48KiB")");
  Graph g = parse_graph_json(text);
  LayoutProblem p = layout_problem(g, analyze_lifetimes(g, g.file_order()));
  ArenaPlan plan = plan_arena(p, {"naive", 1});
  std::vector<CategoryUsage> u = category_usage(p, plan.offsets);
  REQUIRE(u.size() == 3);
  CHECK(u[0].category == ArenaCategory::kHead);
  CHECK(u[0].buffers == 7);
  CHECK(u[0].peak_live_bytes == 136 * KiB);
  CHECK(u[1].buffers == 1);
  CHECK(u[1].peak_live_bytes == 48 * KiB);
  CHECK(u[1].span_bytes == 48 * KiB);
  CHECK(u[2].buffers == 0);
}
