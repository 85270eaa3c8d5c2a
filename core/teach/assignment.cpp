#include "core/teach/assignment.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include "core/graph/examples.h"
#include "core/graph/json_read.h"
#include "core/teach/detail/exercise_internal.h"
#include "core/teach/detail/seeded_rng.h"
#include "core/teach/share.h"

namespace arenaplan {

namespace {

using namespace json_read;

constexpr const char* kSetFormat = "arenaplan-assignment";
constexpr const char* kResultFormat = "arenaplan-result";

// An InputError from inside an embedded document, placed under `where`.
InputError nested_error(const std::string& where, const InputError& e) {
  return InputError(exercise_detail::nested(where, e.where()), exercise_detail::message_of(e));
}

AssignmentEntry read_entry(const Json& j, const std::string& where) {
  AssignmentEntry e;
  if (j.is_string()) {
    e.source = AssignmentEntry::Source::kBuiltin;
    e.builtin = j.get<std::string>();
    const std::string* text = find_example(e.builtin);
    if (!text || !is_exercise_json(*text))
      throw InputError(where, "no built-in exercise named \"" + e.builtin + "\" (see `arenaplan exercise list`)");
    return e;
  }
  if (!j.is_object()) throw InputError(where, "expected a built-in exercise's name or an object, found " + kind_of(j));
  expect_keys(j, where, {"generate", "exercise"});
  if (j.contains("generate") == j.contains("exercise"))
    throw InputError(where, "expected exactly one of \"generate\" and \"exercise\"");
  if (j.contains("exercise")) {
    e.source = AssignmentEntry::Source::kInline;
    e.json = j["exercise"].dump();
    try {
      parse_exercise_json(e.json);
    } catch (const InputError& err) {
      throw nested_error(ptr(where, "exercise"), err);
    }
    return e;
  }
  const std::string gw = ptr(where, "generate");
  const Json& g = j["generate"];
  if (!g.is_object()) throw InputError(gw, "expected {\"kind\", \"difficulty\", \"seed\"}, found " + kind_of(g));
  expect_keys(g, gw, {"kind", "difficulty", "seed"});
  e.source = AssignmentEntry::Source::kGenerated;
  e.spec.kind = exercise_kind_from_name(get_string(require(g, "kind", gw), ptr(gw, "kind")), ptr(gw, "kind"));
  e.spec.difficulty = static_cast<int>(
      exercise_detail::get_int_in(require(g, "difficulty", gw), ptr(gw, "difficulty"), kMinDifficulty, kMaxDifficulty));
  e.spec.seed = static_cast<uint64_t>(
      exercise_detail::get_int_in(require(g, "seed", gw), ptr(gw, "seed"), 0, static_cast<int64_t>(kMaxExerciseSeed)));
  return e;
}

Exercise resolve(const Assignment& a, const AssignmentEntry& e, std::string_view student) {
  switch (e.source) {
    case AssignmentEntry::Source::kBuiltin: return parse_exercise_json(*find_example(e.builtin));
    case AssignmentEntry::Source::kInline: return parse_exercise_json(e.json);
    case AssignmentEntry::Source::kGenerated: {
      GeneratorSpec spec = e.spec;
      spec.seed = student_seed(a, e, student);
      return generate_exercise(spec).exercise;
    }
  }
  throw std::logic_error("unknown assignment entry");
}

}  // namespace

namespace {

std::string exam_tool_names() {
  std::string out;
  for (ExamTool t : kExamTools) out += std::string(out.empty() ? "" : ", ") + "\"" + exam_tool_name(t) + "\"";
  return out;
}

std::vector<ExamTool> read_allow(const Json& j) {
  if (!j.is_array()) throw InputError("/allow", "expected an array of tool names (" + exam_tool_names() + "), found " + kind_of(j));
  std::vector<ExamTool> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string name = get_string(j[i], ptr("/allow", i));
    const auto* found = std::find_if(std::begin(kExamTools), std::end(kExamTools),
                                     [&](ExamTool t) { return name == exam_tool_name(t); });
    if (found == std::end(kExamTools))
      throw InputError(ptr("/allow", i), "unknown tool \"" + name + "\" (expected one of " + exam_tool_names() + ")");
    if (std::find(out.begin(), out.end(), *found) != out.end())
      throw InputError(ptr("/allow", i), "\"" + name + "\" is listed twice");
    out.push_back(*found);
  }
  return out;
}

}  // namespace

