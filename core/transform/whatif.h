// What-if comparison: apply a list of rewrites (transform.h) and show before/after
// numbers that are RECOMPUTED after every change, never added up: lifetimes, a verified arena
// plan and a simulated run (cycles, oracles) for the graph as it stands after each step.
//
// Usage (the CLI's `transform --report` and the browser's what-if panel):
//   WhatIfReport r = run_whatif(graph, {{"fuse:conv,relu"}, {"inplace:add"}}, {}, {});
//   // r.before / r.after: peak, arena, cycles, fits; r.steps[i].after after each step;
//   // r.peak.combined is the true saving, r.peak.sum_of_separate what adding separate savings claims
//   JsonOut j = whatif_json(r);
//
// The schedule is always the graph's file order: the rewrites put new ops where they run, and
// "order:..." steps reorder the ops, so a better order is just another step in the list.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/transform/transform.h"

namespace arenaplan {

struct WhatIfOptions {
  std::string planner = "best";          // plan_arena's planner names
  double plan_time_limit_seconds = 1.0;  // for exact / best
  std::string profile = "cortex-m4";     // cycle model (sim_cycles.h)
  uint64_t seed = 1;
  std::optional<Bytes> arena_budget_bytes;  // when set, "fits" is arena <= budget
  bool simulate = true;                  // run the simulator (cycles, oracles) on every plan
  bool measure_alone = true;             // also measure each step applied alone to the original
  bool stop_on_error = false;            // throw the first refusal (CLI) instead of listing it (browser)
};

// The numbers of one graph with its file order as the schedule.
struct PlanFigures {
  std::string order;          // op names joined by '-'
  int ops = 0, tensors = 0;
  Bytes peak_bytes = 0;       // max live bytes (lower bound on any arena)
  Bytes arena_bytes = 0;      // the verified plan's arena
  Bytes total_bytes = 0;      // every arena tensor side by side (no reuse)
  bool verified = false;      // the independent verifier accepted the plan
  bool proven_optimal = false;
  int64_t cycles = -1;        // one inference under the cycle model; -1 when not simulated
  double latency_us = 0;
  int64_t macs = 0;
  bool simulated = false;
  bool sim_ok = false;        // planned run matched its reference and no oracle complained
  std::string sim_error;      // why the simulator could not run the graph, if it could not
  std::optional<bool> fits;   // against WhatIfOptions::arena_budget_bytes
};

// The graph with its ops in a topological order closest to the file order: the graph run_whatif
// starts from (the automatic search replays its rewrites on the same one).
Graph normalized(const Graph& g);

// Plans (verified), simulates and measures one graph.
PlanFigures measure_graph(const Graph& g, const WhatIfOptions& options);

// One entry of the list the user builds: a spec, switched on or off.
struct WhatIfSpec {
  std::string spec;
  bool enabled = true;
};

struct WhatIfStep {
  std::string spec;
  bool enabled = true;
  bool applied = false;                   // enabled and legal on the graph as it stood
  std::string error;                      // the refusal, when not applied
  std::string summary;                    // Rewrite::summary
  std::string interface_change;           // Rewrite::interface_change ("" when the interface stays)
  std::map<std::string, int64_t> figures; // Rewrite::figures
  PlanFigures after;                      // cumulative: every applied step up to this one
  std::optional<PlanFigures> alone;       // this step alone on the original graph
  std::string alone_error;                // why it cannot be applied alone (depends on earlier steps)
};

// A saving measured the only honest way (recomputed on the combined graph) next to what adding
// up the separately measured savings would claim.
struct Saving {
  Bytes combined = 0;          // before - after, measured on the graph with every step applied
  Bytes sum_of_separate = 0;   // sum over steps measured alone of (before - alone)
  Bytes overstated_by = 0;     // sum_of_separate - combined (> 0: the sum lies)
  int steps_measured_alone = 0;
};

// Shared pool: one section per model side by side versus one time-shared arena.
struct PoolFigures {
  std::vector<std::pair<std::string, Bytes>> model_arenas;  // each model planned on its own
  Bytes partitioned_bytes = 0;  // sum of those arenas
  Bytes time_shared_bytes = 0;  // arena of the merged graph (models never run at once)
};

struct WhatIfReport {
  std::string graph;
  std::string planner, profile;
  std::optional<Bytes> arena_budget_bytes;
  PlanFigures before, after;
  std::vector<WhatIfStep> steps;
  Graph result;  // the graph with every applied step
  Saving peak, arena;
  // "bit-exact": outputs equal the untransformed graph's, byte for byte; "tolerance": quantize ops
  // change values by design (see quantize_values); "not compared": pooled models (renamed inputs);
  // "differ": a rewrite changed the outputs (a bug).
  std::string outputs_check;
  std::string outputs_note;
  std::optional<PoolFigures> pool;
};

WhatIfReport run_whatif(const Graph& g, const std::vector<WhatIfSpec>& specs, const WhatIfOptions& options,
                        const TransformContext& context);

// {"graph", "before": figures, "after": figures, "steps": [{"spec", "enabled", "applied", "error",
//  "summary", "figures", "after", "alone"}], "savings": {"peak_bytes": {...}, "arena_bytes": {...}},
//  "outputs": {"check", "note"}, "pool": {...}}: the `transform --report --json` contract.
JsonOut whatif_json(const WhatIfReport& r);
JsonOut plan_figures_json(const PlanFigures& f);

// The before/after table for terminals.
std::string whatif_text(const WhatIfReport& r);

}  // namespace arenaplan
