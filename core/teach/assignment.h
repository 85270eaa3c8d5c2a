// Assignments: a set of exercises a teacher shares as one link, the result file a student's page
// exports, and the grading of a class's result files.
//
//   Assignment set = parse_assignment_json(text);               // a set file, or from a share link
//   std::vector<Exercise> qs = assignment_exercises(set, "Ada"); // the questions Ada gets
//   std::string result = result_json(set, "Ada", progress).dump(2);  // what her page exports
//   ClassReport report = grade_results({{"ada.json", result}}, &set);  // the teacher's check
//
// Set file (`arenaplan exercise grade --set FILE`, or the "assignment" of a share link):
//   { "format": "arenaplan-assignment", "version": 1, "title": "Week 3: schedules",
//     "per_student": false,   // true: generated entries get a seed derived from the student
//     "allow": ["optimise-order"],   // optional: tools left unlocked while a question is open (exam_locks)
//     "exercises": [ "exercise_predict_peak",                                  // a built-in
//                    {"generate": {"kind": "find-order", "difficulty": 3, "seed": 7}},
//                    {"exercise": { ...an arenaplan-exercise object... }} ] }
//
// Result file (exported by the student's page, or `arenaplan exercise result`):
//   { "format": "arenaplan-result", "version": 1, "student": "Ada", "set_hash": "16 hex digits",
//     "set": { ...the set file... }, "score": 18, "max_score": 30,
//     "answers": [ {"exercise": name, "answer", "attempts", "wrong", "hints_shown", "solved",
//                   "score", "log": [every answer checked, in order]} ] }   // one per exercise, in order
//
// Grading trusts nothing in a result but the answers: it recomputes the questions from the set
// (and the student), replays every logged attempt with check_answer (the attempt and wrong
// counts, "solved" and the last answer must be what the log gives), recomputes every score with
// exercise_score, and rejects a result whose set hash differs from the teacher's set, whose
// claimed "solved" an answer does not back, or whose scores do not add up. What it cannot see
// without a server: log entries deleted together with matching counts, hints taken and not
// recorded, answers found elsewhere (README, "What a result file proves").
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/teach/exercise.h"
#include "core/teach/exercise_generate.h"

namespace arenaplan {

struct AssignmentEntry {
  enum class Source { kBuiltin, kGenerated, kInline };
  Source source = Source::kBuiltin;
  std::string builtin;   // kBuiltin: the exercise's name
  GeneratorSpec spec;    // kGenerated: the teacher's kind, level and seed
  std::string json;      // kInline: the exercise file's text
};

// Playground tools that give away the answer of some kinds of question (exam_locks).
enum class ExamTool {
  kOptimiseOrder,  // Schedule > Optimise order: the best order, its peak
  kOrderList,      // Schedule's list of every order with its peak
  kReorder,        // moving ops in the order (Graph & order): any order's peak on the other panels
  kArenaPlanners,  // the Arena tab: the planners' offsets and arenas
};
inline constexpr ExamTool kExamTools[] = {ExamTool::kOptimiseOrder, ExamTool::kOrderList, ExamTool::kReorder,
                                          ExamTool::kArenaPlanners};
// "optimise-order", "order-list", "reorder", "arena-planners": the spelling in a set's "allow".
const char* exam_tool_name(ExamTool tool);

struct Assignment {
  std::string title;
  bool per_student = false;
  std::vector<AssignmentEntry> entries;
  std::vector<ExamTool> allow;  // tools the teacher leaves unlocked during the set
};

// Exam mode: the tools locked while `open` (a question of the set) is open, each with a one-line
// note saying why, in the order of kExamTools; the set's "allow" removes tools from it.
//   predict_peak  reordering, the order list and the optimiser (each shows an order's peak)
//   find_order    the order list and the optimiser (each gives a good order)
//   place_tensor  the Arena planners (they place every buffer)
//   fit_budget    the Arena planners, and the optimiser and order list when the answer is an order
//   cache_misses, broken_rule: nothing
struct ExamLock {
  ExamTool tool;
  std::string note;  // "Locked while you answer "Find an order": it would give the answer."
};
std::vector<ExamLock> exam_locks(const Assignment& a, const Exercise& open);

constexpr size_t kMaxAssignmentExercises = 100;

// Throws InputError naming the place ("/exercises/2/generate/kind"). Every entry must resolve:
// built-ins exist, generated entries are in range, inline exercises parse.
Assignment parse_assignment_json(std::string_view text);
// The set file, canonical (parse_assignment_json(assignment_json(a).dump()) gives a back).
JsonOut assignment_json(const Assignment& a);
// stable_hash of the canonical set file, as 16 hex digits: the same set gives the same hash on
// every platform, any change to it (an entry, a seed, a level) another.
std::string assignment_hash(const Assignment& a);

// "Ada Lovelace" and " ada lovelace" are one student: trimmed, lower-case, inner spaces single.
std::string normalize_student(std::string_view student);
// The seed a generated entry uses for this student: the teacher's seed when the set is not per
// student (or no student is given), else derived from it and the normalized student name.
uint64_t student_seed(const Assignment& a, const AssignmentEntry& e, std::string_view student);
// The questions, in order, as this student gets them.
std::vector<Exercise> assignment_exercises(const Assignment& a, std::string_view student);

// The share-link fragment (without '#') that opens the set in the playground's Exercises panel:
// `arenaplan exercise link` and the page's "Copy assignment link".
std::string assignment_link_fragment(const Assignment& a);

// True when the text is a JSON object whose "format" is "arenaplan-result" (never throws).
bool is_result_json(std::string_view text);

// A student's result file for `progress` (one record per exercise, in order; throws
// std::invalid_argument when the count differs).
JsonOut result_json(const Assignment& a, std::string_view student, const std::vector<ExerciseProgress>& progress);

struct GradedStudent {
  std::string file;      // where the result came from (for the teacher's table)
  std::string student;
  bool accepted = false;
  std::string reason;    // why a result was rejected, naming the place ("/answers/1/attempts: ...")
  std::string where;     // that place, a JSON pointer into the result file ("" for the whole file)
  std::string reason_words;  // the same for people: "Answer 2 (gen_find_order_d3_s7): ..." (rejection_in_words)
  int score = 0;         // recomputed by core (0 when rejected)
  int max_score = 0;
  std::vector<int> scores;  // per exercise, recomputed
};

struct ClassReport {
  std::string title;
  std::string set_hash;
  std::vector<std::string> exercises;  // names, in order
  std::vector<GradedStudent> students;
  int rejected() const;
};

// Grades result files given as (file name, text). With `set`, every result must carry its hash;
// without, each result is graded against the set it carries, and results whose set differs from
// the first accepted one's are rejected (one class, one set).
ClassReport grade_results(const std::vector<std::pair<std::string, std::string>>& results, const Assignment* set);

// A place in a result file in words: "/answers/1/log/0" -> "answer 2 (NAME), attempt 1 of its log",
// "/set_hash" -> "the set's fingerprint"; `exercises` are the set's question names, in order.
std::string result_place_in_words(const std::string& where, const std::vector<std::string>& exercises);

// {"title", "set_hash", "exercises", "students": [{"file", "student", "accepted", "reason", "where", "reason_words",
// "score", "max_score", "scores"}], "rejected"}: `arenaplan exercise grade --json`.
JsonOut class_report_json(const ClassReport& report);
// A table, one row per student, then the rejected results with their reasons.
std::string class_report_text(const ClassReport& report);

}  // namespace arenaplan
