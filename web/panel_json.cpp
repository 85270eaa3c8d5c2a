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

void draw_json_panel(AppState& s) {
  JsonPanelState& d = s.json_panel;  // the draft: follows the graph until the user types
  if (!d.edited && d.revision != s.revision) {
    d.text = s.graph_json;
    d.revision = s.revision;
  }
  ImGui::BeginDisabled(!d.edited);
  if (ImGui::Button("Apply")) {
    if (load_graph_json(s, d.text)) d.edited = false;
  }
  record_item_rect(s, "json.apply");
  ImGui::SameLine();
  if (ImGui::Button("Revert")) {
    d.edited = false;
    d.revision = ~uint64_t(0);
  }
  ImGui::EndDisabled();
  same_line_if_fits(button_width("Open file..."));
  if (ImGui::Button("Open file...")) request_open_graph_file();
  record_item_rect(s, "json.open");
  same_line_if_fits(button_width("Save"));
  if (ImGui::Button("Save")) offer_download(human_model_title(s.graph.name) + ".json", s.graph_json);
  // Elided to the panel's width (full text on hover), on its own line when not even a word fits.
  same_line_if_fits(ImGui::CalcTextSize("edited, not").x);
  text_elided(d.edited ? "edited, not applied" : "(drop a .json file on the page to open it)",
              ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (!s.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kColorError);
    ImGui::TextWrapped("Refused: %s", s.error.c_str());
    ImGui::PopStyleColor();
  }
  if (ImGui::InputTextMultiline("##graph_json", &d.text, ImVec2(-1, -1), ImGuiInputTextFlags_AllowTabInput))
    d.edited = true;
  record_item_rect(s, "json.editor");
}

JsonOut export_json_panel(const AppState& s) {
  return {{"edited", s.json_panel.edited}, {"draft_bytes", s.json_panel.text.size()}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kSide, 20, "Graph JSON", draw_json_panel);
ARENAPLAN_STATE_EXPORT("json_editor", export_json_panel);

}  // namespace arenaplan::web
