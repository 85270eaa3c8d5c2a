// Guided exercises (core/teach/exercise.h): the built-in ones parse, answers are checked against numbers
// core computes (and, here, against numbers the test computes by hand), parse errors name the
// place, the score rule and the progress record.
#include <doctest/doctest.h>

#include <set>

#include "core/teach/exercise.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

Exercise builtin(const std::string& name) {
  const std::string* text = find_example(name);
  REQUIRE_MESSAGE(text, "no built-in " << name);
  return parse_exercise_json(*text);
}

// The InputError message for an exercise text, or "" when it parses.
std::string exercise_error(const std::string& json) {
  return input_error_of([&] { parse_exercise_json(json); });
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// An exercise document: the common keys plus `rest` (the kind's parameters).
std::string doc(const std::string& kind, const std::string& rest) {
  return R"({"format":"arenaplan-exercise","name":"t","question":"Q?","kind":")" + kind + "\"," + rest + "}";
}

const char* kChain = R"({"format":"arenaplan-graph","version":1,"name":"chain","alignment":16,
  "tensors":{"x":{"bytes":4096},"y":{"bytes":8192},"z":{"bytes":4096}},
  "ops":[{"name":"p","inputs":["x"],"outputs":["y"]},{"name":"q","inputs":["y"],"outputs":["z"]}],
  "inputs":["x"],"outputs":["z"]})";

}  // namespace

TEST_CASE("every built-in exercise parses, is named after its file and never stores its answer") {
  std::set<std::string> kinds;
  int exercises = 0;
  for (const Example& e : builtin_examples()) {
    if (!is_exercise_json(e.json)) continue;
    CAPTURE(e.name);
    ++exercises;
    const Exercise ex = parse_exercise_json(e.json);
    CHECK(ex.name == e.name);
    CHECK(!ex.question.empty());
    CHECK(ex.hints.size() >= 2);
    CHECK(ex.points == 10);
    kinds.insert(exercise_kind_name(ex.kind));
    const JsonOut j = exercise_json(ex);
    CHECK_FALSE(j.contains("answer"));
    CHECK(j["kind"] == exercise_kind_name(ex.kind));
  }
  CHECK(exercises == 6);
  CHECK(kinds == std::set<std::string>{"predict_peak", "find_order", "place_tensor", "cache_misses", "fit_budget",
                                       "broken_rule"});
  CHECK(builtin_exercises().size() == 6);
  CHECK_FALSE(is_exercise_json(*find_example("two_branch")));
  CHECK_FALSE(is_exercise_json("not json"));
}

TEST_CASE("predict_peak: 192 KiB for ABDCEF in every spelling; wrong answers say too high or too low only") {
  const Exercise ex = builtin("exercise_predict_peak");
  for (const char* right : {"192 KiB", "196608", "192KiB", "196608 B", " 192 kib ", "0.1875 MiB", "196608 bytes"}) {
    CAPTURE(right);
    const AnswerCheck c = check_answer(ex, right);
    CHECK(c.correct);
    CHECK(c.feedback.find("op D") != std::string::npos);  // names where it peaks once solved
  }
  const AnswerCheck low = check_answer(ex, "136 KiB");
  CHECK_FALSE(low.correct);
  CHECK(low.feedback.find("too low") != std::string::npos);
  const AnswerCheck high = check_answer(ex, "193 KiB");
  CHECK_FALSE(high.correct);
  CHECK(high.feedback.find("too high") != std::string::npos);
  CHECK(check_answer(ex, "196609").feedback.find("too high") != std::string::npos);
  for (const char* wrong : {"136 KiB", "193 KiB", "196609", "abc", "", "192 KB", "-1", "19 2", "1e99"}) {
    CAPTURE(wrong);
    const AnswerCheck c = check_answer(ex, wrong);
    CHECK_FALSE(c.correct);
    CHECK(!c.feedback.empty());
    CHECK(c.feedback.find("192 KiB") == std::string::npos);  // never gives the answer away
    CHECK(c.feedback.find("196608") == std::string::npos);
  }
  CHECK(check_answer(ex, "192 KB").feedback.find("ambiguous") != std::string::npos);
  // A long answer of two-byte characters is quoted short without splitting a character: the
  // feedback still serialises as JSON.
  std::string umlauts;
  for (int i = 0; i < 45; ++i) umlauts += "\xC3\xBC";
  const AnswerCheck long_text = check_answer(ex, "x" + umlauts);
  CHECK_FALSE(long_text.correct);
  CHECK_NOTHROW(JsonOut(long_text.feedback).dump());
  ExerciseProgress p;
  std::string essay;
  for (int i = 0; i < 999; ++i) essay += "\xC3\xBC";
  submit_answer(ex, p, "x" + essay);
  CHECK(p.last_answer.size() <= 1000);
  CHECK_NOTHROW(progress_json(p).dump());
}

