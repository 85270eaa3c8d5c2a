// JSON and text views of schedule results: the `arenaplan schedule` contract, shared by the CLI,
// the browser and the tests so every number is spelled once.
#pragma once

#include "core/graph/report.h"
#include "core/schedule/schedule.h"

namespace arenaplan {

// {"count", "count_exact", "orders": [{"order", "peak_bytes"}], "min_peak_bytes",
//  "max_peak_bytes"} plus "count_text", "listed", "scanned", "peaks_over_all_orders".
JsonOut enumeration_json(const Graph& g, const Enumeration& e);

// {"order", "peak_bytes", "baseline_peak_bytes", "lower_bound_bytes", "proven_optimal",
//  "states_explored", "seconds"} plus "method", "memory_bytes", "memory_cap_bytes",
//  "memory_cap_hit", "gap_to_lower_bound", "explanation".
JsonOut schedule_json(const Graph& g, const ScheduleResult& r);

// The text views (schedule_text.cpp): every listed order with its peak; the chosen order beside
// the file order (or the nearest valid order) step by step, with the saving and the search figures.
std::string enumeration_text(const Graph& g, const Enumeration& e);
std::string schedule_text(const Graph& g, const ScheduleResult& r);

}  // namespace arenaplan
