// The one pipeline from a graph and an operator order to a verified arena plan:
// lifetimes -> layout problem -> plan. Every unit that needs "the plan of this graph in this
// order" calls it instead of rebuilding the sequence.
//
// Usage:
//   GraphPlan p = plan_graph(graph, order, {.planner = "best", .time_limit_seconds = 1.0});
//   p.live.peak_bytes;  p.problem.buffers[i];  p.plan.offsets[i];  // i <-> p.live.buffers[i]
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/lifetime.h"
#include "core/layout/layout.h"
#include "core/layout/planner.h"

namespace arenaplan {

struct GraphPlan {
  LiveAnalysis live;      // analyze_lifetimes(graph, order)
  LayoutProblem problem;  // layout_problem(graph, live): buffer i is live.buffers[i]
  ArenaPlan plan;         // plan_arena(problem, options): verified
};

// Throws InputError for an order analyze_lifetimes refuses or an unknown planner name.
GraphPlan plan_graph(const Graph& graph, const Schedule& order, const PlanOptions& options);

// The same from lifetimes already analysed for that graph (a view that holds them for the
// current order).
GraphPlan plan_graph(const Graph& graph, LiveAnalysis live, const PlanOptions& options);

// The same, letting the caller fix offsets in the problem before planning (e.g. the offsets a
// model's own offline plan already holds, which the planner must plan around).
using FixOffsets = std::function<void(LayoutProblem&, const LiveAnalysis&)>;
GraphPlan plan_graph(const Graph& graph, const Schedule& order, const PlanOptions& options, const FixOffsets& fix);

// Every interactive planner's verified plan of the graph's buffers in one order, side by side
// (the Arena panel's table). Throws InputError for a problem layout_problem refuses.
struct PlannerComparison {
  LayoutProblem problem;         // layout_problem(graph, live)
  std::vector<ArenaPlan> plans;  // plans[i] is interactive_planner_names()[i]'s
};
PlannerComparison compare_interactive_planners(const Graph& graph, const LiveAnalysis& live);

// The anytime planner's search of the graph's buffers in `order`, seeded with its seed planner's
// verified plan (the plan a view shows until the search improves on it). The caller drives the
// search in slices (a frame or a worker message at a time).
struct AnytimeLayout {
  LayoutProblem problem;
  ArenaPlan seed;
  std::unique_ptr<AnytimeLayoutSearch> search;
};
AnytimeLayout start_anytime_layout(const Graph& graph, const Schedule& order);
AnytimeLayout start_anytime_layout(LayoutProblem problem);  // buffers without a graph (a MiniMalloc CSV)

// What an anytime search answered, as it crosses a thread (the page's worker sends it as JSON).
struct AnytimeAnswer {
  std::vector<Bytes> offsets;
  Bytes arena_bytes = 0;
  bool proven_optimal = false;
  std::string status;  // AnytimeLayoutSearch::status_text()
};
// The answer as the anytime planner's plan of `problem`, checked by the verifier here: whatever
// computed it, nothing is shown unchecked. InputError("search result", ...) naming the broken
// rule when the verifier refuses it.
ArenaPlan adopt_anytime_answer(const LayoutProblem& problem, AnytimeAnswer answer);

}  // namespace arenaplan
