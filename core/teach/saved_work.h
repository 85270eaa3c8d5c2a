// A student's work on an assignment as the page keeps it in the browser between visits: the name,
// the open question and every question's progress (attempt log, hints), keyed by the set's hash
// and the student, so a reload finds it and two students on one machine do not mix.
//
// The record can be edited by anyone with the browser's developer tools, so reading it trusts
// nothing but the answers (progress_from_json replays every attempt log), and merging never
// drops an attempt: a reload (or a link carrying older progress) cannot erase a wrong answer.
//
//   { "format": "arenaplan-saved-work", "version": 1, "set_hash": "16 hex digits",
//     "student": "Ada", "open": "exercise_predict_peak",
//     "progress": { "exercise_predict_peak": {progress_json}, ... } }
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/teach/assignment.h"

namespace arenaplan {

struct SavedWork {
  std::string student;  // as typed
  std::string open;     // the open question's name, "" for none
  std::map<std::string, ExerciseProgress> progress;  // by question name; questions never touched are absent
};

// The storage key of a student's work on a set: "work.<set hash>.<normalized student>" (the
// unnamed student is "work.<set hash>."). The page prefixes its own namespace.
std::string saved_work_key(const Assignment& a, std::string_view student);
// The key under which the page remembers who worked on the set last (to restore on reload).
std::string saved_student_key(const Assignment& a);

JsonOut saved_work_json(const Assignment& a, const SavedWork& work);

// Reads a record for `a`; `questions` are the student's questions (assignment_exercises). Throws
// InputError naming the place: not JSON, another format or set, a question the set does not have,
// or progress no sequence of answers gives (progress_from_json).
SavedWork parse_saved_work(std::string_view text, const Assignment& a, const std::vector<Exercise>& questions);

// One question's progress from two copies (the one kept in the browser and the one on the page):
// the kept log, then the page's entries past the part both share; hints, the larger count; the
// counts replayed by core. Nothing either copy recorded is lost, and replaying keeps the record
// one a grader accepts (entries after the correct answer are not counted, as when answering).
ExerciseProgress merge_progress(const Exercise& ex, const ExerciseProgress& kept, const ExerciseProgress& current);

// Every question of `questions` merged (merge_progress); the page's open question and student
// when it has them, else the kept ones.
SavedWork merge_saved_work(const std::vector<Exercise>& questions, const SavedWork& kept, const SavedWork& current);

// True when the work holds anything a student did (an attempt or a hint).
bool has_work(const SavedWork& work);

}  // namespace arenaplan
