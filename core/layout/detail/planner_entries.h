// The registered planners' entries, each defined in its own file; planner_registry.cpp lists them.
// Internal to core/layout.
#pragma once

#include "core/layout/planner.h"

namespace arenaplan::planner {

const Planner& naive_planner();        // planners_greedy_entries.cpp
const Planner& linear_planner();       // planners_greedy_entries.cpp
const Planner& tflm_greedy_planner();  // planners_greedy_entries.cpp
const Planner& portfolio_planner();    // planners_greedy_entries.cpp
const Planner& exact_planner();        // planners_search_entries.cpp
const Planner& best_planner();         // planners_search_entries.cpp

}  // namespace arenaplan::planner