TEST_CASE("find_order: exactly the two orders that peak at 136 KiB are below 140 KiB") {
  const Exercise ex = builtin("exercise_find_order");
  CHECK(ex.limit_bytes == 140 * KiB);
  // The six valid orders and their peaks, worked out by hand from docs/DESIGN.md's sizes.
  const std::pair<const char*, Bytes> orders[] = {{"A,B,C,D,E,F", 136}, {"A,B,D,C,E,F", 192}, {"A,B,D,E,C,F", 192},
                                                  {"A,D,B,C,E,F", 192}, {"A,D,B,E,C,F", 192}, {"A,D,E,B,C,F", 136}};
  for (const auto& entry : orders) {
    const char* order = entry.first;  // no structured binding: clang 14 cannot capture one
    const Bytes peak_kib = entry.second;
    CAPTURE(order);
    const AnswerCheck c = check_answer(ex, order);
    CHECK(c.correct == (peak_kib < 140));
    CHECK(c.feedback.find("peaks at " + std::to_string(peak_kib) + " KiB") != std::string::npos);
  }
  CHECK(check_answer(ex, "ABCDEF").correct);          // one-letter op names need no separators
  CHECK(check_answer(ex, "A B C D E F").correct);
  CHECK(check_answer(ex, " A, D,E ,B,C,F ").correct);
  const AnswerCheck worse = check_answer(ex, "ABDCEF");
  CHECK(worse.feedback.find("op D") != std::string::npos);
  CHECK(worse.feedback.find("A, B and D are live") != std::string::npos);
  const AnswerCheck early = check_answer(ex, "B,A,C,D,E,F");
  CHECK_FALSE(early.correct);
  CHECK(early.feedback.find("before its input A exists") != std::string::npos);
  CHECK(check_answer(ex, "A,B,C").feedback.find("op D is missing") != std::string::npos);
  CHECK(check_answer(ex, "A,B,C,D,E,F,F").feedback.find("appears twice") != std::string::npos);
  CHECK(check_answer(ex, "a,b,c,d,e,f").feedback.find("no op \"a\"") != std::string::npos);
  CHECK_FALSE(check_answer(ex, "").correct);
}

TEST_CASE("place_tensor: every aligned offset of C is tried; the correct ones pass the verifier within 136 KiB") {
  const Exercise ex = builtin("exercise_place_c");
  const ExercisePlacement& p = ex.placement;
  REQUIRE(p.placed >= 0);
  CHECK(p.from_plan);
  const LayoutBuffer& c = p.problem.buffers[p.placed];
  CHECK(c.name == "C");
  CHECK(c.size == 8 * KiB);
  CHECK(c.first == 2);
  CHECK(c.last == 5);
  // The fixed buffers as exercise_json shows them to the student.
  const JsonOut fixed = exercise_json(ex)["fixed"];
  CHECK(fixed.size() == 6);
  int correct = 0;
  for (Bytes offset = 0; offset <= 136 * KiB; offset += 16) {
    CAPTURE(offset);
    const AnswerCheck check = check_answer(ex, std::to_string(offset));
    // The test's own judgement: C must not share a byte with a buffer live at one of its steps,
    // and must end within 136 KiB.
    bool fits = offset + c.size <= 136 * KiB;
    for (const JsonOut& b : fixed) {
      const bool same_time = b["first"].get<Step>() <= c.last && c.first <= b["last"].get<Step>();
      const Bytes lo = b["offset"].get<Bytes>(), hi = lo + b["size"].get<Bytes>();
      if (same_time && offset < hi && lo < offset + c.size) fits = false;
    }
    CHECK(check.correct == fits);
    if (check.correct) {
      ++correct;
      std::vector<Bytes> offsets = p.offsets;
      offsets[p.placed] = offset;
      CHECK(verify_plan(p.problem, offsets, 136 * KiB).ok());
      CHECK(arena_extent(p.problem, offsets) == 136 * KiB);
    } else {
      const bool explained = check.feedback.find("collides with") != std::string::npos ||
                             check.feedback.find("larger than 136 KiB") != std::string::npos;
      CHECK(explained);
    }
  }
  CHECK(correct >= 1);
  CHECK(check_answer(ex, "128 KiB").correct);  // where A (96..128 KiB) and B (0..96 KiB) leave room
  const AnswerCheck unaligned = check_answer(ex, "8");
  CHECK_FALSE(unaligned.correct);
  CHECK(unaligned.feedback.find("not aligned") != std::string::npos);
  const AnswerCheck on_b = check_answer(ex, "0");
  CHECK(on_b.feedback.find("collides with B") != std::string::npos);
  CHECK(on_b.feedback.find("buffers B and C overlap at steps 2..2") != std::string::npos);
  CHECK(check_answer(ex, "1000000000000").feedback.find("larger than 136 KiB") != std::string::npos);
  CHECK_FALSE(check_answer(ex, "here").correct);
}

