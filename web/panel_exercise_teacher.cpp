// The Exercises panel's teacher tools: an assignment builder (built-in, generated and own JSON
// exercises; per-student variants; Copy assignment link) and the grading of a class's result
// files picked or dropped on the page. Everything a teacher sees comes from core: the set is
// checked by parse_assignment_json, the link by assignment_link_fragment, and the table by
// grade_results, the very function behind `arenaplan exercise grade`.
#include <algorithm>
#include <string>
#include <vector>

#include "core/teach/assignment.h"
#include "core/teach/exercise_generate.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/js_api.h"
#include "web/panel_exercise.h"
#include "web/ui_style.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {
namespace {

// The message of an InputError as the teacher reads it: place first.
std::string refusal(const InputError& e) { return e.what(); }

// Adds an entry if core accepts the set with it (a generated entry in range, an own exercise that
// parses and has an answer); otherwise says why and leaves the set as it was.
void add_entry(AssignmentBuilder& b, AssignmentEntry entry) {
  if (b.set.entries.size() >= kMaxAssignmentExercises) {
    b.error = "a set holds at most " + std::to_string(kMaxAssignmentExercises) + " exercises";
    return;
  }
  Assignment candidate = b.set;
  candidate.entries.push_back(std::move(entry));
  try {
    b.set = parse_assignment_json(assignment_json(candidate).dump());
    b.error.clear();
  } catch (const InputError& e) {
    b.error = "Not added: " + refusal(e);
  }
}

std::string entry_label(const AssignmentEntry& e) {
  switch (e.source) {
    case AssignmentEntry::Source::kBuiltin: return "built-in " + e.builtin;
    case AssignmentEntry::Source::kGenerated:
      return std::string("generated ") + generator_kind_name(e.spec.kind) + ", level " + std::to_string(e.spec.difficulty) +
             ", seed " + std::to_string(e.spec.seed);
    case AssignmentEntry::Source::kInline: {
      const JsonOut j = JsonOut::parse(e.json, nullptr, false);
      return "own exercise " + (j.is_object() && j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : "");
    }
  }
  return "?";
}

// Puts the link to the builder's set on the clipboard (and in window.arenaplanLastAssignmentLink
// for tests and for copying by hand), with the page's own address in front.
void copy_assignment_link(AppState& s) {
  AssignmentBuilder& b = s.exercise.builder;
  b.link = page_address() + "#" + assignment_link_fragment(b.set);
#ifdef __EMSCRIPTEN__
  EM_ASM({ window.arenaplanLastAssignmentLink = UTF8ToString($0); }, b.link.c_str());  // for tests
#endif
  copy_to_clipboard(s, b.link, "assignment link");
}

void draw_entries(AppState& s, AssignmentBuilder& b) {
  int remove = -1;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!b.set.entries.empty() && ImGui::BeginTable("set", 3, flags)) {
    for (const char* h : {"#", "exercise", ""}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < b.set.entries.size(); ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("Q%zu", i + 1);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(entry_label(b.set.entries[i]).c_str());
      ImGui::TableNextColumn();
      if (ImGui::SmallButton(("Remove##" + std::to_string(i)).c_str())) remove = static_cast<int>(i);
      record_item_rect(s, "teacher.remove." + std::to_string(i));
    }
    ImGui::EndTable();
  }
  if (remove >= 0) b.set.entries.erase(b.set.entries.begin() + remove);
  if (b.set.entries.empty()) ImGui::TextWrapped("The set is empty: add exercises below.");
}

