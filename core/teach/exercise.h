// Guided classroom exercises: a question about a graph, an order, a placement or a cache, a
// student's answer checked by core, hints shown one at a time, and a score.
//
// The expected answer is never stored in an exercise file: core computes it from the exercise's
// parameters with the same calls the CLI and the panels use (analyze_lifetimes, verify_plan,
// CacheLab), so a teacher writes new exercises of these kinds for any graph without solving them,
// and a file cannot carry a wrong answer. Parsing also proves every exercise has an answer.
//
// File format (examples/*.json, or any file given to `arenaplan exercise`):
//
//   { "format": "arenaplan-exercise", "version": 1,
//     "name": "exercise_predict_peak",            // [a-z0-9_-], the key in links and the CLI
//     "title": "Predict the peak",                 // optional, defaults to name
//     "question": "What is the peak ... ?",        // the text shown to the student
//     "kind": "predict_peak",                      // one of the kinds below
//     "hints": ["...", "..."],                     // optional, shown one at a time
//     "points": 10,                                // optional, 1..1000, default 10
//     "doc": "...",                                // optional note for teachers, never shown
//     "generator": {"kind", "difficulty", "seed"}, // set by generate_exercise (exercise_generate.h)
//     ...kind parameters... }
//
// Kinds and their parameters ("graph" is a built-in graph's name, e.g. "two_branch", or an inline
// arenaplan-graph object; sizes are integers of bytes or strings like "136KiB"):
//   predict_peak  graph, order (["A","B",...] or "A,B,..."). Answer: a size ("192 KiB", "196608",
//                 "0.1875 MiB"). Correct iff it equals analyze_lifetimes(graph, order).peak_bytes.
//   find_order    graph, peak_below (size) or peak_at_most (size). Answer: an order ("A,B,C", "A B C",
//                 or "ABC" when every op name is one character). Correct iff it is a valid order whose
//                 peak is strictly below peak_below (or at most peak_at_most). Parsing refuses a limit
//                 no order can meet.
//   place_tensor  graph, order (optional, default the file order), tensor (the one the student
//                 places), arena_at_most (size), fixed. Answer: the tensor's offset ("128 KiB",
//                 "131072"). Correct iff the complete placement passes verify_plan (no two buffers
//                 live at the same step share a byte, alignment holds) and the arena is at most
//                 arena_at_most. `fixed` gives the offsets of every OTHER arena buffer, either as
//                 an object {"buffer name": offset} or as "from_plan": the offsets of plan_arena's
//                 "best" plan of the whole problem, which must be proven optimal (so every machine
//                 computes the same offsets). Parsing refuses fixed offsets that collide with each
//                 other and limits no offset of the tensor can meet.
//   cache_misses  capacity (lines), stride (request k touches block k mod stride) or blocks (a list
//                 of block numbers), requests, policy ("lru" default, "fifo", "opt"), ways (0 = fully
//                 associative, default). Answer: a whole number. Correct iff it equals CacheLab's
//                 miss count after `requests` requests.
//
//   fit_budget    graph, budget (size: the bytes the arena may use), and either
//                   planners (optional, default every interactive planner) with order (optional,
//                   default the file order): Answer: one of the planners. Correct iff
//                   plan_graph(graph, order, planner)'s verified arena is at most budget; or
//                   planner (one name): Answer: an order. Correct iff it is a valid order and that
//                   planner's verified arena for it is at most budget.
//                 Only the registry's interactive planners may be named (naive, linear,
//                 tflm-greedy, portfolio): they have no time limit, so every machine plans alike.
//                 Parsing refuses a budget no choice meets (orders: among the file order, the
//                 peak-optimal order and a fixed sample of orders, fit_budget_candidate_orders).
//   broken_rule   graph, order (optional, default the file order), plan: {"arena_bytes",
//                 "buffers": [{"name", "offset", "size" (optional, must match), "first", "last"
//                 (optional: the lifetime the plan assumed, default the true one)}]}: the
//                 `arenaplan layout --json` shape. Answer: the broken rule and the tensor(s) it
//                 concerns ("overlap B D", "freed-early C", "alignment E", "arena-end F"). The truth
//                 comes from verify_plan on the true lifetimes and on the plan's own lifetimes: an
//                 overlap the plan's own lifetimes do not see is "freed-early" (the plan ends a
//                 tensor's life before its last reader runs). Parsing refuses a plan that breaks
//                 no rule or more than one (every buffer and every pair checked by verify_plan).
//
// Feedback on a wrong answer explains what the student's own answer leads to (too high / too low,
// the peak of their order and which buffers make it, the buffer their placement collides with)
// and never states the expected value.
//
// Score rule (exercise_score): an unsolved exercise scores 0. A solved one scores
//   points - 2 x (wrong attempts) - 3 x (hints taken before solving), but at least 1.
// Attempts after solving are not recorded and, once solved, every hint is free to read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/teach/cachelab.h"
#include "core/graph/graph.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"