TEST_CASE("place_tensor with offsets given in the file: a chain where z reuses x's bytes") {
  // x [0,0] at 0, y [0,1] at 4 KiB; z [1,1] can only start at 0 (x is dead by then) for 12 KiB.
  const Exercise ex = parse_exercise_json(doc("place_tensor", std::string(R"("graph":)") + kChain +
                                                                  R"(,"tensor":"z","arena_at_most":"12KiB","fixed":{"x":0,"y":"4KiB"})"));
  CHECK_FALSE(ex.placement.from_plan);
  CHECK(check_answer(ex, "0").correct);
  CHECK(check_answer(ex, "0 KiB").correct);
  CHECK(check_answer(ex, "8 KiB").feedback.find("collides with y") != std::string::npos);
  CHECK(check_answer(ex, "12 KiB").feedback.find("larger than 12 KiB") != std::string::npos);
  CHECK(exercise_json(ex)["graph"] == "chain");
  CHECK(exercise_json(ex)["graph_builtin"] == false);
}

TEST_CASE("cache_misses: C = 2, s = 4 misses all 17 requests; a made-up C = 4 exercise misses 4") {
  const Exercise ex = builtin("exercise_cache_misses");
  CHECK(check_answer(ex, "17").correct);
  CHECK(check_answer(ex, " 17 ").correct);
  CHECK(check_answer(ex, "16").feedback.find("too low") != std::string::npos);
  CHECK(check_answer(ex, "18").feedback.find("only 17 requests") != std::string::npos);
  CHECK_FALSE(check_answer(ex, "seventeen").correct);
  CHECK_FALSE(check_answer(ex, "-17").correct);
  // docs/DESIGN.md: C = 4, s = 4: 4 misses then hits.
  const Exercise four = parse_exercise_json(doc("cache_misses", R"("capacity":4,"stride":4,"requests":17)"));
  CHECK(check_answer(four, "4").correct);
  CHECK(check_answer(four, "17").feedback.find("too high") != std::string::npos);
  // A hand-typed list: 0 1 0 2 0 with 2 LRU lines: 0 miss, 1 miss, 0 hit, 2 miss (evicts 1), 0 hit.
  const Exercise list = parse_exercise_json(doc("cache_misses", R"("capacity":2,"blocks":[0,1,0,2,0])"));
  CHECK(list.requests == 5);
  CHECK(check_answer(list, "3").correct);
  // FIFO on the same list evicts 0 (inserted first) for 2, so the last request misses too.
  const Exercise fifo = parse_exercise_json(doc("cache_misses", R"("capacity":2,"blocks":[0,1,0,2,0],"policy":"fifo")"));
  CHECK(check_answer(fifo, "4").correct);
}