void draw_add_builtin(AppState& s, AssignmentBuilder& b) {
  const std::vector<Exercise>& all = s.exercise.builtin.value().exercises;
  if (all.empty()) return;
  b.builtin_pick = std::clamp(b.builtin_pick, 0, static_cast<int>(all.size()) - 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  if (ImGui::BeginCombo("##builtin", all[b.builtin_pick].name.c_str())) {
    for (size_t i = 0; i < all.size(); ++i)
      if (ImGui::Selectable(all[i].name.c_str(), static_cast<int>(i) == b.builtin_pick)) b.builtin_pick = static_cast<int>(i);
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Add built-in")) {
    AssignmentEntry e;
    e.builtin = all[b.builtin_pick].name;
    add_entry(b, std::move(e));
  }
  record_item_rect(s, "teacher.add_builtin");
}

void draw_add_generated(AppState& s, AssignmentBuilder& b) {
  const std::vector<ExerciseKind>& kinds = generated_kinds();
  b.kind_pick = std::clamp(b.kind_pick, 0, static_cast<int>(kinds.size()) - 1);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::BeginCombo("##kind", generator_kind_name(kinds[b.kind_pick]))) {
    for (size_t i = 0; i < kinds.size(); ++i)
      if (ImGui::Selectable(generator_kind_name(kinds[i]), static_cast<int>(i) == b.kind_pick)) b.kind_pick = static_cast<int>(i);
    ImGui::EndCombo();
  }
  record_item_rect(s, "teacher.kind");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::SliderInt("level##difficulty", &b.difficulty, kMinDifficulty, kMaxDifficulty);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::InputInt("seed##seed", &b.seed);
  b.seed = std::max(b.seed, 0);
  ImGui::SameLine();
  if (ImGui::Button("Add generated")) {
    AssignmentEntry e;
    e.source = AssignmentEntry::Source::kGenerated;
    e.spec = {kinds[b.kind_pick], b.difficulty, static_cast<uint64_t>(b.seed)};
    add_entry(b, std::move(e));
  }
  record_item_rect(s, "teacher.add_generated");
}

void draw_add_own(AppState& s, AssignmentBuilder& b) {
  ImGui::InputTextMultiline("##own", &b.own_json, ImVec2(-1, ImGui::GetTextLineHeight() * 4));
  record_item_rect(s, "teacher.own_json");
  ImGui::BeginDisabled(b.own_json.find_first_not_of(" \t\r\n") == std::string::npos);
  if (ImGui::Button("Add own exercise (arenaplan-exercise JSON)")) {
    AssignmentEntry e;
    e.source = AssignmentEntry::Source::kInline;
    const JsonOut j = JsonOut::parse(b.own_json, nullptr, false);
    e.json = j.is_discarded() ? b.own_json : j.dump();
    if (j.is_discarded()) b.error = "Not added: the text is not JSON";
    else add_entry(b, std::move(e));
  }
  ImGui::EndDisabled();
  record_item_rect(s, "teacher.add_own");
}

void draw_builder(AppState& s) {
  AssignmentBuilder& b = s.exercise.builder;
  ImGui::TextUnformatted("Assignment builder");
  ImGui::Separator();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
  ImGui::InputTextWithHint("##title", "title, e.g. Week 3: schedules", &b.set.title);
  record_item_rect(s, "teacher.title");
  ImGui::SameLine();
  ImGui::Checkbox("per-student variants", &b.set.per_student);
  record_item_rect(s, "teacher.per_student");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Each student's generated questions get a seed derived from their name or number.");
  draw_entries(s, b);
  draw_add_builtin(s, b);
  draw_add_generated(s, b);
  draw_add_own(s, b);
  if (!b.error.empty()) ImGui::TextColored(kColorError, "%s", b.error.c_str());
  ImGui::BeginDisabled(b.set.entries.empty());
  if (ImGui::Button("Copy assignment link")) copy_assignment_link(s);
  record_item_rect(s, "teacher.copy_link");
  ImGui::SameLine();
  if (ImGui::Button("Download set file")) offer_download("assignment.json", assignment_json(b.set).dump(2));
  record_item_rect(s, "teacher.download_set");
  ImGui::SameLine();
  if (ImGui::Button("Try it as a student")) {
    open_assignment(s, assignment_json(b.set));
    s.exercise.teacher = false;
  }
  record_item_rect(s, "teacher.try");
  ImGui::EndDisabled();
  if (!b.link.empty()) {
    // The link itself, selectable: where the clipboard is refused (plain http), this is how a
    // teacher gets it.
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputText("##assignment_link", &b.link, ImGuiInputTextFlags_ReadOnly | ImGuiInputTextFlags_AutoSelectAll);
    record_item_rect(s, "teacher.link");
  }
}

// The set results are graded against: the builder's when it has exercises, else none (each
// result is graded against the set it carries, and the class must share one).
const Assignment* grading_set(const ExercisePanelState& v) { return v.builder.set.entries.empty() ? nullptr : &v.builder.set; }

const ClassReport& class_report(const ExercisePanelState& v) {
  const Assignment* set = grading_set(v);
  return v.grading.report.get({v.grading.files_version, set ? assignment_hash(*set) : ""},
                              [&](ClassReport& out) { out = grade_results(v.grading.files, set); });
}

