#include "core/teach/exercise.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/graph/json_read.h"
#include "core/schedule/schedule.h"

namespace arenaplan {

namespace {

using namespace json_read;

constexpr const char* kFormat = "arenaplan-exercise";
constexpr int kWrongPenalty = 2;  // the score rule of exercise.h
constexpr int kHintPenalty = 3;
constexpr int kMaxCount = 1000000;  // attempts, wrong answers in a progress record
constexpr size_t kMaxAnswerChars = 1000;
constexpr double kSolveSeconds = 2.0;  // schedule search / exact layout when proving an answer exists

struct KindInfo {
  ExerciseKind kind;
  const char* name;
  const char* answer;
};
constexpr KindInfo kKinds[] = {
    {ExerciseKind::kPredictPeak, "predict_peak", "a size, like 100 KiB or 102400"},
    {ExerciseKind::kFindOrder, "find_order", "an order of op names, like A,B,C"},
    {ExerciseKind::kPlaceTensor, "place_tensor", "an offset, like 32 KiB or 32768"},
    {ExerciseKind::kCacheMisses, "cache_misses", "a whole number, like 5"},
};

// ---- small text helpers -----------------------------------------------------------------------

// The message of an InputError without its "where: " prefix.
std::string message_of(const InputError& e) {
  const std::string what = e.what();
  return e.where().empty() ? what : what.substr(std::min(what.size(), e.where().size() + 2));
}

// A place inside an embedded document: "/graph" + "/tensors/A" -> "/graph/tensors/A".
std::string nested(const std::string& where, const std::string& inner) {
  if (inner.empty() || inner == "/") return where;
  if (inner[0] == '/') return where + inner;
  return where + " (" + inner + ")";
}

std::string trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(a, b - a + 1));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "A, B and D".
std::string join_and(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// At most `n` bytes of `text`, never cutting a UTF-8 character in half (feedback and progress
// records end up in JSON, which must stay valid UTF-8).
std::string utf8_prefix(std::string_view text, size_t n) {
  if (text.size() <= n) return std::string(text);
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n));
}

// Quotes the student's text in feedback, cut short so a pasted essay stays readable.
std::string quote_answer(const std::string& text) {
  return "\"" + (text.size() > 40 ? utf8_prefix(text, 40) + "..." : text) + "\"";
}

// ---- reading the file ----------------------------------------------------------------------------

Bytes get_size(const Json& j, const std::string& where, bool allow_zero) {
  Bytes b = 0;
  if (j.is_string()) b = parse_byte_size(j.get<std::string>(), where);
  else if (j.is_number_integer() || j.is_number_unsigned()) b = get_int(j, where);
  else throw InputError(where, "expected a byte count (integer or \"16KiB\"), found " + kind_of(j));
  if (b < 0 || (b == 0 && !allow_zero)) throw InputError(where, allow_zero ? "cannot be negative" : "must be positive");
  return b;
}

int64_t get_int_in(const Json& j, const std::string& where, int64_t lo, int64_t hi) {
  const int64_t v = get_int(j, where);
  if (v < lo || v > hi)
    throw InputError(where, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " +
                                std::to_string(v));
  return v;
}

std::string get_text(const Json& j, const std::string& where) {
  std::string s = get_string(j, where);
  if (trim(s).empty()) throw InputError(where, "must not be empty");
  return s;
}

ExerciseKind kind_from_name(const std::string& name, const std::string& where) {
  for (const KindInfo& k : kKinds)
    if (name == k.name) return k.kind;
  throw InputError(where, "unknown kind \"" + name + "\"; expected predict_peak, find_order, place_tensor or cache_misses");
}

// Unknown keys are refused with the list of keys this kind takes.
void expect_kind_keys(const Json& doc, ExerciseKind kind) {
#define AP_EXERCISE_COMMON "format", "version", "name", "title", "question", "kind", "hints", "points", "doc"
  switch (kind) {
    case ExerciseKind::kPredictPeak: expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "order"}); break;
    case ExerciseKind::kFindOrder: expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "peak_below"}); break;
    case ExerciseKind::kPlaceTensor:
      expect_keys(doc, "", {AP_EXERCISE_COMMON, "graph", "order", "tensor", "arena_at_most", "fixed"});
      break;
    case ExerciseKind::kCacheMisses:
      expect_keys(doc, "", {AP_EXERCISE_COMMON, "capacity", "ways", "policy", "stride", "blocks", "requests"});
      break;
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

