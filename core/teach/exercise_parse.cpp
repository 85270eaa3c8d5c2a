// Reading exercise files: the kinds, every key's checks, and the proof that each exercise has an
// answer (an order below the limit exists, a fitting offset exists, the cache fits into sets).
#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/graph/json_read.h"
#include "core/layout/pipeline.h"
#include "core/schedule/schedule.h"
#include "core/teach/detail/exercise_internal.h"
#include "core/teach/exercise.h"

namespace arenaplan {

namespace exercise_detail {

using namespace json_read;

int64_t get_int_in(const Json& j, const std::string& where, int64_t lo, int64_t hi) {
  const int64_t v = get_int(j, where);
  if (v < lo || v > hi)
    throw InputError(where, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " +
                                std::to_string(v));
  return v;
}

Bytes get_size_bytes(const Json& j, const std::string& where, bool allow_zero) {
  Bytes b = 0;
  if (j.is_string()) b = parse_byte_size(j.get<std::string>(), where);
  else if (j.is_number_integer() || j.is_number_unsigned()) b = get_int(j, where);
  else throw InputError(where, "expected a byte count (integer or \"16KiB\"), found " + kind_of(j));
  if (b < 0 || (b == 0 && !allow_zero)) throw InputError(where, allow_zero ? "cannot be negative" : "must be positive");
  return b;
}

// ["A", "B"] or "A,B": a valid order of `g`.
Schedule read_order_at(const Graph& g, const Json& j, const std::string& where) {
  std::string csv;
  if (j.is_string()) {
    csv = j.get<std::string>();
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      if (i) csv += ',';
      csv += get_string(j[i], ptr(where, i));
    }
  } else {
    throw InputError(where, "expected an array of op names or \"A,B,C\", found " + kind_of(j));
  }
  try {
    return parse_order(g, csv);
  } catch (const InputError& e) {
    throw InputError(where, message_of(e));
  }
}

bool live_together(const LayoutBuffer& a, const LayoutBuffer& b) { return a.first <= b.last && b.first <= a.last; }

std::vector<Bytes> offsets_with(const ExercisePlacement& p, Bytes offset) {
  std::vector<Bytes> out = p.offsets;
  out[p.placed] = offset;
  return out;
}

// The lowest offset of the placed buffer that keeps the arena within `limit`, if any. A fitting
// offset can slide down until it meets 0 or the (aligned) end of a buffer live at the same time,
// so those are the only offsets to try.
std::optional<Bytes> lowest_fit(const ExercisePlacement& p, Bytes limit) {
  const LayoutBuffer& b = p.problem.buffers[p.placed];
  const Bytes align = std::max<Bytes>(1, b.alignment);
  std::vector<Bytes> candidates = {0};
  for (size_t i = 0; i < p.problem.buffers.size(); ++i)
    if (static_cast<int>(i) != p.placed && live_together(b, p.problem.buffers[i]))
      candidates.push_back(align_up(p.offsets[i] + p.problem.buffers[i].size, align));
  std::sort(candidates.begin(), candidates.end());
  for (Bytes c : candidates) {
    if (c > limit - b.size) break;
    const std::vector<Bytes> offsets = offsets_with(p, c);
    if (arena_extent(p.problem, offsets) <= limit && verify_plan(p.problem, offsets, limit).ok()) return c;
  }
  return std::nullopt;
}

CacheLab run_lab(const Exercise& ex) {
  CacheLab lab(ex.cache, ex.stride ? RequestStream::strided(ex.stride) : RequestStream::list(ex.blocks));
  lab.run(ex.requests);
  return lab;
}

}  // namespace exercise_detail

namespace {

using namespace json_read;
using namespace exercise_detail;

constexpr const char* kFormat = "arenaplan-exercise";

// ---- reading the file ----------------------------------------------------------------------------

std::string get_text(const Json& j, const std::string& where) {
  std::string s = get_string(j, where);
  if (trim(s).empty()) throw InputError(where, "must not be empty");
  return s;
}

ExerciseKind kind_from_name(const std::string& name, const std::string& where) {
  for (const KindInfo& k : kKinds)
    if (name == k.name) return k.kind;
  throw InputError(where, "unknown kind \"" + name + "\"; expected " + kind_names(&KindInfo::name));
}

// Unknown keys are refused with the list of keys this kind takes.
void expect_kind_keys(const Json& doc, ExerciseKind kind) {
#define AP_EXERCISE_COMMON "format", "version", "name", "title", "question", "kind", "hints", "points", "doc", "generator"
  switch (kind) {
    case ExerciseKind::kPredictPeak: expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "order"}); break;
    case ExerciseKind::kFindOrder:
      expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "peak_below", "peak_at_most"});
      break;
    case ExerciseKind::kPlaceTensor:
      expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "order", "tensor", "arena_at_most", "fixed"});
      break;
    case ExerciseKind::kCacheMisses:
      expect_keys(doc, "", {AP_EXERCISE_COMMON, "capacity", "ways", "policy", "stride", "blocks", "requests"});
      break;
    case ExerciseKind::kFitBudget:
      expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "budget", "order", "planners", "planner"});
      break;
    case ExerciseKind::kBrokenRule: expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "order", "plan"}); break;
  }
