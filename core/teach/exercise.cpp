// Checking answers (one function per kind), progress and the score. Reading exercise files is in
// exercise_parse.cpp, the JSON views in exercise_json.cpp.
#include "core/teach/exercise.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "core/graph/graph_json.h"
#include "core/teach/detail/exercise_internal.h"

namespace arenaplan {

namespace exercise_detail {

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

std::string join_words(const std::vector<std::string>& items, const char* conjunction) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " " + std::string(conjunction) + " " : ", ") + items[i];
  return out;
}

const KindInfo* find_kind(ExerciseKind kind) {
  for (const KindInfo& k : kKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

std::string kind_names(const char* KindInfo::*column) {
  std::vector<std::string> names;
  for (const KindInfo& k : kKinds) names.push_back(k.*column);
  return join_words(names, "or");
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

}  // namespace exercise_detail

namespace {

using namespace exercise_detail;

constexpr int kWrongPenalty = 2;  // the score rule of exercise.h
constexpr int kHintPenalty = 3;

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
  if (ex.limit_inclusive) {
    if (live.peak_bytes <= ex.limit_bytes) return {true, peak + ": within " + format_bytes(ex.limit_bytes) + "."};
    return {false, peak + ". That is more than " + format_bytes(ex.limit_bytes) + "."};
  }
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

AnswerCheck check_fit_budget(const Exercise& ex, std::string_view answer) {
  if (ex.planner.empty()) return check_fit_planner(ex, answer);
  const OrderAnswer a = read_order_answer(ex.graph.graph, answer);
  if (!a.order) return {false, a.why};
  return check_fit_order(ex, *a.order);
}

}  // namespace

AnswerCheck check_answer(const Exercise& ex, std::string_view answer) {
  if (answer.size() > kMaxAnswerChars * 100) return {false, "that answer is far too long"};
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak: return check_peak(ex, answer);
    case ExerciseKind::kFindOrder: return check_find_order(ex, answer);
    case ExerciseKind::kPlaceTensor: return check_place(ex, answer);
    case ExerciseKind::kCacheMisses: return check_cache(ex, answer);
    case ExerciseKind::kFitBudget: return check_fit_budget(ex, answer);
    case ExerciseKind::kBrokenRule: return check_broken_rule(ex, answer);
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
  progress.log.push_back(progress.last_answer);
  return check;
}

ExerciseProgress replay_attempts(const Exercise& ex, const std::vector<std::string>& log, int hints_shown) {
  ExerciseProgress p;
  p.hints_shown = hints_shown;
  for (const std::string& answer : log) submit_answer(ex, p, answer);
  return p;
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

}  // namespace arenaplan
