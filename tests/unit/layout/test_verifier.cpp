// The verifier against crafted bad plans: each rule must be the one reported, naming the buffers.
#include <doctest/doctest.h>

#include "tests/unit/test_support.h"

#include "core/layout/layout.h"
#include "core/layout/verifier_plan.h"

using namespace arenaplan;

namespace {

LayoutProblem three_buffers() {
  // p [0,1] 32 B, q [1,2] 32 B, r [3,3] 64 B, alignment 16.
  LayoutProblem pr;
  test::add_buffer(pr, "p", 32, 0, 1, 16);
  test::add_buffer(pr, "q", 32, 1, 2, 16);
  test::add_buffer(pr, "r", 64, 3, 3, 16);
  return pr;
}

}  // namespace

TEST_CASE("verifier accepts a good plan, including buffers that share addresses at different times") {
  LayoutProblem p = three_buffers();
  CHECK(verify_plan(p, {0, 32, 0}, 64).ok());
  CHECK(verify_plan(p, {32, 0, 0}, 64).ok());
}

TEST_CASE("verifier: each broken rule is named with its buffers") {
  LayoutProblem p = three_buffers();
  VerifyResult r = verify_plan(p, {0, 32}, 64);
  CHECK(r.rule == VerifyRule::kBadCount);

  r = verify_plan(p, {0, 16, 0}, 64);  // p and q share bytes 16..31 during step 1
  CHECK(r.rule == VerifyRule::kOverlap);
  CHECK(r.buffer_a == 0);
  CHECK(r.buffer_b == 1);
  CHECK(r.message == "buffers p and q overlap at steps 1..1, bytes 16..31");

  r = verify_plan(p, {16, 0, 0}, 64);  // found while inserting q (the higher index, lower address)
  CHECK(r.message == "buffers p and q overlap at steps 1..1, bytes 16..31");

  r = verify_plan(p, {0, 0, 0}, 64);  // same start: the tie in address order must still be caught
  CHECK(r.rule == VerifyRule::kOverlap);

  r = verify_plan(p, {0, 40, 0}, 80);
  CHECK(r.rule == VerifyRule::kBadAlignment);
  CHECK(r.buffer_a == 1);

  r = verify_plan(p, {-16, 32, 0}, 64);
  CHECK(r.rule == VerifyRule::kNegativeOffset);
  CHECK(r.buffer_a == 0);

  r = verify_plan(p, {0, 32, 16}, 64);  // r ends at 80
  CHECK(r.rule == VerifyRule::kBadArenaBound);
  CHECK(r.buffer_a == 2);
  CHECK(r.message.find("ends at 80") != std::string::npos);

  p.buffers[2].fixed_offset = 0;
  r = verify_plan(p, {0, 32, 64}, 128);
  CHECK(r.rule == VerifyRule::kBadFixedOffset);
  CHECK(r.buffer_a == 2);
  CHECK(std::string(verify_rule_name(r.rule)) == "bad-fixed-offset");
}

TEST_CASE("verifier: an overlap hidden behind a long-lived buffer is still found") {
  // big lives 0..9 at [0, 1000); a and b live at step 5 only, both inside [2000, 2100).
  LayoutProblem p;
  auto add = [&](const char* name, Bytes size, Step f, Step l) { test::add_buffer(p, name, size, f, l); };
  add("big", 1000, 0, 9);
  add("a", 100, 5, 5);
  add("mid", 500, 0, 9);
  add("b", 50, 5, 5);
  CHECK(verify_plan(p, {0, 2000, 1000, 2100}, 2150).ok());
  VerifyResult r = verify_plan(p, {0, 2000, 1000, 2050}, 2150);
  CHECK(r.rule == VerifyRule::kOverlap);
  CHECK(r.buffer_a == 1);
  CHECK(r.buffer_b == 3);
  // Zero-size buffers occupy no byte and never overlap.
  add("empty", 0, 0, 9);
  CHECK(verify_plan(p, {0, 2000, 1000, 2100, 500}, 2150).ok());
}

TEST_CASE("verifier agrees with a pairwise check on random plans") {
  uint32_t seed = 7;
  auto next = [&]() { return seed = seed * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 300; ++trial) {
    LayoutProblem p;
    std::vector<Bytes> offsets;
    const int n = 2 + next() % 8;
    for (int i = 0; i < n; ++i) {
      LayoutBuffer b;
      b.name = "b" + std::to_string(i);
      b.size = 1 + next() % 40;
      b.first = next() % 6;
      b.last = b.first + next() % 4;
      b.alignment = 1;
      p.buffers.push_back(b);
      offsets.push_back(next() % 100);
    }
    bool clash = false;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const LayoutBuffer &x = p.buffers[i], &y = p.buffers[j];
        if (x.first <= y.last && y.first <= x.last && offsets[i] < offsets[j] + y.size && offsets[j] < offsets[i] + x.size)
          clash = true;
      }
    VerifyResult r = verify_plan(p, offsets, 200);
    CAPTURE(trial);
    CHECK(r.ok() == !clash);
    if (clash) CHECK(r.rule == VerifyRule::kOverlap);
  }
}

TEST_CASE("plan files: our layout JSON and MiniMalloc CSV offsets, matched by name, with located errors") {
  LayoutProblem p = three_buffers();
  PlanFile j = parse_plan_file(p, R"({"arena_bytes": 64, "buffers": [{"name": "q", "offset": 32}, {"name": "p", "offset": 0},
                                       {"name": "r", "offset": 0}]})");
  CHECK(j.offsets == std::vector<Bytes>{0, 32, 0});
  CHECK(j.arena_bytes == 64);
  PlanFile c = parse_plan_file(p, "id,lower,upper,size,offset\np,0,2,32,0\nq,1,3,32,32\nr,3,4,64,0\n");
  CHECK(c.offsets == std::vector<Bytes>{0, 32, 0});
  CHECK_THROWS_WITH_AS(parse_plan_file(p, R"({"buffers": [{"name": "p", "offset": "x"}]})"),
                       doctest::Contains("/buffers/0/offset"), InputError);
  CHECK_THROWS_WITH_AS(parse_plan_file(p, R"({"buffers": [{"name": "p", "offset": 0}]})"),
                       doctest::Contains("no offset for buffer q"), InputError);
  CHECK_THROWS_WITH_AS(parse_plan_file(p, "id,lower,upper,size\np,0,2,32\n"), doctest::Contains("no offset column"),
                       InputError);
}
