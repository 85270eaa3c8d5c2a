// Registry entries of the searching planners: "exact" (the portfolio, then branch and bound within
// the time limit; anytime in the UI) and "best" (the same run: the default name users ask for).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/layout/detail/planner_entries.h"
#include "core/layout/planner_exact.h"
#include "core/layout/planner_greedy.h"

namespace arenaplan::planner {
namespace {

// Seconds plan_arena's verifier takes per buffer (an O(n log n) sweep: ~1 us per buffer measured
// at 100,000 buffers), kept free at the end of the time limit so that the verified plan is
// returned within it.
constexpr double kVerifySecondsPerBuffer = 2e-6;

// Below this many overlapping pairs a whole portfolio takes well under a second: it always runs
// to the end there, so a small problem gets the same plan on every machine whatever the limit.
constexpr int64_t kAlwaysCompletePairs = int64_t{1} << 24;

// Steps `solver` until it is done, `node_limit` nodes are expanded (0: no limit) or `deadline`
// passes; true when the deadline stopped it. The node limit is checked between fixed chunks, so
// the plan depends on the limit only, not on the machine's speed.
bool run_exact(ExactSolver& solver, Deadline deadline, int64_t node_limit) {
  constexpr int64_t kChunk = 2000;
  while (node_limit <= 0 || solver.nodes() < node_limit) {
    if (std::chrono::steady_clock::now() >= deadline) return true;
    const int64_t chunk = node_limit > 0 ? std::min(kChunk, node_limit - solver.nodes()) : kChunk;
    if (!solver.step(chunk)) return false;
  }
  return false;
}

// Small problems: the portfolio, then the exact search for what is left of the time limit. Large
// ones (tens of thousands of buffers live at once, where each greedy run walks them all for every
// buffer): a plan first, at once, from the online allocator (O(n log n)), or TFLM's greedy run
// when buffers have fixed offsets; then the portfolio and the exact search improve it until the
// time limit, less the final verification's share.
PlannerOutput portfolio_then_exact(const LayoutProblem& problem, const PlanRequest& request) {
  const double budget = request.time_limit_seconds - kVerifySecondsPerBuffer * static_cast<double>(problem.buffers.size());
  const Deadline deadline = request.start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(std::max(0.0, budget)));
  const bool small = overlapping_pairs(problem) <= kAlwaysCompletePairs;
  std::optional<GreedyPlan> first = small ? std::nullopt : plan_online_best_fit(problem);
  GreedyPlan greedy = first ? improve_with_portfolio(problem, std::move(*first), deadline) : plan_portfolio(problem);
  PlannerOutput out;
  out.offsets = std::move(greedy.offsets);
  out.arena_bytes = greedy.arena_bytes;
  out.detail = std::move(greedy.member);
  if (out.arena_bytes <= request.lower_bound_bytes) return out;
  const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  if (left <= 0 && !small) {
    out.detail += ", no time left for the exact search";
    return out;
  }
  ExactSolver solver(problem, out.offsets, out.arena_bytes);
  const bool timed_out = run_exact(solver, deadline, request.node_limit);
  if (solver.best_arena_bytes() < out.arena_bytes) {
    out.offsets = solver.best_so_far();
    out.arena_bytes = solver.best_arena_bytes();
    out.detail = "exact";
  }
  out.proven_optimal = solver.proven_optimal();
  out.optimality = solver.optimality_proof();
  out.detail += ", exact search: " + solver.status_text();
  if (timed_out && request.node_limit > 0)
    out.detail += " (the time limit came before the node limit: another machine may find another plan)";
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
