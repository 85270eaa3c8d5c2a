// Exercises panel: the built-in guided exercises (examples/exercise_*.json). The student picks one,
// reads the question, types an answer and checks it; core (core/teach/exercise.h) judges the answer,
// writes the feedback and keeps the score, so this file only holds what the student typed and
// their progress. Opening a graph exercise loads its graph and order into the app, so the other
// panels show the same graph; the cache exercise leaves the graph alone.
#include <algorithm>
#include <cctype>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "core/teach/assignment.h"
#include "core/teach/exercise.h"
#include "core/teach/saved_work.h"
#include "core/graph/graph.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/browser_storage.h"
#include "web/js_api.h"
#include "web/panel_cache.h"
#include "web/panel_common.h"
#include "web/panel_exercise.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

const ImVec4 kCorrectColor(0.0f, 0.62f, 0.45f, 1.0f);   // bluish green, with the word "Correct"
const ImVec4 kNotYetColor(0.84f, 0.37f, 0.0f, 1.0f);    // vermillion, with the words "Not yet"
constexpr int kHintCost = 3;  // shown on the Hint button; the rule itself lives in core

const BuiltinExerciseList& builtins(const ExercisePanelState& v) {
  return v.builtin.get(0, [](BuiltinExerciseList& out) {
    try {
      out.exercises = builtin_exercises();
      // A learning path: predict a peak, then find an order, place a tensor, the cache, the plans.
      std::stable_sort(out.exercises.begin(), out.exercises.end(),
                       [](const Exercise& a, const Exercise& b) { return a.kind < b.kind; });
    } catch (const std::exception& e) {
      out.error = e.what();
    }
  });
}

// The list shown: the open set's questions, else the built-in exercises.
const std::vector<Exercise>& shown(const ExercisePanelState& v) {
  return v.assignment ? v.questions : builtins(v).exercises;
}

const ExerciseProgress& progress_of(const ExercisePanelState& v, const std::string& name) {
  static const ExerciseProgress kNone;
  const auto it = v.sessions.find(name);
  return it == v.sessions.end() ? kNone : it->second.progress;
}

const Exercise* find_exercise(const ExercisePanelState& v, const std::string& name) {
  for (const Exercise& ex : shown(v))
    if (ex.name == name) return &ex;
  return nullptr;
}

int total_score(const ExercisePanelState& v) {
  int total = 0;
  for (const Exercise& ex : shown(v)) total += exercise_score(ex, progress_of(v, ex.name));
  return total;
}

int total_points(const ExercisePanelState& v) {
  int total = 0;
  for (const Exercise& ex : shown(v)) total += ex.points;
  return total;
}

// Opens an exercise; a graph exercise also becomes the app's graph and order.
void open_exercise(AppState& s, ExercisePanelState& v, const Exercise& ex) {
  v.open = ex.name;
  if (!ex.uses_graph()) return;
  const bool loaded = ex.graph.example.empty() ? load_graph_json(s, ex.graph.json) : load_example(s, ex.graph.example);
  // A peak to predict (or the planners' arenas for a budget) stays off the other panels, which
  // would show the answer, until it is solved.
  if (loaded && !ex.order.empty() && ex.kind != ExerciseKind::kPredictPeak && ex.kind != ExerciseKind::kFitBudget)
    set_order_csv(s, order_names(ex.graph.graph, ex.order));
}

// Once a peak is predicted, the order in question goes to the other panels to see why.
void draw_show_in_panels(AppState& s, const ExerciseSession& session, const Exercise& ex) {
  if (ex.kind != ExerciseKind::kPredictPeak || !session.progress.solved) return;
  if (ImGui::Button("Show this order in the panels")) set_order_csv(s, order_names(ex.graph.graph, ex.order));
  record_item_rect(s, "exercise.show");
}

void check(ExerciseSession& session, const Exercise& ex) {
  session.last = submit_answer(ex, session.progress, session.draft);
  session.checked = true;
}

