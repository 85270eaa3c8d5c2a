// The one pipeline from a graph and an operator order to a verified arena plan:
// lifetimes -> layout problem -> plan. Every unit that needs "the plan of this graph in this
// order" calls it instead of rebuilding the sequence.
//
// Usage:
//   GraphPlan p = plan_graph(graph, order, {.planner = "best", .time_limit_seconds = 1.0});
//   p.live.peak_bytes;  p.problem.buffers[i];  p.plan.offsets[i];  // i <-> p.live.buffers[i]
#pragma once

#include <functional>

#include "core/graph/lifetime.h"
#include "core/layout/layout.h"

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

}  // namespace arenaplan