const char* exam_tool_name(ExamTool tool) {
  switch (tool) {
    case ExamTool::kOptimiseOrder: return "optimise-order";
    case ExamTool::kOrderList: return "order-list";
    case ExamTool::kReorder: return "reorder";
    case ExamTool::kArenaPlanners: return "arena-planners";
  }
  return "?";
}

std::vector<ExamLock> exam_locks(const Assignment& a, const Exercise& open) {
  std::vector<ExamTool> tools;
  switch (open.kind) {
    case ExerciseKind::kPredictPeak:
      tools = {ExamTool::kOptimiseOrder, ExamTool::kOrderList, ExamTool::kReorder};
      break;
    case ExerciseKind::kFindOrder: tools = {ExamTool::kOptimiseOrder, ExamTool::kOrderList}; break;
    case ExerciseKind::kPlaceTensor: tools = {ExamTool::kArenaPlanners}; break;
    case ExerciseKind::kFitBudget:
      tools = {ExamTool::kArenaPlanners};
      if (open.answer_is_order()) tools.insert(tools.begin(), {ExamTool::kOptimiseOrder, ExamTool::kOrderList});
      break;
    case ExerciseKind::kCacheMisses:
    case ExerciseKind::kBrokenRule: break;
  }
  std::vector<ExamLock> out;
  for (ExamTool t : kExamTools) {
    if (std::find(tools.begin(), tools.end(), t) == tools.end()) continue;
    if (std::find(a.allow.begin(), a.allow.end(), t) != a.allow.end()) continue;
    out.push_back({t, "Locked while you answer \"" + open.title + "\": it would give the answer away."});
  }
  return out;
}

Assignment parse_assignment_json(std::string_view text) {
  if (text.size() > kMaxExerciseJsonBytes) throw InputError("/", "the set is larger than 16 MiB");
  const Json doc = parse_document(text);
  if (!doc.is_object()) throw InputError("/", "expected an assignment object, found " + kind_of(doc));
  expect_keys(doc, "", {"format", "version", "title", "per_student", "allow", "exercises"});
  if (get_string(require(doc, "format", ""), "/format") != kSetFormat)
    throw InputError("/format", std::string("expected \"") + kSetFormat + "\"");
  if (doc.contains("version") && get_int(doc["version"], "/version") != 1)
    throw InputError("/version", "unsupported version (this tool reads version 1)");
  Assignment a;
  if (doc.contains("title")) a.title = get_string(doc["title"], "/title");
  if (doc.contains("per_student")) a.per_student = get_bool(doc["per_student"], "/per_student");
  if (doc.contains("allow")) a.allow = read_allow(doc["allow"]);
  const Json& list = require(doc, "exercises", "");
  if (!list.is_array() || list.empty()) throw InputError("/exercises", "expected a non-empty array");
  if (list.size() > kMaxAssignmentExercises)
    throw InputError("/exercises", "at most " + std::to_string(kMaxAssignmentExercises) + " exercises");
  for (size_t i = 0; i < list.size(); ++i) a.entries.push_back(read_entry(list[i], ptr("/exercises", i)));
  return a;
}

JsonOut assignment_json(const Assignment& a) {
  JsonOut list = JsonOut::array();
  for (const AssignmentEntry& e : a.entries) {
    switch (e.source) {
      case AssignmentEntry::Source::kBuiltin: list.push_back(e.builtin); break;
      case AssignmentEntry::Source::kInline: list.push_back({{"exercise", JsonOut::parse(e.json)}}); break;
      case AssignmentEntry::Source::kGenerated:
        list.push_back({{"generate",
                         {{"kind", generator_kind_name(e.spec.kind)}, {"difficulty", e.spec.difficulty}, {"seed", e.spec.seed}}}});
        break;
    }
  }
  JsonOut out = {{"format", kSetFormat}, {"version", 1}, {"title", a.title}, {"per_student", a.per_student}};
  // Only when given, so the hash of every set written before "allow" existed stays the same.
  if (!a.allow.empty()) {
    out["allow"] = JsonOut::array();
    for (ExamTool t : a.allow) out["allow"].push_back(exam_tool_name(t));
  }
  out["exercises"] = std::move(list);
  return out;
}