TEST_CASE("a made-up exercise on residual_block is checked against numbers worked out by hand") {
  // File order: expand, depthwise, project, pool, shortcut, add, relu. While depthwise runs, x
  // (16 KiB, pool still needs it), exp (48 KiB), dw (12 KiB) and its 2 KiB scratch are live: 78 KiB.
  const Exercise peak = parse_exercise_json(
      doc("predict_peak", R"("graph":"residual_block","order":"expand,depthwise,project,pool,shortcut,add,relu")"));
  CHECK(check_answer(peak, "78 KiB").correct);
  CHECK(check_answer(peak, std::to_string(16384 + 49152 + 12288 + 2048)).correct);
  CHECK(check_answer(peak, "76 KiB").feedback.find("too low") != std::string::npos);  // forgot the scratch
  CHECK(check_answer(peak, "104 KiB").feedback.find("too high") != std::string::npos);  // every tensor at once

  // Pooling first frees x at expand: x + exp + pool = 68 KiB is the best any order does.
  const Exercise order = parse_exercise_json(doc("find_order", R"("graph":"residual_block","peak_below":"70KiB")"));
  CHECK(check_answer(order, "pool,expand,depthwise,shortcut,project,add,relu").correct);
  CHECK(check_answer(order, "expand,pool,depthwise,shortcut,project,add,relu").correct);
  const AnswerCheck file_order = check_answer(order, "expand depthwise project pool shortcut add relu");
  CHECK_FALSE(file_order.correct);
  CHECK(file_order.feedback.find("peaks at 78 KiB at step 1 (op depthwise)") != std::string::npos);
  // Shortcut first keeps short (8 KiB) alive through expand: x + exp + short = 72 KiB.
  CHECK(check_answer(order, "pool,shortcut,expand,depthwise,project,add,relu").feedback.find("peaks at 72 KiB") !=
        std::string::npos);
  CHECK(check_answer(order, "relu,add").feedback.find("not a valid order") != std::string::npos);
  // relu overwrites sum in place: the order must still respect it.
  CHECK(exercise_error(doc("find_order", R"("graph":"residual_block","peak_below":"68KiB")")) ==
        "/peak_below: no order of this graph peaks below 68 KiB (the best order peaks at 68 KiB): the exercise has no answer");
}

