#pragma once

#include "core/session/session.h"
#include "web/app.h"

namespace arenaplan::web {

// Plans the current graph and order with core's export entry point (session.h: the same call and
// planner policy as `arenaplan export`), verifies it and offers the file as a download; on a
// failure `error` says why and nothing is offered. The .tflite formats need an opened model.
void export_plan_file(AppState& s, ExportFormat format);
// The bytes that download would hold (for tests: equal to the CLI's for the same state).
std::string plan_file_bytes(const AppState& s, ExportFormat format);
// What the page asks core/session for: the current graph (or the opened model's file) and order,
// the session's plan policy and the Budget tab's TFLM target (the board's core unless one is
// chosen), so a download, the Budget tab's TFLM figures and `arenaplan export --board` agree.
LoadedInput export_input(const AppState& s);
ExportRequest page_export_request(const AppState& s, ExportFormat format);

// PNG of the canvas as the next frames show it (the menu closed first).
void request_png_export(AppState& s);
// Called by the main loop after each frame is drawn: hands the PNG over when it is due.
void deliver_png_if_due(AppState& s);

}  // namespace arenaplan::web