namespace arenaplan {

enum class ExerciseKind { kPredictPeak, kFindOrder, kPlaceTensor, kCacheMisses, kFitBudget, kBrokenRule };

// "predict_peak", "find_order", "place_tensor", "cache_misses", "fit_budget", "broken_rule".
const char* exercise_kind_name(ExerciseKind kind);

// What an answer of this kind looks like, for input hints: "a size, like 100 KiB or 102400".
const char* answer_format(ExerciseKind kind);

// The graph a graph exercise is about.
struct ExerciseGraph {
  std::string example;  // built-in example name ("two_branch"), "" for an inline graph
  std::string json;     // the graph's JSON text, so a UI can load exactly this graph
  Graph graph;
};

// place_tensor: one buffer to place among buffers whose offsets are fixed.
struct ExercisePlacement {
  LayoutProblem problem;       // layout_problem(graph, analyze_lifetimes(graph, order))
  int placed = -1;             // index in problem.buffers of the buffer the student places
  std::vector<Bytes> offsets;  // per buffer: the fixed offsets (offsets[placed] is unused)
  bool from_plan = false;      // the offsets came from a verified optimal plan ("fixed": "from_plan")
};

// broken_rule: a plan to judge, against the true lifetimes and against the ones it assumed.
struct ExercisePlanUnderTest {
  LayoutProblem problem;       // layout_problem(graph, analyze_lifetimes(graph, order)): the truth
  LayoutProblem stated;        // the same buffers with the plan's own first/last steps
  std::vector<Bytes> offsets;  // the plan's offsets, per buffer
  Bytes arena_bytes = 0;       // the arena the plan claims
};

// The rules a broken_rule answer names.
enum class BrokenRule { kOverlap, kFreedEarly, kAlignment, kArenaEnd };
// "overlap", "freed-early", "alignment", "arena-end".
const char* broken_rule_name(BrokenRule rule);

// What is wrong with a plan, from the verifier: the rule and the buffers (indices into
// problem.buffers) it concerns; nullopt-like `ok` when the plan breaks no rule.
struct PlanDiagnosis {
  bool ok = true;
  BrokenRule rule = BrokenRule::kOverlap;
  std::vector<int> buffers;  // overlap: both; freed-early: the one freed early first, then the other
  std::string message;       // the verifier's message
};
PlanDiagnosis diagnose_plan(const ExercisePlanUnderTest& plan);

struct Exercise {
  std::string name;
  std::string title;
  std::string question;
  ExerciseKind kind = ExerciseKind::kPredictPeak;
  std::vector<std::string> hints;
  int points = 10;

  // predict_peak, find_order, place_tensor.
  ExerciseGraph graph;
  Schedule order;         // predict_peak, place_tensor
  Bytes limit_bytes = 0;  // find_order: peak_below (strict); place_tensor: arena_at_most
  bool limit_inclusive = false;  // find_order: the limit is peak_at_most (<=), not peak_below (<)
  std::string tensor;     // place_tensor: the tensor the student places
  ExercisePlacement placement;  // place_tensor

  // cache_misses.
  CacheConfig cache;
  int64_t stride = 0;         // > 0 for a strided stream
  std::vector<Block> blocks;  // the requests when stride == 0
  int64_t requests = 0;

  // fit_budget (limit_bytes is the budget; order is the fixed order when the answer is a planner).
  std::string planner;                // the planner that places, when the answer is an order
  std::vector<std::string> planners;  // the choices, when the answer is a planner

  // broken_rule (order is the order the plan was made for).
  ExercisePlanUnderTest plan;

  JsonOut generator;  // {"kind", "difficulty", "seed"} of a generated exercise, else null