// ["A", "B"] or "A,B": a valid order of `g`.
Schedule read_order(const Graph& g, const Json& j, const std::string& where) {
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
}

// ---- proving an answer exists -----------------------------------------------------------------

// find_order: some order must peak strictly below the limit.
void require_order_below(const Graph& g, Bytes limit) {
  const ScheduleResult best = optimize_schedule(g, kSolveSeconds);
  if (best.peak_bytes < limit) return;
  throw InputError("/peak_below", (best.proven_optimal ? "no order of this graph peaks below " : "no order below ") +
                                      format_bytes(limit) + (best.proven_optimal ? " (the best order peaks at "
                                                                                 : " was found (the best found peaks at ") +
                                      format_bytes(best.peak_bytes) + "): the exercise has no answer");
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

std::vector<Bytes> offsets_from_plan(const LayoutProblem& problem) {
  const ArenaPlan plan = plan_arena(problem, {.planner = "best", .time_limit_seconds = kSolveSeconds});
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
    out[i] = get_size(*it, where, /*allow_zero=*/true);
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
    p.offsets = offsets_from_plan(p.problem);
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
      ex.order = read_order(g, require(doc, "order", ""), "/order");
      try {
        analyze_lifetimes(g, ex.order);
      } catch (const InputError& e) {
        throw InputError("/order", message_of(e));
      }
      break;
    case ExerciseKind::kFindOrder:
      ex.limit_bytes = get_size(require(doc, "peak_below", ""), "/peak_below", false);
      require_order_below(g, ex.limit_bytes);
      break;
    case ExerciseKind::kPlaceTensor:
      ex.order = doc.contains("order") ? read_order(g, doc["order"], "/order") : g.file_order();
      ex.tensor = get_text(require(doc, "tensor", ""), "/tensor");
      ex.limit_bytes = get_size(require(doc, "arena_at_most", ""), "/arena_at_most", false);
      ex.placement = read_placement(ex, doc);
      break;
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

CacheLab run_lab(const Exercise& ex) {
  CacheLab lab(ex.cache, ex.stride ? RequestStream::strided(ex.stride) : RequestStream::list(ex.blocks));
  lab.run(ex.requests);
  return lab;
}

// ---- reading answers ------------------------------------------------------------------------------

struct SizeAnswer {
  std::optional<Bytes> bytes;
  std::string why;  // when bytes is empty: what was expected
};

// The unit a question asks answers in: the unit of its answer example ("Answer with a size, like
// 100 KiB" -> "KiB"); "" (plain bytes) when it gives no example with a unit.
std::string question_size_unit(std::string_view question) {
  const std::string q(question);
  for (size_t like = q.find("like "); like != std::string::npos; like = q.find("like ", like + 1)) {
    size_t i = like + 5;
    while (i < q.size() && (std::isdigit(static_cast<unsigned char>(q[i])) || q[i] == '.')) ++i;
    if (i == like + 5) continue;
    while (i < q.size() && q[i] == ' ') ++i;
    for (const char* unit : {"KiB", "MiB"})
      if (q.compare(i, 3, unit) == 0) return unit;
  }
  return "";
}

// "192 KiB", "192kib", "196608", "196608 B", "0.1875 MiB". Units are binary (1 KiB = 1024 B);
// "KB" and "K" are refused as ambiguous rather than guessed. A bare number below 1024 takes the
// unit of the question's answer example ("192" to "like 100 KiB" is 192 KiB: nobody means 192
// bytes there); from 1024 up it stays bytes, so "196608" keeps meaning 192 KiB; "19 2" is not a
// number.
SizeAnswer read_size_answer(std::string_view answer, const std::string& question_unit = "") {
  const std::string typed = trim(answer);
  std::string s = typed;
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; }), s.end());
  if (s.empty()) return {std::nullopt, "type a size, like 100 KiB or 102400"};
  if (s.size() > 40) return {std::nullopt, "that is too long to be a size; write it like 100 KiB or 102400"};
  static const std::pair<const char*, const char*> kUnits[] = {
      {"bytes", "B"}, {"byte", "B"}, {"kib", "KiB"}, {"mib", "MiB"}, {"gib", "GiB"}, {"kb", ""}, {"mb", ""},
      {"gb", ""},     {"b", "B"},    {"k", ""},      {"m", ""},      {"g", ""}};
  const std::string l = lower(s);
  std::string number = s, unit;
  for (const auto& [suffix, canonical] : kUnits) {
    const size_t n = std::char_traits<char>::length(suffix);
    if (l.size() <= n || l.compare(l.size() - n, n, suffix) != 0) continue;
    if (!*canonical)
      return {std::nullopt, quote_answer(typed) + " is ambiguous: write KiB or MiB (1 KiB = 1024 bytes), or plain bytes"};
    number = s.substr(0, s.size() - n);
    unit = canonical;
    break;
  }
  if (!number.empty() && number[0] == '-') return {std::nullopt, "a size cannot be negative"};
  const bool one_number = typed.find_first_of(" \t") == std::string::npos || typed == number + unit;
  if (unit.empty() && !question_unit.empty() && number.size() <= 8 && one_number) {
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end && *end == '\0' && value < 1024) unit = question_unit;
  }
  try {
    return {parse_byte_size(number + unit, "answer"), ""};
  } catch (const InputError&) {
    return {std::nullopt, quote_answer(typed) + " is not a size; write it like 100 KiB or 102400"};
  }
}

