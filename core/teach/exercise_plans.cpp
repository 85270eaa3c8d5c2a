// The two exercise kinds about whole plans (exercise.h): fit_budget (which planner, or which order,
// makes the arena fit a budget) and broken_rule (which rule a plan breaks). Reading their
// parameters, the truth from plan_graph and verify_plan, and checking answers.
#include <algorithm>
#include <set>

#include "core/graph/json_read.h"
#include "core/layout/pipeline.h"
#include "core/layout/planner.h"
#include "core/layout/verifier_plan.h"
#include "core/schedule/schedule.h"
#include "core/teach/detail/exercise_internal.h"
#include "core/teach/detail/seeded_rng.h"

namespace arenaplan {

namespace exercise_detail {

namespace {
// The candidate orders are fixed facts of a graph: a search on a budget of states (not of time)
// and a sample drawn from a constant seed.
constexpr int64_t kCandidateSearchStates = 4096;
constexpr int kCandidateSearchSteps = 16;
constexpr int kCandidateSampleOrders = 24;
constexpr uint64_t kCandidateSeed = 0x6669742d62756467ull;  // "fit-budg"
}  // namespace

// broken_rule: the most arena buffers a plan to judge may have (count_broken_rules is quadratic).
constexpr size_t kMaxBrokenRuleBuffers = 512;

const std::vector<std::string>& exercise_planners() { return interactive_planner_names(); }

Bytes planned_arena(const Graph& g, const Schedule& order, const std::string& planner) {
  return plan_graph(g, order, PlanOptions{.planner = planner}).plan.arena_bytes;
}

Schedule draw_order(const Graph& g, SeededRng& rng) {
  const auto preds = op_predecessors(g);
  std::vector<int> missing(g.ops.size());
  std::vector<std::vector<OpId>> succs(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o) {
    missing[o] = static_cast<int>(preds[o].size());
    for (OpId p : preds[o]) succs[p].push_back(static_cast<OpId>(o));
  }
  std::vector<OpId> ready;
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (missing[o] == 0) ready.push_back(static_cast<OpId>(o));
  Schedule order;
  while (!ready.empty()) {
    const size_t i = static_cast<size_t>(rng.below(static_cast<int64_t>(ready.size())));
    const OpId o = ready[i];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(i));
    order.push_back(o);
    for (OpId s : succs[o])
      if (--missing[s] == 0) ready.push_back(s);
  }
  return order;
}

std::vector<Schedule> fit_budget_candidate_orders(const Graph& g) {
  std::vector<Schedule> out = {g.file_order()};
  ScheduleSearch search(g);
  for (int i = 0; i < kCandidateSearchSteps && !search.done(); ++i) search.step(kCandidateSearchStates);
  out.push_back(search.best_so_far());
  SeededRng rng(kCandidateSeed);
  for (int i = 0; i < kCandidateSampleOrders; ++i) out.push_back(draw_order(g, rng));
  std::vector<Schedule> unique;
  for (Schedule& s : out)
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(std::move(s));
  return unique;
}

int count_broken_rules(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes) {
  const size_t n = problem.buffers.size();
  int broken = 0;
  std::vector<bool> alone_ok(n);
  for (size_t i = 0; i < n; ++i) {
    alone_ok[i] = verify_plan(LayoutProblem{{problem.buffers[i]}}, {offsets[i]}, arena_bytes).ok();
    broken += alone_ok[i] ? 0 : 1;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t k = i + 1; k < n; ++k) {
      if (!alone_ok[i] || !alone_ok[k] || !live_together(problem.buffers[i], problem.buffers[k])) continue;
      const LayoutProblem pair{{problem.buffers[i], problem.buffers[k]}};
      broken += verify_plan(pair, {offsets[i], offsets[k]}, arena_bytes).ok() ? 0 : 1;
    }
  return broken;
}

}  // namespace exercise_detail

