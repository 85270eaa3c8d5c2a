// The Exercises panel's entry points for share links (web/share_link.cpp) and opened files
// (web/js_api.cpp): a link that carries an assignment (core/teach/assignment.h) replaces the
// built-in list by the set's questions; a result file opened or dropped on the page goes to the
// teacher tools' grading. The panel's state is AppState::exercise (web/panel_exercise_state.h).
#pragma once

#include <string>
#include <string_view>

#include "core/graph/report.h"
#include "core/teach/assignment.h"
#include "web/app.h"

namespace arenaplan::web {

// Opens the set (an arenaplan-assignment object) in the Exercises panel; null goes back to the
// built-in exercises. Throws InputError for a set core refuses (the link is then refused).
void open_assignment(AppState& s, const JsonOut& set);
// The work this browser kept for the open set (the last student's name, answers, attempt logs),
// merged with what the page holds (a link's progress): called once a link is applied. Nothing
// is dropped: every attempt of either copy stays (core/teach/saved_work.h).
void restore_saved_work(AppState& s);
// Exam mode: while a question of an assignment is open, the note for a tool that would answer it
// (core's exam_locks), "" when the tool is free.
std::string exam_lock_note(const AppState& s, ExamTool tool);
// Draws that note (wrapped, muted) when `tool` is locked and returns true: the caller then leaves
// the tool out or disabled. Recorded as "exam.<tool>" for tests.
bool draw_exam_lock(AppState& s, ExamTool tool);
// The open set, null when the panel shows the built-in exercises.
JsonOut current_assignment(const AppState& s);
// Opens an exercise of the current list (an embed "exercise:NAME"); throws InputError when absent.
void open_exercise_by_name(AppState& s, const std::string& name);
// The open exercise's name, "" for none.
std::string open_exercise_name(const AppState& s);

// A student's result file (arenaplan-result) for the teacher's grading table: added to the
// files graded (a file of the same name replaces the earlier one) and the teacher tools opened.
void add_result_file(AppState& s, const std::string& file_name, std::string_view text);

// ---- Between the panel's two files (panel_exercise.cpp, panel_exercise_teacher.cpp) ----
void draw_teacher_toggle(AppState& s);
void draw_teacher_tools(AppState& s);
// {"builder": set, "builder_hash", "builder_link", "error", "files", "grading": class_report_json,
// "grading_text": class_report_text}: what the teacher tools show, for browser tests.
JsonOut teacher_json(const AppState& s);

}  // namespace arenaplan::web
