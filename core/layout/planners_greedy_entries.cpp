// Registry entries of the one-pass planners (the algorithms are in planners_greedy.cpp). Each
// answers within a frame, so the Arena panel runs them all on every edit.
#include "core/layout/detail/planner_entries.h"
#include "core/layout/planner_greedy.h"

namespace arenaplan::planner {
namespace {

// A one-pass algorithm as a registry plan function (one-pass planners ignore the request).
template <GreedyPlan (*algorithm)(const LayoutProblem&)>
PlannerOutput plan_with(const LayoutProblem& problem, const PlanRequest&) {
  GreedyPlan g = algorithm(problem);
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
                         .plan = plan_with<plan_naive>,
                         .interactive = true};
  return p;
}

const Planner& linear_planner() {
  static const Planner p{.name = "linear",
                         .description = "TFLM's LinearMemoryPlanner (offset = sum of the earlier sizes; same as naive)",
                         .plan = plan_with<plan_linear>,
                         .interactive = true};
  return p;
}

const Planner& tflm_greedy_planner() {
  static const Planner p{.name = "tflm-greedy",
                         .description = "an exact replica of TFLM's GreedyMemoryPlanner",
                         .plan = plan_with<plan_tflm_greedy>,
                         .interactive = true};
  return p;
}

const Planner& portfolio_planner() {
  static const Planner p{.name = "portfolio",
                         .description = "several greedy orders x {lowest gap, best fit}, the smallest kept",
                         .plan = plan_with<plan_portfolio>,
                         .interactive = true};
  return p;
}

}  // namespace arenaplan::planner
