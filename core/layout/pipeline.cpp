#include "core/layout/pipeline.h"

namespace arenaplan {

GraphPlan plan_graph(const Graph& graph, const Schedule& order, const PlanOptions& options) {
  return plan_graph(graph, analyze_lifetimes(graph, order), options);
}

GraphPlan plan_graph(const Graph& graph, LiveAnalysis live, const PlanOptions& options) {
  GraphPlan out;
  out.live = std::move(live);
  out.problem = layout_problem(graph, out.live);
  out.plan = plan_arena(out.problem, options);
  return out;
}

}  // namespace arenaplan
