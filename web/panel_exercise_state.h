// The Exercises panel's state (web/panel_exercise.cpp, web/panel_exercise_teacher.cpp): one member
// of AppState (AppState::exercise), as web/app.h asks of every panel. Free of ImGui.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/teach/assignment.h"
#include "core/teach/exercise.h"
#include "web/derived.h"

namespace arenaplan::web {

// One student's work on one exercise.
struct ExerciseSession {
  ExerciseProgress progress;
  std::string draft;  // the answer field
  AnswerCheck last;   // the last checked answer's result
  bool checked = false;
};

// The built-in exercises, parsed once; a built-in that fails to parse is a bug, shown as text.
struct BuiltinExerciseList {
  std::vector<Exercise> exercises;
  std::string error;
};

// Teacher tools: the set being built (an arenaplan-assignment) and the fields that add to it.
struct AssignmentBuilder {
  Assignment set;
  int builtin_pick = 0;
  int kind_pick = 0;       // index into generated_kinds()
  int difficulty = 3;
  int seed = 1;
  std::string own_json;    // an arenaplan-exercise pasted by the teacher
  std::string error;       // why the last addition was refused
  std::string link;        // the last "Copy assignment link" link, shown in a field to copy by hand
};

// Teacher tools: result files picked or dropped on the page, graded by core (grade_results) with
// the builder's set when it has one, else each result's own set.
struct ClassGrading {
  std::vector<std::pair<std::string, std::string>> files;  // (file name, text), in arrival order
  uint64_t files_version = 0;                              // bumped when files change
  mutable Derived<ClassReport, std::pair<uint64_t, std::string>> report;  // files_version, set hash ("" = none)
};

struct ExercisePanelState {
  // Key 0: parsed once, on first use (by the panel or an exporter, which sees a const AppState).
  mutable Derived<BuiltinExerciseList, int> builtin;
  std::vector<Exercise> questions;  // the open set's questions (the list shown when a set is open)
  std::map<std::string, ExerciseSession> sessions;  // by exercise name
  std::string open;                                 // the open exercise, "" for none
  std::optional<Assignment> assignment;             // the set a link opened, if any
  std::string student;                              // the student's name or number (per-student variants)
  std::string student_draft;                        // the name field
  // A name typed after answering that would leave answered questions behind (a per-student set
  // gives another name other questions): it waits for the student's yes.
  std::string pending_student;
  std::string work_error;   // the work saved in this browser could not be read (why, in words)
  bool work_saved = false;  // the last answer reached the browser's storage
  bool teacher = false;                             // the teacher tools are shown
  AssignmentBuilder builder;
  ClassGrading grading;
};

}  // namespace arenaplan::web
