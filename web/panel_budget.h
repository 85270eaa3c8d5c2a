// The Budget panel's entry for board files opened by the page (Budget > Open board file...).
#pragma once

#include <string>

#include "web/app.h"

namespace arenaplan::web {

// Parses an arenaplan-board file and makes it the Budget panel's board (it then travels inline in
// share links). On a refusal the current board stays and the reason names the file and place.
bool load_board_file(AppState& s, const std::string& file_name, const std::string& text);
// Makes the library board `name` the Budget panel's board, as its board list does; false (and
// `error` says why) for a name the library does not have.
bool select_library_board(AppState& s, const std::string& name);

}  // namespace arenaplan::web