namespace {

using namespace json_read;
using namespace exercise_detail;

struct RuleSpelling {
  BrokenRule rule;
  const char* name;
  std::vector<const char*> also;  // other words a student may use for it
};
const std::vector<RuleSpelling>& rule_spellings() {
  static const std::vector<RuleSpelling> all = {
      {BrokenRule::kOverlap, "overlap", {"overlaps", "overlapping", "collision", "collide"}},
      {BrokenRule::kFreedEarly, "freed-early", {"freed_early", "early", "lifetime", "freed"}},
      {BrokenRule::kAlignment, "alignment", {"misaligned", "misalignment", "align", "unaligned", "bad-alignment"}},
      {BrokenRule::kArenaEnd, "arena-end", {"arena_end", "past-end", "bound", "bad-arena-bound", "end"}},
  };
  return all;
}

std::optional<BrokenRule> rule_from_word(const std::string& word) {
  const std::string w = lower(word);
  for (const RuleSpelling& r : rule_spellings()) {
    if (w == r.name) return r.rule;
    for (const char* a : r.also)
      if (w == a) return r.rule;
  }
  return std::nullopt;
}

int buffer_index(const LayoutProblem& p, const std::string& name) {
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string buffer_names(const LayoutProblem& p, const std::vector<int>& ids) {
  std::vector<std::string> names;
  for (int i : ids) names.push_back(p.buffers[i].name);
  return join_and(names);
}

std::string all_buffer_names(const LayoutProblem& p) {
  std::vector<int> ids;
  for (size_t i = 0; i < p.buffers.size() && i < 24; ++i) ids.push_back(static_cast<int>(i));
  return buffer_names(p, ids) + (p.buffers.size() > 24 ? ", ..." : "");
}

}  // namespace

const char* broken_rule_name(BrokenRule rule) {
  for (const RuleSpelling& r : rule_spellings())
    if (r.rule == rule) return r.name;
  return "?";
}

PlanDiagnosis diagnose_plan(const ExercisePlanUnderTest& plan) {
  PlanDiagnosis d;
  const VerifyResult truth = verify_plan(plan.problem, plan.offsets, plan.arena_bytes);
  if (truth.ok()) return d;
  d.ok = false;
  d.message = truth.message;
  d.buffers = {truth.buffer_a};
  switch (truth.rule) {
    case VerifyRule::kBadAlignment: d.rule = BrokenRule::kAlignment; return d;
    case VerifyRule::kBadArenaBound: d.rule = BrokenRule::kArenaEnd; return d;
    case VerifyRule::kOverlap: break;
    default: d.rule = BrokenRule::kArenaEnd; return d;  // parsing refuses plans that break other rules
  }
  d.rule = BrokenRule::kOverlap;
  d.buffers.push_back(truth.buffer_b);
  // The plan's own lifetimes hide the overlap: it reused a tensor's bytes before its last reader.
  if (verify_plan(plan.stated, plan.offsets, plan.arena_bytes).ok()) {
    d.rule = BrokenRule::kFreedEarly;
    const auto shortened = [&](int i) { return plan.stated.buffers[i].last < plan.problem.buffers[i].last ||
                                               plan.stated.buffers[i].first > plan.problem.buffers[i].first; };
    if (!shortened(d.buffers[0]) && shortened(d.buffers[1])) std::swap(d.buffers[0], d.buffers[1]);
  }
  return d;
}

namespace exercise_detail {

// ---- reading -------------------------------------------------------------------------------------

void read_fit_budget(Exercise& ex, const Json& doc) {
  const Graph& g = ex.graph.graph;
  ex.limit_bytes = get_size_bytes(require(doc, "budget", ""), "/budget", false);
  const auto known = [](const std::string& name, const std::string& where) {
    const auto& ok = exercise_planners();
    if (std::find(ok.begin(), ok.end(), name) == ok.end())
      throw InputError(where, "\"" + name + "\" is not a planner an exercise may name; expected " + join_and(ok) +
                                  " (they plan without a time limit, so every machine agrees)");
  };
  if (doc.contains("planner")) {
    if (doc.contains("order") || doc.contains("planners"))
      throw InputError("/planner", "with a planner the answer is an order: leave out \"order\" and \"planners\"");
    ex.planner = get_string(doc["planner"], "/planner");
    known(ex.planner, "/planner");
    for (const Schedule& order : fit_budget_candidate_orders(g))
      if (planned_arena(g, order, ex.planner) <= ex.limit_bytes) return;
    throw InputError("/budget", "no order tried (the file order, the peak-optimal order and a sample) lets " + ex.planner +
                                    " fit in " + format_bytes(ex.limit_bytes) + ": the exercise may have no answer");
  }
  ex.order = doc.contains("order") ? read_order_at(g, doc["order"], "/order") : g.file_order();
  if (doc.contains("planners")) {
    const Json& list = doc["planners"];
    if (!list.is_array() || list.empty()) throw InputError("/planners", "expected a non-empty array of planner names");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string name = get_string(list[i], ptr("/planners", i));
      known(name, ptr("/planners", i));
      if (std::find(ex.planners.begin(), ex.planners.end(), name) != ex.planners.end())
        throw InputError(ptr("/planners", i), "\"" + name + "\" is listed twice");
      ex.planners.push_back(name);
    }
  } else {
    ex.planners = exercise_planners();
  }
  for (const std::string& p : ex.planners)
    if (planned_arena(g, ex.order, p) <= ex.limit_bytes) return;
  throw InputError("/budget", "no planner among " + join_and(ex.planners) + " fits this order in " +
                                  format_bytes(ex.limit_bytes) + ": the exercise has no answer");
}

void read_broken_rule(Exercise& ex, const Json& doc) {
  const Graph& g = ex.graph.graph;
  ex.order = doc.contains("order") ? read_order_at(g, doc["order"], "/order") : g.file_order();
  ExercisePlanUnderTest& plan = ex.plan;
  plan.problem = layout_problem(g, analyze_lifetimes(g, ex.order));
  // Proving the violation unique checks every pair of buffers: a classroom plan stays small.
  if (plan.problem.buffers.size() > kMaxBrokenRuleBuffers)
    throw InputError("/graph", std::to_string(plan.problem.buffers.size()) + " arena buffers; a broken_rule plan has at most " +
                                   std::to_string(kMaxBrokenRuleBuffers));
  plan.stated = plan.problem;
  const Json& j = require(doc, "plan", "");
  if (!j.is_object()) throw InputError("/plan", "expected {\"arena_bytes\", \"buffers\"}, found " + kind_of(j));
  expect_keys(j, "/plan", {"arena_bytes", "buffers", "planner", "alignment"});
  PlanFile file;
  try {
    file = parse_plan_file(plan.problem, j.dump());
  } catch (const InputError& e) {
    throw InputError(nested("/plan", e.where() == "plan" ? "" : e.where()), message_of(e));
  }
  plan.offsets = file.offsets;
  plan.arena_bytes = get_size_bytes(require(j, "arena_bytes", "/plan"), "/plan/arena_bytes", false);
  const Step last_step = static_cast<Step>(ex.order.size()) - 1;
  for (size_t i = 0; i < j["buffers"].size(); ++i) {
    const Json& b = j["buffers"][i];
    const std::string at = ptr("/plan/buffers", i);
    expect_keys(b, at, {"name", "offset", "size", "first", "last"});
    const int k = buffer_index(plan.problem, b["name"].get<std::string>());
    LayoutBuffer& stated = plan.stated.buffers[k];
    if (b.contains("size") && get_int(b["size"], ptr(at, "size")) != stated.size)
      throw InputError(ptr(at, "size"), "buffer " + stated.name + " is " + std::to_string(stated.size) + " bytes");
    if (b.contains("first")) stated.first = static_cast<Step>(get_int_in(b["first"], ptr(at, "first"), 0, last_step));
    if (b.contains("last")) stated.last = static_cast<Step>(get_int_in(b["last"], ptr(at, "last"), stated.first, last_step));
    if (plan.offsets[k] < 0) throw InputError(ptr(at, "offset"), "cannot be negative");
  }
  const VerifyResult truth = verify_plan(plan.problem, plan.offsets, plan.arena_bytes);
  if (truth.ok()) throw InputError("/plan", "the plan breaks no rule (the verifier accepts it): the exercise has no answer");
  if (truth.rule != VerifyRule::kOverlap && truth.rule != VerifyRule::kBadAlignment &&
      truth.rule != VerifyRule::kBadArenaBound)
    throw InputError("/plan", std::string("the plan breaks rule ") + verify_rule_name(truth.rule) +
                                  ", which is not one of overlap, freed-early, alignment and arena-end: " + truth.message);
  const int broken = count_broken_rules(plan.problem, plan.offsets, plan.arena_bytes);
  if (broken != 1)
    throw InputError("/plan", "the plan breaks " + std::to_string(broken) + " rules; a question needs exactly one");
}

// ---- checking --------------------------------------------------------------------------------------

AnswerCheck check_fit_planner(const Exercise& ex, std::string_view answer) {
  const std::string name = lower(trim(answer));
  if (std::find(ex.planners.begin(), ex.planners.end(), name) == ex.planners.end())
    return {false, quote_answer(trim(answer)) + " is not one of the choices: " + join_and(ex.planners)};
  const Bytes arena = planned_arena(ex.graph.graph, ex.order, name);
  const Bytes peak = analyze_lifetimes(ex.graph.graph, ex.order).peak_bytes;
  const std::string places = name + " places the buffers in " + format_bytes(arena) + " (verified; the peak of live bytes is " +
                             format_bytes(peak) + ")";
  if (arena <= ex.limit_bytes) return {true, places + ": within the budget of " + format_bytes(ex.limit_bytes) + "."};
  return {false, places + ": more than the budget of " + format_bytes(ex.limit_bytes) + "."};
}

AnswerCheck check_fit_order(const Exercise& ex, const Schedule& order) {
  const Graph& g = ex.graph.graph;
  const Bytes arena = planned_arena(g, order, ex.planner);
  const Bytes peak = analyze_lifetimes(g, order).peak_bytes;
  const std::string places = "in the order " + order_names(g, order) + " " + ex.planner + " needs an arena of " +
                             format_bytes(arena) + " (verified; the peak of live bytes is " + format_bytes(peak) + ")";
  if (arena <= ex.limit_bytes) return {true, places + ": within the budget of " + format_bytes(ex.limit_bytes) + "."};
  return {false, places + ": more than the budget of " + format_bytes(ex.limit_bytes) + "." +
                     (peak <= ex.limit_bytes ? " The live bytes would fit: where the planner puts them matters too." : "")};
}

AnswerCheck check_broken_rule(const Exercise& ex, std::string_view answer) {
  const ExercisePlanUnderTest& plan = ex.plan;
  std::optional<BrokenRule> said;
  std::set<int> named;
  std::string word;
  const std::string text = std::string(answer) + " ";
  for (char c : text) {
    if (c != ' ' && c != ',' && c != '\t' && c != '\n' && c != ';') {  // ':' is in names (B:scratch)
      word += c;
      continue;
    }
    if (word.empty()) continue;
    const int b = buffer_index(plan.problem, word);
    if (b >= 0) named.insert(b);
    else if (const auto r = rule_from_word(word)) {
      if (said && *said != *r) return {false, "name one rule, not two"};
      said = r;
    } else if (lower(word) != "and") {
      return {false, "there is no buffer or rule " + quote_answer(word) + " (buffers: " + all_buffer_names(plan.problem) +
                         "; rules: overlap, freed-early, alignment, arena-end)"};
    }
    word.clear();
  }
  if (!said) return {false, "name the rule too: overlap, freed-early, alignment or arena-end"};
  if (named.empty()) return {false, "name the tensor(s) that break the rule, like \"overlap B D\""};
  const PlanDiagnosis d = diagnose_plan(plan);
  const std::set<int> truth(d.buffers.begin(), d.buffers.end());
  const bool tensors_right =
      named == truth || (d.rule == BrokenRule::kFreedEarly && named == std::set<int>{d.buffers[0]});
  const std::vector<int> named_list(named.begin(), named.end());
  if (*said == d.rule && tensors_right)
    return {true, std::string("the verifier agrees: ") + d.message + "." +
                      (d.rule == BrokenRule::kFreedEarly
                           ? " The plan ends " + plan.problem.buffers[d.buffers[0]].name + "'s life at step " +
                                 std::to_string(plan.stated.buffers[d.buffers[0]].last) + ", but it stays live until step " +
                                 std::to_string(plan.problem.buffers[d.buffers[0]].last) + "."
                           : std::string())};
  if (*said == BrokenRule::kOverlap && d.rule == BrokenRule::kFreedEarly && named == truth)
    return {false, buffer_names(plan.problem, named_list) + " do share bytes while both are live, but by the plan's own "
                   "lifetimes they never meet. Which lifetime did the plan get wrong?"};
  if (*said != d.rule)
    return {false, std::string("the plan does not break the ") + broken_rule_name(*said) + " rule" +
                       (named.size() <= 2 ? " for " + buffer_names(plan.problem, named_list) : std::string()) +
                       ". Check each rule in turn: alignment, the arena's end, the lifetimes, then the overlaps."};
  bool any_right = false;
  for (int b : named) any_right = any_right || truth.count(b);
  if (any_right) return {false, "that is the right rule, and part of the tensors: name exactly the ones that break it"};
  return {false, "that is the right rule, but " + buffer_names(plan.problem, named_list) + " keep" +
                     (named.size() == 1 ? "s" : "") + " it."};
}

}  // namespace exercise_detail

}  // namespace arenaplan
