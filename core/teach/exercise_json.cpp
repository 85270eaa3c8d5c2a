// The JSON views of exercises and progress records (share links, `arenaplan exercise --json`).
#include "core/graph/json_read.h"
#include "core/teach/detail/exercise_internal.h"
#include "core/teach/exercise.h"

namespace arenaplan {

namespace {

using namespace json_read;
using namespace exercise_detail;

int get_count(const JsonOut& j, const char* key, const std::string& where, int hi) {
  if (!j.contains(key)) return 0;
  return static_cast<int>(get_int_in(j[key], ptr(where, key), 0, hi));
}

void placement_json(const Exercise& ex, JsonOut& out) {
  const ExercisePlacement& p = ex.placement;
  const LayoutBuffer& b = p.problem.buffers[p.placed];
  out["tensor"] = ex.tensor;
  out["tensor_bytes"] = b.size;
  out["tensor_first"] = b.first;
  out["tensor_last"] = b.last;
  out["alignment"] = b.alignment;
  out["arena_at_most_bytes"] = ex.limit_bytes;
  out["fixed_from_plan"] = p.from_plan;
  JsonOut fixed = JsonOut::array();
  for (size_t i = 0; i < p.problem.buffers.size(); ++i) {
    if (static_cast<int>(i) == p.placed) continue;
    const LayoutBuffer& x = p.problem.buffers[i];
    fixed.push_back({{"name", x.name}, {"offset", p.offsets[i]}, {"size", x.size}, {"first", x.first}, {"last", x.last}});
  }
  out["fixed"] = std::move(fixed);
}

void plan_under_test_json(const Exercise& ex, JsonOut& out) {
  const ExercisePlanUnderTest& p = ex.plan;
  JsonOut buffers = JsonOut::array();
  for (size_t i = 0; i < p.stated.buffers.size(); ++i) {
    const LayoutBuffer& b = p.stated.buffers[i];
    buffers.push_back({{"name", b.name}, {"offset", p.offsets[i]}, {"size", b.size}, {"first", b.first}, {"last", b.last}});
  }
  out["plan"] = {{"arena_bytes", p.arena_bytes},
                 {"alignment", ex.graph.graph.alignment},
                 {"buffers", std::move(buffers)}};
}

}  // namespace

void exercise_detail::check_attempt_log(const JsonOut& log, const Exercise& ex, const std::string& where,
                                        ExerciseProgress& p) {
  const std::string at = ptr(where, "log");
  if (!log.is_array()) throw InputError(at, "expected an array of answers, found " + kind_of(log));
  if (log.size() > static_cast<size_t>(kMaxCount)) throw InputError(at, "too many attempts");
  for (size_t i = 0; i < log.size(); ++i) {
    p.log.push_back(get_string(log[i], ptr(at, i)));
    if (p.log.back().size() > kMaxAnswerChars)
      throw InputError(ptr(at, i), "longer than " + std::to_string(kMaxAnswerChars) + " characters");
  }
  // Core replays every logged answer: counts lowered by hand (or a log edited to match a claim)
  // no longer add up.
  const ExerciseProgress replayed = replay_attempts(ex, p.log, p.hints_shown);
  if (replayed.attempts != static_cast<int>(p.log.size()))
    throw InputError(at, "the log goes on after a correct answer (entry " + std::to_string(replayed.attempts + 1) + ")");
  const auto differs = [&](const char* key, int claimed, int recomputed) {
    if (claimed != recomputed)
      throw InputError(ptr(where, key), "claims " + std::to_string(claimed) + "; core's replay of the attempt log gives " +
                                            std::to_string(recomputed));
  };
  differs("attempts", p.attempts, replayed.attempts);
  differs("wrong", p.wrong, replayed.wrong);
  if (p.solved != replayed.solved)
    throw InputError(ptr(where, "solved"), std::string("claims ") + (p.solved ? "solved" : "unsolved") +
                                               "; core's replay of the attempt log says otherwise");
  if (!p.log.empty() && p.last_answer != p.log.back())
    throw InputError(ptr(where, "last_answer"), "is not the last answer in the attempt log");
}

JsonOut progress_json(const ExerciseProgress& p) {
  return {{"attempts", p.attempts}, {"wrong", p.wrong}, {"hints_shown", p.hints_shown}, {"solved", p.solved},
          {"last_answer", p.last_answer}, {"log", p.log}};
}

ExerciseProgress progress_from_json(const JsonOut& j, const Exercise& ex, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a progress object, found " + kind_of(j));
  expect_keys(j, where, {"attempts", "wrong", "hints_shown", "solved", "last_answer", "log"});
  ExerciseProgress p;
  p.attempts = get_count(j, "attempts", where, kMaxCount);
  p.wrong = get_count(j, "wrong", where, p.attempts);
  p.hints_shown = get_count(j, "hints_shown", where, static_cast<int>(ex.hints.size()));
  p.solved = j.contains("solved") && get_bool(j["solved"], ptr(where, "solved"));
  if (p.attempts != p.wrong + (p.solved ? 1 : 0))
    throw InputError(ptr(where, "attempts"), "expected wrong + 1 when solved, else wrong (attempts stop at the first "
                                             "correct answer)");
  if (j.contains("last_answer")) {
    p.last_answer = get_string(j["last_answer"], ptr(where, "last_answer"));
    if (p.last_answer.size() > kMaxAnswerChars)
      throw InputError(ptr(where, "last_answer"), "longer than " + std::to_string(kMaxAnswerChars) + " characters");
  }
  if (j.contains("log")) check_attempt_log(j["log"], ex, where, p);
  return p;
}

JsonOut exercise_json(const Exercise& ex) {
  JsonOut out = {{"name", ex.name},       {"title", ex.title},   {"question", ex.question},
                 {"kind", exercise_kind_name(ex.kind)}, {"points", ex.points},
                 {"answer_format", answer_format(ex.kind)}, {"hints", ex.hints}};
  if (ex.uses_graph()) {
    out["graph"] = ex.graph.example.empty() ? ex.graph.graph.name : ex.graph.example;
    out["graph_builtin"] = !ex.graph.example.empty();
    out["graph_json"] = JsonOut::parse(ex.graph.json);
  }
  if (!ex.generator.is_null()) out["generator"] = ex.generator;
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak: out["order"] = order_json(ex.graph.graph, ex.order); break;
    case ExerciseKind::kFindOrder:
      out[ex.limit_inclusive ? "peak_at_most_bytes" : "peak_below_bytes"] = ex.limit_bytes;
      out["peak_bound_bytes"] = ex.limit_bytes;
      out["peak_bound_inclusive"] = ex.limit_inclusive;
      break;
    case ExerciseKind::kPlaceTensor:
      out["order"] = order_json(ex.graph.graph, ex.order);
      placement_json(ex, out);
      break;
    case ExerciseKind::kCacheMisses:
      out["capacity"] = ex.cache.lines;
      out["ways"] = ex.cache.ways;
      out["policy"] = policy_name(ex.cache.policy);
      if (ex.stride) out["stride"] = ex.stride;
      else out["blocks"] = ex.blocks;
      out["requests"] = ex.requests;
      break;
    case ExerciseKind::kFitBudget:
      out["budget_bytes"] = ex.limit_bytes;
      if (ex.planner.empty()) {
        out["order"] = order_json(ex.graph.graph, ex.order);
        out["planners"] = ex.planners;
      } else {
        out["planner"] = ex.planner;
      }
      break;
    case ExerciseKind::kBrokenRule:
      out["order"] = order_json(ex.graph.graph, ex.order);
      plan_under_test_json(ex, out);
      break;
  }
  return out;
}

}  // namespace arenaplan