std::optional<int64_t> read_count_answer(std::string_view answer) {
  const std::string s = trim(answer);
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(s);
}

// Op names separated by commas and/or spaces; "ABDCEF" when every op name is one character.
std::vector<std::string> order_tokens(const Graph& g, std::string_view answer) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : answer) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!cur.empty()) tokens.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  const bool one_char_names =
      std::all_of(g.ops.begin(), g.ops.end(), [](const Op& op) { return op.name.size() == 1; });
  if (tokens.size() == 1 && tokens[0].size() > 1 && one_char_names && !g.find_op(tokens[0])) {
    std::vector<std::string> chars;
    for (char c : tokens[0]) chars.push_back(std::string(1, c));
    return chars;
  }
  return tokens;
}

struct OrderAnswer {
  std::optional<Schedule> order;
  std::string why;
};

OrderAnswer read_order_answer(const Graph& g, std::string_view answer) {
  if (answer.size() > kMaxAnswerChars * 100) return {std::nullopt, "that answer is far too long to be an order"};
  Schedule order;
  for (const std::string& name : order_tokens(g, answer)) {
    const auto op = g.find_op(name);
    if (!op) {
      std::vector<std::string> names;
      for (size_t i = 0; i < g.ops.size() && i < 20; ++i) names.push_back(g.ops[i].name);
      if (g.ops.size() > 20) names.push_back("...");
      return {std::nullopt, "there is no op " + quote_answer(name) + " in this graph (its ops: " + join_and(names) + ")"};
    }
    order.push_back(*op);
  }
  if (order.empty()) return {std::nullopt, "type an order of op names, like A,B,C"};
  try {
    check_order(g, order);
  } catch (const InputError& e) {
    return {std::nullopt, "that is not a valid order: " + message_of(e)};
  }
  return {order, ""};
}

