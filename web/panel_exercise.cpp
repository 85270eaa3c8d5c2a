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
#include "core/graph/graph.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/js_api.h"
#include "web/panel_exercise.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

const ImVec4 kCorrectColor(0.0f, 0.62f, 0.45f, 1.0f);   // bluish green, with the word "Correct"
const ImVec4 kNotYetColor(0.84f, 0.37f, 0.0f, 1.0f);    // vermillion, with the words "Not yet"
constexpr int kHintCost = 3;  // shown on the Hint button; the rule itself lives in core

// One student's work on one exercise.
struct ExerciseSession {
  ExerciseProgress progress;
  std::string draft;   // the answer field
  AnswerCheck last;    // the last checked answer's result
  bool checked = false;
};

struct ExercisesView {
  std::vector<Exercise> exercises;  // the built-in ones, parsed once
  std::string error;                // a built-in exercise failed to parse (a bug, shown as text)
  std::map<std::string, ExerciseSession> sessions;  // by exercise name
  std::string open;                 // name of the open exercise, "" for none
  // Classroom (issue 18): an assignment opened from a link replaces the built-in list.
  std::vector<Exercise> builtin;          // the built-in list, kept to go back to
  std::optional<Assignment> assignment;   // the open set, if any
  std::string student;                    // the student's name or number (per-student variants)
  std::string student_draft;              // the name field
};

ExercisesView& view() {
  static ExercisesView v = [] {
    ExercisesView made;
    try {
      made.exercises = builtin_exercises();
      // A learning path: predict a peak, then find an order, place a tensor, and the cache last.
      std::stable_sort(made.exercises.begin(), made.exercises.end(),
                       [](const Exercise& a, const Exercise& b) { return a.kind < b.kind; });
      made.builtin = made.exercises;
    } catch (const std::exception& e) {
      made.error = e.what();
    }
    return made;
  }();
  return v;
}

const Exercise* find_exercise(const ExercisesView& v, const std::string& name) {
  for (const Exercise& ex : v.exercises)
    if (ex.name == name) return &ex;
  return nullptr;
}

int total_score(ExercisesView& v) {
  int total = 0;
  for (const Exercise& ex : v.exercises) total += exercise_score(ex, v.sessions[ex.name].progress);
  return total;
}

int total_points(const ExercisesView& v) {
  int total = 0;
  for (const Exercise& ex : v.exercises) total += ex.points;
  return total;
}