std::string assignment_hash(const Assignment& a) { return hash_hex(stable_hash(assignment_json(a).dump())); }

std::string assignment_link_fragment(const Assignment& a) {
  ShareState state;
  state.example = "two_branch";  // the page needs a graph; the set brings its own per exercise
  state.panel = "Exercises";
  state.assignment = assignment_json(a);
  return encode_share_fragment(state);
}

bool is_result_json(std::string_view text) {
  const auto doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("format") && doc["format"].is_string() && doc["format"] == kResultFormat;
}

std::string normalize_student(std::string_view student) {
  std::string out;
  bool space = false;
  for (char c : student) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return out;
}

uint64_t student_seed(const Assignment& a, const AssignmentEntry& e, std::string_view student) {
  const std::string who = normalize_student(student);
  if (!a.per_student || who.empty()) return e.spec.seed;
  return exercise_detail::derive_seed(e.spec.seed, "student:" + who) & kMaxExerciseSeed;
}

std::vector<Exercise> assignment_exercises(const Assignment& a, std::string_view student) {
  std::vector<Exercise> out;
  for (const AssignmentEntry& e : a.entries) out.push_back(resolve(a, e, student));
  return out;
}

JsonOut result_json(const Assignment& a, std::string_view student, const std::vector<ExerciseProgress>& progress) {
  const std::vector<Exercise> exercises = assignment_exercises(a, student);
  if (progress.size() != exercises.size())
    throw std::invalid_argument("result_json: " + std::to_string(progress.size()) + " progress records for " +
                                std::to_string(exercises.size()) + " exercises");
  JsonOut answers = JsonOut::array();
  int score = 0, max_score = 0;
  for (size_t i = 0; i < exercises.size(); ++i) {
    const ExerciseProgress& p = progress[i];
    const int s = exercise_score(exercises[i], p);
    score += s;
    max_score += exercises[i].points;
    answers.push_back({{"exercise", exercises[i].name}, {"answer", p.last_answer}, {"attempts", p.attempts},
                       {"wrong", p.wrong}, {"hints_shown", p.hints_shown}, {"solved", p.solved}, {"score", s},
                       {"log", p.log}});
  }
  return {{"format", kResultFormat}, {"version", 1},          {"student", std::string(student)},
          {"set_hash", assignment_hash(a)}, {"set", assignment_json(a)}, {"score", score},
          {"max_score", max_score},       {"answers", std::move(answers)}};
}

int ClassReport::rejected() const {
  return static_cast<int>(std::count_if(students.begin(), students.end(), [](const GradedStudent& s) { return !s.accepted; }));
}