// "192 KiB at step 2 (op D), where A, B and D are live (32 KiB + 96 KiB + 64 KiB)".
std::string describe_peak(const Graph& g, const LiveAnalysis& live) {
  std::string out = format_bytes(live.peak_bytes);
  if (live.steps.empty()) return out;
  const StepLive& step = live.steps[live.peak_step];
  const std::vector<int> peak_live = live.live_at(live.peak_step);
  out += " at step " + std::to_string(live.peak_step) + " (op " + g.ops[step.op].name + ")";
  std::vector<std::string> names, sizes;
  for (size_t i = 0; i < peak_live.size(); ++i) {
    if (i == 8) {
      names.push_back(std::to_string(peak_live.size() - 8) + " more");
      break;
    }
    names.push_back(live.buffers[peak_live[i]].name);
    sizes.push_back(format_bytes(live.buffers[peak_live[i]].size));
  }
  if (names.empty()) return out;
  out += ", where " + join_and(names) + (names.size() == 1 ? " is" : " are") + " live";
  if (peak_live.size() <= 8 && sizes.size() > 1) {
    std::string sum;
    for (const std::string& s : sizes) sum += (sum.empty() ? "" : " + ") + s;
    out += " (" + sum + ")";
  }
  return out;
}

// ---- checking answers, one function per kind ----------------------------------------------------

AnswerCheck check_peak(const Exercise& ex, std::string_view answer) {
  const SizeAnswer a = read_size_answer(answer, question_size_unit(ex.question));
  if (!a.bytes) return {false, a.why};
  const LiveAnalysis live = analyze_lifetimes(ex.graph.graph, ex.order);
  const std::string said = format_bytes(*a.bytes);
  if (*a.bytes == live.peak_bytes)
    return {true, "the peak of " + order_names(ex.graph.graph, ex.order) + " is " + describe_peak(ex.graph.graph, live) + "."};
  if (*a.bytes > live.peak_bytes)
    return {false, said + " is too high. A tensor's memory is free again right after its last consumer has run."};
  return {false, said + " is too low. While an op runs, its inputs and outputs are all live, and so is every tensor a "
                        "later op still needs."};
}

AnswerCheck check_find_order(const Exercise& ex, std::string_view answer) {
  const Graph& g = ex.graph.graph;
  const OrderAnswer a = read_order_answer(g, answer);
  if (!a.order) return {false, a.why};
  LiveAnalysis live;
  try {
    live = analyze_lifetimes(g, *a.order);
  } catch (const InputError& e) {
    return {false, "that order cannot run: " + message_of(e)};
  }
  const std::string peak = order_names(g, *a.order) + " peaks at " + describe_peak(g, live);
  if (live.peak_bytes < ex.limit_bytes) return {true, peak + ": below " + format_bytes(ex.limit_bytes) + "."};
  return {false, peak + ". That is not below " + format_bytes(ex.limit_bytes) + "."};
}

AnswerCheck check_place(const Exercise& ex, std::string_view answer) {
  const ExercisePlacement& p = ex.placement;
  const LayoutBuffer& b = p.problem.buffers[p.placed];
  const SizeAnswer a = read_size_answer(answer, question_size_unit(ex.question));
  if (!a.bytes) return {false, a.why};
  const Bytes offset = *a.bytes;
  const std::string at = ex.tensor + " at " + format_bytes(offset);
  if (offset > ex.limit_bytes - b.size)
    return {false, at + " would end at " + (offset > ex.limit_bytes ? "more than " + format_bytes(ex.limit_bytes)
                                                                     : format_bytes(offset + b.size)) +
                       ": the arena would be larger than " + format_bytes(ex.limit_bytes) + "."};
  const std::vector<Bytes> offsets = offsets_with(p, offset);
  const Bytes arena = arena_extent(p.problem, offsets);
  const VerifyResult v = verify_plan(p.problem, offsets, arena);
  if (v.rule == VerifyRule::kBadAlignment)
    return {false, at + " is not aligned: offsets must be multiples of " + std::to_string(b.alignment) + " bytes."};
  if (v.rule == VerifyRule::kOverlap) {
    const int other = v.buffer_a == p.placed ? v.buffer_b : v.buffer_a;
    return {false, at + " collides with " + p.problem.buffers[other].name + ": the verifier says " + v.message + "."};
  }
  if (!v.ok()) return {false, at + " is refused by the verifier: " + v.message + "."};
  if (arena > ex.limit_bytes)
    return {false, "with " + at + " the arena is " + format_bytes(arena) + ", more than " + format_bytes(ex.limit_bytes) + "."};
  return {true, "with " + at + " no two buffers live at the same step share a byte (checked by the verifier), and "
                "the arena is " + format_bytes(arena) + "."};
}

