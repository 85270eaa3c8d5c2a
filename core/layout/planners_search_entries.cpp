// Registry entries of the searching planners: "exact" (the portfolio, then branch and bound within
// the time limit; anytime in the UI) and "best" (the same run: the default name users ask for).
#include <chrono>
#include <cstdio>

#include "core/layout/detail/planner_entries.h"
#include "core/layout/planner_exact.h"
#include "core/layout/planner_greedy.h"

namespace arenaplan::planner {
namespace {

// The portfolio's plan, improved by the exact search for what is left of the time limit.
PlannerOutput portfolio_then_exact(const LayoutProblem& problem, const PlanRequest& request) {
  GreedyPlan greedy = plan_portfolio(problem);
  PlannerOutput out;
  out.offsets = std::move(greedy.offsets);
  out.arena_bytes = greedy.arena_bytes;
  out.detail = std::move(greedy.member);
  if (out.arena_bytes <= request.lower_bound_bytes) return out;
  ExactSolver solver(problem, out.offsets, out.arena_bytes);
  solver.run_for(request.time_limit_seconds -
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - request.start).count());
  if (solver.best_arena_bytes() < out.arena_bytes) {
    out.offsets = solver.best_so_far();
    out.arena_bytes = solver.best_arena_bytes();
    out.detail = "exact";
  }
  out.proven_optimal = solver.proven_optimal();
  out.optimality = solver.optimality_proof();
  out.detail += ", exact search: " + solver.status_text();
  return out;
}

// ExactSolver behind the anytime interface the UI drives.
class ExactSearch final : public AnytimeLayoutSearch {
 public:
  ExactSearch(const LayoutProblem& problem, std::vector<Bytes> seed_offsets, Bytes seed_arena)
      : solver_(problem, std::move(seed_offsets), seed_arena) {}
  bool step(int64_t nodes) override { return solver_.step(nodes); }
  void cancel() override { solver_.cancel(); }
  bool done() const override { return solver_.done(); }
  double progress() const override { return solver_.progress(); }
  bool proven_optimal() const override { return solver_.proven_optimal(); }
  const std::vector<Bytes>& best_so_far() const override { return solver_.best_so_far(); }
  Bytes best_arena_bytes() const override { return solver_.best_arena_bytes(); }
  std::string status_text() const override { return solver_.status_text(); }
  std::string progress_text() const override {
    char text[160];
    std::snprintf(text, sizeof text, "best %s, bound %s, trying %s, %lld nodes",
                  format_kib(solver_.best_arena_bytes()).c_str(), format_kib(solver_.lower_bound_bytes()).c_str(),
                  format_kib(solver_.trying_capacity()).c_str(), static_cast<long long>(solver_.nodes()));
    return text;
  }

 private:
  ExactSolver solver_;
};

}  // namespace

const Planner& exact_planner() {
  static const Planner p{
      .name = "exact",
      .description = "branch and bound (MiniMalloc-style) on top of the portfolio, within the time limit",
      .plan = portfolio_then_exact,
      .interactive = false,
      .start_search = [](const LayoutProblem& problem, std::vector<Bytes> seed_offsets,
                         Bytes seed_arena) -> std::unique_ptr<AnytimeLayoutSearch> {
        return std::make_unique<ExactSearch>(problem, std::move(seed_offsets), seed_arena);
      },
      .seed_planner = "portfolio"};
  return p;
}

const Planner& best_planner() {
  static const Planner p{.name = "best",
                         .description = "portfolio, then exact within the time limit (the default)",
                         .plan = portfolio_then_exact};
  return p;
}

}  // namespace arenaplan::planner
