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

}  // namespace

JsonOut progress_json(const ExerciseProgress& p) {
  return {{"attempts", p.attempts}, {"wrong", p.wrong}, {"hints_shown", p.hints_shown}, {"solved", p.solved},
          {"last_answer", p.last_answer}};
}

ExerciseProgress progress_from_json(const JsonOut& j, const Exercise& ex, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a progress object, found " + kind_of(j));
  expect_keys(j, where, {"attempts", "wrong", "hints_shown", "solved", "last_answer"});
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
  }
  return out;
}

}  // namespace arenaplan