TEST_CASE("exercise parse errors name the place") {
  const std::string two = R"("graph":"two_branch")";
  const std::pair<std::string, std::string> cases[] = {
      {"{", "line 1, column 2"},
      {"[]", "/: expected an exercise object"},
      {R"({"name":"t"})", "/: missing required key \"format\""},
      {R"({"format":"arenaplan-graph"})", "/format: expected \"arenaplan-exercise\""},
      {doc("guess", two), "/kind: unknown kind \"guess\""},
      {doc("predict_peak", two + R"(,"order":"A,B,C,D,E,F","answer":"136KiB")"), "/answer: unknown key"},
      {doc("predict_peak", two + R"(,"order":"A,B,C,D,E,F","peak_below":1)"), "/peak_below: unknown key"},
      {doc("predict_peak", two), "/: missing required key \"order\""},
      {doc("predict_peak", R"("graph":"nope","order":"A")"), "/graph: no built-in graph named \"nope\""},
      {doc("predict_peak", R"("graph":"two_branch_board","order":"A")"), "/graph: no built-in graph named"},
      {doc("predict_peak", R"("graph":"exercise_find_order","order":"A")"), "/graph: no built-in graph named"},
      {doc("predict_peak", R"("graph":{"tensors":{"x":{"bytes":"lots"}},"ops":[],"outputs":[]},"order":"A")"),
       "/graph/tensors/x/bytes: expected a byte size"},
      {doc("predict_peak", two + R"(,"order":"A,C,B,D,E,F")"), "/order: op C runs at step 1 before its input B"},
      {doc("predict_peak", two + R"(,"order":["A",2])"), "/order/1: expected a string"},
      {doc("predict_peak", two + R"(,"order":"A,B,C,D,E,F","hints":["ok",""])"), "/hints/1: must not be empty"},
      {doc("predict_peak", two + R"(,"order":"A,B,C,D,E,F","points":0)"), "/points: expected an integer in [1, 1000]"},
      {R"({"format":"arenaplan-exercise","kind":"predict_peak","question":"Q","graph":"two_branch","order":"A,B,C,D,E,F"})",
       "/: missing required key \"name\""},
      {doc("predict_peak", two + R"(,"order":"A,B,C,D,E,F","name":"Bad Name")"), "/name: expected at most 64"},
      {doc("find_order", two + R"(,"peak_below":"136KiB")"), "/peak_below: no order of this graph peaks below 136 KiB"},
      {doc("find_order", two + R"(,"peak_below":"-1KiB")"), "/peak_below: size must be positive"},
      {doc("place_tensor", two + R"(,"tensor":"C","arena_at_most":"136KiB")"), "/: missing required key \"fixed\""},
      {doc("place_tensor", two + R"(,"tensor":"Q","arena_at_most":"136KiB","fixed":"from_plan")"), "/tensor: no tensor \"Q\""},
      {doc("place_tensor", two + R"(,"tensor":"C","arena_at_most":"136KiB","fixed":"guess")"), "/fixed: expected \"from_plan\""},
      {doc("place_tensor", two + R"(,"tensor":"C","arena_at_most":"128KiB","fixed":"from_plan")"),
       "/arena_at_most: no offset of C keeps the arena within 128 KiB"},
      {doc("place_tensor", std::string(R"("graph":)") + kChain + R"(,"tensor":"z","arena_at_most":"12KiB","fixed":{"x":0})"),
       "/fixed: missing the offset of buffer y"},
      {doc("place_tensor", std::string(R"("graph":)") + kChain + R"(,"tensor":"z","arena_at_most":"12KiB","fixed":{"x":0,"y":4096,"w":0})"),
       "/fixed/w: no arena buffer of that name"},
      {doc("place_tensor", std::string(R"("graph":)") + kChain + R"(,"tensor":"z","arena_at_most":"12KiB","fixed":{"x":0,"y":4096,"z":0})"),
       "/fixed/z: this is the buffer the student places"},
      {doc("place_tensor", std::string(R"("graph":)") + kChain + R"(,"tensor":"z","arena_at_most":"12KiB","fixed":{"x":0,"y":0})"),
       "/fixed: the fixed offsets are not a valid placement: buffers x and y overlap"},
      {doc("place_tensor", std::string(R"("graph":)") + kChain + R"(,"tensor":"z","arena_at_most":"12KiB","fixed":{"x":0,"y":9223372036854775807})"),
       "/fixed/y: buffer y (8 KiB) at 9223372036854775807 B ends past arena_at_most (12 KiB)"},
      {doc("cache_misses", R"("capacity":2,"stride":4)"), "/: missing required key \"requests\""},
      {doc("cache_misses", R"("capacity":100000,"stride":4,"requests":3)"), "/capacity: expected an integer in [1, 256]"},
      {doc("cache_misses", R"("capacity":2,"stride":4,"requests":1000000)"), "/requests: expected an integer in [1, 10000]"},
      {doc("cache_misses", R"("capacity":2,"stride":4,"blocks":[1],"requests":3)"), "/: give either \"stride\""},
      {doc("cache_misses", R"("capacity":4,"ways":3,"stride":4,"requests":3)"), "/ways: must divide the capacity"},
      {doc("cache_misses", R"("capacity":0,"stride":4,"requests":3)"), "/capacity: expected an integer in [1, 256]"},
      {doc("cache_misses", R"("capacity":2,"stride":4,"requests":3,"policy":"random")"), "/policy: unknown policy"},
      {doc("cache_misses", R"("capacity":2,"blocks":[0,-1])"), "/blocks/1: expected an integer in [0, "},
      {doc("cache_misses", R"("capacity":2,"blocks":[0,1],"requests":3)"), "/requests: expected an integer in [1, 2]"},
      {doc("cache_misses", R"("capacity":2,"stride":4,"requests":3,"graph":"two_branch")"), "/graph: unknown key"},
  };
  for (const auto& entry : cases) {
    const std::string& json = entry.first;
    const std::string& expected = entry.second;
    CAPTURE(json);
    const std::string error = exercise_error(json);
    CHECK_MESSAGE(starts_with(error, expected), error);
  }
}

