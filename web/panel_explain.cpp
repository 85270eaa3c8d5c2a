// "Step reasons" panel: the current step explained in one sentence by core
// (core/teach/explain.h): which buffers are live and why, what was freed, why the peak is the
// peak. Alt+Left/Right step while the panel has focus; the same sentence goes to the aria-live
// region through summary_text. Below it, the layout one buffer at a time: TFLM's greedy plan of
// this order (the planner firmware runs), each placement with its reason.
#include <algorithm>

#include "core/layout/pipeline.h"
#include "core/teach/explain.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"

namespace arenaplan::web {
namespace {

// TFLM's greedy plan of the current order, one placement at a time with its reason.
std::vector<PlacementExplanation> placements_of(const AppState& s) {
  const GraphPlan p = plan_graph(s.graph, s.live, {"tflm-greedy", 0.0});
  if (p.problem.buffers.empty()) return {};
  return explain_layout(p.problem, p.plan.offsets);
}

// The layout walk-through of the current order, rebuilt when the graph or order changes.
const std::vector<PlacementExplanation>& layout_walk(AppState& s) {
  ExplainPanelState& e = s.explain;
  if (!e.layout_walk.fresh(s.revision)) e.shown = 0;
  return e.layout_walk.get(s.revision, [&](std::vector<PlacementExplanation>& steps) { steps = placements_of(s); });
}

void draw_layout_walk(AppState& s) {
  const std::vector<PlacementExplanation>& steps = layout_walk(s);
  int& shown = s.explain.shown;
  if (steps.empty()) return;
  ImGui::Separator();
  ImGui::TextWrapped("Layout, one buffer at a time (tflm-greedy): %d of %d placed", shown, static_cast<int>(steps.size()));
  same_line_if_fits(button_width("< Unplace") + ImGui::GetStyle().ItemSpacing.x + button_width("Place next >"));
  if (ImGui::Button("< Unplace")) shown = std::max(0, shown - 1);
  record_item_rect(s, "explain.layout.prev");
  ImGui::SameLine();
  if (ImGui::Button("Place next >")) shown = std::min(static_cast<int>(steps.size()), shown + 1);
  record_item_rect(s, "explain.layout.next");
  for (int i = 0; i < shown; ++i) ImGui::TextWrapped("%d. %s", i + 1, steps[i].sentence.c_str());
}

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
  draw_layout_walk(s);
}

// {"step", "sentence", "layout": {"placed", "of", "sentences"}}: what the panel shows.
JsonOut export_step_explanation(const AppState& s) {
  if (s.live.steps.empty()) return {{"step", 0}, {"sentence", ""}};
  // The walk as drawn; before the tab was first drawn for this order, as it would start (none placed).
  const bool drawn = s.explain.layout_walk.fresh(s.revision);
  const std::vector<PlacementExplanation> steps = drawn ? s.explain.layout_walk.value() : placements_of(s);
  const int shown = drawn ? s.explain.shown : 0;
  std::vector<std::string> placed;
  for (int i = 0; i < shown; ++i) placed.push_back(steps[i].sentence);
  return {{"step", s.step},
          {"sentence", explain_step(s.graph, s.live, s.step).sentence},
          {"layout", {{"placed", shown}, {"of", steps.size()}, {"sentences", placed}}}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kBottom, 20, "Step reasons", draw_step_reasons);
ARENAPLAN_STATE_EXPORT("step_explanation", export_step_explanation);

}  // namespace arenaplan::web
