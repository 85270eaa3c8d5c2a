// Assignments (core/teach/assignment.h): a set resolves to the same questions for everyone (or a
// stable per-student variant), results carry the set's hash, and grading recomputes everything
// from the answers: a tampered result is rejected with the place it lies.
#include <doctest/doctest.h>

#include "core/teach/assignment.h"
#include "core/teach/share.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;

namespace {

const char* kSet = R"({"format":"arenaplan-assignment","version":1,"title":"Week 3","per_student":PER,
  "exercises":["exercise_predict_peak",{"generate":{"kind":"find-order","difficulty":2,"seed":7}},
               {"generate":{"kind":"cache-misses","difficulty":3,"seed":11}}]})";

Assignment set_with(bool per_student) {
  std::string text = kSet;
  text.replace(text.find("PER"), 3, per_student ? "true" : "false");
  return parse_assignment_json(text);
}

std::string questions(const Assignment& a, const std::string& student) {
  std::string out;
  for (const Exercise& ex : assignment_exercises(a, student)) out += ex.question + "\n";
  return out;
}

// A result where the student solved the first exercise at the second attempt.
std::string ada_result(const Assignment& a) {
  const std::vector<Exercise> qs = assignment_exercises(a, "Ada");
  std::vector<ExerciseProgress> p(qs.size());
  submit_answer(qs[0], p[0], "150 KiB");
  submit_answer(qs[0], p[0], "192 KiB");  // two_branch ABDCEF peaks at 192 KiB (docs/DESIGN.md)
  return result_json(a, "Ada", p).dump();
}

}  // namespace

TEST_CASE("a shared set gives every student the same questions; a per-student set a stable variant each") {
  const Assignment same = set_with(false);
  CHECK(questions(same, "Ada") == questions(same, "Alan"));
  const Assignment per = set_with(true);
  CHECK(questions(per, "Ada") != questions(per, "Alan"));
  CHECK(questions(per, "Ada") == questions(per, "  ada "));  // the name is normalized
  CHECK(assignment_exercises(per, "Ada")[0].question == assignment_exercises(per, "Alan")[0].question);  // built-ins
}

TEST_CASE("the set hash is stable and changes with any entry") {
  const Assignment a = set_with(false);
  CHECK(assignment_hash(a) == assignment_hash(parse_assignment_json(assignment_json(a).dump())));
  Assignment b = a;
  b.entries[1].spec.seed = 8;
  CHECK(assignment_hash(a) != assignment_hash(b));
  CHECK(assignment_hash(a) != assignment_hash(set_with(true)));
}

TEST_CASE("grading recomputes the score: 10 points - 2 for one wrong answer = 8") {
  const Assignment a = set_with(false);
  const ClassReport r = grade_results({{"ada.json", ada_result(a)}}, &a);
  REQUIRE(r.students.size() == 1);
  CHECK(r.students[0].accepted);
  CHECK(r.students[0].score == 8);
  CHECK(r.students[0].scores == std::vector<int>{8, 0, 0});
  CHECK(class_report_text(r).find("Ada") != std::string::npos);
}

TEST_CASE("lowered attempt and wrong-answer counts are caught by the attempt log; a log cut short with them is not") {
  const Assignment a = set_with(false);
  auto grade = [&](JsonOut doc) { return grade_results({{"x.json", doc.dump()}}, &a).students.at(0); };
  JsonOut lowered = JsonOut::parse(ada_result(a));  // Ada: "150 KiB" (wrong), then "192 KiB": 8 points
  lowered["answers"][0]["attempts"] = 1;
  lowered["answers"][0]["wrong"] = 0;
  lowered["answers"][0]["score"] = 10;
  lowered["score"] = 10;
  GradedStudent s = grade(lowered);
  CHECK_FALSE(s.accepted);
  CHECK(s.reason.find("/answers/0/attempts") != std::string::npos);
  CHECK(s.reason.find("replay") != std::string::npos);
  // Deleting the wrong answer from the log as well leaves a consistent file: a page without a
  // server cannot prove what it never recorded anywhere else (README: what a result file proves).
  lowered["answers"][0]["log"] = {"192 KiB"};
  s = grade(lowered);
  CHECK(s.accepted);
  CHECK(s.score == 10);
}