#undef AP_EXERCISE_COMMON
}

// A built-in graph by name, or an inline graph object; errors inside it are placed under `where`.
ExerciseGraph read_graph(const Json& j, const std::string& where) {
  ExerciseGraph out;
  if (j.is_string()) {
    out.example = j.get<std::string>();
    const std::string* text = find_example(out.example);
    if (!text || is_exercise_json(*text) || text->find("\"arenaplan-board\"") != std::string::npos)
      throw InputError(where, "no built-in graph named \"" + out.example + "\"");
    out.json = *text;
  } else if (j.is_object()) {
    out.json = j.dump(2);
  } else {
    throw InputError(where, "expected a built-in graph's name or a graph object, found " + kind_of(j));
  }
  try {
    out.graph = parse_graph_json(out.json);
  } catch (const InputError& e) {
    throw InputError(nested(where, e.where()), message_of(e));
  }
  return out;
}

std::vector<std::string> read_hints(const Json& j) {
  if (!j.is_array()) throw InputError("/hints", "expected an array of strings, found " + kind_of(j));
  if (j.size() > kMaxExerciseHints)
    throw InputError("/hints", std::to_string(j.size()) + " hints; the limit is " + std::to_string(kMaxExerciseHints));
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(get_text(j[i], ptr("/hints", i)));
  return out;
}

void read_common(Exercise& ex, const Json& doc) {
  ex.name = get_text(require(doc, "name", ""), "/name");
  if (ex.name.size() > 64 || !std::all_of(ex.name.begin(), ex.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
      }))
    throw InputError("/name", "expected at most 64 characters among a-z, 0-9, _ and -");
  ex.title = doc.contains("title") ? get_text(doc["title"], "/title") : ex.name;
  ex.question = get_text(require(doc, "question", ""), "/question");
  if (doc.contains("hints")) ex.hints = read_hints(doc["hints"]);
  if (doc.contains("points")) ex.points = static_cast<int>(get_int_in(doc["points"], "/points", 1, 1000));
  if (doc.contains("doc")) get_string(doc["doc"], "/doc");
  if (doc.contains("generator")) {
    const Json& gen = doc["generator"];
    if (!gen.is_object()) throw InputError("/generator", "expected {\"kind\", \"difficulty\", \"seed\"}, found " + kind_of(gen));
    expect_keys(gen, "/generator", {"kind", "difficulty", "seed"});
    ex.generator = {{"kind", get_text(require(gen, "kind", "/generator"), "/generator/kind")},
                    {"difficulty", get_int_in(require(gen, "difficulty", "/generator"), "/generator/difficulty", 1, 5)},
                    {"seed", get_int_in(require(gen, "seed", "/generator"), "/generator/seed", 0, (int64_t{1} << 53) - 1)}};
  }
}

// ---- proving an answer exists -----------------------------------------------------------------

// find_order: some order must peak strictly below the limit (or at most at it).
void require_order_below(const Graph& g, Bytes limit, bool inclusive) {
  // ScheduleSearch rather than optimize_schedule: its result() also explains the optimum, which
  // costs more than the search itself and is not needed here.
  ScheduleSearch search(g);
  const auto meets = [&](Bytes peak) { return peak < limit || (inclusive && peak == limit); };
  const auto start = std::chrono::steady_clock::now();
  while (!search.done() && !meets(search.best_peak())) {
    search.step(2048);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= kSolveSeconds) break;
  }
  struct {
    Bytes peak_bytes;
    bool proven_optimal;
  } best = {search.best_peak(), search.proven_optimal()};
  if (meets(best.peak_bytes)) return;
  const std::string where = inclusive ? "/peak_at_most" : "/peak_below";
  if (inclusive)
    throw InputError(where, (best.proven_optimal ? "every order of this graph peaks above " : "no order at or below ") +
                                format_bytes(limit) + (best.proven_optimal ? " (the best order peaks at "
                                                                           : " was found (the best found peaks at ") +
                                format_bytes(best.peak_bytes) + "): the exercise has no answer");
  throw InputError(where, (best.proven_optimal ? "no order of this graph peaks below " : "no order below ") +
                                      format_bytes(limit) + (best.proven_optimal ? " (the best order peaks at "
                                                                                 : " was found (the best found peaks at ") +
                                      format_bytes(best.peak_bytes) + "): the exercise has no answer");
}



