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

PlannerComparison compare_interactive_planners(const Graph& graph, const LiveAnalysis& live) {
  PlannerComparison out;
  out.problem = layout_problem(graph, live);
  // One second each: every interactive planner answers well within it on hundreds of ops.
  for (const std::string& name : interactive_planner_names()) out.plans.push_back(plan_arena(out.problem, {name, 1.0}));
  return out;
}

AnytimeLayout start_anytime_layout(const Graph& graph, const Schedule& order) {
  return start_anytime_layout(layout_problem(graph, analyze_lifetimes(graph, order)));
}

AnytimeLayout start_anytime_layout(LayoutProblem problem) {
  const Planner& anytime = anytime_planner();
  AnytimeLayout out;
  out.problem = std::move(problem);
  out.seed = plan_arena(out.problem, {anytime.seed_planner, 1.0});
  out.search = anytime.start_search(out.problem, out.seed.offsets, out.seed.arena_bytes);
  return out;
}

ArenaPlan adopt_anytime_answer(const LayoutProblem& problem, AnytimeAnswer answer) {
  const VerifyResult check = verify_plan(problem, answer.offsets, answer.arena_bytes);  // a wrong count too
  if (!check.ok()) throw InputError("search result", "the plan did not pass the verifier (" + check.message + ")");
  ArenaPlan plan;
  plan.planner = anytime_planner().name;
  plan.offsets = std::move(answer.offsets);
  plan.arena_bytes = answer.arena_bytes;
  plan.detail = std::move(answer.status);
  plan.verified = true;
  plan.lower_bound_bytes = layout_lower_bound(problem);
  plan.proven_optimal = answer.proven_optimal || plan.arena_bytes <= plan.lower_bound_bytes;
  if (plan.arena_bytes <= plan.lower_bound_bytes) plan.optimality = "the arena equals the live-bytes lower bound";
  else if (plan.proven_optimal) plan.optimality = "the exact search was exhaustive";
  return plan;
}

}  // namespace arenaplan
