// Graph tab, the canvas: the op DAG drawn in layers (core's layout_dag, computed once per graph)
// with ImDrawList. Op boxes with name, kind and output sizes, edges labelled with tensor and size,
// the op of the current step marked RUNNING and the tensors live at that step marked LIVE (text as
// well as colour). Pan by dragging, zoom with the wheel; only what is visible is drawn (layers by
// index, boxes by binary search on x), so a frame costs what the screen shows, not the graph size.
// Labels are culled by zoom: a line of text is drawn only where it fits its box, so nothing
// overprints when zoomed out; the running and selected ops then get a callout, and live tensors
// keep their thick green edges and outlines at any zoom. Clicking an op selects it and moves the
// step to it; follow-step keeps the running op in view.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/graph/op_kinds.h"
#include "core/teach/dag_layout.h"
#include "imgui.h"
#include "web/app.h"
#include "web/graph_view.h"
#include "web/ui_style.h"

namespace arenaplan::web::graph_tab {
namespace {

// Where each segment leaves its upper node and enters its lower one, so several inputs of one op
// arrive side by side instead of on one point.
void compute_ports(GraphDrawing& c, const Graph& g) {
  const DagLayout& d = c.layout;
  c.lower_dx.assign(d.segments.size(), 0.0f);
  c.upper_dx.assign(d.segments.size(), 0.0f);
  std::vector<std::vector<int>> into(d.nodes.size());
  for (size_t i = 0; i < d.segments.size(); ++i) into[d.segments[i].lower].push_back(int(i));
  for (std::vector<int>& segs : into) {
    std::sort(segs.begin(), segs.end(),
              [&](int a, int b) { return d.nodes[d.segments[a].upper].x < d.nodes[d.segments[b].upper].x; });
    const float step = std::min(0.12f, 0.7f / float(segs.size() + 1));
    for (size_t k = 0; k < segs.size(); ++k) c.lower_dx[segs[k]] = (float(k) - float(segs.size() - 1) / 2) * step;
  }
  for (size_t i = 0; i < d.segments.size(); ++i) {
    const DagNode& up = d.nodes[d.segments[i].upper];
    if (up.kind != DagNodeKind::kOp) continue;
    const std::vector<TensorId>& outs = g.ops[up.op].outputs;
    const auto at = std::find(outs.begin(), outs.end(), d.segments[i].tensor) - outs.begin();
    const float step = std::min(0.2f, 0.7f / float(outs.size() + 1));
    c.upper_dx[i] = (float(at) - float(outs.size() - 1) / 2) * step;
  }
}

// Text inside [a, b], line `line` (0 = first); nothing when the line does not fit (the zoom's
// label culling: text never spills out of its box onto a neighbour).
bool box_text(ImDrawList* dl, ImVec2 a, ImVec2 b, int line, ImU32 color, const std::string& text) {
  const float lh = ImGui::GetTextLineHeight();
  const ImVec2 p(a.x + 5, a.y + 3 + line * (lh + 1));
  if (p.y + lh > b.y + 1 || b.x - a.x < 24) return false;
  const ImVec4 clip(a.x + 2, a.y, b.x - 2, b.y);
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), p, color, text.c_str(), nullptr, 0.0f, &clip);
  return true;
}

// A label on a dark plate beside a box too small for its own text (running/selected op when
// zoomed out), so the ops that matter stay readable at any zoom.
void callout(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, const std::string& text) {
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  const ImVec2 p(b.x + 6, (a.y + b.y) / 2 - size.y / 2);
  dl->AddRectFilled(ImVec2(p.x - 3, p.y - 1), ImVec2(p.x + size.x + 3, p.y + size.y + 1), IM_COL32(0x10, 0x10, 0x12, 0xE8), 3.0f);
  dl->AddRect(ImVec2(p.x - 3, p.y - 1), ImVec2(p.x + size.x + 3, p.y + size.y + 1), color, 3.0f);
  dl->AddText(p, color, text.c_str());
}