// The fixed buffers alone must be a valid placement (a teacher's typo would make every answer wrong).
void require_fixed_disjoint(const ExercisePlacement& p) {
  LayoutProblem others;
  std::vector<Bytes> offsets;
  for (size_t i = 0; i < p.problem.buffers.size(); ++i) {
    if (static_cast<int>(i) == p.placed) continue;
    others.buffers.push_back(p.problem.buffers[i]);
    offsets.push_back(p.offsets[i]);
  }
  const VerifyResult v = verify_plan(others, offsets, arena_extent(others, offsets));
  if (!v.ok()) throw InputError("/fixed", "the fixed offsets are not a valid placement: " + v.message);
}

std::vector<Bytes> offsets_from_plan(const Graph& g, const LiveAnalysis& live) {
  const ArenaPlan plan = plan_graph(g, live, {.planner = "best", .time_limit_seconds = kSolveSeconds}).plan;
  if (!plan.proven_optimal)
    throw InputError("/fixed", "\"from_plan\" needs a plan proven optimal and this graph's best plan (" +
                                   format_bytes(plan.arena_bytes) + ") is not; give the offsets as an object");
  return plan.offsets;
}

// Every offset must leave its buffer inside the limit: a buffer past it leaves no answer anyway,
// and the bound keeps offset + size far from overflowing.
std::vector<Bytes> offsets_from_object(const ExercisePlacement& p, const Json& j, Bytes limit) {
  std::vector<Bytes> out(p.problem.buffers.size(), -1);
  std::string names;
  for (const LayoutBuffer& b : p.problem.buffers) names += (names.empty() ? "" : ", ") + b.name;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string where = ptr("/fixed", it.key());
    auto b = std::find_if(p.problem.buffers.begin(), p.problem.buffers.end(),
                          [&](const LayoutBuffer& x) { return x.name == it.key(); });
    if (b == p.problem.buffers.end()) throw InputError(where, "no arena buffer of that name (buffers: " + names + ")");
    const int i = static_cast<int>(b - p.problem.buffers.begin());
    if (i == p.placed) throw InputError(where, "this is the buffer the student places; leave it out");
    out[i] = get_size_bytes(*it, where, /*allow_zero=*/true);
    if (out[i] > limit - b->size)
      throw InputError(where, "buffer " + b->name + " (" + format_bytes(b->size) + ") at " + format_bytes(out[i]) +
                                  " ends past arena_at_most (" + format_bytes(limit) + ")");
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] < 0 && static_cast<int>(i) != p.placed)
      throw InputError("/fixed", "missing the offset of buffer " + p.problem.buffers[i].name);
  out[p.placed] = 0;
  return out;
}

ExercisePlacement read_placement(const Exercise& ex, const Json& doc) {
  const Graph& g = ex.graph.graph;
  ExercisePlacement p;
  LiveAnalysis live;
  try {
    live = analyze_lifetimes(g, ex.order);
  } catch (const InputError& e) {
    throw InputError("/order", message_of(e));
  }
  p.problem = layout_problem(g, live);
  const auto t = g.find_tensor(ex.tensor);
  if (!t) throw InputError("/tensor", "no tensor \"" + ex.tensor + "\" in the graph");
  p.placed = live.buffer_of_tensor[*t];
  if (p.placed < 0) throw InputError("/tensor", "tensor " + ex.tensor + " is not in the arena (constant or caller-owned)");
  const Json& fixed = require(doc, "fixed", "");
  if (fixed.is_string() && fixed.get<std::string>() == "from_plan") {
    p.offsets = offsets_from_plan(g, live);
    p.from_plan = true;
  } else if (fixed.is_object()) {
    p.offsets = offsets_from_object(p, fixed, ex.limit_bytes);
  } else {
    throw InputError("/fixed", "expected \"from_plan\" or an object of buffer name -> offset, found " + kind_of(fixed));
  }
  require_fixed_disjoint(p);
  if (!lowest_fit(p, ex.limit_bytes))
    throw InputError("/arena_at_most", "no offset of " + ex.tensor + " keeps the arena within " +
                                           format_bytes(ex.limit_bytes) + " with these fixed offsets: the exercise has no answer");
  return p;
}

