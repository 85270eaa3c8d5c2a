// The automatic rewrite search: which legal rewrites, in which order, minimise the
// peak of a graph, or, with a budget, the extra MACs subject to peak <= budget. Anytime: it can
// be stopped (time limit, evaluation budget, cancel) and still returns the best sequence found,
// re-planned, verified and simulated bit-exact through run_whatif, with a lower bound on the
// peak that no sequence of the searched rewrites can go below.
//
// Usage (the CLI's `transform --auto`):
//   AutoRewriteOptions o;  o.budget_bytes = 64 * 1024;
//   AutoRewriteResult r = auto_rewrite(graph, o);
//   r.report.after.peak_bytes;  r.applied[i].spec;  r.lower_bound_bytes;  auto_rewrite_json(r);
// A page runs it a slice per frame:
//   AutoRewriteSearch s(graph, o);
//   if (s.step(0.01)) result = s.result();   // every frame; s.progress() for the progress bar
//
// A new rewrite kind plugs in with one line in rewrite_kinds() (transform_auto_kinds.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/report.h"
#include "core/transform/transform.h"
#include "core/transform/whatif.h"

namespace arenaplan {

// ---- The table of rewrite kinds the search may use -------------------------------------------

struct RewriteKind {
  const char* name;  // the spec prefix: "fuse", "inplace", ...
  bool bit_exact;    // keeps graph outputs bit-exact (false: quantize; searched only when asked)
  bool adds_macs;    // may add work (recompute, patch halos)
  // Every spec of this kind that may be legal on `g` or on any graph the search reaches from it
  // by other rewrites: a superset is fine (apply refuses the rest, at the cost of one refusal),
  // a missing spec is not, because the lower bound trusts that nothing outside these specs is
  // ever touched (auto_lower_bound).
  std::vector<std::string> (*candidates)(const Graph& g);
  Rewrite (*apply)(const Graph& g, const Transformation& t, const TransformContext& context);
  // false: searched only when named in --kinds (msf: its many grids crowd the beam out of the
  // cheaper rewrites; pareto_frontier's recipe uses it instead).
  bool searched_by_default = true;
};

// fuse, inplace, recompute, patch, foldpad, view, stream, callerquant, order, quantize (the last not
// bit-exact; callerquant keeps the arithmetic but changes the model's interface, which the report
// states for each one applied).
const std::vector<RewriteKind>& rewrite_kinds();
const RewriteKind* find_rewrite_kind(const std::string& name);

// Candidate enumerations of the existing kinds (see RewriteKind::candidates).
std::vector<std::string> fuse_candidates(const Graph& g);       // producer -> sole elementwise consumer
std::vector<std::string> inplace_candidates(const Graph& g);    // may_run_in_place ops over each input
std::vector<std::string> recompute_candidates(const Graph& g);  // tensor with >= 2 consumers, each consumer
std::vector<std::string> patch_candidates(const Graph& g);      // NHWC single-input chains (PADs too): 2-4 ops over 2, 4, 8 rows; up to 16 ending at a downsampling op over 2x2, 3x3
std::vector<std::string> msf_candidates(const Graph& g);        // inverted-residual blocks (2-10 bands); first stages + their 1x1 (2x2-5x5)
std::vector<std::string> order_candidates(const Graph& g);      // "order:best"
std::vector<std::string> quantize_candidates(const Graph& g);   // float32 activations to int8
std::vector<std::string> stream_candidates(const Graph& g);     // 1x1 conv -> [PAD ->] depthwise
std::vector<std::string> view_candidates(const Graph& g);       // ops that only copy their input

// ---- Options, progress, result ----------------------------------------------------------------

struct AutoRewriteOptions {
  std::optional<Bytes> budget_bytes;          // set: minimise extra MACs subject to peak <= budget
  std::optional<double> max_extra_macs_pct;   // set: never more MACs than before * (1 + pct / 100)
  double time_limit_seconds = 10.0;           // set-up and search (verification of the result comes after)
  int64_t max_evaluations = 0;                // rewrites tried, 0 = no limit
  int max_rewrites = 12;                      // longest sequence
  int max_beam_width = 64;                    // the widest round (1: the greedy search alone)
  bool allow_value_changes = false;           // also search kinds that are not bit-exact (quantize)
  std::vector<std::string> kinds;             // restrict to these kinds (empty: every allowed kind)
  const std::atomic<bool>* cancel = nullptr;  // set to true from elsewhere: stop at the next rewrite
  WhatIfOptions whatif;                       // the final re-plan, verification and simulation
  TransformContext context;                   // order:best's state budget and time limit per candidate
};

struct AutoProgress {
  std::string phase = "search";  // "search", "prune", "done"
  int64_t evaluations = 0;       // rewrites tried (legal or refused)
  int64_t refused = 0;
  int beam_width = 1, depth = 0;
  Bytes start_peak = 0, best_peak = 0, lower_bound_bytes = 0;
  int64_t best_extra_macs = 0;
  int best_rewrites = 0;
  bool budget_met = false;       // best so far has peak <= budget
  bool exhausted = false;        // the widest beam never had to drop a child: nothing left to try
  bool stopped = false;          // time limit, evaluation budget or cancel ended the search
  double elapsed_seconds = 0;
};

// One rewrite of the returned sequence, with its saving measured on the combined graph: the peak
// of the sequence without it minus the peak with all. Absent when a later rewrite needs it.
struct AutoApplied {
  std::string spec;
  std::optional<Bytes> peak_without_bytes;
  std::optional<Bytes> saving_bytes;
  std::string note;  // why there is no saving figure
  std::string interface_change;  // what the firmware must now do (callerquant), "" when nothing
};

struct AutoRewriteResult {
  WhatIfReport report;  // run_whatif of the sequence: before, after, steps, outputs check
  std::optional<Bytes> budget_bytes;
  std::optional<double> max_extra_macs_pct;
  Bytes lower_bound_bytes = 0;
  std::vector<AutoApplied> applied;
  bool budget_met = true;   // no budget, or after peak and arena <= budget
  int64_t extra_macs = 0;   // after.macs - before.macs (simulated), or counted when not simulated
  std::vector<std::string> kinds;  // the kinds searched
  std::vector<std::string> dropped;  // rewrites cut from the end because verification refused them
  AutoProgress progress;
};

// Per op o whose working set (arena inputs, outputs, scratch) no candidate of `kinds` touches: the
// bytes of that working set plus every untouched tensor that must be live while o runs in any
// order (made by an ancestor of o, read by a descendant of o, or held the whole run). The maximum
// over such ops. Why it is a bound: rewrites keep data dependences (fusion merges ops, recompute
// and patch add paths, in-place and order add none), an untouched op still runs in every reachable
// graph with its untouched tensors at their sizes, and all of them are live at its step.
Bytes auto_lower_bound(const Graph& g, const std::vector<const RewriteKind*>& kinds);

// The kinds `options` allows, in table order; InputError naming an unknown one.
std::vector<const RewriteKind*> searched_kinds(const AutoRewriteOptions& options);

class AutoRewriteSearch {
 public:
  AutoRewriteSearch(const Graph& g, AutoRewriteOptions options);
  ~AutoRewriteSearch();
  AutoRewriteSearch(const AutoRewriteSearch&) = delete;
  AutoRewriteSearch& operator=(const AutoRewriteSearch&) = delete;

