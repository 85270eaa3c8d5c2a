// What the What-if tab's files share (web/panel_whatif.cpp: the list, its report and "Fit
// automatically"; web/panel_whatif_frontier.cpp: the Frontier chart).
#pragma once

#include <optional>
#include <vector>

#include "core/graph/report.h"
#include "core/transform/whatif.h"
#include "web/app.h"

namespace arenaplan::web {

// Replaces the list of rewrites (undoable with the panel's Undo); its report is recomputed, i.e.
// re-planned, verified and simulated, before it is shown.
void edit_whatif_list(WhatIfPanelState& v, std::vector<WhatIfSpec> next);

// The Frontier section: the button, the search's progress, the chart and the table of points.
// `page_start_peak`: the peak the What-if report gives the current graph and order (a frontier
// for another start is refused); nullopt when the report failed.
void draw_whatif_frontier(AppState& s, std::optional<Bytes> page_start_peak);
// {"running", "in_worker", "progress", "message", "result" (the worker's pareto_json as accepted,
//  null otherwise), "hovered", "taken" (point indices, -1: none), "max_extra_macs_pct",
//  "seconds_per_cap"}; the markers' rectangles are in `ui` as whatif.frontier.point.N and .now.
JsonOut export_whatif_frontier(const AppState& s);

}  // namespace arenaplan::web
