// Generators of the two kinds about whole plans (exercise_generate.h): fit_budget draws a budget
// among the arenas that the choices really give, so some choices fit and some do not; broken_rule
// takes a verified plan and injects exactly one violation, proved unique by the verifier.
#include <algorithm>

#include "core/graph/report.h"
#include "core/layout/pipeline.h"
#include "core/teach/detail/exercise_draft.h"
#include "core/teach/detail/exercise_internal.h"

namespace arenaplan::exercise_detail {

namespace {

// Tries per attempt to inject a violation before the attempt gives up (the next attempt redraws).
constexpr int kInjectTries = 12;
// The planner TFLM runs by default: an order question asks what it makes of an order.
constexpr const char* kOrderQuestionPlanner = "tflm-greedy";

// "naive, linear, tflm-greedy or portfolio".
std::string join_or(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

std::vector<Bytes> distinct_sorted(std::vector<Bytes> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// A budget that some arenas meet and the next one up does not: halfway, on a whole KiB.
Bytes budget_between(Bytes fits, Bytes next_up) {
  return std::max(fits, fits + (next_up - fits) / 2 / 1024 * 1024);
}

std::optional<Draft> draft_fit_planner(const Graph& g, int difficulty, SeededRng& rng) {
  const Schedule order = difficulty == 1 ? g.file_order() : draw_order(g, rng);
  const std::vector<std::string>& choices = exercise_planners();
  std::vector<Bytes> arenas;
  for (const std::string& p : choices) arenas.push_back(planned_arena(g, order, p));
  const std::vector<Bytes> levels = distinct_sorted(arenas);
  if (levels.size() < 2) return std::nullopt;  // every choice fits or none: nothing to think about
  // Level 1 accepts any planner that reuses memory; level 2 only the best.
  const size_t k = difficulty == 1 ? static_cast<size_t>(rng.below(static_cast<int64_t>(levels.size()) - 1)) : 0;
  const Bytes budget = budget_between(levels[k], levels[k + 1]);
  Draft d;
  d.params["order"] = names_json(g, order);
  d.params["budget"] = budget;
  for (size_t i = 0; i < choices.size(); ++i)
    if (arenas[i] <= budget) {
      d.reference_answer = choices[i];
      break;
    }
  d.question = "The ops run in the order " + order_names(g, order) + " and the board leaves " + format_bytes(budget) +
               " for the tensor arena. Which planner's layout fits: " + join_or(choices) +
               "? (A planner's arena is at least the peak of live bytes, and can be more: it depends on where each "
               "buffer goes.)";
  d.hints = {"naive and linear give every buffer its own bytes: their arena is the sum of all the sizes.",
             "tflm-greedy places the biggest buffers first, each at the lowest offset free for its whole lifetime.",
             "portfolio tries several greedy orders and keeps the smallest arena."};
  return d;
}

std::optional<Draft> draft_fit_order(const Graph& g, int difficulty, SeededRng& rng) {
  const std::string planner = kOrderQuestionPlanner;
  const std::vector<Schedule> candidates = fit_budget_candidate_orders(g);
  std::vector<Bytes> arenas;
  for (const Schedule& s : candidates) arenas.push_back(planned_arena(g, s, planner));
  const Bytes file_arena = arenas[0];  // candidates start with the file order
  std::vector<Bytes> below;
  for (Bytes a : distinct_sorted(arenas))
    if (a < file_arena) below.push_back(a);
  if (below.empty()) return std::nullopt;  // the file order already does best
  // Level 3 takes any arena better than the file order's, level 4 one of the two best, 5 the best.
  const int64_t choices = difficulty == 3 ? static_cast<int64_t>(below.size()) : difficulty == 4 ? 2 : 1;
  Bytes budget = below[static_cast<size_t>(rng.below(std::min<int64_t>(choices, static_cast<int64_t>(below.size()))))];
  // From level 4, prefer a budget with a trap: an order whose peak of live bytes fits but whose
  // arena does not, so the planner's placement matters and not only the live set.
  if (difficulty >= 4) {
    std::vector<Bytes> trapped;
    for (Bytes b : below)
      for (size_t i = 0; i < candidates.size(); ++i)
        if (arenas[i] > b && analyze_lifetimes(g, candidates[i]).peak_bytes <= b) {
          trapped.push_back(b);
          break;
        }
    if (!trapped.empty()) budget = trapped[static_cast<size_t>(rng.below(std::min<int64_t>(choices, static_cast<int64_t>(trapped.size()))))];
  }
  Draft d;
  d.params["planner"] = planner;
  d.params["budget"] = budget;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (arenas[i] <= budget) {
      d.reference_answer = order_names(g, candidates[i]);
      break;
    }
  d.question = "TFLM's greedy planner (" + planner + ") will place the tensors, and the board leaves " +
               format_bytes(budget) + " for the tensor arena. In the file order " + order_names(g, g.file_order()) +
               " it needs " + format_bytes(file_arena) + ". Find an order of the ops for which its arena fits in " +
               format_bytes(budget) + ".";
  d.hints = {"Start from an order with a low peak of live bytes: no arena is below it.",
             "Finish a branch before starting the next one, so its tensors can be freed early.",
             "The greedy planner places the biggest buffers first; an order in which big buffers do not overlap in "
             "time leaves it fewer holes."};
  return d;
}

// ---- broken_rule -----------------------------------------------------------------------------------

bool one_violation(const ExercisePlanUnderTest& p) {
  return count_broken_rules(p.problem, p.offsets, p.arena_bytes) == 1;
}

int random_buffer(const LayoutProblem& p, SeededRng& rng) {
  std::vector<int> sized;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].size > 0) sized.push_back(static_cast<int>(i));
  return sized.empty() ? -1 : rng.pick(sized);
}

std::optional<ExercisePlanUnderTest> inject_alignment(const ExercisePlanUnderTest& base, SeededRng& rng) {
  for (int t = 0; t < kInjectTries; ++t) {
    ExercisePlanUnderTest p = base;
    const int x = random_buffer(p.problem, rng);
    const Bytes a = x < 0 ? 0 : p.problem.buffers[x].alignment;
    if (a < 2) continue;
    const bool down = p.offsets[x] >= a && rng.chance(50);
    p.offsets[x] += down ? -(a / 2) : a / 2;
    if (one_violation(p)) return p;
  }
  return std::nullopt;
}

std::optional<ExercisePlanUnderTest> inject_arena_end(const ExercisePlanUnderTest& base, SeededRng& rng) {
  if (rng.chance(50)) {  // the plan claims an arena too small for its top buffer
    ExercisePlanUnderTest p = base;
    int top = -1;
    Bytes top_end = 0, second = 0;
    for (size_t i = 0; i < p.problem.buffers.size(); ++i) {
      const Bytes end = p.offsets[i] + p.problem.buffers[i].size;
      if (end > top_end) {
        second = top_end;
        top_end = end;
        top = static_cast<int>(i);
      } else {
        second = std::max(second, end);
      }
    }
    if (top >= 0 && second < top_end) {
      p.arena_bytes = std::max(second, top_end - p.problem.buffers[top].size / 2 / 1024 * 1024);
      if (p.arena_bytes < top_end && one_violation(p)) return p;
    }
  }
  for (int t = 0; t < kInjectTries; ++t) {  // a buffer moved up across the arena's end
    ExercisePlanUnderTest p = base;
    const int x = random_buffer(p.problem, rng);
    if (x < 0) return std::nullopt;
    const LayoutBuffer& b = p.problem.buffers[x];
    p.offsets[x] = align_up(p.arena_bytes - b.size / 2, std::max<Bytes>(1, b.alignment));
    if (p.offsets[x] + b.size > p.arena_bytes && one_violation(p)) return p;
  }
  return std::nullopt;
}

std::optional<ExercisePlanUnderTest> inject_overlap(const ExercisePlanUnderTest& base, SeededRng& rng) {
  for (int t = 0; t < kInjectTries; ++t) {
    ExercisePlanUnderTest p = base;
    const int x = random_buffer(p.problem, rng);
    if (x < 0) return std::nullopt;
    std::vector<int> company;
    for (size_t i = 0; i < p.problem.buffers.size(); ++i)
      if (static_cast<int>(i) != x && p.problem.buffers[i].size > 0 && live_together(p.problem.buffers[x], p.problem.buffers[i]))
        company.push_back(static_cast<int>(i));
    if (company.empty()) continue;
    const int y = rng.pick(company);
    const Bytes a = std::max<Bytes>(1, p.problem.buffers[x].alignment);
    const Bytes into = rng.chance(50) ? 0 : p.problem.buffers[y].size / 2 / a * a;
    p.offsets[x] = p.offsets[y] + into;
    if (p.offsets[x] + p.problem.buffers[x].size <= p.arena_bytes && one_violation(p)) return p;
  }
  return std::nullopt;
}

// A planner told that a tensor dies before its last reader: re-planned with that lifetime, the
// plan reuses its bytes too soon (or, when the planner happens not to, a later buffer is moved
// onto them).
std::optional<ExercisePlanUnderTest> inject_freed_early(const ExercisePlanUnderTest& base, const Graph& g,
                                                        const Schedule& order, const std::string& planner, SeededRng& rng) {
  std::vector<int> long_lived;
  for (size_t i = 0; i < base.problem.buffers.size(); ++i)
    if (base.problem.buffers[i].size > 0 && base.problem.buffers[i].first < base.problem.buffers[i].last)
      long_lived.push_back(static_cast<int>(i));
  if (long_lived.empty()) return std::nullopt;
  for (int t = 0; t < kInjectTries; ++t) {
    ExercisePlanUnderTest p = base;
    const int x = rng.pick(long_lived);
    const LayoutBuffer truth = p.problem.buffers[x];
    const Step stated_last = static_cast<Step>(rng.between(truth.first, truth.last - 1));
    p.stated.buffers[x].last = stated_last;
    const ArenaPlan replanned =
        plan_graph(g, order, {.planner = planner}, [&](LayoutProblem& problem, const LiveAnalysis&) {
          problem.buffers[x].last = stated_last;  // what the planner is told
        }).plan;
    p.offsets = replanned.offsets;
    p.arena_bytes = replanned.arena_bytes;
    if (!one_violation(p)) {
      p.offsets = base.offsets;
      p.arena_bytes = base.arena_bytes;
      std::vector<int> born_too_soon;  // live with x in truth, after x's death in the plan
      for (size_t i = 0; i < p.problem.buffers.size(); ++i) {
        const LayoutBuffer& b = p.problem.buffers[i];
        if (static_cast<int>(i) != x && b.size > 0 && b.first > p.stated.buffers[x].last && b.first <= truth.last)
          born_too_soon.push_back(static_cast<int>(i));
      }
      if (born_too_soon.empty()) continue;
      const int y = rng.pick(born_too_soon);
      p.offsets[y] = p.offsets[x];
      if (p.offsets[y] + p.problem.buffers[y].size > p.arena_bytes) continue;
    }
    if (one_violation(p) && verify_plan(p.stated, p.offsets, p.arena_bytes).ok()) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Draft> draft_fit_budget(const Graph& g, int difficulty, SeededRng& rng) {
  return difficulty <= 2 ? draft_fit_planner(g, difficulty, rng) : draft_fit_order(g, difficulty, rng);
}

std::optional<Draft> draft_broken_rule(const Graph& g, int difficulty, SeededRng& rng) {
  const Schedule order = difficulty == 1 ? g.file_order() : draw_order(g, rng);
  const std::string planner = difficulty <= 2 ? "tflm-greedy" : "portfolio";
  const GraphPlan made = plan_graph(g, order, {.planner = planner});
  const ExercisePlanUnderTest base{made.problem, made.problem, made.plan.offsets, made.plan.arena_bytes};
  // Level 1 breaks a rule one row of the table shows; from level 3 lifetimes must be read off the graph.
  static const std::vector<BrokenRule> kByLevel[] = {
      {BrokenRule::kAlignment, BrokenRule::kArenaEnd},
      {BrokenRule::kAlignment, BrokenRule::kArenaEnd, BrokenRule::kOverlap},
      {BrokenRule::kOverlap, BrokenRule::kFreedEarly},
      {BrokenRule::kOverlap, BrokenRule::kFreedEarly, BrokenRule::kAlignment},
      {BrokenRule::kFreedEarly, BrokenRule::kFreedEarly, BrokenRule::kOverlap, BrokenRule::kAlignment, BrokenRule::kArenaEnd},
  };
  const BrokenRule rule = rng.pick(kByLevel[difficulty - 1]);
  std::optional<ExercisePlanUnderTest> broken;
  switch (rule) {
    case BrokenRule::kAlignment: broken = inject_alignment(base, rng); break;
    case BrokenRule::kArenaEnd: broken = inject_arena_end(base, rng); break;
    case BrokenRule::kOverlap: broken = inject_overlap(base, rng); break;
    case BrokenRule::kFreedEarly: broken = inject_freed_early(base, g, order, planner, rng); break;
  }
  if (!broken) return std::nullopt;
  const PlanDiagnosis diagnosis = diagnose_plan(*broken);
  if (diagnosis.ok || diagnosis.rule != rule) return std::nullopt;
  JsonOut buffers = JsonOut::array();
  for (size_t i = 0; i < broken->stated.buffers.size(); ++i) {
    const LayoutBuffer& b = broken->stated.buffers[i];
    buffers.push_back({{"name", b.name}, {"offset", broken->offsets[i]}, {"size", b.size}, {"first", b.first}, {"last", b.last}});
  }
  Draft d;
  d.params["order"] = names_json(g, order);
  d.params["plan"] = {{"arena_bytes", broken->arena_bytes}, {"buffers", std::move(buffers)}};
  d.reference_answer = std::string(broken_rule_name(rule)) + " " + broken->problem.buffers[diagnosis.buffers[0]].name;
  if (rule == BrokenRule::kOverlap) d.reference_answer += " " + broken->problem.buffers[diagnosis.buffers[1]].name;
  d.question = "This plan places the tensors for the order " + order_names(g, order) + " in an arena of " +
               with_commas(broken->arena_bytes) + " B (offsets must be multiples of " + std::to_string(g.alignment) +
               " B, each buffer live from step first to step last as the plan assumed). It breaks exactly one rule: "
               "overlap (two buffers live at the same step share a byte), freed-early (the plan ends a tensor's life "
               "before its last reader runs), alignment or arena-end (a buffer ends past the arena). Which rule, and "
               "which tensor(s)? Answer like \"overlap B D\".";
  d.hints = {"Check every offset against the alignment, and every end (offset + size) against the arena.",
             "For each tensor, find the last op that reads it in this order: does the plan's lifetime reach that step?",
             "Two buffers whose lifetimes meet must not share a byte: compare their offset ranges."};
  return d;
}

}  // namespace arenaplan::exercise_detail
