#pragma once

#include "web/app.h"

namespace arenaplan::web {

enum class PlanFileFormat { kJsonReport, kCHeader };

// Plans the current graph and order, verifies the plan and offers the file as a download; on a
// failure `error` says why and nothing is offered.
void export_plan_file(AppState& s, PlanFileFormat format);

// PNG of the canvas as the next frames show it (the menu closed first).
void request_png_export(AppState& s);
// Called by the main loop after each frame is drawn: hands the PNG over when it is due.
void deliver_png_if_due(AppState& s);

}  // namespace arenaplan::web
