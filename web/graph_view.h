// What the Graph tab's files share (internal to the tab): world geometry, the world -> screen
// transform, and the calls between the canvas (graph_canvas.cpp: drawing, pan/zoom, follow-step),
// the navigation around it (graph_navigate.cpp: toolbar, search, overview) and the editor
// (graph_editor.cpp). The tab's state lives in AppState::graph_canvas and AppState::graph_editor.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/teach/dag_layout.h"
#include "imgui.h"
#include "web/app.h"

namespace arenaplan::web::graph_tab {

// Okabe-Ito colours this view needs beyond ui_style.h; each meaning also has a text mark.
inline constexpr ImU32 kLiveColor = IM_COL32(0x00, 0x9E, 0x73, 0xFF);     // bluish green, plus "LIVE"
inline constexpr ImU32 kSelectedFill = IM_COL32(0x00, 0x72, 0xB2, 0xC0);  // blue, plus the editor header
inline constexpr ImU32 kOpFill = IM_COL32(0x2A, 0x2E, 0x35, 0xFF);
inline constexpr ImU32 kInputFill = IM_COL32(0x22, 0x26, 0x2C, 0xFF);
inline constexpr ImU32 kNpuFill = IM_COL32(0x6E, 0x3B, 0x5A, 0xFF);  // dark reddish purple, plus "NPU" after the kind
inline constexpr ImU32 kEdgeColor = IM_COL32(0xA0, 0xA0, 0xA0, 0xB0);
inline constexpr ImU32 kCanvasBg = IM_COL32(0x16, 0x18, 0x1C, 0xFF);
inline const ImVec4 kLiveText(0.0f, 0.62f, 0.45f, 1.0f);

// World geometry at zoom 1, in pixels: a slot is one op box plus its gap, a layer one row.
inline constexpr float kSlotPx = 165.0f;
inline constexpr float kBoxPx = 140.0f;  // ~19 characters: most imported op names fit
inline constexpr float kLayerPx = 86.0f;
inline constexpr float kMinZoom = 0.08f, kMaxZoom = 2.5f;  // at 0.08 a box still fits its layer row
// Fit may go further so a deep model (hundreds of layers) is framed whole: boxes then shrink with
// their rows instead of keeping a readable height.
inline constexpr float kFitMinZoom = 0.01f;

struct Frame {  // world -> screen for this frame
  ImVec2 origin;  // screen position of world (0, 0)
  float zoom;
  float slot() const { return kSlotPx * zoom; }
  float layer_h() const { return kLayerPx * zoom; }
  // Text is drawn at its native size (crisp), so boxes keep three lines down to zoom ~0.7 and
  // lose lines (then text) below.
  float box_h() const {
    return std::max(std::min(6.0f, layer_h() * 0.7f), (ImGui::GetTextLineHeight() * 3 + 8) * std::min(1.0f, zoom * 1.45f));
  }
  float box_w() const { return kBoxPx * zoom; }
  float x(double slots) const { return origin.x + float(slots) * slot(); }
  float top(int layer) const { return origin.y + float(layer) * layer_h(); }
  ImVec2 box_min(const DagNode& n) const {
    const float w = n.kind == DagNodeKind::kJoint ? 0.0f : box_w();
    return ImVec2(x(n.x) - w / 2, top(n.layer));
  }
  ImVec2 box_max(const DagNode& n) const {
    const float w = n.kind == DagNodeKind::kJoint ? 0.0f : box_w();
    return ImVec2(x(n.x) + w / 2, top(n.layer) + box_h());
  }
};

// The frame of the canvas as the user left it (pan and zoom), with the canvas corner at `p0`.
inline Frame view_frame(const GraphCanvasState& v, ImVec2 p0 = ImVec2(0, 0)) {
  return Frame{ImVec2(p0.x + v.pan.x, p0.y + v.pan.y), v.zoom};
}

// The drawing of the current graph (computed once per graph revision).
const GraphDrawing& drawing_of(AppState& s);

// Graph facts the tab's files share.
Step step_of(const AppState& s, OpId op);
OpId running_op(const AppState& s);
std::vector<bool> live_tensors(const AppState& s);
std::string sized_names(const Graph& g, const std::vector<TensorId>& tensors);
bool contains_ci(const std::string& text, const std::string& part);

// Selection: select_op also moves the step to the op and opens the editor's Op tab.
void select_op(AppState& s, OpId op);
void clear_selection(AppState& s);
void keep_selection(AppState& s);

// The view (canvas coordinates: (0, 0) is the canvas corner).
// `whole`: the whole graph in view at any zoom (the Fit button); else the opening view, which
// keeps labels readable and shows the top of a deep graph.
void fit_view(GraphCanvasState& v, const DagLayout& d, ImVec2 canvas, bool whole = false);
void center_on(GraphCanvasState& v, const DagNode& n, ImVec2 canvas);
void center_on_world(GraphCanvasState& v, ImVec2 world, ImVec2 canvas);  // world in pixels at zoom 1
void zoom_at(GraphCanvasState& v, float factor, ImVec2 pivot_in_canvas);
// Centres the node of `op` (when the drawing has it).
void center_on_op(AppState& s, OpId op);

// graph_canvas.cpp
void draw_canvas(AppState& s, ImVec2 size);
// graph_navigate.cpp
void draw_toolbar(AppState& s);
void draw_search(AppState& s);
// The overview (minimap) in the canvas's bottom-right corner, shown while part of the graph is out
// of view. place_overview decides its rectangle for this frame (before the nodes are drawn);
// overview_hovered is true over it (the canvas then neither selects nor pans on that press: the
// overview moves the view); clip_to_overview trims an op's clickable rect to the part the overview
// leaves visible (false: none).
void place_overview(AppState& s, const DagLayout& d, ImVec2 p0, ImVec2 p1);
bool overview_hovered(const AppState& s, ImVec2 mouse);
bool clip_to_overview(const GraphCanvasState& v, ItemRect& r);
void draw_overview(AppState& s, ImDrawList* dl, ImVec2 p0, ImVec2 p1);
void handle_overview_input(AppState& s, ImVec2 p0, ImVec2 canvas);
// graph_editor.cpp
void draw_editor(AppState& s);

}  // namespace arenaplan::web::graph_tab
