// One of the page's long searches (the exact layout solver or the schedule search) behind a
// JSON-in / JSON-out interface, so it can run where the page's module is not: in a Web Worker
// (web/worker/search_worker.cpp + search_worker.js) or, on the desktop build, in-process a slice per
// frame. Everything it needs comes in the request; the page verifies whatever comes back before
// showing it (web/search_job.cpp), so a bug here can waste a search but never show a wrong plan.
//
// Request:  {"kind": "layout" | "schedule" | "pareto", "graph": <graph JSON text>, "order": "A,B,C"
//            (layout: the schedule whose buffers are placed; pareto: the order the frontier starts
//            from), "budget": N (optional: stop after N nodes or states, the same unit as
//            bench/search_budget_bench; pareto: at most N rewrites tried per MAC cap, the CLI's
//            --max-evaluations)}
//           pareto also: "max_extra_macs_pct" (optional, --max-extra-macs), "seconds_per_cap"
//            (--time-limit), "kinds": ["fuse", ...] (optional, --kinds), "model_base64url" +
//            "model_name" (optional: the .tflite the graph was opened from, imported here as the
//            CLI imports it, since graph JSON drops quantization and weights the simulator's
//            bit-exact check needs)
// Progress: {"done", "progress" (0..1), "best_bytes", "bound_bytes", "work", "text"}; pareto also
//            "stage", "stages", "phase", "cap_pct"
// Result:   layout:   {"kind", "offsets": [...], "arena_bytes", "proven_optimal", "status", "work"}
//           schedule: schedule_json() of the search's result, plus "kind" and "work".
//           pareto:   pareto_json() of core's frontier (`transform --auto --pareto --json`), plus
//                     "kind", "work" and "cancelled" (true: partial, stopped by cancel()).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/graph/report.h"
#include "core/layout/pipeline.h"
#include "core/transform/transform_auto.h"

namespace arenaplan::web {

class SearchSession {
 public:
  // Throws InputError naming the field when the request is malformed or the graph is refused.
  explicit SearchSession(const std::string& request_json);
  ~SearchSession();
  SearchSession(const SearchSession&) = delete;
  SearchSession& operator=(const SearchSession&) = delete;

  void step(int64_t work);  // expands about `work` nodes / states (never past the budget)
  void cancel();            // done() from now on; the best so far is the result
  bool done() const;
  JsonOut progress_json() const;
  JsonOut result_json() const;  // valid at any time: the best so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A layout search's result_json() read back on the page's side (InputError when it is not one).
AnytimeAnswer layout_answer_from_json(const JsonOut& result);
// A pareto search's result_json() read back (pareto_json's fields; InputError when unreadable).
ParetoFrontier pareto_frontier_from_json(const JsonOut& result);

}  // namespace arenaplan::web
