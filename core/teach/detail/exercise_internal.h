// Shared by the exercise units (exercise_parse.cpp reads files, exercise.cpp checks answers,
// exercise_json.cpp writes views): text helpers, limits and the placement arithmetic both parsing
// and checking need. Included only inside core/teach.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/json_read.h"
#include "core/teach/exercise.h"

namespace arenaplan::exercise_detail {

// Every exercise kind, one row each: the one list of kinds that files, the generator, the CLI's
// spellings and the answer hints all read.
struct KindInfo {
  ExerciseKind kind;
  const char* name;    // in exercise files: "predict_peak"
  const char* cli;     // the generator's spelling (CLI --kind, set files): "predict-peak"
  const char* title;   // a generated exercise's title, before its level
  const char* answer;  // the answer format the question shows
};
inline constexpr KindInfo kKinds[] = {
    {ExerciseKind::kPredictPeak, "predict_peak", "predict-peak", "Predict the peak", "a size, like 100 KiB or 102400"},
    {ExerciseKind::kFindOrder, "find_order", "find-order", "Find an order that fits", "an order of op names, like A,B,C"},
    {ExerciseKind::kPlaceTensor, "place_tensor", "place-tensor", "Place a tensor", "an offset, like 32 KiB or 32768"},
    {ExerciseKind::kCacheMisses, "cache_misses", "cache-misses", "Count the cache misses", "a whole number, like 5"},
    {ExerciseKind::kFitBudget, "fit_budget", "fit-budget", "Fit the budget",
     "a planner name (like portfolio) or an order (like A,B,C)"},
    {ExerciseKind::kBrokenRule, "broken_rule", "broken-rule", "Spot the broken rule",
     "a rule and its tensor(s), like overlap B D"},
};
// The row of `kind`, or nullptr for a value outside the enum.
const KindInfo* find_kind(ExerciseKind kind);
// One column of kKinds as a refusal lists it: "predict_peak, find_order, ... or broken_rule".
std::string kind_names(const char* KindInfo::*column);

constexpr int kMaxCount = 1000000;  // attempts, wrong answers in a progress record
constexpr size_t kMaxAnswerChars = 1000;
constexpr double kSolveSeconds = 2.0;  // schedule search / exact layout when proving an answer exists

// The message of an InputError without its "where: " prefix.
std::string message_of(const InputError& e);
// A place inside an embedded document: "/graph" + "/tensors/A" -> "/graph/tensors/A".
std::string nested(const std::string& where, const std::string& inner);
std::string trim(std::string_view s);
std::string lower(std::string s);
// "A, B and D" (conjunction "and"), "A, B or D" (conjunction "or").
std::string join_words(const std::vector<std::string>& items, const char* conjunction);
inline std::string join_and(const std::vector<std::string>& items) { return join_words(items, "and"); }
// At most `n` bytes of `text`, never cutting a UTF-8 character in half.
std::string utf8_prefix(std::string_view text, size_t n);
// Quotes the student's text in feedback, cut short so a pasted essay stays readable.
std::string quote_answer(const std::string& text);

int64_t get_int_in(const json_read::Json& j, const std::string& where, int64_t lo, int64_t hi);
// A size in an exercise file: an integer of bytes or "16KiB".
Bytes get_size_bytes(const json_read::Json& j, const std::string& where, bool allow_zero);
// ["A", "B"] or "A,B": a valid order of `g`.
Schedule read_order_at(const Graph& g, const json_read::Json& j, const std::string& where);
// Two buffers live at one step at least.
bool live_together(const LayoutBuffer& a, const LayoutBuffer& b);

// Reads a progress record's attempt log into p.log and checks p's counts against core's replay of
// it (replay_attempts); throws InputError naming the key that does not add up.
void check_attempt_log(const json_read::Json& log, const Exercise& ex, const std::string& where, ExerciseProgress& p);

// place_tensor: the fixed offsets with the placed buffer at `offset`.
std::vector<Bytes> offsets_with(const ExercisePlacement& p, Bytes offset);
// The lowest offset of the placed buffer that keeps the arena within `limit`, if any.
std::optional<Bytes> lowest_fit(const ExercisePlacement& p, Bytes limit);
// cache_misses: the lab after the exercise's requests.
CacheLab run_lab(const Exercise& ex);

// ---- fit_budget and broken_rule (exercise_plans.cpp) -------------------------------------------

// The planners a fit_budget exercise may name: the registry's interactive ones, which plan without
// a time limit, so a verdict is the same on every machine.
const std::vector<std::string>& exercise_planners();
// The verified arena `planner` gives the graph in `order` (plan_graph, core/layout/pipeline.h).
Bytes planned_arena(const Graph& g, const Schedule& order, const std::string& planner);
// The orders parsing tries when it proves an order fits a budget, and the generator draws budgets
// from: the file order, the peak-optimal order (a search on a fixed budget of states) and a fixed
// seeded sample of valid orders, without repeats; the same on every machine.
std::vector<Schedule> fit_budget_candidate_orders(const Graph& g);
// A uniformly drawn ready op at each step: a valid order, the same on every platform.
class SeededRng;
Schedule draw_order(const Graph& g, SeededRng& rng);

// How many rules the plan breaks on the true lifetimes, counted by verify_plan on every buffer
// alone and on every pair of buffers live at the same step.
// Reading the kinds' parameters (after the graph) and checking answers.
void read_fit_budget(Exercise& ex, const json_read::Json& doc);
void read_broken_rule(Exercise& ex, const json_read::Json& doc);
AnswerCheck check_fit_planner(const Exercise& ex, std::string_view answer);
AnswerCheck check_fit_order(const Exercise& ex, const Schedule& order);
AnswerCheck check_broken_rule(const Exercise& ex, std::string_view answer);

int count_broken_rules(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes);

}  // namespace arenaplan::exercise_detail
