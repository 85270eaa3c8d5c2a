// The Budget tab's TFLM section: TFLM's whole arena for a graph opened from a .tflite.
#pragma once

#include "web/app.h"

namespace arenaplan::web {

// Draws "TFLM's own planner: X bytes; with arenaplan's offline plan: Y bytes (saves Z)" and the
// breakdown; nothing for a graph that did not come from a .tflite (or was edited since).
void draw_tflm_arena(AppState& s);
// TFLM's arena with arenaplan's offline plan for the opened model (null without one, or when TFLM
// cannot run it): the Budget tab reserves its persistent part instead of the board's guess.
const TflmArena* tflm_offline_arena(const AppState& s);
// The kernels and core TFLM's figures are for (the Budget tab's choice); InputError for a bad one.
void set_tflm_target(AppState& s, const TflmTarget& t);
// The target every TFLM figure of the page is for: the core chosen, else the board's (as
// `arenaplan budget --board B` and `export --board B`).
TflmTarget page_tflm_target(const AppState& s);
// flash_json of the opened model's firmware against the board (the Budget tab's flash line; null
// without an opened model), for the exported state.
JsonOut export_flash(const AppState& s);
// tflm_comparison_json for the exported state (null without an opened model).
JsonOut export_tflm_arena(const AppState& s);

}  // namespace arenaplan::web