struct DrawContext {
  AppState& s;
  const DagLayout& d;
  const GraphDrawing& drawing;
  Frame f;
  ImDrawList* dl;
  ImVec2 clip_min, clip_max;
  std::vector<bool> live;
  OpId running;
  TensorId found_tensor;   // the tensor the search jumped to, or -1
  int layer_lo, layer_hi;  // layers intersecting the canvas
};

bool visible_box(const DrawContext& c, ImVec2 a, ImVec2 b) {
  return b.x >= c.clip_min.x && a.x <= c.clip_max.x && b.y >= c.clip_min.y && a.y <= c.clip_max.y;
}

// Ports: an edge leaves a box at its bottom and enters the next at its top; a joint is a
// vertical pass-through drawn as part of its edges.
ImVec2 port_out(const DrawContext& c, const DagNode& n, float dx) {
  return ImVec2(c.f.x(n.x + dx), c.f.top(n.layer) + c.f.box_h());
}
ImVec2 port_in(const DrawContext& c, const DagNode& n, float dx) { return ImVec2(c.f.x(n.x + dx), c.f.top(n.layer)); }

void draw_segment(const DrawContext& c, const DagSegment& seg, float up_dx, float low_dx) {
  const DagNode& u = c.d.nodes[seg.upper];
  const DagNode& v = c.d.nodes[seg.lower];
  const ImVec2 a = port_out(c, u, up_dx), b = port_in(c, v, low_dx);
  if (std::max(a.x, b.x) < c.clip_min.x || std::min(a.x, b.x) > c.clip_max.x) return;
  const bool live = c.live[seg.tensor];
  const ImU32 color = live ? kLiveColor : kEdgeColor;
  const float thick = (live ? 3.0f : 1.4f) * std::clamp(c.f.zoom, 0.6f, 1.4f);
  const float dy = (b.y - a.y) * 0.5f;
  c.dl->AddBezierCubic(a, ImVec2(a.x, a.y + dy), ImVec2(b.x, b.y - dy), b, color, thick, 12);
  if (v.kind == DagNodeKind::kJoint)  // through the joint's row, down to where it leaves
    c.dl->AddLine(b, ImVec2(b.x, b.y + c.f.box_h()), color, thick);
  // The tensor's label once, where it leaves its producer: name, size, and LIVE as text. Culled
  // when the gap under the box is shorter than a line (it would overprint the next layer's boxes)
  // and clipped to one slot across (it would run into its neighbour's label).
  const float lh = ImGui::GetTextLineHeight();
  if (!seg.first || c.f.zoom < 0.6f || c.f.layer_h() - c.f.box_h() < lh + 2) return;
  const Tensor& t = c.s.graph.tensors[seg.tensor];
  std::string label = t.name + " " + format_bytes(t.bytes) + (live ? " LIVE" : "");
  const ImVec4 clip(a.x + 3, a.y, a.x + c.f.slot() - 8, a.y + lh + 4);
  c.dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(a.x + 5, a.y + 2), live ? kLiveColor : kTextColor,
                label.c_str(), nullptr, 0.0f, &clip);
}

void draw_edges(const DrawContext& c) {
  const DagLayout& d = c.d;
  const int lo = std::max(0, c.layer_lo - 1), hi = std::min(int(d.layers.size()) - 2, c.layer_hi);
  for (int l = lo; l <= hi; ++l)
    for (int i = d.layer_segments[l]; i < d.layer_segments[l + 1]; ++i)
      draw_segment(c, d.segments[i], c.drawing.upper_dx[i], c.drawing.lower_dx[i]);
  for (const DagSegment& seg : d.long_segments) {  // rare: only when the joint budget ran out
    const DagNode& u = d.nodes[seg.upper];
    const DagNode& v = d.nodes[seg.lower];
    if (v.layer < c.layer_lo || u.layer > c.layer_hi) continue;
    c.dl->AddLine(port_out(c, u, 0), port_in(c, v, 0), c.live[seg.tensor] ? kLiveColor : kEdgeColor, 1.2f);
  }
}

