// Exam mode (core/teach/assignment.h, exam_locks): the tools that would answer the open question
// are locked, per kind; a set's "allow" unlocks them and is validated with the place and the
// names it accepts.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/teach/assignment.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;

namespace {

Assignment set_allowing(const std::string& allow) {
  return parse_assignment_json(R"({"format":"arenaplan-assignment","version":1,"title":"Exam")" + allow +
                               R"(,"exercises":["exercise_predict_peak",{"generate":{"kind":"find-order","difficulty":2,"seed":7}},
                                   {"generate":{"kind":"place-tensor","difficulty":2,"seed":3}},
                                   {"generate":{"kind":"cache-misses","difficulty":3,"seed":11}}]})");
}

std::vector<std::string> locked(const Assignment& a, size_t question) {
  std::vector<std::string> out;
  for (const ExamLock& l : exam_locks(a, assignment_exercises(a, "")[question])) out.push_back(exam_tool_name(l.tool));
  return out;
}

std::string refusal(const std::string& allow) {
  try {
    set_allowing(allow);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("each kind locks the tools that would answer it") {
  const Assignment a = set_allowing("");
  CHECK(locked(a, 0) == std::vector<std::string>{"optimise-order", "order-list", "reorder"});  // predict_peak
  CHECK(locked(a, 1) == std::vector<std::string>{"optimise-order", "order-list"});             // find_order
  CHECK(locked(a, 2) == std::vector<std::string>{"arena-planners"});                           // place_tensor
  CHECK(locked(a, 3).empty());                                                                 // cache_misses
  const std::vector<ExamLock> locks = exam_locks(a, assignment_exercises(a, "")[1]);
  REQUIRE_FALSE(locks.empty());
  CHECK(locks[0].note.find(assignment_exercises(a, "")[1].title) != std::string::npos);
}

TEST_CASE("a set's allow unlocks tools, and changes the set's hash only when given") {
  const Assignment open = set_allowing(R"(,"allow":["order-list","reorder"])");
  CHECK(locked(open, 0) == std::vector<std::string>{"optimise-order"});
  CHECK(locked(open, 1) == std::vector<std::string>{"optimise-order"});
  CHECK(parse_assignment_json(assignment_json(open).dump()).allow.size() == 2);
  CHECK(assignment_hash(open) != assignment_hash(set_allowing("")));
  CHECK(assignment_json(set_allowing("")).contains("allow") == false);
  CHECK(assignment_hash(set_allowing("")) == assignment_hash(set_allowing(R"(,"allow":[])")));
}

TEST_CASE("a bad allow is refused with the place and the names accepted") {
  CHECK(refusal(R"(,"allow":"reorder")").find("/allow: expected an array") == 0);
  const std::string unknown = refusal(R"(,"allow":["reorder","optimizer"])");
  CHECK(unknown.find("/allow/1: unknown tool \"optimizer\"") == 0);
  CHECK(unknown.find("\"optimise-order\"") != std::string::npos);
  CHECK(refusal(R"(,"allow":["reorder","reorder"])").find("/allow/1") == 0);
  CHECK(refusal(R"(,"allow":[3])").find("/allow/0") == 0);
}
