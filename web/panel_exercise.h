// The Exercises panel's entry points for share links (web/share_link.cpp): a link that carries an
// assignment (core/teach/assignment.h) replaces the built-in list by the set's questions.
#pragma once

#include "core/graph/report.h"
#include "web/app.h"

namespace arenaplan::web {

// Opens the set (an arenaplan-assignment object) in the Exercises panel; null goes back to the
// built-in exercises. Throws InputError for a set core refuses (the link is then refused).
void open_assignment(AppState& s, const JsonOut& set);
// The open set, null when the panel shows the built-in exercises.
JsonOut current_assignment();
// Opens an exercise of the current list (an embed "exercise:NAME"); throws InputError when absent.
void open_exercise_by_name(AppState& s, const std::string& name);
// The open exercise's name, "" for none.
std::string open_exercise_name();

}  // namespace arenaplan::web
