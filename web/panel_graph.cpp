// Graph panel: the op DAG on a canvas (graph_canvas.cpp), the toolbar, search and overview around
// it (graph_navigate.cpp) and a structural editor beside it (graph_editor.cpp). This file holds
// what they share (selection, the view's transform) and registers the tab and its exported state.
// The tab's state is AppState::graph_canvas and AppState::graph_editor.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "imgui.h"
#include "web/app.h"
#include "web/graph_view.h"
#include "web/panel_common.h"

namespace arenaplan::web::graph_tab {

Step step_of(const AppState& s, OpId op) {
  for (size_t i = 0; i < s.order.size(); ++i)
    if (s.order[i] == op) return Step(i);
  return -1;
}

OpId running_op(const AppState& s) {
  return s.order.empty() ? -1 : s.order[std::clamp<Step>(s.step, 0, Step(s.order.size()) - 1)];
}

std::vector<bool> live_tensors(const AppState& s) {
  std::vector<bool> live(s.graph.tensors.size(), false);
  if (s.live.steps.empty() || s.step < 0 || size_t(s.step) >= s.live.steps.size()) return live;
  for (int b : s.live.live_at(s.step))
    for (TensorId t : s.live.buffers[b].tensors)
      if (size_t(t) < live.size()) live[t] = true;
  return live;
}

// "B 96 KiB, D 64 KiB": tensors with their sizes, for tooltips.
std::string sized_names(const Graph& g, const std::vector<TensorId>& tensors) {
  std::string out;
  for (TensorId t : tensors) out += (out.empty() ? "" : ", ") + g.tensors[t].name + " " + format_bytes(g.tensors[t].bytes);
  return out.empty() ? "-" : out;
}

bool contains_ci(const std::string& text, const std::string& part) {
  auto lower = [](std::string v) {
    for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

void select_op(AppState& s, OpId op) {
  s.selected_op = op;
  s.graph_editor.selected_name = op >= 0 ? s.graph.ops[op].name : "";
  s.graph_canvas.selected_tensor.clear();
  const Step st = step_of(s, op);
  if (st >= 0) set_step(s, st);
  if (op >= 0) s.graph_editor.request_tab = "Op";
  request_redraw(s);
}

void clear_selection(AppState& s) {
  s.selected_op = -1;
  s.graph_editor.selected_name.clear();
  s.graph_canvas.selected_tensor.clear();
}

// Edits elsewhere (undo, the order panel, a reload) renumber or clear the selection: find the
// selected op again by name as long as it exists.
void keep_selection(AppState& s) {
  GraphEditorState& e = s.graph_editor;
  if (s.selected_op >= 0 && size_t(s.selected_op) < s.graph.ops.size()) {
    e.selected_name = s.graph.ops[s.selected_op].name;
    return;
  }
  s.selected_op = -1;
  if (e.selected_name.empty()) return;
  if (auto op = s.graph.find_op(e.selected_name)) s.selected_op = *op;
  else e.selected_name.clear();
}

void fit_view(GraphCanvasState& v, const DagLayout& d, ImVec2 canvas, bool whole) {
  const float world_w = std::max(1.0, d.width) * kSlotPx;
  const float world_h = std::max<size_t>(1, d.layers.size()) * kLayerPx;
  if (whole) {
    v.zoom = std::clamp(std::min((canvas.x - 16) / world_w, (canvas.y - 16) / world_h), kFitMinZoom, 1.0f);
    v.pan = ImVec2((canvas.x - world_w * v.zoom) / 2, std::max(8.0f, (canvas.y - world_h * v.zoom) / 2));
    return;
  }
  // The whole graph when that stays readable; otherwise (deep imported networks) fit the width,
  // never below 0.45, and show the top: the user scrolls down the layers (or uses the overview).
  const float all = std::min(canvas.x / world_w, (canvas.y - 12) / world_h);
  const float z = all >= 0.6f ? std::min(all, 1.0f) : std::clamp(canvas.x / world_w, 0.45f, 1.0f);
  v.zoom = z;
  v.pan = ImVec2(std::max(8.0f, (canvas.x - world_w * z) / 2), 8.0f);
}

void center_on_world(GraphCanvasState& v, ImVec2 world, ImVec2 canvas) {
  v.pan = ImVec2(canvas.x / 2 - world.x * v.zoom, canvas.y / 2 - world.y * v.zoom);
}

void center_on(GraphCanvasState& v, const DagNode& n, ImVec2 canvas) {
  center_on_world(v, ImVec2(float(n.x) * kSlotPx, (float(n.layer) + 0.3f) * kLayerPx), canvas);
}

void center_on_op(AppState& s, OpId op) {
  const DagLayout& d = drawing_of(s).layout;
  if (op >= 0 && d.node_of_op.size() == s.graph.ops.size())
    center_on(s.graph_canvas, d.nodes[d.node_of_op[op]], s.graph_canvas.canvas_size);
}

void zoom_at(GraphCanvasState& v, float factor, ImVec2 pivot_in_canvas) {
  const float z = std::clamp(v.zoom * factor, std::min(kMinZoom, v.zoom), kMaxZoom);  // no jump after a deep Fit
  const float k = z / v.zoom;
  v.pan = ImVec2(pivot_in_canvas.x - (pivot_in_canvas.x - v.pan.x) * k, pivot_in_canvas.y - (pivot_in_canvas.y - v.pan.y) * k);
  v.zoom = z;
}

namespace {

void draw_graph_panel(AppState& s) {
  drawing_of(s);
  keep_selection(s);
  handle_step_keys(s);  // Alt+Left / Alt+Right step here too: follow-step shows the running op
  draw_toolbar(s);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float editor_w = std::clamp(avail.x * 0.4f, 280.0f, 460.0f);
  draw_canvas(s, ImVec2(std::max(120.0f, avail.x - editor_w - ImGui::GetStyle().ItemSpacing.x), avail.y));
  ImGui::SameLine();
  ImGui::BeginChild("graph_editor", ImVec2(0, avail.y), false);
  draw_editor(s);
  ImGui::EndChild();
}

JsonOut rect_json(const ItemRect& r) { return JsonOut::array({r[0], r[1], r[2], r[3]}); }

// The running op's box on screen (unclipped) under the current view, for follow-step checks.
JsonOut running_rect(const AppState& s) {
  const GraphDrawing& g = s.graph_canvas.drawing.value();
  const OpId op = running_op(s);
  const ItemRect canvas = s.ui_rects.count("graph.canvas") ? s.ui_rects.at("graph.canvas") : ItemRect{};
  if (op < 0 || g.layout.node_of_op.size() != s.graph.ops.size()) return nullptr;
  const Frame f = view_frame(s.graph_canvas, ImVec2(canvas[0], canvas[1]));
  const DagNode& n = g.layout.nodes[g.layout.node_of_op[op]];
  const ImVec2 a = f.box_min(n), b = f.box_max(n);
  return rect_json({a.x, a.y, b.x, b.y});
}

JsonOut export_graph_view(const AppState& s) {
  const GraphCanvasState& v = s.graph_canvas;
  const GraphDrawing& g = v.drawing.value();
  const DagLayout& d = g.layout;
  const bool overview_shown = v.overview_rect[2] > v.overview_rect[0];
  JsonOut matches = JsonOut::array();
  for (const GraphSearchMatch& m : v.matches.value())
    if (matches.size() < 10) matches.push_back({{"name", m.name}, {"kind", m.is_op ? "op" : "tensor"}});
  return {{"layers", d.layers.size()},
          {"crossings", d.crossings},
          {"crossings_initial", d.crossings_initial},
          {"joints", d.joints},
          {"layout_ms", g.layout_ms},
          {"layouts_computed", v.drawing.computations()},
          {"visible_ops", v.visible_ops},
          {"labelled_ops", v.labelled_ops},
          {"zoom", v.zoom},
          {"follow_step", v.follow_step},
          {"running_op", running_op(s) >= 0 ? s.graph.ops[running_op(s)].name : ""},
          {"running_rect", running_rect(s)},
          {"overview",
           {{"shown", overview_shown},
            {"ops", overview_shown ? v.overview_cells.value().ops : 0},
            {"cells", overview_shown ? v.overview_cells.value().cells.size() : 0},
            {"rect", rect_json(v.overview_rect)},
            {"viewport", rect_json(v.overview_viewport)}}},
          {"search", {{"query", v.search}, {"matches", matches}, {"jumped_to", v.jumped_to}}},
          {"selected_tensor", v.selected_tensor},
          {"selected_op", s.selected_op >= 0 && size_t(s.selected_op) < s.graph.ops.size() ? s.graph.ops[s.selected_op].name : ""},
          {"last_error", s.graph_editor.error},
          {"error_field", s.graph_editor.error.empty() ? "" : s.graph_editor.error_field}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kMain, 5, "Graph", draw_graph_panel);
ARENAPLAN_STATE_EXPORT("graph_view", export_graph_view);

}  // namespace arenaplan::web::graph_tab