  // Works for about `seconds` (at least one rewrite); true once the search is over.
  bool step(double seconds);
  void cancel();
  bool done() const;
  const AutoProgress& progress() const;
  std::vector<std::string> best_specs() const;
  // Verifies the best sequence found so far (run_whatif) and measures each rewrite's saving.
  AutoRewriteResult result() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Runs the search to its end (or its limits) and returns result().
AutoRewriteResult auto_rewrite(const Graph& g, const AutoRewriteOptions& options);

// ---- The frontier of peak against extra MACs (`transform --auto --pareto`) ------------------

// One point: the rewrites (apply them in order with run_whatif to get the same peak), the peak and
// arena they reach, the MACs they add; verified means planned, verified, simulated and bit-exact.
struct ParetoPoint {
  Bytes peak_bytes = 0, arena_bytes = 0;
  int64_t extra_macs = 0;
  double extra_macs_pct = 0;  // of the original graph's MACs
  double cap_pct = 0;         // the MAC cap of the search that found it; -1: msf-CNN's recipe
  std::vector<std::string> rewrites;
  bool verified = false;
  std::string outputs_check;  // run_whatif's: "bit-exact", ...
};

struct ParetoOptions {
  // The longest sequence a frontier search tries unless told otherwise (the CLI without
  // --max-rewrites, the What-if tab): a frontier's deep points take long sequences (a fold, a
  // stream, an in-place per block).
  static constexpr int kDefaultMaxRewrites = 48;
  // Each search's options (time_limit_seconds is per cap); a max_extra_macs_pct caps the ladder.
  AutoRewriteOptions search;
  std::vector<double> caps_pct = {0, 1, 2.5, 5, 10, 20, 40, 100};
  // Also msf-CNN's recipe over a ladder of grids (fold every PAD; the first stage over 2x2 to 5x5
  // patches; the highest-resolution inverted-residual blocks over 0, 5 or 10 bands; then every
  // stream and in-place rewrite lowering the peak or the live-byte area): long sequences the
  // beam search does not reach in its time.
  bool recipes = true;
};

struct ParetoFrontier {
  Bytes start_peak_bytes = 0;
  int64_t start_macs = 0;
  std::vector<ParetoPoint> points;  // non-dominated, verified: extra MACs rising, peak falling
  std::vector<ParetoPoint> tried;   // one per cap, in cap order
};

// The search (auto_rewrite) once per cap of options.caps_pct, lowest peak within each; then the
// verified points no other beats on both peak and extra MACs: `transform --auto --pareto`. The
// What-if tab's Frontier draws the same frontier: it steps a ParetoSearch (below) in the page's
// search worker, which is what this function runs to its end.
// Usage:
//   ParetoOptions o;  o.search.time_limit_seconds = 5;
//   for (const ParetoPoint& p : pareto_frontier(g, o).points) p.peak_bytes, p.extra_macs, p.rewrites;
ParetoFrontier pareto_frontier(const Graph& g, const ParetoOptions& options);

// Where a ParetoSearch is: which stage (each cap's search, then each recipe grid) and the running
// search's own progress.
struct ParetoProgress {
  std::string phase = "search";  // "search" (a cap's search), "verify" (its result), "recipe", "done"
  int stage = 0;                 // stages finished: caps searched and verified, then recipes tried
  int stages = 0;                // caps + recipe grids
  double cap_pct = 0;            // the cap of the search running or last run
  AutoProgress search;           // that search's progress
  int tried_points = 0;          // points verified so far (ParetoFrontier::tried)
  bool stopped = false;          // cancel() ended it before its last stage
  double elapsed_seconds = 0;    // spent inside step()
};

// pareto_frontier in slices, for a caller that must keep doing other work (the page's search
// worker posts progress and reads cancel messages between slices). The result does not depend on
// the slicing: pareto_frontier is this run to its end.
//   ParetoSearch s(g, o);
//   while (!s.step(0.05)) show(s.progress());   // s.cancel() from elsewhere: done at the next step
//   ParetoFrontier f = s.frontier();             // partial (progress().stopped) after a cancel
class ParetoSearch {
 public:
  ParetoSearch(const Graph& g, ParetoOptions options);  // InputError: no MAC cap to search
  ~ParetoSearch();
  ParetoSearch(const ParetoSearch&) = delete;
  ParetoSearch& operator=(const ParetoSearch&) = delete;

