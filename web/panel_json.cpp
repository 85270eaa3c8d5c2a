// Graph JSON panel: the graph's text, editable, applied as a whole through load_graph_json(), so a
// typo is refused with core's located message and the last good graph stays loaded.
#include <string>

#include "imgui.h"
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/panel_common.h"
#include "web/js_api.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

// The draft being edited. It follows the loaded graph until the user types, and again after
// Apply or Revert.
struct Draft {
  std::string text;
  uint64_t revision = ~uint64_t(0);
  bool edited = false;
};
Draft g_draft;

void draw_json_panel(AppState& s) {
  if (!g_draft.edited && g_draft.revision != s.revision) {
    g_draft.text = s.graph_json;
    g_draft.revision = s.revision;
  }
  ImGui::BeginDisabled(!g_draft.edited);
  if (ImGui::Button("Apply")) {
    if (load_graph_json(s, g_draft.text)) g_draft.edited = false;
  }
  record_item_rect(s, "json.apply");
  ImGui::SameLine();
  if (ImGui::Button("Revert")) {
    g_draft.edited = false;
    g_draft.revision = ~uint64_t(0);
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Open file...")) request_open_graph_file();
  record_item_rect(s, "json.open");
  ImGui::SameLine();
  if (ImGui::Button("Save")) offer_download(human_model_title(s.graph.name) + ".json", s.graph_json);
  ImGui::SameLine();
  // Elided to the panel's width (full text on hover).
  text_elided(g_draft.edited ? "edited, not applied" : "(drop a .json file on the page to open it)",
              ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (!s.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kColorError);
    ImGui::TextWrapped("Refused: %s", s.error.c_str());
    ImGui::PopStyleColor();
  }
  if (ImGui::InputTextMultiline("##graph_json", &g_draft.text, ImVec2(-1, -1), ImGuiInputTextFlags_AllowTabInput))
    g_draft.edited = true;
  record_item_rect(s, "json.editor");
}

JsonOut export_json_panel(const AppState&) { return {{"edited", g_draft.edited}, {"draft_bytes", g_draft.text.size()}}; }

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kSide, 20, "Graph JSON", draw_json_panel);
ARENAPLAN_STATE_EXPORT("json_editor", export_json_panel);

}  // namespace arenaplan::web
