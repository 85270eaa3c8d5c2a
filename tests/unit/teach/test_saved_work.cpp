// Saved work (core/teach/saved_work.h): what the page keeps in the browser between visits. A
// record reads back as written, a bad one is refused with the place, and merging two copies
// never loses an attempt (a reload cannot erase a wrong answer).
#include <doctest/doctest.h>

#include "core/teach/saved_work.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;

namespace {

Assignment week3() {
  return parse_assignment_json(R"({"format":"arenaplan-assignment","version":1,"title":"Week 3","per_student":false,
    "exercises":["exercise_predict_peak",{"generate":{"kind":"cache-misses","difficulty":3,"seed":11}}]})");
}

std::string error_of(std::string_view text, const Assignment& a) {
  try {
    parse_saved_work(text, a, assignment_exercises(a, "Ada"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("saved work reads back as written, with the score core gives it") {
  const Assignment a = week3();
  const std::vector<Exercise> qs = assignment_exercises(a, "Ada");
  SavedWork w;
  w.student = "Ada";
  w.open = qs[0].name;
  submit_answer(qs[0], w.progress[qs[0].name], "150 KiB");
  submit_answer(qs[0], w.progress[qs[0].name], "192 KiB");  // two_branch ABDCEF peaks at 192 KiB (docs/DESIGN.md)
  const SavedWork back = parse_saved_work(saved_work_json(a, w).dump(), a, qs);
  CHECK(back.student == "Ada");
  CHECK(back.open == qs[0].name);
  REQUIRE(back.progress.count(qs[0].name) == 1);
  const ExerciseProgress& p = back.progress.at(qs[0].name);
  CHECK(p.log == std::vector<std::string>{"150 KiB", "192 KiB"});
  CHECK(p.solved);
  CHECK(exercise_score(qs[0], p) == 8);  // 10 - 2 for the wrong answer
  CHECK(back.progress.count(qs[1].name) == 0);  // untouched questions are not stored
}

TEST_CASE("keys separate sets and students, and one student's spellings share one key") {
  const Assignment a = week3();
  CHECK(saved_work_key(a, "Ada") == saved_work_key(a, "  ada "));
  CHECK(saved_work_key(a, "Ada") != saved_work_key(a, "Alan"));
  Assignment b = a;
  b.title = "Week 4";
  CHECK(saved_work_key(a, "Ada") != saved_work_key(b, "Ada"));
  CHECK(saved_work_key(a, "Ada").rfind(saved_student_key(a), 0) == 0);
}

TEST_CASE("a malformed or foreign record is refused with the place") {
  const Assignment a = week3();
  const std::string q = assignment_exercises(a, "Ada")[0].name;
  CHECK(error_of("{not json", a).find("line 1") != std::string::npos);
  CHECK(error_of("[]", a).find("expected a saved-work object") != std::string::npos);
  CHECK(error_of(R"({"format":"arenaplan-result","version":1})", a).find("/format") == 0);
  CHECK(error_of(R"({"format":"arenaplan-saved-work","version":1,"set_hash":"0000000000000000"})", a).find("/set_hash") == 0);
  const std::string head = R"({"format":"arenaplan-saved-work","version":1,"set_hash":")" + assignment_hash(a) + "\"";
  CHECK(error_of(head + R"(,"progress":{"nope":{}}})", a).find("/progress/nope") == 0);
  // Counts lowered by hand: the log replays to 2 attempts, 1 wrong.
  CHECK(error_of(head + R"(,"progress":{")" + q +
                     R"(":{"attempts":1,"wrong":0,"solved":true,"last_answer":"192 KiB","log":["150 KiB","192 KiB"]}}})",
                 a).find("/progress/" + q) == 0);
  CHECK(error_of(head + R"(,"open":"elsewhere"})", a).find("/open") == 0);
  CHECK(error_of(head + R"(,"extra":1})", a).find("/extra") == 0);
}

TEST_CASE("merging keeps every attempt of both copies, in order, and replays the counts") {
  const Assignment a = week3();
  const Exercise ex = assignment_exercises(a, "Ada")[0];
  ExerciseProgress kept, page;
  submit_answer(ex, kept, "100 KiB");
  submit_answer(ex, kept, "150 KiB");
  // A page started from a link without progress: its own wrong answer, then the right one.
  submit_answer(ex, page, "100 KiB");
  submit_answer(ex, page, "192 KiB");
  const ExerciseProgress m = merge_progress(ex, kept, page);
  CHECK(m.log == std::vector<std::string>{"100 KiB", "150 KiB", "192 KiB"});
  CHECK(m.attempts == 3);
  CHECK(m.wrong == 2);
  CHECK(m.solved);
  CHECK(exercise_score(ex, m) == 6);
  // A reload: the page has nothing yet; the kept copy comes back whole, wrong answers included.
  const ExerciseProgress reloaded = merge_progress(ex, kept, ExerciseProgress());
  CHECK(reloaded.log == kept.log);
  CHECK(reloaded.wrong == 2);
  CHECK_FALSE(reloaded.solved);
  // A copy that is a prefix of the other adds nothing.
  CHECK(merge_progress(ex, page, kept).log == std::vector<std::string>{"100 KiB", "192 KiB"});
  // Hints: the larger count of the two.
  ExerciseProgress hinted;
  take_hint(ex, hinted);
  CHECK(merge_progress(ex, hinted, kept).hints_shown == 1);
  // The merged record is one a grader accepts.
  CHECK(progress_from_json(progress_json(m), ex, "/x").wrong == 2);
}

TEST_CASE("merging whole records keeps the page's name and open question, the kept ones otherwise") {
  const Assignment a = week3();
  const std::vector<Exercise> qs = assignment_exercises(a, "");
  SavedWork kept, page;
  kept.student = "Ada";
  kept.open = qs[1].name;
  submit_answer(qs[1], kept.progress[qs[1].name], "3");
  const SavedWork m = merge_saved_work(qs, kept, page);
  CHECK(m.student == "Ada");
  CHECK(m.open == qs[1].name);
  CHECK(has_work(m));
  CHECK_FALSE(has_work(page));
  page.student = "Ada L";
  page.open = qs[0].name;
  const SavedWork n = merge_saved_work(qs, kept, page);
  CHECK(n.student == "Ada L");
  CHECK(n.open == qs[0].name);
  CHECK(n.progress.at(qs[1].name).log == std::vector<std::string>{"3"});
}
