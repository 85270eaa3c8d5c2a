// The exercise kinds about whole plans (core/teach/exercise.h): fit_budget and broken_rule, on
// the two-branch graph whose facts docs/DESIGN.md states. In the order A, B, C, D, E, F the buffers are
// I 16 KiB (step 0), A 32 (0..3: D reads it at step 3), B 96 (1..2), C 8 (2..5), D 64 (3..4),
// E 8 (4..5), F 16 (5); all of them sum to 240 KiB, and the peak is 136 KiB.
#include <doctest/doctest.h>

#include "core/graph/examples.h"
#include "core/layout/pipeline.h"
#include "core/teach/exercise.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

// A valid 136 KiB plan of two_branch in ABCDEF, worked out by hand from the lifetimes above.
struct HandPlan {
  std::string offsets[7][2] = {{"I", "32768"}, {"A", "0"},     {"B", "32768"}, {"C", "131072"},
                               {"D", "32768"}, {"E", "98304"}, {"F", "65536"}};
  std::string arena = "139264";
  std::string stated_a_last;  // "" keeps A's true lifetime

  std::string exercise() const {
    std::string buffers;
    for (const auto& [name, offset] : offsets) {
      buffers += std::string(buffers.empty() ? "" : ",") + "{\"name\":\"" + name + "\",\"offset\":" + offset;
      if (name == std::string("A") && !stated_a_last.empty()) buffers += ",\"last\":" + stated_a_last;
      buffers += "}";
    }
    return R"({"format":"arenaplan-exercise","name":"t","question":"Q?","kind":"broken_rule","graph":"two_branch",
      "order":"A,B,C,D,E,F","plan":{"arena_bytes":)" + arena + R"(,"buffers":[)" + buffers + "]}}";
  }
  HandPlan& set(const std::string& name, const std::string& offset) {
    for (auto& row : offsets)
      if (row[0] == name) row[1] = offset;
    return *this;
  }
};

std::string fit_budget(const std::string& params) {
  return R"({"format":"arenaplan-exercise","name":"t","question":"Q?","kind":"fit_budget","graph":"two_branch",)" +
         params + "}";
}

}  // namespace

TEST_CASE("a plan that breaks no rule, or two, makes no broken_rule question") {
  CHECK_THROWS_WITH_AS(parse_exercise_json(HandPlan().exercise()), doctest::Contains("breaks no rule"), InputError);
  HandPlan two;
  two.set("D", "16384").set("E", "98312");  // D on A at step 3, and E misaligned
  CHECK_THROWS_WITH_AS(parse_exercise_json(two.exercise()), doctest::Contains("breaks 2 rules"), InputError);
  HandPlan missing;
  missing.offsets[6][0] = "G";
  CHECK_THROWS_WITH_AS(parse_exercise_json(missing.exercise()), doctest::Contains("/plan"), InputError);
}

TEST_CASE("D moved onto A while D reads A: overlap A D, and only that") {
  HandPlan p;
  p.set("D", "16384");
  const Exercise ex = parse_exercise_json(p.exercise());
  CHECK(check_answer(ex, "overlap A D").correct);
  CHECK(check_answer(ex, "overlap; D, A").correct);
  CHECK_FALSE(check_answer(ex, "overlap A").correct);       // half of the pair
  CHECK_FALSE(check_answer(ex, "A D").correct);             // no rule
  CHECK_FALSE(check_answer(ex, "freed-early A").correct);   // the plan's lifetimes are the true ones
  CHECK_FALSE(check_answer(ex, "overlap B D").correct);
  CHECK(check_answer(ex, "overlap Q").feedback.find("no buffer or rule") != std::string::npos);
}

TEST_CASE("a planner told A dies after B reuses A's bytes for D: freed-early A") {
  HandPlan p;
  p.stated_a_last = "1";
  p.set("D", "0");
  const Exercise ex = parse_exercise_json(p.exercise());
  CHECK(check_answer(ex, "freed-early A").correct);
  CHECK(check_answer(ex, "freed-early A D").correct);
  const AnswerCheck overlap = check_answer(ex, "overlap A D");
  CHECK_FALSE(overlap.correct);
  CHECK(overlap.feedback.find("plan's own lifetimes") != std::string::npos);
  CHECK_FALSE(check_answer(ex, "freed-early D").correct);
  // The built-in example is this very plan.
  const Exercise builtin = parse_exercise_json(*find_example("exercise_broken_rule"));
  CHECK(check_answer(builtin, "freed-early A").correct);
}