// "[done] Place C so the arena is 136 KiB  (8/10)": the text mark says solved, not colour alone.
std::string list_label(const ExercisePanelState& v, const Exercise& ex) {
  const ExerciseProgress& p = progress_of(v, ex.name);
  return std::string(p.solved ? "[done] " : "") + ex.title + "  (" + std::to_string(exercise_score(ex, p)) + "/" +
         std::to_string(ex.points) + ")";
}

// Wide enough for the longest label, but never more than half the panel.
float list_width(ExercisePanelState& v) {
  float widest = ImGui::CalcTextSize("Total: 000 / 000 points").x;
  for (const Exercise& ex : shown(v)) widest = std::max(widest, ImGui::CalcTextSize(list_label(v, ex).c_str()).x);
  const ImGuiStyle& style = ImGui::GetStyle();
  return std::min(widest + 2 * (style.WindowPadding.x + style.FramePadding.x), ImGui::GetContentRegionAvail().x * 0.5f);
}

// The questions this student gets (a per-student set changes with the name).
void resolve_assignment(ExercisePanelState& v) {
  v.questions = assignment_exercises(*v.assignment, v.student);
  if (!find_exercise(v, v.open)) v.open.clear();
}

// ---- Saved work: the student's answers kept in the browser (core/teach/saved_work.h) ----

SavedWork work_of(const ExercisePanelState& v) {
  SavedWork w;
  w.student = v.student;
  w.open = v.open;
  for (const Exercise& ex : shown(v)) {
    const ExerciseProgress& p = progress_of(v, ex.name);
    if (p.attempts > 0 || p.hints_shown > 0) w.progress[ex.name] = p;
  }
  return w;
}

// The sessions become `w`'s progress; each last answer is checked again by core, so its feedback
// is shown as it was and never read from storage.
void apply_work(AppState& s, ExercisePanelState& v, const SavedWork& w) {
  std::map<std::string, ExerciseSession> sessions;
  for (const auto& [name, p] : w.progress) {
    const Exercise* ex = find_exercise(v, name);
    if (!ex) continue;
    ExerciseSession& session = sessions[name];
    session.progress = p;
    if (!p.last_answer.empty()) {
      session.draft = p.last_answer;
      session.last = check_answer(*ex, session.draft);
      session.checked = true;
    }
  }
  v.sessions = std::move(sessions);
  if (w.open != v.open) {
    if (const Exercise* ex = find_exercise(v, w.open)) open_exercise(s, v, *ex);
  }
}

std::string who(const std::string& student) {
  return normalize_student(student).empty() ? "no name" : "\"" + student + "\"";
}

// The copy kept for `student`, empty when there is none. One that cannot be read is moved aside
// (key + ".unreadable", so the next save does not destroy it) and the panel says why.
SavedWork kept_work(ExercisePanelState& v, const std::string& student) {
  const std::string key = saved_work_key(*v.assignment, student);
  const std::optional<std::string> text = storage_read(key);
  if (!text) return {};
  try {
    return parse_saved_work(*text, *v.assignment, v.questions);
  } catch (const std::exception& e) {
    storage_write(key + ".unreadable", *text);
    v.work_error = "The work saved in this browser for " + who(student) + " could not be read (" + e.what() +
                   "); it was put aside and your answers start afresh.";
    return {};
  }
}

void save_work(ExercisePanelState& v) {
  if (!v.assignment) return;
  const Assignment& a = *v.assignment;
  v.work_saved = storage_write(saved_work_key(a, v.student), saved_work_json(a, work_of(v)).dump()) &&
                 storage_write(saved_student_key(a), v.student);
}

// Answered questions a change of name to `student` would leave behind (another name gets other
// questions in a per-student set); they stay saved under the old name.
int left_behind(const ExercisePanelState& v, const std::string& student) {
  if (!v.assignment->per_student) return 0;
  const std::vector<Exercise> next = assignment_exercises(*v.assignment, student);
  int n = 0;
  for (const auto& entry : work_of(v).progress)
    n += std::none_of(next.begin(), next.end(), [&](const Exercise& ex) { return ex.name == entry.first; });
  return n;
}

