#include "core/layout/pipeline.h"

namespace arenaplan {

GraphPlan plan_graph(const Graph& graph, LiveAnalysis live, const PlanOptions& options, const FixOffsets& fix);

GraphPlan plan_graph(const Graph& graph, const Schedule& order, const PlanOptions& options) {
  return plan_graph(graph, analyze_lifetimes(graph, order), options);
}

GraphPlan plan_graph(const Graph& graph, LiveAnalysis live, const PlanOptions& options) {
  return plan_graph(graph, std::move(live), options, nullptr);
}

GraphPlan plan_graph(const Graph& graph, const Schedule& order, const PlanOptions& options, const FixOffsets& fix) {
  return plan_graph(graph, analyze_lifetimes(graph, order), options, fix);
}

GraphPlan plan_graph(const Graph& graph, LiveAnalysis live, const PlanOptions& options, const FixOffsets& fix) {
  GraphPlan out;
  out.live = std::move(live);
  out.problem = layout_problem(graph, out.live);
  if (fix) fix(out.problem, out.live);
  out.plan = plan_arena(out.problem, options);
  return out;
}

}  // namespace arenaplan