TEST_CASE("a misaligned offset and a buffer past the arena's end are named with their tensor") {
  HandPlan misaligned;
  misaligned.set("E", "98312");  // 96 KiB + 8: not a multiple of 16
  const Exercise a = parse_exercise_json(misaligned.exercise());
  CHECK(check_answer(a, "alignment E").correct);
  CHECK(check_answer(a, "misaligned E").correct);
  CHECK_FALSE(check_answer(a, "alignment C").correct);
  HandPlan short_arena;
  short_arena.arena = "133120";  // 130 KiB: only C (128..136 KiB) ends past it
  const Exercise b = parse_exercise_json(short_arena.exercise());
  CHECK(check_answer(b, "arena-end C").correct);
  CHECK_FALSE(check_answer(b, "arena-end B").correct);  // B ends at 128 KiB, inside
}

TEST_CASE("fit_budget: naive needs the sum of all sizes, a reusing planner fits 160 KiB") {
  const Exercise ex = parse_exercise_json(fit_budget(R"("order":"A,B,C,D,E,F","budget":"160KiB")"));
  const AnswerCheck naive = check_answer(ex, "naive");
  CHECK_FALSE(naive.correct);
  CHECK(naive.feedback.find("240 KiB") != std::string::npos);
  CHECK_FALSE(check_answer(ex, "linear").correct);
  CHECK(check_answer(ex, "portfolio").correct);
  CHECK_FALSE(check_answer(ex, "exact").correct);  // not a choice: its result depends on the time limit
  CHECK(check_answer(parse_exercise_json(*find_example("exercise_fit_budget")), "tflm-greedy").correct ==
        (plan_graph(example_graph("two_branch"), parse_order(example_graph("two_branch"), "A,B,C,D,E,F"),
                    {.planner = "tflm-greedy"}).plan.arena_bytes <= 160 * 1024));
}

TEST_CASE("fit_budget with a planner asks for an order: ABDCEF peaks at 192 KiB, so no arena of it fits 191 KiB") {
  const Exercise ex = parse_exercise_json(fit_budget(R"("planner":"portfolio","budget":"191KiB")"));
  CHECK(ex.answer_is_order());
  CHECK_FALSE(check_answer(ex, "ABDCEF").correct);
  CHECK(check_answer(ex, "ABCDEF").correct);
  CHECK_FALSE(check_answer(ex, "ABZ").correct);
}

TEST_CASE("fit_budget refuses planners with a time limit, budgets nothing meets, and an order beside a planner") {
  CHECK_THROWS_WITH_AS(parse_exercise_json(fit_budget(R"("planners":["exact"],"budget":"200KiB")")),
                       doctest::Contains("/planners/0"), InputError);
  CHECK_THROWS_WITH_AS(parse_exercise_json(fit_budget(R"("planners":["naive","linear"],"budget":"200KiB")")),
                       doctest::Contains("/budget"), InputError);
  CHECK_THROWS_WITH_AS(parse_exercise_json(fit_budget(R"("planner":"portfolio","budget":"100KiB")")),
                       doctest::Contains("/budget"), InputError);  // below the optimal peak (136 KiB)
  CHECK_THROWS_WITH_AS(parse_exercise_json(fit_budget(R"("planner":"portfolio","order":"A,B,C,D,E,F","budget":"200KiB")")),
                       doctest::Contains("/planner"), InputError);
}

TEST_CASE("the attempt log replays to the counts; a lowered count or a log after the correct answer is refused") {
  const Exercise ex = parse_exercise_json(*find_example("exercise_predict_peak"));  // ABDCEF: 192 KiB
  ExerciseProgress p;
  submit_answer(ex, p, "150 KiB");
  submit_answer(ex, p, "192 KiB");
  submit_answer(ex, p, "1 KiB");  // after solving: not recorded
  CHECK(p.log == std::vector<std::string>{"150 KiB", "192 KiB"});
  CHECK(progress_from_json(progress_json(p), ex, "").wrong == 1);
  JsonOut lowered = progress_json(p);
  lowered["wrong"] = 0;
  lowered["attempts"] = 1;
  CHECK_THROWS_WITH_AS(progress_from_json(lowered, ex, "/p"), doctest::Contains("/p/attempts"), InputError);
  JsonOut longer = progress_json(p);
  longer["log"].push_back("200 KiB");
  CHECK_THROWS_WITH_AS(progress_from_json(longer, ex, "/p"), doctest::Contains("after a correct answer"), InputError);
}
