// Registry entries of the one-pass planners (the algorithms are in planners_greedy.cpp). Each
// answers within a frame, so the Arena panel runs them all on every edit.
#include "core/layout/detail/planner_entries.h"
#include "core/layout/planner_greedy.h"

namespace arenaplan::planner {
namespace {

PlannerOutput from_greedy(GreedyPlan g) {
  PlannerOutput out;
  out.offsets = std::move(g.offsets);
  out.arena_bytes = g.arena_bytes;
  out.detail = std::move(g.member);
  return out;
}

}  // namespace

const Planner& naive_planner() {
  static const Planner p{.name = "naive",
                         .description = "every buffer its own space, in buffer order (no reuse at all)",
                         .plan = [](const LayoutProblem& problem, const PlanRequest&) { return from_greedy(plan_naive(problem)); },
                         .interactive = true};
  return p;
}

const Planner& linear_planner() {
  static const Planner p{.name = "linear",
                         .description = "TFLM's LinearMemoryPlanner (offset = sum of the earlier sizes; same as naive)",
                         .plan = [](const LayoutProblem& problem, const PlanRequest&) { return from_greedy(plan_linear(problem)); },
                         .interactive = true};
  return p;
}

const Planner& tflm_greedy_planner() {
  static const Planner p{.name = "tflm-greedy",
                         .description = "an exact replica of TFLM's GreedyMemoryPlanner",
                         .plan = [](const LayoutProblem& problem, const PlanRequest&) {
                           return from_greedy(plan_tflm_greedy(problem));
                         },
                         .interactive = true};
  return p;
}

const Planner& portfolio_planner() {
  static const Planner p{.name = "portfolio",
                         .description = "several greedy orders x {lowest gap, best fit}, the smallest kept",
                         .plan = [](const LayoutProblem& problem, const PlanRequest&) {
                           return from_greedy(plan_portfolio(problem));
                         },
                         .interactive = true};
  return p;
}

}  // namespace arenaplan::planner
