// "Step reasons" panel: the current step explained in one sentence by core
// (core/teach/explain.h): which buffers are live and why, what was freed, why the peak is the
// peak. Alt+Left/Right step while the panel has focus; the same sentence goes to the aria-live
// region through summary_text. Below it, the layout one buffer at a time: TFLM's greedy plan of
// this order (the planner firmware runs), each placement with its reason.
#include <algorithm>

#include "core/layout/layout.h"
#include "core/teach/explain.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"

namespace arenaplan::web {
namespace {

// The layout walk-through of the current order, rebuilt when the graph or order changes.
struct LayoutWalk {
  uint64_t revision = ~uint64_t{0};
  std::vector<PlacementExplanation> steps;
  int shown = 0;  // placements shown so far (0 = none yet)
};

LayoutWalk& layout_walk(const AppState& s) {
  static LayoutWalk walk;
  if (walk.revision != s.revision) {
    walk.revision = s.revision;
    walk.shown = 0;
    walk.steps.clear();
    const LayoutProblem problem = layout_problem(s.graph, s.live);
    if (!problem.buffers.empty())
      walk.steps = explain_layout(problem, plan_arena(problem, {.planner = "tflm-greedy"}).offsets);
  }
  return walk;
}

void draw_layout_walk(AppState& s) {
  LayoutWalk& walk = layout_walk(s);
  if (walk.steps.empty()) return;
  ImGui::Separator();
  ImGui::Text("Layout, one buffer at a time (tflm-greedy): %d of %d placed", walk.shown, static_cast<int>(walk.steps.size()));
  ImGui::SameLine();
  if (ImGui::Button("< Unplace")) walk.shown = std::max(0, walk.shown - 1);
  record_item_rect(s, "explain.layout.prev");
  ImGui::SameLine();
  if (ImGui::Button("Place next >")) walk.shown = std::min(static_cast<int>(walk.steps.size()), walk.shown + 1);
  record_item_rect(s, "explain.layout.next");
  for (int i = 0; i < walk.shown; ++i) ImGui::TextWrapped("%d. %s", i + 1, walk.steps[i].sentence.c_str());
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
  const LayoutWalk& walk = layout_walk(s);
  std::vector<std::string> placed;
  for (int i = 0; i < walk.shown; ++i) placed.push_back(walk.steps[i].sentence);
  return {{"step", s.step},
          {"sentence", explain_step(s.graph, s.live, s.step).sentence},
          {"layout", {{"placed", walk.shown}, {"of", walk.steps.size()}, {"sentences", placed}}}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kBottom, 20, "Step reasons", draw_step_reasons);
ARENAPLAN_STATE_EXPORT("step_explanation", export_step_explanation);

}  // namespace arenaplan::web
