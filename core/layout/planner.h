// The planner interface and registry: every layout planner is one `Planner` entry, and everything
// that lists planners (plan_arena's dispatch and its error text, the CLI usage, the Arena panel's
// rows, the share-link planner field) iterates planners() instead of keeping its own list.
//
// Usage:
//   for (const Planner& p : planners()) ...          // registration order = the order the UI shows
//   const Planner* exact = find_planner("exact");    // nullptr for an unknown name
//   interactive_planner_names();                     // the ones fast enough for every edit
//   anytime_planner().start_search(...);             // the search the UI drives in slices
// Views and commands do not run planners themselves: core/layout/pipeline.h does
// (plan_graph, compare_interactive_planners, start_anytime_layout).
//
// Adding a planner: one file defining its entry, one registration line (core/layout/README.md).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan {

// What a planner's plan function is given besides the problem (the problem is already checked).
struct PlanRequest {
  double time_limit_seconds = 5.0;                   // wall time the whole plan_arena call may take
  std::chrono::steady_clock::time_point start;       // when plan_arena started (the limit counts from it)
  Bytes lower_bound_bytes = 0;                       // layout_lower_bound(problem)
  int64_t node_limit = 0;                            // PlanOptions::node_limit
};

// A planner's answer before plan_arena verifies it.
struct PlannerOutput {
  std::vector<Bytes> offsets;   // per LayoutProblem buffer
  Bytes arena_bytes = 0;        // max over buffers of offset + size (a planner may round it up)
  bool proven_optimal = false;  // the search proved no smaller arena exists (plan_arena also
                                // marks a plan optimal when it meets the lower bound)
  std::string optimality;       // why, when proven_optimal (ArenaPlan::optimality)
  std::string detail;           // which member / search outcome produced it (ArenaPlan::detail)
};

// An anytime search the caller drives in slices (the browser: one slice per frame). It only ever
// replaces its seed with a smaller plan; best_so_far() is always a complete placement.
class AnytimeLayoutSearch {
 public:
  virtual ~AnytimeLayoutSearch() = default;
  virtual bool step(int64_t nodes) = 0;  // expands up to `nodes` search nodes; returns !done()
  virtual void cancel() = 0;
  virtual bool done() const = 0;
  virtual double progress() const = 0;  // 0..1
  virtual bool proven_optimal() const = 0;
  virtual const std::vector<Bytes>& best_so_far() const = 0;
  virtual Bytes best_arena_bytes() const = 0;
  virtual std::string status_text() const = 0;    // "optimal (bound met)", "stopped: 1.9 % above ..."
  virtual std::string progress_text() const = 0;  // one line for a progress bar: best, bound, ...
};

struct Planner {
  std::string name;         // what PlanOptions::planner, `--planner` and share links say
  std::string description;  // one line for usage texts and tooltips
  // Places every buffer of a checked problem (fixed buffers keep their offsets).
  PlannerOutput (*plan)(const LayoutProblem& problem, const PlanRequest& request) = nullptr;
  // Answers within a frame on big models: the Arena panel runs it on every edit.
  bool interactive = false;
  // Anytime planners only (else nullptr): a search seeded with a verified plan of the problem,
  // and the planner whose plan seeds it in the UI.
  std::unique_ptr<AnytimeLayoutSearch> (*start_search)(const LayoutProblem& problem, std::vector<Bytes> seed_offsets,
                                                       Bytes seed_arena_bytes) = nullptr;
  std::string seed_planner;
};

// Every planner, in the order the UI shows them side by side (core/layout/planner_registry.cpp).
const std::vector<Planner>& planners();

// The entry of that name, or nullptr.
const Planner* find_planner(const std::string& name);

// The planners fast enough to run on every edit (the Arena panel's rows, the exercises' choices),
// in registry order.
const std::vector<std::string>& interactive_planner_names();

// The registry's anytime planner (the exact search), which views seed with its seed_planner's plan.
const Planner& anytime_planner();

// The registered names joined for a message: planner_list_text(", ", " or ") gives
// "naive, linear, tflm-greedy, portfolio, exact or best"; planner_list_text("|", "|") the usage form.
std::string planner_list_text(const std::string& separator, const std::string& last_separator);

}  // namespace arenaplan