void draw_input_node(const DrawContext& c, const DagNode& n, ImVec2 a, ImVec2 b) {
  const Tensor& t = c.s.graph.tensors[n.tensor];
  const bool live = c.live[n.tensor];
  const bool found = n.tensor == c.found_tensor;
  c.dl->AddRectFilled(a, b, found ? kSelectedFill : kInputFill, 10.0f * c.f.zoom);
  c.dl->AddRect(a, b, live ? kLiveColor : kGridColor, 10.0f * c.f.zoom, 0, live ? 2.5f : 1.0f);
  box_text(c.dl, a, b, 0, kTextColor, t.name + (live ? "  LIVE" : ""));
  box_text(c.dl, a, b, 1, kTextColor, "graph input");
  box_text(c.dl, a, b, 2, live ? kLiveColor : kTextColor, format_bytes(t.bytes));
}

// Returns whether the op's name was written (the zoom allowed a first line).
bool draw_op_node(const DrawContext& c, const DagNode& n, ImVec2 a, ImVec2 b) {
  const Graph& g = c.s.graph;
  const Op& op = g.ops[n.op];
  const bool running = n.op == c.running, selected = n.op == c.s.selected_op;
  const bool peak = !c.s.live.steps.empty() && c.s.live.steps[c.s.live.peak_step].op == n.op;
  Bytes written = 0;
  bool any_live = false, any_result = false, found_tensor = false;
  for (TensorId t : op.outputs) {
    written += g.tensors[t].bytes;
    any_live = any_live || c.live[t];
    any_result = any_result || g.is_output(t);
    found_tensor = found_tensor || t == c.found_tensor;
  }
  const float r = 4.0f * c.f.zoom;
  // An op that runs on the NPU (Vela's ethos-u) is drawn apart: its own fill and "NPU" after the kind.
  const bool npu = runs_on_npu(op.kind);
  c.dl->AddRectFilled(a, b, selected || found_tensor ? kSelectedFill : npu ? kNpuFill : kOpFill, r);
  if (running) c.dl->AddRect(ImVec2(a.x - 3, a.y - 3), ImVec2(b.x + 3, b.y + 3), kCurrentColor, r, 0, 2.5f);
  // An op whose output is live keeps a green outline: the live set reads at any zoom, text or not.
  c.dl->AddRect(a, b, any_live ? kLiveColor : kBarColor, r, 0, any_live ? 2.0f : 1.0f);
  std::string title = op.name;
  if (running) title += "  RUNNING";
  if (peak) title += "  PEAK";
  const bool named = box_text(c.dl, a, b, 0, kTextColor, title);
  box_text(c.dl, a, b, 1, kTextColor, (op.kind.empty() ? "-" : op.kind) + (npu ? "  NPU" : ""));
  // Third line: what the op writes, by size (names are on the edges and in the tooltip).
  std::string outs = op.outputs.size() == 1 ? format_bytes(written)
                                            : std::to_string(op.outputs.size()) + " out " + format_bytes(written);
  if (any_result) outs += " OUT";
  if (any_live) outs += " LIVE";
  box_text(c.dl, a, b, 2, any_live ? kLiveColor : kTextColor, outs);
  return named;
}