namespace {

// Grades one result against `set` (its hash already checked); throws InputError naming the place
// of the first thing that does not add up.
void grade_one(const Json& doc, const Assignment& set, GradedStudent& row) {
  const std::vector<Exercise> exercises = assignment_exercises(set, row.student);
  const Json& answers = require(doc, "answers", "");
  if (!answers.is_array() || answers.size() != exercises.size())
    throw InputError("/answers", "expected one answer record per exercise (" + std::to_string(exercises.size()) + ")");
  int total = 0, max_score = 0;
  for (size_t i = 0; i < exercises.size(); ++i) {
    const Exercise& ex = exercises[i];
    const std::string where = ptr("/answers", i);
    const Json& rec = answers[i];
    if (!rec.is_object()) throw InputError(where, "expected an answer record, found " + kind_of(rec));
    expect_keys(rec, where, {"exercise", "answer", "attempts", "wrong", "hints_shown", "solved", "score", "log"});
    if (get_string(require(rec, "exercise", where), ptr(where, "exercise")) != ex.name)
      throw InputError(ptr(where, "exercise"), "expected " + ex.name + " (the set's exercise " + std::to_string(i + 1) + ")");
    JsonOut progress = JsonOut::object();
    // Every attempt's answer is in the log and core replays them all: the counts must be what the
    // answers give (progress_from_json), so lowering them by hand is caught.
    if (!rec.contains("log")) throw InputError(ptr(where, "log"), "missing: the attempt log (every answer checked, in order)");
    for (const char* key : {"attempts", "wrong", "hints_shown", "solved", "log"})
      if (rec.contains(key)) progress[key] = rec[key];
    progress["last_answer"] = rec.contains("answer") ? get_string(rec["answer"], ptr(where, "answer")) : "";
    const ExerciseProgress p = progress_from_json(progress, ex, where);
    if (p.solved && !check_answer(ex, p.last_answer).correct)
      throw InputError(ptr(where, "answer"), "marked solved, but core does not accept the answer \"" +
                                                 exercise_detail::utf8_prefix(p.last_answer, 60) + "\" to " + ex.name);
    const int score = exercise_score(ex, p);
    if (rec.contains("score") && get_int(rec["score"], ptr(where, "score")) != score)
      throw InputError(ptr(where, "score"), "claims " + std::to_string(get_int(rec["score"], ptr(where, "score"))) +
                                                " points; the answer record earns " + std::to_string(score));
    row.scores.push_back(score);
    total += score;
    max_score += ex.points;
  }
  if (doc.contains("score") && get_int(doc["score"], "/score") != total)
    throw InputError("/score", "claims " + std::to_string(get_int(doc["score"], "/score")) + " points; the answers earn " +
                                   std::to_string(total));
  row.score = total;
  row.max_score = max_score;
}

}  // namespace

ClassReport grade_results(const std::vector<std::pair<std::string, std::string>>& results, const Assignment* set) {
  ClassReport report;
  std::optional<Assignment> class_set;
  if (set) class_set = *set;
  for (const auto& [file, text] : results) {
    GradedStudent row;
    row.file = file;
    try {
      const Json doc = parse_document(text);
      if (!doc.is_object()) throw InputError("/", "expected a result object, found " + kind_of(doc));
      expect_keys(doc, "", {"format", "version", "student", "set_hash", "set", "score", "max_score", "answers"});
      if (get_string(require(doc, "format", ""), "/format") != kResultFormat)
        throw InputError("/format", std::string("expected \"") + kResultFormat + "\"");
      row.student = get_string(require(doc, "student", ""), "/student");
      const std::string hash = get_string(require(doc, "set_hash", ""), "/set_hash");
      // The set a result carries must be the one its hash names (an edited set is a tampered result);
      // without a teacher's set, the first intact one is the class's.
      if (doc.contains("set") || !class_set) {
        Assignment carried;
        try {
          carried = parse_assignment_json(require(doc, "set", "").dump());
        } catch (const InputError& e) {
          throw nested_error("/set", e);
        }
        if (assignment_hash(carried) != hash) throw InputError("/set_hash", "does not match the set the result carries");
        if (!class_set) class_set = carried;
      }
      const std::string expected = assignment_hash(*class_set);
      if (hash != expected)
        throw InputError("/set_hash", hash + " is another set than the class's (" + expected + ")");
      grade_one(doc, *class_set, row);
      row.accepted = true;
    } catch (const InputError& e) {
      row.accepted = false;
      row.reason = e.what();
      row.where = e.where();
      row.reason_words = exercise_detail::message_of(e);
      row.score = 0;
      row.scores.clear();
    }
    report.students.push_back(std::move(row));
  }
  if (class_set) {
    report.title = class_set->title;
    report.set_hash = assignment_hash(*class_set);
    for (const Exercise& ex : assignment_exercises(*class_set, "")) report.exercises.push_back(ex.name);
  }
  for (GradedStudent& row : report.students) {
    if (row.accepted) continue;
    std::string place = result_place_in_words(row.where, report.exercises);
    place[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(place[0])));
    row.reason_words = place + ": " + row.reason_words;
  }
  return report;
}