TEST_CASE("score: points minus 2 per wrong answer and 3 per hint, at least 1 once solved, 0 before") {
  const Exercise ex = builtin("exercise_predict_peak");
  ExerciseProgress p;
  CHECK(exercise_score(ex, p) == 0);
  CHECK(exercise_worth(ex, p) == 10);
  CHECK_FALSE(submit_answer(ex, p, "100 KiB").correct);
  CHECK(p.attempts == 1);
  CHECK(p.wrong == 1);
  CHECK(exercise_score(ex, p) == 0);
  CHECK(exercise_worth(ex, p) == 8);
  CHECK(take_hint(ex, p));
  CHECK(p.hints_shown == 1);
  CHECK(exercise_worth(ex, p) == 5);
  CHECK(submit_answer(ex, p, "192 KiB").correct);
  CHECK(p.solved);
  CHECK(p.attempts == 2);
  CHECK(p.last_answer == "192 KiB");
  CHECK(exercise_score(ex, p) == 5);
  // Once solved: practice answers and hints change nothing.
  CHECK_FALSE(submit_answer(ex, p, "1 KiB").correct);
  CHECK_FALSE(take_hint(ex, p));
  CHECK(p.attempts == 2);
  CHECK(p.wrong == 1);
  CHECK(p.last_answer == "192 KiB");
  CHECK(exercise_score(ex, p) == 5);

  ExerciseProgress first_try;
  submit_answer(ex, first_try, "196608");
  CHECK(exercise_score(ex, first_try) == 10);

  ExerciseProgress struggled;
  for (int i = 0; i < 3; ++i) take_hint(ex, struggled);
  CHECK_FALSE(take_hint(ex, struggled));  // only three hints
  CHECK(struggled.hints_shown == 3);
  for (int i = 0; i < 4; ++i) submit_answer(ex, struggled, "1 KiB");
  CHECK(exercise_worth(ex, struggled) == 1);  // 10 - 8 - 9 < 1
  submit_answer(ex, struggled, "192 KiB");
  CHECK(exercise_score(ex, struggled) == 1);
}

TEST_CASE("progress records round-trip through JSON and impossible ones are refused") {
  const Exercise ex = builtin("exercise_find_order");
  ExerciseProgress p;
  take_hint(ex, p);
  submit_answer(ex, p, "A,B,D,C,E,F");
  submit_answer(ex, p, "ABCDEF");
  const JsonOut j = progress_json(p);
  const ExerciseProgress back = progress_from_json(JsonOut::parse(j.dump()), ex, "/p");
  CHECK(back.attempts == 2);
  CHECK(back.wrong == 1);
  CHECK(back.hints_shown == 1);
  CHECK(back.solved);
  CHECK(back.last_answer == "ABCDEF");
  CHECK(exercise_score(ex, back) == exercise_score(ex, p));
  CHECK(progress_json(back) == j);

  auto error = [&](const std::string& text) {
    try {
      progress_from_json(JsonOut::parse(text), ex, "/p");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("[]") == "/p: expected a progress object, found an array");
  CHECK(starts_with(error(R"({"attempts":1,"wrong":2})"), "/p/wrong: expected an integer in [0, 1]"));
  CHECK(starts_with(error(R"({"attempts":1,"hints_shown":4})"), "/p/hints_shown: expected an integer in [0, 3]"));
  CHECK(starts_with(error(R"({"attempts":2,"wrong":0,"solved":true})"), "/p/attempts: expected wrong + 1"));
  CHECK(starts_with(error(R"({"score":10})"), "/p/score: unknown key"));
  CHECK(starts_with(error(R"({"solved":"yes"})"), "/p/solved: expected true or false"));
  CHECK(error("{}") == "");
}

TEST_CASE("a bare number below 1024 takes the question's unit: \"192\" to a KiB question is 192 KiB") {
  const Exercise peak = builtin("exercise_predict_peak");  // asks "like 100 KiB"
  CHECK(check_answer(peak, "192").correct);
  CHECK(check_answer(peak, " 192 ").correct);
  CHECK(check_answer(peak, "196608").correct);  // 1024 and up stays bytes, as before
  const AnswerCheck low = check_answer(peak, "136");
  CHECK_FALSE(low.correct);
  CHECK(low.feedback.find("136 KiB is too low") != std::string::npos);  // says how it was read
  CHECK_FALSE(check_answer(peak, "192 B").correct);  // an explicit unit always wins
  CHECK_FALSE(check_answer(peak, "19 2").correct);  // two numbers, not 192
  // A question without an answer example keeps bare numbers in bytes (offsets to the byte).
  const Exercise place = builtin("exercise_place_c");
  CHECK(check_answer(place, "131072").correct);
  CHECK_FALSE(check_answer(place, "128").correct);
}