void draw_report(AppState& s, const ClassReport& r) {
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  ImGui::Text("%s (set %s)", r.title.empty() ? "Assignment" : r.title.c_str(), r.set_hash.c_str());
  const int columns = 3 + static_cast<int>(r.exercises.size());
  if (columns <= 64 && ImGui::BeginTable("grades", columns, flags)) {
    ImGui::TableSetupColumn("student");
    ImGui::TableSetupColumn("file");
    ImGui::TableSetupColumn("score");
    for (size_t i = 0; i < r.exercises.size(); ++i) ImGui::TableSetupColumn(("Q" + std::to_string(i + 1)).c_str());
    ImGui::TableHeadersRow();
    for (const GradedStudent& st : r.students) {
      if (!st.accepted) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.student.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.file.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d/%d", st.score, st.max_score);
      for (int q : st.scores) {
        ImGui::TableNextColumn();
        ImGui::Text("%d", q);
      }
    }
    ImGui::EndTable();
    record_item_rect(s, "teacher.grades");
  }
  if (r.rejected() == 0) return;
  ImGui::TextColored(kColorError, "%d rejected:", r.rejected());
  for (const GradedStudent& st : r.students)
    if (!st.accepted) {
      ImGui::Bullet();
      ImGui::TextWrapped("%s: %s", st.file.c_str(), st.reason_words.c_str());
      record_item_rect(s, "teacher.reason." + st.file);
      // The place as a JSON pointer, for whoever opens the file to look.
      if (!st.where.empty()) {
        ImGui::Indent();
        ImGui::TextDisabled("at %s", st.where.c_str());
        ImGui::Unindent();
      }
    }
}

void draw_grading(AppState& s) {
  ExercisePanelState& v = s.exercise;
  ImGui::TextUnformatted("Grading");
  ImGui::Separator();
  if (ImGui::Button("Pick result files...")) request_open_result_files();
  record_item_rect(s, "teacher.pick_results");
  ImGui::SameLine();
  ImGui::BeginDisabled(v.grading.files.empty());
  if (ImGui::Button("Clear")) {
    v.grading.files.clear();
    ++v.grading.files_version;
  }
  ImGui::EndDisabled();
  record_item_rect(s, "teacher.clear_results");
  ImGui::SameLine();
  ImGui::TextWrapped("or drop students' result files on the page. Graded against %s; nothing leaves this machine.",
                     grading_set(v) ? "the set above" : "the set each file carries (one class, one set)");
  if (v.grading.files.empty()) return;
  draw_report(s, class_report(v));
}

}  // namespace

void draw_teacher_toggle(AppState& s) {
  ImGui::Checkbox("Teacher tools", &s.exercise.teacher);
  record_item_rect(s, "exercise.teacher");
}

void draw_teacher_tools(AppState& s) {
  ImGui::BeginChild("teacher", ImVec2(0, 0), false);
  // Once result files arrive the grading comes first, so its table is in view at 1280x720
  // instead of below the builder.
  if (s.exercise.grading.files.empty()) {
    draw_builder(s);
    ImGui::Spacing();
    draw_grading(s);
  } else {
    draw_grading(s);
    ImGui::Spacing();
    ImGui::Separator();
    draw_builder(s);
  }
  ImGui::EndChild();
}

void add_result_file(AppState& s, const std::string& file_name, std::string_view text) {
  ClassGrading& g = s.exercise.grading;
  const std::string name = file_name.empty() ? "result " + std::to_string(g.files.size() + 1) : file_name;
  auto same = std::find_if(g.files.begin(), g.files.end(), [&](const auto& f) { return f.first == name; });
  if (same != g.files.end()) same->second = std::string(text);
  else g.files.emplace_back(name, std::string(text));
  ++g.files_version;
  s.exercise.teacher = true;
  s.requested_panel = "Exercises";
  request_redraw(s);
}

JsonOut teacher_json(const AppState& s) {
  const ExercisePanelState& v = s.exercise;
  JsonOut files = JsonOut::array();
  for (const auto& f : v.grading.files) files.push_back(f.first);
  JsonOut out = {{"open", v.teacher},
                 {"builder", assignment_json(v.builder.set)},
                 {"builder_hash", assignment_hash(v.builder.set)},
                 {"builder_link", v.builder.link},
                 {"error", v.builder.error},
                 {"files", std::move(files)}};
  if (!v.grading.files.empty()) {
    const ClassReport& r = class_report(v);
    out["grading"] = class_report_json(r);
    out["grading_text"] = class_report_text(r);
  }
  return out;
}

}  // namespace arenaplan::web