// The answers of the questions the new name still has go with it, merged with what that name
// saved before; the old name's copy stays where it is.
void switch_student(AppState& s, ExercisePanelState& v, const std::string& student) {
  SavedWork carried = work_of(v);
  v.student = v.student_draft = student;
  v.pending_student.clear();
  v.work_error.clear();
  if (v.assignment->per_student) resolve_assignment(v);
  for (auto it = carried.progress.begin(); it != carried.progress.end();)
    it = find_exercise(v, it->first) ? std::next(it) : carried.progress.erase(it);
  carried.student = student;
  if (!find_exercise(v, carried.open)) carried.open.clear();
  apply_work(s, v, merge_saved_work(v.questions, kept_work(v, student), carried));
  save_work(v);
}

void commit_student(AppState& s, ExercisePanelState& v, const std::string& student) {
  if (normalize_student(student) == normalize_student(v.student)) {
    v.student = student;
    v.pending_student.clear();
    save_work(v);
  } else if (left_behind(v, student) > 0) {
    v.pending_student = student;
  } else {
    switch_student(s, v, student);
  }
}

std::string result_file_name(const std::string& student) {
  std::string name;
  for (char c : normalize_student(student)) name += (std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
  return "result-" + (name.empty() ? std::string("student") : name) + ".json";
}

JsonOut result_of(ExercisePanelState& v) {
  std::vector<ExerciseProgress> progress;
  for (const Exercise& ex : shown(v)) progress.push_back(progress_of(v, ex.name));
  return result_json(*v.assignment, v.student, progress);
}

// Who is answering, and the result file the teacher grades (`arenaplan exercise grade`).
void draw_assignment_header(AppState& s, ExercisePanelState& v) {
  ImGui::TextWrapped("%s", v.assignment->title.empty() ? "Assignment" : v.assignment->title.c_str());
  ImGui::SetNextItemWidth(-1);
  const bool enter = ImGui::InputTextWithHint("##student", "your name or number", &v.student_draft,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  record_item_rect(s, "exercise.student");
  // Taken when the field is left (Enter, a click elsewhere), not per key: each name is a place
  // the work is saved under, and in a per-student set another set of questions.
  if ((enter || ImGui::IsItemDeactivatedAfterEdit()) && v.student_draft != v.student) commit_student(s, v, v.student_draft);
  if (!v.pending_student.empty()) {
    const int n = left_behind(v, v.pending_student);
    ImGui::TextWrapped("Your questions depend on your name: as %s you get other questions. The %d you answered as %s "
                       "stay saved in this browser under that name (type it again to get back to them).",
                       who(v.pending_student).c_str(), n, who(v.student).c_str());
    if (ImGui::Button("Use the new name")) switch_student(s, v, v.pending_student);
    record_item_rect(s, "exercise.student.confirm");
    ImGui::SameLine();
    if (ImGui::Button(("Keep " + who(v.student)).c_str())) {
      v.pending_student.clear();
      v.student_draft = v.student;
    }
    record_item_rect(s, "exercise.student.keep");
  }
  if (!v.work_error.empty()) ImGui::TextColored(kColorError, "%s", v.work_error.c_str());
  ImGui::BeginDisabled(normalize_student(v.student).empty() || !v.pending_student.empty());
  if (ImGui::Button("Export result")) offer_download(result_file_name(v.student), result_of(v).dump(2));
  ImGui::EndDisabled();
  record_item_rect(s, "exercise.export");
  ImGui::Separator();
}

void draw_list(AppState& s, ExercisePanelState& v) {
  if (v.assignment) draw_assignment_header(s, v);
  ImGui::TextUnformatted("Exercises");
  ImGui::Separator();
  for (const Exercise& ex : shown(v)) {
    if (ImGui::Selectable((list_label(v, ex) + "##" + ex.name).c_str(), v.open == ex.name)) {
      open_exercise(s, v, ex);
      save_work(v);
    }
    record_item_rect(s, "exercise.select." + ex.name);
  }
  ImGui::Separator();
  ImGui::Text("Total: %d / %d points", total_score(v), total_points(v));
}

std::string planner_choices(const Exercise& ex) {
  std::string out;
  for (const std::string& p : ex.planners) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Buffers with their offset, size and live steps: the fixed ones of a placement, or a plan's.
// Every figure in bytes: a unit chosen per value (KiB where it divides) would print the one
// misaligned offset of "spot the broken rule" in bytes among KiB, which gives the answer away.
void draw_buffer_table(const char* id, const char* first_header, const JsonOut& rows) {
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable(id, 4, flags)) return;
  for (const char* h : {first_header, "offset (B)", "size (B)", "live steps"}) ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const JsonOut& b : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(b["name"].get<std::string>().c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(with_commas(b["offset"].get<Bytes>()).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(with_commas(b["size"].get<Bytes>()).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d..%d", b["first"].get<int>(), b["last"].get<int>());
  }
  ImGui::EndTable();
}

// What the student is given besides the question: the graph and order, the fixed buffers, the cache.
void draw_given(AppState& s, const Exercise& ex) {
  const JsonOut j = exercise_json(ex);
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak:
      ImGui::TextWrapped("Graph %s, order %s (the other panels show it once you have answered)", j["graph"].get<std::string>().c_str(),
                  order_names(ex.graph.graph, ex.order).c_str());
      break;
    case ExerciseKind::kFindOrder:
      ImGui::TextWrapped("Graph %s; an order must peak %s %s", j["graph"].get<std::string>().c_str(),
                  ex.limit_inclusive ? "at most" : "below", format_bytes(ex.limit_bytes).c_str());
      break;
    case ExerciseKind::kPlaceTensor: {
      ImGui::TextWrapped("Graph %s, order %s. Place %s: %s B, live at steps %d..%d, offsets multiples of %lld B; arena at most %s B.",
                  j["graph"].get<std::string>().c_str(), order_names(ex.graph.graph, ex.order).c_str(), ex.tensor.c_str(),
                  with_commas(j["tensor_bytes"].get<Bytes>()).c_str(), j["tensor_first"].get<int>(),
                  j["tensor_last"].get<int>(), (long long)j["alignment"].get<Bytes>(), with_commas(ex.limit_bytes).c_str());
      draw_buffer_table("fixed", "buffer (fixed)", j["fixed"]);
      break;
    }
    case ExerciseKind::kCacheMisses:
      ImGui::TextWrapped("Cache: C = %d lines, %s, %s; %s; %lld requests", ex.cache.lines,
                  ex.cache.ways ? (std::to_string(ex.cache.ways) + " ways").c_str() : "fully associative",
                  policy_name(ex.cache.policy),
                  ex.stride ? ("stride s = " + std::to_string(ex.stride)).c_str() : ("blocks " + block_list_text(ex.blocks)).c_str(),
                  (long long)ex.requests);
      if (ImGui::Button("Try it in the Cache lab")) load_cache_question(s, ex);
      record_item_rect(s, "exercise.try_cache");
      break;
    case ExerciseKind::kFitBudget:
      if (ex.planner.empty())
        ImGui::TextWrapped("Graph %s, order %s; the arena may use %s. Choose among: %s.", j["graph"].get<std::string>().c_str(),
                           order_names(ex.graph.graph, ex.order).c_str(), format_bytes(ex.limit_bytes).c_str(),
                           planner_choices(ex).c_str());
      else
        ImGui::TextWrapped("Graph %s; the planner is %s and the arena may use %s. Answer with an order of the ops.",
                           j["graph"].get<std::string>().c_str(), ex.planner.c_str(), format_bytes(ex.limit_bytes).c_str());
      break;
    case ExerciseKind::kBrokenRule:
      ImGui::TextWrapped("Graph %s, order %s. The plan: arena %s B, offsets multiples of %lld B; live steps as the plan "
                         "assumed them.", j["graph"].get<std::string>().c_str(), order_names(ex.graph.graph, ex.order).c_str(),
                         with_commas(ex.plan.arena_bytes).c_str(), (long long)j["plan"]["alignment"].get<Bytes>());
      draw_buffer_table("plan", "buffer", j["plan"]["buffers"]);
      break;
  }
}

void draw_answer(AppState& s, ExerciseSession& session, const Exercise& ex) {
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  const bool enter = ImGui::InputTextWithHint("##answer", answer_format(ex.kind), &session.draft,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  record_item_rect(s, "exercise.answer");
  const bool empty = session.draft.find_first_not_of(" \t") == std::string::npos;
  ImGui::SameLine();
  ImGui::BeginDisabled(empty);
  const bool clicked = ImGui::Button("Check");
  ImGui::EndDisabled();
  record_item_rect(s, "exercise.check");
  if ((enter || clicked) && !empty) {
    check(session, ex);
    save_work(s.exercise);
    s.announcement = ex.title + ": " + (session.last.correct ? "Correct. " : "Not yet. ") + session.last.feedback;
  }

  ImGui::SameLine();
  const int left = static_cast<int>(ex.hints.size()) - session.progress.hints_shown;
  const std::string hint_label = session.progress.solved ? "Hint" : "Hint (" + std::to_string(left) + " left, -" +
                                                                        std::to_string(kHintCost) + " points)";
  ImGui::BeginDisabled(session.progress.solved || left <= 0);
  if (ImGui::Button((hint_label + "##hint").c_str()) && take_hint(ex, session.progress)) save_work(s.exercise);
  ImGui::EndDisabled();
  record_item_rect(s, "exercise.hint");
}

void draw_feedback(const ExerciseSession& session) {
  if (!session.checked) return;
  ImGui::TextColored(session.last.correct ? kCorrectColor : kNotYetColor, "%s",
                     session.last.correct ? "Correct." : "Not yet.");
  ImGui::SameLine();
  ImGui::TextWrapped("%s", session.last.feedback.c_str());
}

void draw_hints(const ExerciseSession& session, const Exercise& ex) {
  // Once solved every hint is free to read.
  const size_t shown = session.progress.solved ? ex.hints.size() : static_cast<size_t>(session.progress.hints_shown);
  for (size_t i = 0; i < shown && i < ex.hints.size(); ++i) {
    ImGui::Bullet();
    ImGui::TextWrapped("Hint %zu: %s", i + 1, ex.hints[i].c_str());
  }
}

void draw_score(const ExerciseSession& session, const Exercise& ex) {
  const ExerciseProgress& p = session.progress;
  if (p.solved)
    ImGui::TextWrapped("Score: %d / %d points (solved after %d wrong answer%s and %d hint%s)", exercise_score(ex, p), ex.points,
                p.wrong, p.wrong == 1 ? "" : "s", p.hints_shown, p.hints_shown == 1 ? "" : "s");
  else
    ImGui::TextWrapped("Score: 0 / %d points; a correct answer now earns %d (-2 per wrong answer, -3 per hint)", ex.points,
                exercise_worth(ex, p));
}

void draw_exercise(AppState& s, ExercisePanelState& v, const Exercise& ex) {
  ExerciseSession& session = v.sessions[ex.name];
  ImGui::Text("%s", ex.title.c_str());
  ImGui::TextWrapped("%s", ex.question.c_str());
  ImGui::Spacing();
  draw_given(s, ex);
  ImGui::Separator();
  draw_answer(s, session, ex);
  draw_feedback(session);
  draw_hints(session, ex);
  draw_show_in_panels(s, session, ex);
  ImGui::Separator();
  draw_score(session, ex);
}

void draw_exercises_panel(AppState& s) {
  ExercisePanelState& v = s.exercise;
  if (!builtins(v).error.empty()) {
    ImGui::TextColored(kColorError, "Refused: %s", builtins(v).error.c_str());
    return;
  }
  if (s.embed_view.empty()) draw_teacher_toggle(s);  // an embed shows the student's view only
  if (v.teacher && s.embed_view.empty()) {
    draw_teacher_tools(s);
    return;
  }
  ImGui::BeginChild("exercise_list", ImVec2(list_width(v), 0), true);
  draw_list(s, v);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("exercise_open", ImVec2(0, 0), false);
  if (const Exercise* ex = find_exercise(v, v.open)) draw_exercise(s, v, *ex);
  else ImGui::TextWrapped("Pick an exercise on the left. Each one is checked by the same core code as the CLI "
                          "(`arenaplan exercise check`).");
  ImGui::EndChild();
}

JsonOut export_exercises(const AppState& s) {
  const ExercisePanelState& v = s.exercise;
  JsonOut out = {{"open", v.open}, {"total_score", total_score(v)}, {"total_points", total_points(v)}};
  JsonOut scores = JsonOut::object();
  for (const Exercise& ex : shown(v)) scores[ex.name] = exercise_score(ex, progress_of(v, ex.name));
  out["scores"] = std::move(scores);
  if (v.assignment) {
    JsonOut questions = JsonOut::array();
    for (const Exercise& q : shown(v)) questions.push_back({{"name", q.name}, {"question", q.question}});
    JsonOut answers = JsonOut::array();
    for (const Exercise& q : shown(v)) {
      const ExerciseProgress& p = progress_of(v, q.name);
      answers.push_back({{"name", q.name}, {"log", p.log}, {"attempts", p.attempts}, {"wrong", p.wrong},
                         {"hints_shown", p.hints_shown}, {"solved", p.solved}, {"score", exercise_score(q, p)}});
    }
    out["assignment"] = {{"title", v.assignment->title}, {"set_hash", assignment_hash(*v.assignment)},
                         {"student", v.student}, {"student_draft", v.student_draft},
                         {"pending_student", v.pending_student}, {"questions", std::move(questions)},
                         {"answers", std::move(answers)}, {"work_key", saved_work_key(*v.assignment, v.student)},
                         {"work_saved", v.work_saved}, {"work_error", v.work_error}};
  }
  JsonOut locked = JsonOut::array();
  for (ExamTool t : kExamTools)
    if (const std::string note = exam_lock_note(s, t); !note.empty()) locked.push_back({{"tool", exam_tool_name(t)}, {"note", note}});
  out["locked"] = std::move(locked);
  out["teacher"] = teacher_json(s);
  const Exercise* ex = find_exercise(v, v.open);
  if (!ex) return out;
  const auto found = v.sessions.find(ex->name);
  const ExerciseSession session = found == v.sessions.end() ? ExerciseSession() : found->second;
  out["kind"] = exercise_kind_name(ex->kind);
  out["progress"] = progress_json(session.progress);
  out["score"] = exercise_score(*ex, session.progress);
  out["worth"] = exercise_worth(*ex, session.progress);
  out["points"] = ex->points;
  out["draft"] = session.draft;
  out["checked"] = session.checked;
  out["correct"] = session.checked && session.last.correct;
  out["feedback"] = session.checked ? session.last.feedback : "";
  const size_t hints = session.progress.solved ? ex->hints.size() : size_t(session.progress.hints_shown);
  out["hints"] = std::vector<std::string>(ex->hints.begin(), ex->hints.begin() + std::min(hints, ex->hints.size()));
  return out;
}

// The open exercise and every exercise's progress (with its last checked answer, so the feedback
// comes back). The graph and order travel in the link itself, so loading does not reload them.
JsonOut save_exercises(const AppState& s) {
  const ExercisePanelState& v = s.exercise;
  JsonOut progress = JsonOut::object();
  for (const Exercise& ex : shown(v)) {
    const ExerciseProgress& p = progress_of(v, ex.name);
    if (p.attempts > 0 || p.hints_shown > 0) progress[ex.name] = progress_json(p);
  }
  return {{"open", v.open}, {"progress", std::move(progress)}};
}

void load_exercises(AppState& s, const JsonOut& j) {
  const std::string where = "share link /panels/exercise";
  ExercisePanelState& v = s.exercise;
  if (!j.is_object()) throw InputError(where, "expected an object");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "open" && it.key() != "progress") throw InputError(where + "/" + it.key(), "unknown key");
  const std::string open = j.contains("open") && j["open"].is_string() ? j["open"].get<std::string>() : "";
  if (j.contains("open") && (!j["open"].is_string() || (!open.empty() && !find_exercise(v, open))))
    throw InputError(where + "/open", "expected the name of a built-in exercise");
  std::map<std::string, ExerciseSession> sessions;
  if (j.contains("progress")) {
    if (!j["progress"].is_object()) throw InputError(where + "/progress", "expected an object of exercise -> progress");
    for (auto it = j["progress"].begin(); it != j["progress"].end(); ++it) {
      const std::string at = where + "/progress/" + it.key();
      const Exercise* ex = find_exercise(v, it.key());
      if (!ex) throw InputError(at, "no built-in exercise of that name");
      ExerciseSession& session = sessions[ex->name];
      session.progress = progress_from_json(*it, *ex, at);
      if (!session.progress.last_answer.empty()) {
        session.draft = session.progress.last_answer;
        session.last = check_answer(*ex, session.draft);  // recomputed, never trusted from the link
        session.checked = true;
      }
    }
  }
  // Only a fully valid section replaces the student's work.
  v.sessions = std::move(sessions);
  v.open = open;
}

}  // namespace

void open_assignment(AppState& s, const JsonOut& set) {
  ExercisePanelState& v = s.exercise;
  if (set.is_null()) {
    if (!v.assignment) return;
    v.assignment.reset();
    v.questions.clear();
  } else {
    Assignment parsed;
    try {
      parsed = parse_assignment_json(set.dump());
    } catch (const InputError& e) {
      throw InputError("share link /assignment" + (e.where().empty() || e.where()[0] != '/' ? std::string() : e.where()),
                       std::string(e.what()).substr(std::min(std::string(e.what()).size(), e.where().size() + 2)));
    }
    v.assignment = std::move(parsed);
    resolve_assignment(v);
  }
  v.sessions.clear();
  v.open.clear();
}

std::string exam_lock_note(const AppState& s, ExamTool tool) {
  const ExercisePanelState& v = s.exercise;
  if (!v.assignment) return "";
  const Exercise* ex = find_exercise(v, v.open);
  // A solved question has nothing left to give away.
  if (!ex || progress_of(v, ex->name).solved) return "";
  for (const ExamLock& lock : exam_locks(*v.assignment, *ex))
    if (lock.tool == tool) return lock.note;
  return "";
}

bool draw_exam_lock(AppState& s, ExamTool tool) {
  const std::string note = exam_lock_note(s, tool);
  if (note.empty()) return false;
  note_wrapped(note);
  record_item_rect(s, std::string("exam.") + exam_tool_name(tool));
  return true;
}

void restore_saved_work(AppState& s) {
  ExercisePanelState& v = s.exercise;
  if (!v.assignment) return;
  v.work_error.clear();
  const std::optional<std::string> last = storage_read(saved_student_key(*v.assignment));
  if (last && normalize_student(v.student).empty() && !normalize_student(*last).empty()) {
    v.student = v.student_draft = *last;
    if (v.assignment->per_student) resolve_assignment(v);
  }
  apply_work(s, v, merge_saved_work(v.questions, kept_work(v, v.student), work_of(v)));
  save_work(v);
}

void open_exercise_by_name(AppState& s, const std::string& name) {
  ExercisePanelState& v = s.exercise;
  const Exercise* ex = find_exercise(v, name);
  if (!ex) throw InputError("share link /embed", "no exercise named \"" + name + "\" in this link");
  open_exercise(s, v, *ex);
}

std::string open_exercise_name(const AppState& s) { return s.exercise.open; }

JsonOut current_assignment(const AppState& s) {
  const ExercisePanelState& v = s.exercise;
  return v.assignment ? assignment_json(*v.assignment) : JsonOut();
}

ARENAPLAN_SHARE_SECTION("exercise", save_exercises, load_exercises);
ARENAPLAN_PANEL_AT(PanelArea::kMain, 950, "Exercises", draw_exercises_panel);
ARENAPLAN_STATE_EXPORT("exercise", export_exercises);

}  // namespace arenaplan::web