TEST_CASE("tampered results are rejected, naming the place") {
  const Assignment a = set_with(false);
  auto grade = [&](JsonOut doc) { return grade_results({{"x.json", doc.dump()}}, &a).students.at(0); };
  const JsonOut good = JsonOut::parse(ada_result(a));
  JsonOut solved = good;  // claims the unanswered find-order was solved
  solved["answers"][1]["solved"] = true;
  solved["answers"][1]["attempts"] = 1;
  solved["answers"][1]["answer"] = "A,B,C";
  GradedStudent s = grade(solved);
  CHECK_FALSE(s.accepted);  // the attempt log is empty: no attempt backs the claim
  CHECK(s.reason.find("/answers/1/attempts") != std::string::npos);
  solved["answers"][1]["log"] = {"A,B,C"};  // logged too: core replays it, and A,B,C is no order of that graph
  s = grade(solved);
  CHECK_FALSE(s.accepted);
  CHECK(s.reason.find("/answers/1/wrong") != std::string::npos);
  JsonOut score = good;
  score["answers"][0]["score"] = 10;
  s = grade(score);
  CHECK_FALSE(s.accepted);
  CHECK(s.reason.find("/answers/0/score") != std::string::npos);
  JsonOut total = good;
  total["score"] = 30;
  CHECK_FALSE(grade(total).accepted);
  // A result for another set (another seed) has another hash.
  Assignment other = a;
  other.entries[1].spec.seed = 8;
  s = grade_results({{"x.json", ada_result(other)}}, &a).students.at(0);
  CHECK_FALSE(s.accepted);
  CHECK(s.reason.find("/set_hash") != std::string::npos);
  CHECK_FALSE(grade_results({{"x.json", "{not json"}}, &a).students.at(0).accepted);
}

TEST_CASE("without the teacher's set, the results' own set is used and a changed carried set is caught") {
  const Assignment a = set_with(false);
  JsonOut changed = JsonOut::parse(ada_result(a));
  changed["set"]["exercises"][1]["generate"]["seed"] = 9;  // an easier variant, same hash claimed
  const ClassReport r = grade_results({{"ada.json", ada_result(a)}, {"eve.json", changed.dump()}}, nullptr);
  CHECK(r.students[0].accepted);
  CHECK_FALSE(r.students[1].accepted);
  CHECK(r.students[1].reason.find("/set_hash") != std::string::npos);
}

TEST_CASE("bad set files name the place") {
  CHECK_THROWS_WITH_AS(parse_assignment_json(R"({"format":"arenaplan-assignment","exercises":["nope"]})"),
                       doctest::Contains("/exercises/0"), InputError);
  CHECK_THROWS_WITH_AS(parse_assignment_json(
                           R"({"format":"arenaplan-assignment","exercises":[{"generate":{"kind":"find-order","difficulty":9,"seed":1}}]})"),
                       doctest::Contains("/exercises/0/generate/difficulty"), InputError);
  CHECK_THROWS_WITH_AS(parse_assignment_json(R"({"format":"arenaplan-assignment","exercises":[]})"),
                       doctest::Contains("/exercises"), InputError);
}

TEST_CASE("a share link carries the assignment") {
  ShareState s;
  s.example = "two_branch";
  s.assignment = assignment_json(set_with(true));
  const ShareState back = decode_share_fragment(encode_share_fragment(s));
  CHECK(assignment_hash(parse_assignment_json(back.assignment.dump())) == assignment_hash(set_with(true)));
}

TEST_CASE("a share link's embed names one view; anything else is refused naming /embed") {
  ShareState s;
  s.example = "two_branch";
  for (const char* view : {"live", "lifetimes", "arena", "graph", "cache", "exercise:exercise_place_c"}) {
    s.embed = view;
    CHECK(decode_share_fragment(encode_share_fragment(s)).embed == view);
  }
  s.embed = "menus";
  CHECK_THROWS_WITH_AS(decode_share_fragment(encode_share_fragment(s)), doctest::Contains("/embed"), InputError);
  s.embed = "exercise:";
  CHECK_THROWS_WITH_AS(decode_share_fragment(encode_share_fragment(s)), doctest::Contains("/embed"), InputError);
}

TEST_CASE("a rejection reads in words, with the JSON pointer kept as the detail") {
  const Assignment a = set_with(false);
  JsonOut lowered = JsonOut::parse(ada_result(a));
  lowered["answers"][0]["attempts"] = 1;
  lowered["answers"][0]["wrong"] = 0;
  const GradedStudent s = grade_results({{"x.json", lowered.dump()}}, &a).students.at(0);
  REQUIRE_FALSE(s.accepted);
  CHECK(s.where == "/answers/0/attempts");
  CHECK(s.reason_words.find("Answer 1 (exercise_predict_peak), its attempt count: ") == 0);
  CHECK(s.reason_words.find("/answers") == std::string::npos);
  const std::vector<std::string> names = {"q1", "q2"};
  CHECK(result_place_in_words("/answers/1/log/2", names) == "answer 2 (q2), attempt 3 of its log");
  CHECK(result_place_in_words("/set_hash", names) == "the set's fingerprint");
  CHECK(result_place_in_words("/set/exercises/0", names) == "the set in the file");
  CHECK(result_place_in_words("", names) == "the file");
  CHECK(result_place_in_words("/answers/7", names) == "answer 8");
  CHECK(result_place_in_words("line 3, column 4", names) == "the file's JSON (line 3, column 4)");
}