namespace {

// Result-file keys in words (result_place_in_words).
constexpr std::pair<const char*, const char*> kTop[] = {
    {"/format", "the file's format"},   {"/version", "the file's version"}, {"/student", "the student's name"},
    {"/set_hash", "the set's fingerprint"}, {"/set", "the set in the file"},  {"/score", "the total score"},
    {"/max_score", "the maximum score"},   {"/answers", "the answers"}};
constexpr std::pair<const char*, const char*> kAnswer[] = {
    {"exercise", "its exercise name"}, {"answer", "its last answer"}, {"attempts", "its attempt count"},
    {"wrong", "its count of wrong answers"}, {"hints_shown", "its hint count"}, {"solved", "its solved mark"},
    {"score", "its score"}, {"log", "its attempt log"}};

}  // namespace

std::string result_place_in_words(const std::string& where, const std::vector<std::string>& exercises) {
  if (where.empty() || where == "/") return "the file";
  if (where.rfind("line ", 0) == 0) return "the file's JSON (" + where + ")";
  if (where.rfind("/answers/", 0) == 0) {
    const size_t slash = where.find('/', 9);
    const std::string index = where.substr(9, slash == std::string::npos ? std::string::npos : slash - 9);
    if (!index.empty() && index.size() < 4 && index.find_first_not_of("0123456789") == std::string::npos) {
      const size_t i = std::stoul(index);
      std::string out = "answer " + std::to_string(i + 1) + (i < exercises.size() ? " (" + exercises[i] + ")" : "");
      if (slash == std::string::npos) return out;
      const std::string rest = where.substr(slash + 1);
      for (const auto& [key, words] : kAnswer) {
        if (rest == key) return out + ", " + words;
        if (rest.rfind(std::string(key) + "/", 0) == 0) {
          const std::string sub = rest.substr(std::string(key).size() + 1);
          if (std::string(key) == "log" && !sub.empty() && sub.size() < 6 && sub.find_first_not_of("0123456789") == std::string::npos)
            return out + ", attempt " + std::to_string(std::stoul(sub) + 1) + " of its log";
          return out + ", " + words;
        }
      }
      return out;
    }
  }
  for (const auto& [key, words] : kTop)
    if (where == key || where.rfind(std::string(key) + "/", 0) == 0) return words;
  return "the file";
}

JsonOut class_report_json(const ClassReport& r) {
  JsonOut students = JsonOut::array();
  for (const GradedStudent& s : r.students)
    students.push_back({{"file", s.file},   {"student", s.student},     {"accepted", s.accepted}, {"reason", s.reason},
                        {"where", s.where}, {"reason_words", s.reason_words},
                        {"score", s.score}, {"max_score", s.max_score}, {"scores", s.scores}});
  return {{"title", r.title},     {"set_hash", r.set_hash}, {"exercises", r.exercises},
          {"students", students}, {"rejected", r.rejected()}};
}

std::string class_report_text(const ClassReport& r) {
  std::string out = (r.title.empty() ? std::string("Assignment") : r.title) + " (set " + r.set_hash + ")\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %9s", "student", "score");
  out += line;
  for (size_t i = 0; i < r.exercises.size(); ++i) out += "  Q" + std::to_string(i + 1);
  out += "\n";
  for (const GradedStudent& s : r.students) {
    if (!s.accepted) continue;
    std::snprintf(line, sizeof line, "%-24s %4d/%-4d", exercise_detail::utf8_prefix(s.student, 24).c_str(), s.score,
                  s.max_score);
    out += line;
    for (int q : s.scores) {
      std::snprintf(line, sizeof line, " %3d", q);
      out += line;
    }
    out += "\n";
  }
  if (r.rejected() > 0) {
    out += std::to_string(r.rejected()) + " rejected:\n";
    for (const GradedStudent& s : r.students)
      if (!s.accepted) out += "  " + s.file + ": " + s.reason + "\n";
  }
  return out;
}

}  // namespace arenaplan
