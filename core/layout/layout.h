// Arena layout: where each buffer sits in one static arena. Planners behind one small interface
// (like TFLM's MemoryPlanner), an independent verifier, and the plan every other unit consumes.
//
// Usage:
//   LiveAnalysis live = analyze_lifetimes(graph, order);
//   ArenaPlan plan = plan_arena(layout_problem(graph, live), {.planner = "best"});
//   // plan.offsets[i] is the offset of live.buffers[i]; plan.verified is always true here.
//
// Planners (PlanOptions::planner) are registered in planner.h / planner_registry.cpp:
//   naive        every buffer its own space, in buffer order (no reuse at all)
//   linear       TFLM's LinearMemoryPlanner rule (offset = sum of the earlier sizes; same as naive)
//   tflm-greedy  an exact replica of TFLM's GreedyMemoryPlanner (planners_greedy.cpp)
//   portfolio    several greedy orders x {lowest gap, best fit}, the smallest kept
//   exact        branch and bound (planner_exact.h) on top of the portfolio, within the time limit
//   best         portfolio, then exact within the time limit (the default)
// One call from a graph and an order to a verified plan: plan_graph (pipeline.h).
#pragma once

#include <nlohmann/json.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"

namespace arenaplan {

// One buffer to place: size, alignment, inclusive lifetime, optional fixed (offline) offset.
struct LayoutBuffer {
  std::string name;
  Bytes size = 0;        // bytes (already rounded up to what the arena needs)
  Bytes alignment = 16;  // offset must be a multiple of this
  Step first = 0;        // first step live (inclusive)
  Step last = 0;         // last step live (inclusive)
  std::optional<Bytes> fixed_offset;  // offline-planned: the planner must keep it
  ArenaCategory category = ArenaCategory::kHead;  // TFLM section it belongs to (reporting only)
};

struct LayoutProblem {
  std::vector<LayoutBuffer> buffers;
};

// Buffers of a LiveAnalysis in the same order (index i <-> live.buffers[i]).
LayoutProblem layout_problem(const Graph& g, const LiveAnalysis& live);

struct ArenaPlan {
  std::string planner;            // "naive", "linear", "tflm-greedy", "portfolio", "exact", "best"
  std::vector<Bytes> offsets;     // per LayoutProblem buffer
  Bytes arena_bytes = 0;          // max over buffers of offset + size
  Bytes lower_bound_bytes = 0;    // max over steps of live bytes (no plan can be smaller)
  bool proven_optimal = false;    // arena_bytes == lower bound, or the exact search was exhaustive
  std::string optimality;         // the proof in one sentence when proven_optimal, else empty
  bool verified = false;          // the independent verifier accepted it
  double seconds = 0;             // planning time
  std::string detail;             // which portfolio member / exact outcome produced it (for humans)
};

struct PlanOptions {
  std::string planner = "best";
  double time_limit_seconds = 5.0;  // for exact / best
  // For exact / best: search nodes the exact search may expand (0: no limit but the time). Within
  // the time limit, a node limit makes the plan the same on every machine and in the browser.
  int64_t node_limit = 0;
};

// Plans with the registered planner of that name and verifies; throws InputError for an unknown
// planner name. Never returns an unverified
// plan (a verifier failure is an internal error: std::logic_error naming the broken rule).
ArenaPlan plan_arena(const LayoutProblem& problem, const PlanOptions& options);

// Names plan_arena accepts (the registry's, planner.h), in the order the UI shows them side by side.
const std::vector<std::string>& planner_names();

// Max over time of the live bytes, and over fixed buffers of their end: no arena can be smaller.
Bytes layout_lower_bound(const LayoutProblem& problem);

// Max over buffers of offset + size (0 for an empty problem).
Bytes arena_extent(const LayoutProblem& problem, const std::vector<Bytes>& offsets);

// The independent verifier (MiniMalloc's validator style): which rule broke, for which buffers.
enum class VerifyRule { kOk, kBadCount, kBadFixedOffset, kBadAlignment, kNegativeOffset, kBadArenaBound, kOverlap };
struct VerifyResult {
  VerifyRule rule = VerifyRule::kOk;
  int buffer_a = -1, buffer_b = -1;  // the offending buffer(s)
  std::string message;               // e.g. "buffers B and D overlap at steps 3..3, bytes 32768..98303"
  bool ok() const { return rule == VerifyRule::kOk; }
};
VerifyResult verify_plan(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes);

// "ok", "bad-count", "bad-fixed-offset", "bad-alignment", "negative-offset", "bad-arena-bound", "overlap".
const char* verify_rule_name(VerifyRule rule);

// Per TFLM arena category: the most bytes of that category live at once, and the address span its
// buffers occupy in a plan ([lowest offset, highest end), 0 when the category is empty).
struct CategoryUsage {
  ArenaCategory category = ArenaCategory::kHead;
  int buffers = 0;
  Bytes peak_live_bytes = 0;
  Bytes span_bytes = 0;
};
std::vector<CategoryUsage> category_usage(const LayoutProblem& problem, const std::vector<Bytes>& offsets);

// The `arenaplan layout --json` contract: {"planner", "arena_bytes", "lower_bound_bytes",
// "proven_optimal", "optimality" (the proof's sentence, null when not proven), "verified", "buffers": [{"name", "offset", "size", "first", "last"}], "seconds",
// "categories": [...]}.
nlohmann::ordered_json layout_json(const LayoutProblem& problem, const ArenaPlan& plan);
// The same bytes as layout_json(problem, plan).dump(2), written as they are made: a JSON document
// of 100,000 buffers costs a tenth of building it first (arenaplan layout --json).
void write_layout_json(std::ostream& out, const LayoutProblem& problem, const ArenaPlan& plan);

// An ASCII picture of a plan, like TFLM's PrintMemoryPlan: one row per time step (time down), the
// arena across in `width` columns, each buffer drawn with its own character; '.' is free space.
// Long time axes are sampled to at most `max_rows` rows. A legend follows.
std::string plan_picture(const LayoutProblem& problem, const std::vector<Bytes>& offsets, int width = 64,
                         int max_rows = 48);

// `arenaplan layout`'s text: "planner P (detail): arena ..., lower bound ...", the picture
// `width` columns wide, the bytes above the bound and each category's usage (layout_views.cpp).
std::string layout_text(const LayoutProblem& problem, const ArenaPlan& plan, int width = 64);

// `arenaplan verify`'s verdict on offsets in an arena of `arena_bytes`: "ok: N buffers fit in ..."
// or "broken rule R: message"; and as JSON {"ok", "rule", "message", "buffers", "arena_bytes",
// "lower_bound_bytes"}.
std::string verify_text(const LayoutProblem& problem, const VerifyResult& result, Bytes arena_bytes);
nlohmann::ordered_json verify_json(const LayoutProblem& problem, const VerifyResult& result, Bytes arena_bytes);

}  // namespace arenaplan
