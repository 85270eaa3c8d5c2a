// Small pieces several panels share.
#pragma once

#include <string>

#include "core/graph/graph.h"
#include "web/app.h"

namespace arenaplan::web {

// "136 KiB" for whole KiB, else "12.5 KiB" (`decimals` places): sizes in tables and pictures.
// The panels' name for core's format_kib (core/graph/graph.h), the one rounded byte formatter.
std::string kib_text(Bytes b, int decimals = 1);

// Alt+Left / Alt+Right step through the current order while the calling panel has focus.
void handle_step_keys(AppState& s);

}  // namespace arenaplan::web
