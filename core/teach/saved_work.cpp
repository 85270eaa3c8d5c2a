#include "core/teach/saved_work.h"

#include <algorithm>

#include "core/graph/json_read.h"

namespace arenaplan {

namespace {

using namespace json_read;

constexpr const char* kFormat = "arenaplan-saved-work";
// A record is a few answers per question; anything near this is not one the page wrote.
constexpr size_t kMaxSavedWorkBytes = size_t{4} << 20;

const Exercise* find_question(const std::vector<Exercise>& questions, const std::string& name) {
  for (const Exercise& ex : questions)
    if (ex.name == name) return &ex;
  return nullptr;
}

bool touched(const ExerciseProgress& p) { return p.attempts > 0 || p.hints_shown > 0 || !p.log.empty(); }

}  // namespace

std::string saved_work_key(const Assignment& a, std::string_view student) {
  return "work." + assignment_hash(a) + "." + normalize_student(student);
}

std::string saved_student_key(const Assignment& a) { return "work." + assignment_hash(a); }

JsonOut saved_work_json(const Assignment& a, const SavedWork& work) {
  JsonOut progress = JsonOut::object();
  for (const auto& [name, p] : work.progress)
    if (touched(p)) progress[name] = progress_json(p);
  return {{"format", kFormat},          {"version", 1},          {"set_hash", assignment_hash(a)},
          {"student", work.student},    {"open", work.open},     {"progress", std::move(progress)}};
}

SavedWork parse_saved_work(std::string_view text, const Assignment& a, const std::vector<Exercise>& questions) {
  if (text.size() > kMaxSavedWorkBytes)
    throw InputError("", "saved work larger than " + std::to_string(kMaxSavedWorkBytes >> 20) + " MiB");
  const Json doc = parse_document(text);
  if (!doc.is_object()) throw InputError("/", "expected a saved-work object, found " + kind_of(doc));
  expect_keys(doc, "", {"format", "version", "set_hash", "student", "open", "progress"});
  if (get_string(require(doc, "format", ""), "/format") != kFormat)
    throw InputError("/format", std::string("expected \"") + kFormat + "\"");
  if (get_int(require(doc, "version", ""), "/version") != 1) throw InputError("/version", "expected 1");
  const std::string hash = get_string(require(doc, "set_hash", ""), "/set_hash");
  if (hash != assignment_hash(a))
    throw InputError("/set_hash", "the work is for another set (" + hash + "), not this one (" + assignment_hash(a) + ")");
  SavedWork work;
  if (doc.contains("student")) work.student = get_string(doc["student"], "/student");
  if (doc.contains("open")) {
    work.open = get_string(doc["open"], "/open");
    if (!work.open.empty() && !find_question(questions, work.open))
      throw InputError("/open", "no question named \"" + work.open + "\" in this set");
  }
  if (doc.contains("progress")) {
    const Json& progress = doc["progress"];
    if (!progress.is_object()) throw InputError("/progress", "expected an object of question -> progress, found " + kind_of(progress));
    for (auto it = progress.begin(); it != progress.end(); ++it) {
      const std::string where = ptr("/progress", it.key());
      const Exercise* ex = find_question(questions, it.key());
      if (!ex) throw InputError(where, "no question of that name in this set (for this student)");
      work.progress[ex->name] = progress_from_json(*it, *ex, where);
    }
  }
  return work;
}

ExerciseProgress merge_progress(const Exercise& ex, const ExerciseProgress& kept, const ExerciseProgress& current) {
  size_t shared = 0;
  while (shared < kept.log.size() && shared < current.log.size() && kept.log[shared] == current.log[shared]) ++shared;
  std::vector<std::string> log = kept.log;
  log.insert(log.end(), current.log.begin() + static_cast<std::ptrdiff_t>(shared), current.log.end());
  // A record from before attempt logs has counts only: it stays as it is unless the other copy
  // has a log, which then tells more.
  if (log.empty()) return kept.attempts >= current.attempts ? kept : current;
  return replay_attempts(ex, log, std::max(kept.hints_shown, current.hints_shown));
}

SavedWork merge_saved_work(const std::vector<Exercise>& questions, const SavedWork& kept, const SavedWork& current) {
  SavedWork out;
  out.student = current.student.empty() ? kept.student : current.student;
  out.open = current.open.empty() ? kept.open : current.open;
  for (const Exercise& ex : questions) {
    const auto k = kept.progress.find(ex.name);
    const auto c = current.progress.find(ex.name);
    if (k == kept.progress.end() && c == current.progress.end()) continue;
    const ExerciseProgress none;
    out.progress[ex.name] = merge_progress(ex, k == kept.progress.end() ? none : k->second,
                                           c == current.progress.end() ? none : c->second);
  }
  return out;
}

bool has_work(const SavedWork& work) {
  return std::any_of(work.progress.begin(), work.progress.end(), [](const auto& e) { return touched(e.second); });
}

}  // namespace arenaplan