  // Works for about `seconds` (at least one unit: a search slice, a verification or a recipe,
  // each verified through run_whatif); true once the frontier is complete or cancelled.
  bool step(double seconds);
  void cancel();
  bool done() const;
  const ParetoProgress& progress() const;
  ParetoFrontier frontier() const;  // the points verified so far, non-dominated

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The verified points no other verified point beats on both axes, by extra MACs rising.
std::vector<ParetoPoint> non_dominated(std::vector<ParetoPoint> points);
// {"start_peak_bytes", "start_macs", "points": [{"peak_bytes", "arena_bytes", "extra_macs",
// "extra_macs_pct", "cap_pct", "verified", "outputs_check", "rewrites"}], "tried": [...]}
JsonOut pareto_json(const ParetoFrontier& f);
std::string pareto_text(const ParetoFrontier& f);

// whatif_json(report) plus "auto": {"budget_bytes", "lower_bound_bytes", "budget_met",
// "max_extra_macs_pct", "extra_macs", "kinds", "search": {...}, "applied": [{"spec",
// "saving_bytes", "peak_without_bytes", "note"}]}: the `transform --auto --json` contract.
JsonOut auto_rewrite_json(const AutoRewriteResult& r);
std::string auto_rewrite_text(const AutoRewriteResult& r);
// One line for a budget that was not met: by how much and the bound; "" when met.
std::string auto_budget_shortfall(const AutoRewriteResult& r);

}  // namespace arenaplan