// Opens an exercise; a graph exercise also becomes the app's graph and order.
void open_exercise(AppState& s, ExercisesView& v, const Exercise& ex) {
  v.open = ex.name;
  if (!ex.uses_graph()) return;
  const bool loaded = ex.graph.example.empty() ? load_graph_json(s, ex.graph.json) : load_example(s, ex.graph.example);
  // A peak to predict stays off the other panels (they would show the answer) until it is solved.
  if (loaded && !ex.order.empty() && ex.kind != ExerciseKind::kPredictPeak)
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
std::string list_label(ExercisesView& v, const Exercise& ex) {
  const ExerciseProgress& p = v.sessions[ex.name].progress;
  return std::string(p.solved ? "[done] " : "") + ex.title + "  (" + std::to_string(exercise_score(ex, p)) + "/" +
         std::to_string(ex.points) + ")";
}

// Wide enough for the longest label, but never more than half the panel.
float list_width(ExercisesView& v) {
  float widest = ImGui::CalcTextSize("Total: 000 / 000 points").x;
  for (const Exercise& ex : v.exercises) widest = std::max(widest, ImGui::CalcTextSize(list_label(v, ex).c_str()).x);
  const ImGuiStyle& style = ImGui::GetStyle();
  return std::min(widest + 2 * (style.WindowPadding.x + style.FramePadding.x), ImGui::GetContentRegionAvail().x * 0.5f);
}

// The questions this student gets (a per-student set changes with the name).
void resolve_assignment(ExercisesView& v) {
  v.exercises = assignment_exercises(*v.assignment, v.student);
  if (!find_exercise(v, v.open)) v.open.clear();
}

std::string result_file_name(const std::string& student) {
  std::string name;
  for (char c : normalize_student(student)) name += (std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
  return "result-" + (name.empty() ? std::string("student") : name) + ".json";
}

JsonOut result_of(ExercisesView& v) {
  std::vector<ExerciseProgress> progress;
  for (const Exercise& ex : v.exercises) progress.push_back(v.sessions[ex.name].progress);
  return result_json(*v.assignment, v.student, progress);
}

// Who is answering, and the result file the teacher grades (`arenaplan exercise grade`).
void draw_assignment_header(AppState& s, ExercisesView& v) {
  ImGui::TextWrapped("%s", v.assignment->title.empty() ? "Assignment" : v.assignment->title.c_str());
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##student", "your name or number", &v.student_draft);
  record_item_rect(s, "exercise.student");
  if (ImGui::IsItemDeactivatedAfterEdit() || (ImGui::IsItemActive() && v.student_draft != v.student)) {
    v.student = v.student_draft;
    if (v.assignment->per_student) resolve_assignment(v);
  }
  ImGui::BeginDisabled(normalize_student(v.student).empty());
  if (ImGui::Button("Export result")) offer_download(result_file_name(v.student), result_of(v).dump(2));
  ImGui::EndDisabled();
  record_item_rect(s, "exercise.export");
  ImGui::Separator();
}

void draw_list(AppState& s, ExercisesView& v) {
  if (v.assignment) draw_assignment_header(s, v);
  ImGui::TextUnformatted("Exercises");
  ImGui::Separator();
  for (const Exercise& ex : v.exercises) {
    if (ImGui::Selectable((list_label(v, ex) + "##" + ex.name).c_str(), v.open == ex.name)) open_exercise(s, v, ex);
    record_item_rect(s, "exercise.select." + ex.name);
  }
  ImGui::Separator();
  ImGui::Text("Total: %d / %d points", total_score(v), total_points(v));
}

// What the student is given besides the question: the graph and order, the fixed buffers, the cache.
void draw_given(const Exercise& ex) {
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
      ImGui::TextWrapped("Graph %s, order %s. Place %s: %s, live at steps %d..%d, offsets multiples of %lld B; arena at most %s.",
                  j["graph"].get<std::string>().c_str(), order_names(ex.graph.graph, ex.order).c_str(), ex.tensor.c_str(),
                  format_bytes(j["tensor_bytes"].get<Bytes>()).c_str(), j["tensor_first"].get<int>(),
                  j["tensor_last"].get<int>(), (long long)j["alignment"].get<Bytes>(), format_bytes(ex.limit_bytes).c_str());
      const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
      if (ImGui::BeginTable("fixed", 4, flags)) {
        for (const char* h : {"buffer (fixed)", "offset", "size", "live steps"}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (const JsonOut& b : j["fixed"]) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(b["name"].get<std::string>().c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(format_bytes(b["offset"].get<Bytes>()).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(format_bytes(b["size"].get<Bytes>()).c_str());
          ImGui::TableNextColumn();
          ImGui::Text("%d..%d", b["first"].get<int>(), b["last"].get<int>());
        }
        ImGui::EndTable();
      }
      break;
    }
    case ExerciseKind::kCacheMisses:
      ImGui::TextWrapped("Cache: C = %d lines, %s, %s; %s; %lld requests (try it in the Cache lab tab)", ex.cache.lines,
                  ex.cache.ways ? (std::to_string(ex.cache.ways) + " ways").c_str() : "fully associative",
                  policy_name(ex.cache.policy),
                  ex.stride ? ("stride s = " + std::to_string(ex.stride)).c_str() : "a list of blocks",
                  (long long)ex.requests);
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
  if ((enter || clicked) && !empty) check(session, ex);

  ImGui::SameLine();
  const int left = static_cast<int>(ex.hints.size()) - session.progress.hints_shown;
  const std::string hint_label = session.progress.solved ? "Hint" : "Hint (" + std::to_string(left) + " left, -" +
                                                                        std::to_string(kHintCost) + " points)";
  ImGui::BeginDisabled(session.progress.solved || left <= 0);
  if (ImGui::Button((hint_label + "##hint").c_str())) take_hint(ex, session.progress);
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

void draw_exercise(AppState& s, ExercisesView& v, const Exercise& ex) {
  ExerciseSession& session = v.sessions[ex.name];
  ImGui::Text("%s", ex.title.c_str());
  ImGui::TextWrapped("%s", ex.question.c_str());
  ImGui::Spacing();
  draw_given(ex);
  ImGui::Separator();
  draw_answer(s, session, ex);
  draw_feedback(session);
  draw_hints(session, ex);
  draw_show_in_panels(s, session, ex);
  ImGui::Separator();
  draw_score(session, ex);
}

void draw_exercises_panel(AppState& s) {
  ExercisesView& v = view();
  if (!v.error.empty()) {
    ImGui::TextColored(kColorError, "Refused: %s", v.error.c_str());
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

JsonOut export_exercises(const AppState&) {
  ExercisesView& v = view();
  JsonOut out = {{"open", v.open}, {"total_score", total_score(v)}, {"total_points", total_points(v)}};
  JsonOut scores = JsonOut::object();
  for (const Exercise& ex : v.exercises) scores[ex.name] = exercise_score(ex, v.sessions[ex.name].progress);
  out["scores"] = std::move(scores);
  if (v.assignment) {
    JsonOut questions = JsonOut::array();
    for (const Exercise& q : v.exercises) questions.push_back({{"name", q.name}, {"question", q.question}});
    out["assignment"] = {{"title", v.assignment->title}, {"set_hash", assignment_hash(*v.assignment)},
                         {"student", v.student}, {"questions", std::move(questions)}};
  }
  const Exercise* ex = find_exercise(v, v.open);
  if (!ex) return out;
  const ExerciseSession& session = v.sessions[ex->name];
  out["kind"] = exercise_kind_name(ex->kind);
  out["progress"] = progress_json(session.progress);
  out["score"] = exercise_score(*ex, session.progress);
  out["worth"] = exercise_worth(*ex, session.progress);
  out["points"] = ex->points;
  out["draft"] = session.draft;
  out["checked"] = session.checked;
  out["correct"] = session.checked && session.last.correct;
  out["feedback"] = session.checked ? session.last.feedback : "";
  const size_t shown = session.progress.solved ? ex->hints.size() : size_t(session.progress.hints_shown);
  out["hints"] = std::vector<std::string>(ex->hints.begin(), ex->hints.begin() + std::min(shown, ex->hints.size()));
  return out;
}

// The open exercise and every exercise's progress (with its last checked answer, so the feedback
// comes back). The graph and order travel in the link itself, so loading does not reload them.
JsonOut save_exercises(const AppState&) {
  ExercisesView& v = view();
  JsonOut progress = JsonOut::object();
  for (const Exercise& ex : v.exercises) {
    const ExerciseProgress& p = v.sessions[ex.name].progress;
    if (p.attempts > 0 || p.hints_shown > 0) progress[ex.name] = progress_json(p);
  }
  return {{"open", v.open}, {"progress", std::move(progress)}};
}

void load_exercises(AppState&, const JsonOut& j) {
  const std::string where = "share link /panels/exercise";
  ExercisesView& v = view();
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

void open_assignment(AppState&, const JsonOut& set) {
  ExercisesView& v = view();
  if (set.is_null()) {
    if (!v.assignment) return;
    v.assignment.reset();
    v.exercises = v.builtin;
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

void open_exercise_by_name(AppState& s, const std::string& name) {
  ExercisesView& v = view();
  const Exercise* ex = find_exercise(v, name);
  if (!ex) throw InputError("share link /embed", "no exercise named \"" + name + "\" in this link");
  open_exercise(s, v, *ex);
}

std::string open_exercise_name() { return view().open; }

JsonOut current_assignment() {
  const ExercisesView& v = view();
  return v.assignment ? assignment_json(*v.assignment) : JsonOut();
}

ARENAPLAN_SHARE_SECTION("exercise", save_exercises, load_exercises);
ARENAPLAN_PANEL_AT(PanelArea::kMain, 950, "Exercises", draw_exercises_panel);
ARENAPLAN_STATE_EXPORT("exercise", export_exercises);

}  // namespace arenaplan::web
