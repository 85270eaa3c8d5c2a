// MiniMalloc CSV import/export: half-open lifetimes, located errors, round trip.
#include <doctest/doctest.h>

#include "core/layout/minimalloc_csv.h"

using namespace arenaplan;

TEST_CASE("MiniMalloc CSV: [lower, upper) becomes first = lower, last = upper - 1") {
  MiniMallocCsv csv = parse_minimalloc_csv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\r\n\nb3,0,9,4\n");
  REQUIRE(csv.problem.buffers.size() == 3);
  CHECK(csv.problem.buffers[0].name == "b1");
  CHECK(csv.problem.buffers[0].first == 0);
  CHECK(csv.problem.buffers[0].last == 2);
  CHECK(csv.problem.buffers[1].first == 3);
  CHECK(csv.problem.buffers[1].last == 8);
  CHECK(csv.problem.buffers[2].alignment == 1);
  CHECK(csv.offsets.empty());
  // b1 [0,3) and b2 [3,9) never coexist: the bound is 8 (b3 + one of them), not 12.
  CHECK(layout_lower_bound(csv.problem) == 8);
}

TEST_CASE("MiniMalloc CSV: the offset and alignment columns, and a round trip") {
  MiniMallocCsv csv = parse_minimalloc_csv("id,lower,upper,size,alignment,offset\na,0,2,10,2,0\nb,1,3,6,2,10\n");
  CHECK(csv.offsets == std::vector<Bytes>{0, 10});
  CHECK(csv.problem.buffers[1].alignment == 2);
  CHECK(verify_plan(csv.problem, csv.offsets, 16).ok());
  std::string text = minimalloc_csv(csv.problem, csv.offsets);
  CHECK(text == "id,lower,upper,size,alignment,offset\na,0,2,10,2,0\nb,1,3,6,2,10\n");
  CHECK(looks_like_minimalloc_csv(text));
  CHECK_FALSE(looks_like_minimalloc_csv("{\"format\": \"arenaplan-graph\"}"));
}

TEST_CASE("MiniMalloc CSV errors name the line and column") {
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,upper,size\na,0,x,4\n"),
                       "line 2, column 3 (upper): expected an integer, found \"x\"", InputError);
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,upper,size\na,5,5,4\n"),
                       doctest::Contains("line 2, column 3 (upper): must be greater than lower"), InputError);
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,upper,size\na,0,1,4\na,1,2,4\n"),
                       doctest::Contains("line 3, column 1 (id): id \"a\" appears twice"), InputError);
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,upper,size\na,0,1\n"), doctest::Contains("line 2: expected 4 fields"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,size\n"), doctest::Contains("lacks the column upper"), InputError);
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,upper,size,colour\n"),
                       doctest::Contains("line 1, column 5 (colour): unknown column"), InputError);
  CHECK_THROWS_WITH_AS(parse_minimalloc_csv("id,lower,upper,size\na,0,1,-4\n"),
                       doctest::Contains("column 4 (size): must not be negative"), InputError);
  CHECK_THROWS_AS(parse_minimalloc_csv(""), InputError);
}

TEST_CASE("MiniMalloc's own 5-buffer example (input.12.csv) plans at its bound of 12") {
  MiniMallocCsv csv = parse_minimalloc_csv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n");
  CHECK(layout_lower_bound(csv.problem) == 12);
  ArenaPlan plan = plan_arena(csv.problem, {"best", 1});
  CHECK(plan.arena_bytes == 12);
  CHECK(plan.proven_optimal);
}