  bool uses_graph() const { return kind != ExerciseKind::kCacheMisses; }
  bool answer_is_order() const {
    return kind == ExerciseKind::kFindOrder || (kind == ExerciseKind::kFitBudget && !planner.empty());
  }
};

// Limits: a file bigger than this or with more hints is refused. A cache exercise is a classroom
// toy: the lab keeps every request's line contents, so lines x requests stays small (< 20 MiB).
constexpr size_t kMaxExerciseJsonBytes = size_t{16} << 20;
constexpr size_t kMaxExerciseHints = 20;
constexpr int kMaxExerciseCacheLines = 256;
constexpr int64_t kMaxExerciseRequests = 10000;

// Throws InputError whose where() is a JSON pointer ("/fixed/B", "/graph/tensors/A/bytes") or
// "line L, column C"; unknown kinds and keys are refused, and so are exercises without an answer.
Exercise parse_exercise_json(std::string_view text);

// True when the text is a JSON object whose "format" is "arenaplan-exercise" (never throws).
bool is_exercise_json(std::string_view text);

// The exercises among the built-in examples, by file stem. A built-in that fails to parse is a
// bug: std::logic_error naming it.
std::vector<Exercise> builtin_exercises();

struct AnswerCheck {
  bool correct = false;
  std::string feedback;  // a sentence about the student's answer; never the expected value
};

// Checks an answer. A malformed answer is a wrong answer whose feedback says what was expected.
AnswerCheck check_answer(const Exercise& ex, std::string_view answer);

struct ExerciseProgress {
  int attempts = 0;      // answers checked before (and including) the first correct one
  int wrong = 0;         // of which wrong
  int hints_shown = 0;   // hints taken before solving
  bool solved = false;
  std::string last_answer;  // the last answer checked, so its feedback can be recomputed
  // Every answer checked, in order (the attempt log): a grader recomputes each one, so counts
  // lowered by hand no longer match it (replay_attempts). Entries are cut to 1000 bytes.
  std::vector<std::string> log;
};

// The progress the attempt log leads to: each entry submitted in turn, `hints_shown` kept. An
// entry after the correct answer is not counted (so attempts < log.size() betrays it).
ExerciseProgress replay_attempts(const Exercise& ex, const std::vector<std::string>& log, int hints_shown);

// Checks an answer and records it in `progress` (not counted once solved).
AnswerCheck submit_answer(const Exercise& ex, ExerciseProgress& progress, std::string_view answer);

// Shows the next hint: false when every hint is shown or the exercise is solved (then all hints
// are free and the UI shows them all).
bool take_hint(const Exercise& ex, ExerciseProgress& progress);

// The points a correct answer would earn now: points - 2 x wrong - 3 x hints_shown, at least 1.
int exercise_worth(const Exercise& ex, const ExerciseProgress& progress);
// The score: exercise_worth when solved, else 0 (see the rule at the top of this file).
int exercise_score(const Exercise& ex, const ExerciseProgress& progress);

// {"attempts", "wrong", "hints_shown", "solved", "last_answer", "log"}: a progress record (share links).
JsonOut progress_json(const ExerciseProgress& progress);
// Reads a record written by progress_json for `ex`; throws InputError(where + "/key", ...) for a
// record that could not have come from playing it (more wrong answers than attempts, more hints
// than the exercise has, counts the attempt log does not give when core replays it, ...). A record
// without "log" (written before attempt logs existed) is read with counts only.
ExerciseProgress progress_from_json(const JsonOut& j, const Exercise& ex, const std::string& where);

// The exercise as the CLI and the UI show it: {"name", "title", "question", "kind", "points",
// "answer_format", "hints", "generator" (generated ones), and the kind's parameters: "graph" (its
// name), "graph_json" (the graph document), "order", "peak_below_bytes" or "peak_at_most_bytes"
// and, for both, "peak_bound_bytes" with "peak_bound_inclusive",
// "tensor", "tensor_bytes", "tensor_first", "tensor_last", "alignment", "arena_at_most_bytes",
// "fixed": [{"name", "offset", "size", "first", "last"}], "capacity", "ways", "policy", "stride" or
// "blocks", "requests", "budget_bytes", "planner" or "planners", "plan": {"arena_bytes",
// "alignment", "buffers": [{"name", "offset", "size", "first", "last"}]}}. Never the expected answer.
JsonOut exercise_json(const Exercise& ex);

}  // namespace arenaplan