// Draws the nodes of the visible layers (binary search on x inside each layer) and returns the op
// under the mouse, if any.
OpId draw_nodes(DrawContext& c, ImVec2 mouse, bool mouse_in_canvas) {
  OpId hovered = -1;
  const DagLayout& d = c.d;
  GraphCanvasState& v = c.s.graph_canvas;
  v.visible_ops = 0;
  v.labelled_ops = 0;
  const double half = kBoxPx / kSlotPx / 2;
  const double x_lo = (c.clip_min.x - c.f.origin.x) / c.f.slot() - half;
  const double x_hi = (c.clip_max.x - c.f.origin.x) / c.f.slot() + half;
  for (int l = c.layer_lo; l <= c.layer_hi; ++l) {
    const std::vector<int>& row = d.layers[l];
    auto first = std::lower_bound(row.begin(), row.end(), x_lo, [&](int id, double x) { return d.nodes[id].x < x; });
    for (auto it = first; it != row.end() && d.nodes[*it].x <= x_hi; ++it) {
      const DagNode& n = d.nodes[*it];
      if (n.kind == DagNodeKind::kJoint) continue;
      const ImVec2 a = c.f.box_min(n), b = c.f.box_max(n);
      if (!visible_box(c, a, b)) continue;
      if (n.kind == DagNodeKind::kInput) {
        draw_input_node(c, n, a, b);
        continue;
      }
      if (draw_op_node(c, n, a, b)) ++v.labelled_ops;
      else if (n.op == c.running || n.op == c.s.selected_op)
        callout(c.dl, a, b, n.op == c.running ? kCurrentColor : kBarColor,
                c.s.graph.ops[n.op].name + (n.op == c.running ? "  RUNNING" : ""));
      ++v.visible_ops;
      // Exported (clipped to the canvas, and to what the overview leaves visible) so tests click
      // an op box by name.
      ItemRect r = {std::max(a.x, c.clip_min.x), std::max(a.y, c.clip_min.y), std::min(b.x, c.clip_max.x),
                    std::min(b.y, c.clip_max.y)};
      if (clip_to_overview(v, r)) c.s.ui_rects_building["graph.op." + c.s.graph.ops[n.op].name] = r;
      if (mouse_in_canvas && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) hovered = n.op;
    }
  }
  return hovered;
}

void op_tooltip(const AppState& s, OpId op) {
  const Graph& g = s.graph;
  const Op& o = g.ops[op];
  const Step st = step_of(s, op);
  ImGui::BeginTooltip();
  ImGui::Text("%s (%s), step %d", o.name.c_str(), o.kind.empty() ? "-" : o.kind.c_str(), st);
  if (runs_on_npu(o.kind)) ImGui::TextUnformatted("runs on the Ethos-U NPU: not simulated, its outputs not computed");
  ImGui::Text("reads:  %s", sized_names(g, o.inputs).c_str());
  ImGui::Text("writes: %s", sized_names(g, o.outputs).c_str());
  if (o.scratch_bytes > 0) ImGui::Text("scratch: %s", format_bytes(o.scratch_bytes).c_str());
  if (st >= 0 && size_t(st) < s.live.steps.size())
    ImGui::Text("live during its step: %s", format_bytes(s.live.steps[st].live_bytes).c_str());
  ImGui::TextDisabled("click: select and go to its step");
  ImGui::EndTooltip();
}

// Pan (drag), zoom (wheel, about the mouse), click (select the op under the mouse, or none). A
// press that starts on the overview belongs to the overview (it moves the view instead).
void handle_canvas_input(AppState& s, ImVec2 canvas_min, ImVec2 canvas, OpId hovered) {
  GraphCanvasState& v = s.graph_canvas;
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActivated()) {
    v.dragged = false;
    v.dragging_overview = overview_hovered(s, io.MousePos);
  }
  if (v.dragging_overview) {
    handle_overview_input(s, canvas_min, canvas);
    if (!ImGui::IsItemActive()) v.dragging_overview = false;
    return;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) {
    v.dragged = true;
    v.pan = ImVec2(v.pan.x + io.MouseDelta.x, v.pan.y + io.MouseDelta.y);
    request_redraw(s);
  }
  if (ImGui::IsItemDeactivated() && !v.dragged) {
    if (hovered >= 0) select_op(s, hovered);
    else clear_selection(s);
    request_redraw(s);
  }
  if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
    zoom_at(v, std::pow(1.15f, io.MouseWheel), ImVec2(io.MousePos.x - canvas_min.x, io.MousePos.y - canvas_min.y));
    request_redraw(s);
  }
}