AnswerCheck check_cache(const Exercise& ex, std::string_view answer) {
  const auto n = read_count_answer(answer);
  if (!n) return {false, quote_answer(trim(answer)) + " is not a whole number; type how many requests miss, like 5"};
  const CacheLab lab = run_lab(ex);
  if (*n == lab.misses())
    return {true, std::to_string(lab.misses()) + " of the " + std::to_string(ex.requests) + " requests miss and " +
                      std::to_string(lab.hits()) + " hit."};
  if (*n > ex.requests) return {false, std::to_string(*n) + " is too high: there are only " + std::to_string(ex.requests) + " requests."};
  return {false, std::to_string(*n) + " is too " + (*n > lab.misses() ? "high" : "low") +
                     ". Walk the requests one by one and write down the cache lines after each."};
}

// ---- progress -------------------------------------------------------------------------------------

int get_count(const JsonOut& j, const char* key, const std::string& where, int hi) {
  if (!j.contains(key)) return 0;
  return static_cast<int>(get_int_in(j[key], ptr(where, key), 0, hi));
}

}  // namespace

const char* exercise_kind_name(ExerciseKind kind) {
  for (const KindInfo& k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

const char* answer_format(ExerciseKind kind) {
  for (const KindInfo& k : kKinds)
    if (k.kind == kind) return k.answer;
  return "";
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

AnswerCheck check_answer(const Exercise& ex, std::string_view answer) {
  if (answer.size() > kMaxAnswerChars * 100) return {false, "that answer is far too long"};
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak: return check_peak(ex, answer);
    case ExerciseKind::kFindOrder: return check_find_order(ex, answer);
    case ExerciseKind::kPlaceTensor: return check_place(ex, answer);
    case ExerciseKind::kCacheMisses: return check_cache(ex, answer);
  }
  return {false, "unknown exercise kind"};
}

AnswerCheck submit_answer(const Exercise& ex, ExerciseProgress& progress, std::string_view answer) {
  AnswerCheck check = check_answer(ex, answer);
  if (progress.solved) return check;  // practice after solving changes nothing
  progress.attempts = std::min(progress.attempts + 1, kMaxCount);
  if (!check.correct) progress.wrong = std::min(progress.wrong + 1, kMaxCount);
  progress.solved = check.correct;
  progress.last_answer = utf8_prefix(answer, kMaxAnswerChars);
  return check;
}

bool take_hint(const Exercise& ex, ExerciseProgress& progress) {
  if (progress.solved || progress.hints_shown >= static_cast<int>(ex.hints.size())) return false;
  ++progress.hints_shown;
  return true;
}

int exercise_worth(const Exercise& ex, const ExerciseProgress& progress) {
  const int64_t worth =
      int64_t{ex.points} - int64_t{kWrongPenalty} * progress.wrong - int64_t{kHintPenalty} * progress.hints_shown;
  return static_cast<int>(std::max<int64_t>(1, worth));
}

int exercise_score(const Exercise& ex, const ExerciseProgress& progress) {
  return progress.solved ? exercise_worth(ex, progress) : 0;
}

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

namespace {

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

JsonOut exercise_json(const Exercise& ex) {
  JsonOut out = {{"name", ex.name},       {"title", ex.title},   {"question", ex.question},
                 {"kind", exercise_kind_name(ex.kind)}, {"points", ex.points},
                 {"answer_format", answer_format(ex.kind)}, {"hints", ex.hints}};
  if (ex.uses_graph()) {
    out["graph"] = ex.graph.example.empty() ? ex.graph.graph.name : ex.graph.example;
    out["graph_builtin"] = !ex.graph.example.empty();
  }
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak: out["order"] = order_json(ex.graph.graph, ex.order); break;
    case ExerciseKind::kFindOrder: out["peak_below_bytes"] = ex.limit_bytes; break;
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
