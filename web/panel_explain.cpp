// "Step reasons" panel (issue 18): the current step explained in one sentence by core
// (core/teach/explain.h): which buffers are live and why, what was freed, why the peak is the
// peak. Alt+Left/Right step while the panel has focus; the same sentence goes to the aria-live
// region through summary_text.
#include "core/teach/explain.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"

namespace arenaplan::web {
namespace {

void draw_step_reasons(AppState& s) {
  handle_step_keys(s);
  if (s.live.steps.empty()) {
    ImGui::TextUnformatted("No steps: the graph has no ops.");
    return;
  }
  if (ImGui::Button("< Prev")) set_step(s, s.step - 1);
  record_item_rect(s, "explain.prev");
  ImGui::SameLine();
  if (ImGui::Button("Next >")) set_step(s, s.step + 1);
  record_item_rect(s, "explain.next");
  ImGui::SameLine();
  ImGui::TextDisabled("Alt+Left / Alt+Right");
  ImGui::TextWrapped("%s", explain_step(s.graph, s.live, s.step).sentence.c_str());
}

// {"step", "sentence"}: what the panel and the aria-live region say about the current step.
JsonOut export_step_explanation(const AppState& s) {
  if (s.live.steps.empty()) return {{"step", 0}, {"sentence", ""}};
  return {{"step", s.step}, {"sentence", explain_step(s.graph, s.live, s.step).sentence}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kBottom, 20, "Step reasons", draw_step_reasons);
ARENAPLAN_STATE_EXPORT("step_explanation", export_step_explanation);

}  // namespace arenaplan::web