void read_graph_kind(Exercise& ex, const Json& doc) {
  ex.graph = read_graph(require(doc, "graph", ""), "/graph");
  const Graph& g = ex.graph.graph;
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak:
      ex.order = read_order_at(g, require(doc, "order", ""), "/order");
      try {
        analyze_lifetimes(g, ex.order);
      } catch (const InputError& e) {
        throw InputError("/order", message_of(e));
      }
      break;
    case ExerciseKind::kFindOrder:
      if (doc.contains("peak_below") == doc.contains("peak_at_most"))
        throw InputError("/", "give either \"peak_below\" (strict) or \"peak_at_most\" (inclusive)");
      ex.limit_inclusive = doc.contains("peak_at_most");
      ex.limit_bytes = ex.limit_inclusive ? get_size_bytes(doc["peak_at_most"], "/peak_at_most", false)
                                          : get_size_bytes(doc["peak_below"], "/peak_below", false);
      require_order_below(g, ex.limit_bytes, ex.limit_inclusive);
      break;
    case ExerciseKind::kPlaceTensor:
      ex.order = doc.contains("order") ? read_order_at(g, doc["order"], "/order") : g.file_order();
      ex.tensor = get_text(require(doc, "tensor", ""), "/tensor");
      ex.limit_bytes = get_size_bytes(require(doc, "arena_at_most", ""), "/arena_at_most", false);
      ex.placement = read_placement(ex, doc);
      break;
    case ExerciseKind::kFitBudget: read_fit_budget(ex, doc); break;
    case ExerciseKind::kBrokenRule: read_broken_rule(ex, doc); break;
    case ExerciseKind::kCacheMisses: break;
  }
}

void read_cache_kind(Exercise& ex, const Json& doc) {
  ex.cache.lines = static_cast<int>(get_int_in(require(doc, "capacity", ""), "/capacity", 1, kMaxExerciseCacheLines));
  if (doc.contains("ways")) ex.cache.ways = static_cast<int>(get_int_in(doc["ways"], "/ways", 0, ex.cache.lines));
  if (doc.contains("policy")) ex.cache.policy = policy_from_name(get_string(doc["policy"], "/policy"), "/policy");
  if (doc.contains("stride") == doc.contains("blocks"))
    throw InputError("/", "give either \"stride\" (request k touches block k mod stride) or \"blocks\" (a list)");
  if (doc.contains("stride")) {
    ex.stride = get_int_in(doc["stride"], "/stride", 1, 1000000);
  } else {
    const Json& b = doc["blocks"];
    if (!b.is_array() || b.empty()) throw InputError("/blocks", "expected a non-empty array of block numbers");
    if (b.size() > size_t(kMaxExerciseRequests))
      throw InputError("/blocks", "at most " + std::to_string(kMaxExerciseRequests) + " requests");
    for (size_t i = 0; i < b.size(); ++i) ex.blocks.push_back(get_int_in(b[i], ptr("/blocks", i), 0, INT64_MAX));
  }
  // A list stream defaults to all of its requests; a strided stream is endless, so say how many.
  if (ex.stride) ex.requests = get_int_in(require(doc, "requests", ""), "/requests", 1, kMaxExerciseRequests);
  else ex.requests = doc.contains("requests") ? get_int_in(doc["requests"], "/requests", 1, int64_t(ex.blocks.size()))
                                              : int64_t(ex.blocks.size());
  try {
    CacheLab check(ex.cache, RequestStream::strided(1));  // capacity and ways must divide into sets
  } catch (const InputError& e) {
    throw InputError("/" + e.where(), message_of(e));
  }
}

}  // namespace

const char* exercise_kind_name(ExerciseKind kind) {
  const KindInfo* k = find_kind(kind);
  return k ? k->name : "?";
}

const char* answer_format(ExerciseKind kind) {
  const KindInfo* k = find_kind(kind);
  return k ? k->answer : "";
}

Exercise parse_exercise_json(std::string_view text) {
  if (text.size() > kMaxExerciseJsonBytes)
    throw InputError("/", "the file is " + std::to_string(text.size() >> 20) + " MiB; exercises are limited to " +
                              std::to_string(kMaxExerciseJsonBytes >> 20) + " MiB");
  const Json doc = parse_document(text);
  if (!doc.is_object()) throw InputError("/", "expected an exercise object, found " + kind_of(doc));
  if (get_string(require(doc, "format", ""), "/format") != kFormat)
    throw InputError("/format", std::string("expected \"") + kFormat + "\"");
  if (doc.contains("version") && get_int(doc["version"], "/version") != 1)
    throw InputError("/version", "unsupported version (this tool reads version 1)");
  Exercise ex;
  ex.kind = kind_from_name(get_string(require(doc, "kind", ""), "/kind"), "/kind");
  expect_kind_keys(doc, ex.kind);
  read_common(ex, doc);
  if (ex.uses_graph()) read_graph_kind(ex, doc);
  else read_cache_kind(ex, doc);
  return ex;
}

bool is_exercise_json(std::string_view text) {
  const auto doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("format") && doc["format"].is_string() && doc["format"] == kFormat;
}

std::vector<Exercise> builtin_exercises() {
  std::vector<Exercise> out;
  for (const Example& e : builtin_examples()) {
    if (!is_exercise_json(e.json)) continue;
    try {
      out.push_back(parse_exercise_json(e.json));
    } catch (const InputError& err) {
      throw std::logic_error("built-in exercise " + e.name + ": " + err.what());
    }
  }
  return out;
}

}  // namespace arenaplan