// Keeps the running op in view when the step changes (Next step, a click on a bar, Alt+arrows, a
// share link): when its box would leave the canvas, or hide under the overview, the view centres
// on it.
void follow_step(AppState& s, const DagLayout& d, ImVec2 p0, ImVec2 canvas) {
  GraphCanvasState& v = s.graph_canvas;
  const bool moved = s.step != v.last_step;
  v.last_step = s.step;
  const OpId op = running_op(s);
  if (!moved || !v.follow_step || op < 0 || d.node_of_op.size() != s.graph.ops.size()) return;
  const DagNode& n = d.nodes[d.node_of_op[op]];
  const Frame f = view_frame(v, p0);
  const ImVec2 a = f.box_min(n), b = f.box_max(n);
  const ItemRect& o = v.overview_rect;
  const bool under_overview = o[2] > o[0] && b.x > o[0] && a.x < o[2] && b.y > o[1] && a.y < o[3];
  if (a.x < p0.x || a.y < p0.y || b.x > p0.x + canvas.x || b.y > p0.y + canvas.y || under_overview)
    center_on(v, n, canvas);
}

}  // namespace

const GraphDrawing& drawing_of(AppState& s) {
  return s.graph_canvas.drawing.get(s.graph_revision, [&](GraphDrawing& out) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      out.layout = layout_dag(s.graph);
    } catch (const std::exception&) {
      out.layout = DagLayout();  // a graph the app accepted is acyclic; draw nothing rather than crash
    }
    compute_ports(out, s.graph);
    out.layout_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  });
}

void draw_canvas(AppState& s, ImVec2 size) {
  GraphCanvasState& v = s.graph_canvas;
  const GraphDrawing& drawing = drawing_of(s);
  const DagLayout& d = drawing.layout;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("graph_canvas", size, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 canvas(std::max(avail.x, 50.0f), std::max(avail.y, 50.0f));
  v.canvas_size = canvas;
  if (v.fitted_for != "#" + s.graph.name) {
    fit_view(v, d, canvas);
    v.fitted_for = "#" + s.graph.name;
  }
  follow_step(s, d, p0, canvas);
  ImGui::InvisibleButton("graph_canvas_area", canvas);
  record_item_rect(s, "graph.canvas");
  const ImVec2 p1(p0.x + canvas.x, p0.y + canvas.y);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, p1, true);
  dl->AddRectFilled(p0, p1, kCanvasBg);
  const auto found = s.graph.find_tensor(v.selected_tensor);
  place_overview(s, d, p0, p1);  // before the nodes: boxes under it are not clickable
  DrawContext c{s, d, drawing, view_frame(v, p0), dl, p0, p1, live_tensors(s), running_op(s), found ? *found : -1, 0, -1};
  if (!d.layers.empty()) {
    c.layer_lo = std::max(0, int(std::floor((p0.y - c.f.origin.y) / c.f.layer_h())) - 1);
    c.layer_hi = std::min(int(d.layers.size()) - 1, int(std::ceil((p1.y - c.f.origin.y) / c.f.layer_h())));
  }
  draw_edges(c);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool in_canvas = (ImGui::IsItemHovered() || ImGui::IsItemActive()) && !overview_hovered(s, mouse) &&
                         !v.dragging_overview;
  const OpId hovered = draw_nodes(c, mouse, in_canvas);
  draw_overview(s, dl, p0, p1);
  dl->PopClipRect();
  handle_canvas_input(s, p0, canvas, hovered);
  if (hovered >= 0 && ImGui::IsItemHovered() && !ImGui::IsItemActive()) op_tooltip(s, hovered);
  ImGui::EndChild();
}

}  // namespace arenaplan::web::graph_tab
