// Graph panel: the op DAG drawn in layers (core's layout_dag) with ImDrawList, and a structural
// editor beside it. The view: op boxes with name, kind and output sizes, edges labelled with
// tensor and size, the op of the current step marked RUNNING and the tensors live at that step
// marked LIVE (text as well as colour), pan by dragging, zoom with the wheel, only what is visible
// drawn so imported networks with hundreds of ops stay smooth. Clicking an op selects it and moves
// the step to it. The editor: every change is a core/graph/graph_edit.h function (which names the op or
// tensor when it refuses) handed to apply_graph_edit(), so undo/redo and share links see it; a
// refusal is shown next to the field that caused it and changes nothing.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/teach/dag_layout.h"
#include "core/graph/graph_edit.h"
#include "core/graph/graph_json.h"
#include "imgui.h"
#include "imgui_internal.h"  // ActiveId: which text field owns the draft being typed
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

// Okabe-Ito colours this view needs beyond ui_style.h; each meaning also has a text mark.
constexpr ImU32 kLiveColor = IM_COL32(0x00, 0x9E, 0x73, 0xFF);      // bluish green, plus "LIVE"
constexpr ImU32 kSelectedFill = IM_COL32(0x00, 0x72, 0xB2, 0xC0);   // blue, plus the editor header
constexpr ImU32 kOpFill = IM_COL32(0x2A, 0x2E, 0x35, 0xFF);
constexpr ImU32 kInputFill = IM_COL32(0x22, 0x26, 0x2C, 0xFF);
constexpr ImU32 kEdgeColor = IM_COL32(0xA0, 0xA0, 0xA0, 0xB0);
constexpr ImU32 kCanvasBg = IM_COL32(0x16, 0x18, 0x1C, 0xFF);
const ImVec4 kLiveText(0.0f, 0.62f, 0.45f, 1.0f);

// World geometry at zoom 1, in pixels: a slot is one op box plus its gap, a layer one row.
constexpr float kSlotPx = 165.0f;
constexpr float kBoxPx = 140.0f;  // ~19 characters: most imported op names fit
constexpr float kLayerPx = 86.0f;
constexpr float kMinZoom = 0.08f, kMaxZoom = 2.5f;

// The layout of the graph on screen, rebuilt when the graph (not merely the order) changes.
struct GraphLayoutCache {
  uint64_t revision = ~uint64_t{0};
  std::string graph_json;  // the text the layout was computed for
  DagLayout layout;
  std::vector<float> lower_dx, upper_dx;  // per segment: port offsets in slots, so edges fan out
  double layout_ms = 0;
};

struct GraphView {
  float zoom = 1.0f;
  ImVec2 pan{0, 0};  // screen offset of world (0, 0) from the canvas corner
  std::string fitted_for;  // "#" + name of the graph the view was last fitted to (edits keep the view)
  bool follow_step = true;
  Step last_step = -1;
  bool dragged = false;  // the current press moved: a pan, not a click
  int visible_ops = 0;
  ImVec2 canvas_size{0, 0};
};

// One text field being typed into: its text lives here until Enter / Tab / click-away commits it.
struct Draft {
  ImGuiID id = 0;
  std::string text;
};

struct EditorState {
  std::string error;        // InputError text of the last refused edit
  std::string error_field;  // rect key of the field it came from
  uint64_t error_revision = 0;
  std::string selected_name;  // the selection, by name, carried across edits that renumber ops
  const char* request_tab = nullptr;
  std::string tensor_filter;
  std::string new_bytes = "16KiB";  // size of tensors an edit creates (new outputs)
  std::string add_name, add_kind = "conv2d", add_inputs, add_outputs;
  bool add_outputs_are_results = true;
  std::string tensor_name, tensor_bytes = "16KiB";
  bool tensor_is_input = false;
};

GraphLayoutCache g_cache;
GraphView g_view;
EditorState g_edit;
Draft g_draft;

// ---- Layout ---------------------------------------------------------------------------------

// Where each segment leaves its upper node and enters its lower one, so several inputs of one op
// arrive side by side instead of on one point.
void compute_ports(GraphLayoutCache& c, const Graph& g) {
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

void refresh_layout(const AppState& s) {
  if (g_cache.revision == s.revision) return;
  g_cache.revision = s.revision;
  if (g_cache.graph_json == s.graph_json && !g_cache.layout.nodes.empty()) return;  // only the order changed
  const auto t0 = std::chrono::steady_clock::now();
  g_cache.graph_json = s.graph_json;
  try {
    g_cache.layout = layout_dag(s.graph);
  } catch (const std::exception&) {
    g_cache.layout = DagLayout();  // a graph the app accepted is acyclic; draw nothing rather than crash
  }
  compute_ports(g_cache, s.graph);
  g_cache.layout_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---- Helpers --------------------------------------------------------------------------------

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

void select_op(AppState& s, OpId op) {
  s.selected_op = op;
  g_edit.selected_name = op >= 0 ? s.graph.ops[op].name : "";
  const Step st = step_of(s, op);
  if (st >= 0) set_step(s, st);
  if (op >= 0) g_edit.request_tab = "Op";
  request_redraw(s);
}

// Edits elsewhere (undo, the order panel, a reload) renumber or clear the selection: find the
// selected op again by name as long as it exists.
void keep_selection(AppState& s) {
  if (s.selected_op >= 0 && size_t(s.selected_op) < s.graph.ops.size()) {
    g_edit.selected_name = s.graph.ops[s.selected_op].name;
    return;
  }
  s.selected_op = -1;
  if (g_edit.selected_name.empty()) return;
  if (auto op = s.graph.find_op(g_edit.selected_name)) s.selected_op = *op;
  else g_edit.selected_name.clear();
}

bool error_shown_for(const AppState& s, const std::string& field) {
  return !g_edit.error.empty() && g_edit.error_field == field && g_edit.error_revision == s.revision;
}

// Runs one core edit. Accepted: the app takes the new graph (undoable, share link). Refused by
// core: the message goes next to `field` and into the status line; the state does not change.
template <class MakeGraph>
bool edit_graph(AppState& s, const std::string& field, const std::string& what, MakeGraph make,
                const std::string& select_after = "") {
  const std::string keep = select_after.empty() ? g_edit.selected_name : select_after;
  std::string refusal;
  try {
    const Graph edited = make(s.graph);
    if (apply_graph_edit(s, edited, what)) {
      g_edit.error.clear();
      g_edit.selected_name = keep;
      s.selected_op = -1;
      keep_selection(s);
      return true;
    }
    refusal = s.error;
  } catch (const std::exception& e) {
    refusal = e.what();
    s.error = "Edit (" + what + ") refused: " + refusal;
  }
  g_edit.error = refusal;
  g_edit.error_field = field;
  g_edit.error_revision = s.revision;
  request_redraw(s);
  return false;
}

// A text field showing `value` that hands back the typed text once the user is done (Enter, Tab
// or a click elsewhere) and it differs; Escape reverts. Returns true with `out` set then.
bool commit_field(AppState& s, const char* label, const std::string& value, std::string& out,
                  const std::string& rect_key, float width, const char* hint = nullptr) {
  const ImGuiID id = ImGui::GetID(label);
  const ImGuiContext& ctx = *GImGui;
  const bool mine = g_draft.id == id && (ctx.ActiveId == id || ctx.ActiveIdPreviousFrame == id);
  std::string shown = mine ? g_draft.text : value;
  ImGui::SetNextItemWidth(width);
  if (hint) ImGui::InputTextWithHint(label, hint, &shown, ImGuiInputTextFlags_AutoSelectAll);
  else ImGui::InputText(label, &shown, ImGuiInputTextFlags_AutoSelectAll);
  record_item_rect(s, rect_key);
  if (error_shown_for(s, rect_key))  // the field that caused the refusal is framed as well
    ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                        ImGui::GetColorU32(kColorError), 3.0f, 0, 2.0f);
  if (ImGui::IsItemActive()) g_draft = {id, shown};
  if (!ImGui::IsItemDeactivated() || g_draft.id != id) return false;
  // `shown`, not the draft: Enter may arrive in the same frame as the last characters typed, and
  // ImGui has written them (or, on Escape, the original text) into `shown` by now.
  out = shown;
  g_draft = {};
  return out != value;
}

// The refusal under the field that caused it, wrapped at the editor's right edge (also inside a
// table row, where it spans the columns).
void inline_error(AppState& s, const std::string& field) {
  if (!error_shown_for(s, field)) return;
  ImGui::PushStyleColor(ImGuiCol_Text, kColorError);
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x);
  ImGui::Text("Refused: %s", g_edit.error.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  record_item_rect(s, "graph.error");
}

bool contains_ci(const std::string& text, const std::string& part) {
  auto lower = [](std::string v) {
    for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  return lower(text).find(lower(part)) != std::string::npos;
}

// "B 96 KiB, D 64 KiB": tensors with their sizes, for tooltips.
std::string sized_names(const Graph& g, const std::vector<TensorId>& tensors) {
  std::string out;
  for (TensorId t : tensors) out += (out.empty() ? "" : ", ") + g.tensors[t].name + " " + format_bytes(g.tensors[t].bytes);
  return out.empty() ? "-" : out;
}

// ---- Canvas ---------------------------------------------------------------------------------

struct Frame {  // world -> screen for this frame
  ImVec2 origin;  // screen position of world (0, 0)
  float zoom;
  float slot() const { return kSlotPx * zoom; }
  float layer_h() const { return kLayerPx * zoom; }
  // Text is drawn at its native size (crisp), so boxes keep three lines down to zoom ~0.7 and
  // lose lines (then text) below.
  float box_h() const { return std::max(6.0f, (ImGui::GetTextLineHeight() * 3 + 8) * std::min(1.0f, zoom * 1.45f)); }
  float x(double slots) const { return origin.x + float(slots) * slot(); }
  float top(int layer) const { return origin.y + float(layer) * layer_h(); }
  ImVec2 box_min(const DagNode& n) const {
    const float w = n.kind == DagNodeKind::kJoint ? 0.0f : kBoxPx * zoom;
    return ImVec2(x(n.x) - w / 2, top(n.layer));
  }
  ImVec2 box_max(const DagNode& n) const {
    const float w = n.kind == DagNodeKind::kJoint ? 0.0f : kBoxPx * zoom;
    return ImVec2(x(n.x) + w / 2, top(n.layer) + box_h());
  }
};

void fit_view(const DagLayout& d, ImVec2 canvas) {
  const float world_w = std::max(1.0, d.width) * kSlotPx;
  const float world_h = std::max<size_t>(1, d.layers.size()) * kLayerPx;
  // The whole graph when that stays readable; otherwise (deep imported networks) fit the width,
  // never below 0.45, and show the top: the user scrolls down the layers.
  const float whole = std::min(canvas.x / world_w, (canvas.y - 12) / world_h);
  const float z = whole >= 0.6f ? std::min(whole, 1.0f) : std::clamp(canvas.x / world_w, 0.45f, 1.0f);
  g_view.zoom = z;
  g_view.pan = ImVec2(std::max(8.0f, (canvas.x - world_w * z) / 2), 8.0f);
}

void center_on(const DagNode& n, ImVec2 canvas) {
  g_view.pan = ImVec2(canvas.x / 2 - float(n.x) * kSlotPx * g_view.zoom,
                      canvas.y / 2 - (float(n.layer) + 0.3f) * kLayerPx * g_view.zoom);
}

void zoom_at(float factor, ImVec2 pivot_in_canvas) {
  const float z = std::clamp(g_view.zoom * factor, kMinZoom, kMaxZoom);
  const float k = z / g_view.zoom;
  g_view.pan = ImVec2(pivot_in_canvas.x - (pivot_in_canvas.x - g_view.pan.x) * k,
                      pivot_in_canvas.y - (pivot_in_canvas.y - g_view.pan.y) * k);
  g_view.zoom = z;
}

// Text inside [a, b], line `line` (0 = first); nothing when the line does not fit.
void box_text(ImDrawList* dl, ImVec2 a, ImVec2 b, int line, ImU32 color, const std::string& text) {
  const float lh = ImGui::GetTextLineHeight();
  const ImVec2 p(a.x + 5, a.y + 3 + line * (lh + 1));
  if (p.y + lh > b.y + 1 || b.x - a.x < 24) return;
  const ImVec4 clip(a.x + 2, a.y, b.x - 2, b.y);
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), p, color, text.c_str(), nullptr, 0.0f, &clip);
}

struct DrawContext {
  AppState& s;
  const DagLayout& d;
  Frame f;
  ImDrawList* dl;
  ImVec2 clip_min, clip_max;
  std::vector<bool> live;
  OpId running;
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
  if (!seg.first || c.f.zoom < 0.6f) return;
  // The tensor's label once, where it leaves its producer: name, size, and LIVE as text.
  const Tensor& t = c.s.graph.tensors[seg.tensor];
  std::string label = t.name + " " + format_bytes(t.bytes) + (live ? " LIVE" : "");
  c.dl->AddText(ImVec2(a.x + 5, a.y + 2), live ? kLiveColor : kTextColor, label.c_str());
}

void draw_edges(const DrawContext& c) {
  const DagLayout& d = c.d;
  const int lo = std::max(0, c.layer_lo - 1), hi = std::min(int(d.layers.size()) - 2, c.layer_hi);
  for (int l = lo; l <= hi; ++l)
    for (int i = d.layer_segments[l]; i < d.layer_segments[l + 1]; ++i)
      draw_segment(c, d.segments[i], g_cache.upper_dx[i], g_cache.lower_dx[i]);
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
  c.dl->AddRectFilled(a, b, kInputFill, 10.0f * c.f.zoom);
  c.dl->AddRect(a, b, live ? kLiveColor : kGridColor, 10.0f * c.f.zoom, 0, live ? 2.5f : 1.0f);
  box_text(c.dl, a, b, 0, kTextColor, t.name + (live ? "  LIVE" : ""));
  box_text(c.dl, a, b, 1, kTextColor, "graph input");
  box_text(c.dl, a, b, 2, live ? kLiveColor : kTextColor, format_bytes(t.bytes));
}

void draw_op_node(const DrawContext& c, const DagNode& n, ImVec2 a, ImVec2 b) {
  const Graph& g = c.s.graph;
  const Op& op = g.ops[n.op];
  const bool running = n.op == c.running, selected = n.op == c.s.selected_op;
  const bool peak = !c.s.live.steps.empty() && c.s.live.steps[c.s.live.peak_step].op == n.op;
  const float r = 4.0f * c.f.zoom;
  c.dl->AddRectFilled(a, b, selected ? kSelectedFill : kOpFill, r);
  if (running) c.dl->AddRect(ImVec2(a.x - 3, a.y - 3), ImVec2(b.x + 3, b.y + 3), kCurrentColor, r, 0, 2.5f);
  c.dl->AddRect(a, b, kBarColor, r, 0, 1.0f);
  std::string title = op.name;
  if (running) title += "  RUNNING";
  if (peak) title += "  PEAK";
  box_text(c.dl, a, b, 0, kTextColor, title);
  box_text(c.dl, a, b, 1, kTextColor, op.kind.empty() ? "-" : op.kind);
  // Third line: what the op writes, by size (names are on the edges and in the tooltip).
  Bytes written = 0;
  bool any_live = false, any_result = false;
  for (TensorId t : op.outputs) {
    written += g.tensors[t].bytes;
    any_live = any_live || c.live[t];
    any_result = any_result || g.is_output(t);
  }
  std::string outs = op.outputs.size() == 1 ? format_bytes(written)
                                            : std::to_string(op.outputs.size()) + " out " + format_bytes(written);
  if (any_result) outs += " OUT";
  if (any_live) outs += " LIVE";
  box_text(c.dl, a, b, 2, any_live ? kLiveColor : kTextColor, outs);
}

// Draws the nodes of the visible layers (binary search on x inside each layer) and returns the op
// under the mouse, if any.
OpId draw_nodes(DrawContext& c, ImVec2 mouse, bool mouse_in_canvas) {
  OpId hovered = -1;
  const DagLayout& d = c.d;
  g_view.visible_ops = 0;
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
      draw_op_node(c, n, a, b);
      ++g_view.visible_ops;
      // Exported (clipped to the canvas) so tests click an op box by name.
      c.s.ui_rects_building["graph.op." + c.s.graph.ops[n.op].name] = {
          std::max(a.x, c.clip_min.x), std::max(a.y, c.clip_min.y), std::min(b.x, c.clip_max.x), std::min(b.y, c.clip_max.y)};
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
  ImGui::Text("reads:  %s", sized_names(g, o.inputs).c_str());
  ImGui::Text("writes: %s", sized_names(g, o.outputs).c_str());
  if (o.scratch_bytes > 0) ImGui::Text("scratch: %s", format_bytes(o.scratch_bytes).c_str());
  if (st >= 0 && size_t(st) < s.live.steps.size())
    ImGui::Text("live during its step: %s", format_bytes(s.live.steps[st].live_bytes).c_str());
  ImGui::TextDisabled("click: select and go to its step");
  ImGui::EndTooltip();
}

// Pan (drag), zoom (wheel, about the mouse), click (select the op under the mouse, or none).
void handle_canvas_input(AppState& s, ImVec2 canvas_min, OpId hovered) {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActivated()) g_view.dragged = false;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) {
    g_view.dragged = true;
    g_view.pan = ImVec2(g_view.pan.x + io.MouseDelta.x, g_view.pan.y + io.MouseDelta.y);
    request_redraw(s);
  }
  if (ImGui::IsItemDeactivated() && !g_view.dragged) {
    if (hovered >= 0) select_op(s, hovered);
    else {
      s.selected_op = -1;
      g_edit.selected_name.clear();
    }
    request_redraw(s);
  }
  if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
    zoom_at(std::pow(1.15f, io.MouseWheel), ImVec2(io.MousePos.x - canvas_min.x, io.MousePos.y - canvas_min.y));
    request_redraw(s);
  }
}

// Keeps the running op in view when the step changes (Next step, a click on a bar, Alt+arrows).
void follow_step(const AppState& s, ImVec2 canvas) {
  const bool moved = s.step != g_view.last_step;
  g_view.last_step = s.step;
  const OpId op = running_op(s);
  if (!moved || !g_view.follow_step || op < 0 || g_cache.layout.node_of_op.size() != s.graph.ops.size()) return;
  const DagNode& n = g_cache.layout.nodes[g_cache.layout.node_of_op[op]];
  Frame f{g_view.pan, g_view.zoom};
  const ImVec2 a = f.box_min(n), b = f.box_max(n);
  if (a.x < 0 || a.y < 0 || b.x > canvas.x || b.y > canvas.y) center_on(n, canvas);
}

void draw_canvas(AppState& s, ImVec2 size) {
  const DagLayout& d = g_cache.layout;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("graph_canvas", size, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 canvas(std::max(avail.x, 50.0f), std::max(avail.y, 50.0f));
  g_view.canvas_size = canvas;
  if (g_view.fitted_for != "#" + s.graph.name) {
    fit_view(d, canvas);
    g_view.fitted_for = "#" + s.graph.name;
  }
  follow_step(s, canvas);
  ImGui::InvisibleButton("graph_canvas_area", canvas);
  record_item_rect(s, "graph.canvas");
  const ImVec2 p1(p0.x + canvas.x, p0.y + canvas.y);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, p1, true);
  dl->AddRectFilled(p0, p1, kCanvasBg);
  DrawContext c{s, d, Frame{ImVec2(p0.x + g_view.pan.x, p0.y + g_view.pan.y), g_view.zoom}, dl, p0, p1,
                live_tensors(s), running_op(s), 0, -1};
  if (!d.layers.empty()) {
    c.layer_lo = std::max(0, int(std::floor((p0.y - c.f.origin.y) / c.f.layer_h())) - 1);
    c.layer_hi = std::min(int(d.layers.size()) - 1, int(std::ceil((p1.y - c.f.origin.y) / c.f.layer_h())));
  }
  draw_edges(c);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool in_canvas = ImGui::IsItemHovered() || ImGui::IsItemActive();
  const OpId hovered = draw_nodes(c, mouse, in_canvas);
  dl->PopClipRect();
  handle_canvas_input(s, p0, hovered);
  if (hovered >= 0 && ImGui::IsItemHovered() && !ImGui::IsItemActive()) op_tooltip(s, hovered);
  ImGui::EndChild();
}

void draw_toolbar(AppState& s) {
  const DagLayout& d = g_cache.layout;
  const ImVec2 canvas = g_view.canvas_size;
  if (ImGui::SmallButton("Fit")) fit_view(d, canvas);
  record_item_rect(s, "graph.fit");
  ImGui::SameLine();
  if (ImGui::SmallButton("-")) zoom_at(1 / 1.25f, ImVec2(canvas.x / 2, canvas.y / 2));
  record_item_rect(s, "graph.zoom_out");
  ImGui::SameLine();
  if (ImGui::SmallButton("+")) zoom_at(1.25f, ImVec2(canvas.x / 2, canvas.y / 2));
  record_item_rect(s, "graph.zoom_in");
  ImGui::SameLine();
  ImGui::Text("%3.0f%%", g_view.zoom * 100);
  ImGui::SameLine();
  ImGui::Checkbox("Follow step", &g_view.follow_step);
  record_item_rect(s, "graph.follow");
  ImGui::SameLine();
  ImGui::TextDisabled("%zu ops, %zu layers, %lld crossings (drag: pan, wheel: zoom)", s.graph.ops.size(),
                      d.layers.size(), (long long)d.crossings);
  const OpId run = running_op(s);
  if (run >= 0 && !s.live.steps.empty()) {
    const StepLive& st = s.live.steps[s.step];
    ImGui::Text("Step %d: RUNNING %s;", s.step, s.graph.ops[run].name.c_str());
    ImGui::SameLine(0, 4);
    ImGui::PushStyleColor(ImGuiCol_Text, kLiveText);
    ImGui::Text("LIVE %zu buffers, %s", s.live.live_at(s.step).size(), format_bytes(st.live_bytes).c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine(0, 4);
    ImGui::Text("(peak %s at step %d)", format_bytes(s.live.peak_bytes).c_str(), s.live.peak_step);
  }
}

// ---- Editor ---------------------------------------------------------------------------------

Bytes new_tensor_bytes() {
  try {
    return parse_byte_size(g_edit.new_bytes, "new tensor size");
  } catch (const InputError&) {
    return 0;  // the edit then refuses with "size must be positive", next to the field
  }
}

void draw_history_buttons(AppState& s) {
  ImGui::BeginDisabled(!can_undo(s));
  if (ImGui::SmallButton("Undo")) undo(s);
  ImGui::EndDisabled();
  record_item_rect(s, "graph.undo");
  if (can_undo(s) && ImGui::IsItemHovered()) ImGui::SetTooltip("Undo %s (Ctrl+Z)", s.undo_stack.back().what.c_str());
  ImGui::SameLine();
  ImGui::BeginDisabled(!can_redo(s));
  if (ImGui::SmallButton("Redo")) redo(s);
  ImGui::EndDisabled();
  record_item_rect(s, "graph.redo");
  if (can_redo(s) && ImGui::IsItemHovered()) ImGui::SetTooltip("Redo %s (Ctrl+Shift+Z)", s.redo_stack.back().what.c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Reset to example")) reset_to_example(s);
  record_item_rect(s, "graph.reset");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to %s (undoable)", s.base_example.c_str());
}

// Lets keyboard users (and big graphs) pick the op from a list in schedule order.
void draw_op_picker(AppState& s) {
  const std::string preview = s.selected_op >= 0 ? s.graph.ops[s.selected_op].name : "(click an op or pick one)";
  ImGui::SetNextItemWidth(-FLT_MIN);
  const bool open = ImGui::BeginCombo("##pick_op", preview.c_str(), ImGuiComboFlags_HeightLarge);
  record_item_rect(s, "graph.pick_op");
  if (!open) return;
  ImGuiListClipper clip;
  clip.Begin(int(s.order.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const Op& op = s.graph.ops[s.order[i]];
      const std::string label = std::to_string(i) + ": " + op.name + " (" + op.kind + ")";
      if (ImGui::Selectable(label.c_str(), s.order[i] == s.selected_op)) {
        select_op(s, s.order[i]);
        if (g_cache.layout.node_of_op.size() == s.graph.ops.size())
          center_on(g_cache.layout.nodes[g_cache.layout.node_of_op[s.order[i]]], g_view.canvas_size);
      }
    }
  ImGui::EndCombo();
}

// A field label in a left column, so the inspector stays one line per field.
void field_label(const char* label, const char* tooltip = nullptr) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  ImGui::SameLine(64);
}

void draw_op_fields(AppState& s, OpId o) {
  const Op op = s.graph.ops[o];  // a copy: an accepted edit replaces s.graph under our feet
  const float w = -FLT_MIN;
  std::string typed;
  field_label("Name");
  if (commit_field(s, "##op_name", op.name, typed, "graph.sel.name", w))
    edit_graph(s, "graph.sel.name", "rename op " + op.name + " to " + typed,
               [&](const Graph& g) { return rename_op(g, op.name, typed); }, typed);
  inline_error(s, "graph.sel.name");
  field_label("Kind");
  if (commit_field(s, "##op_kind", op.kind, typed, "graph.sel.kind", w))
    edit_graph(s, "graph.sel.kind", "set kind of " + op.name, [&](const Graph& g) { return set_op_kind(g, op.name, typed); });
  inline_error(s, "graph.sel.kind");
  field_label("Reads", "Tensor names, comma-separated");
  if (commit_field(s, "##op_inputs", join_names(s.graph, op.inputs), typed, "graph.sel.inputs", w))
    edit_graph(s, "graph.sel.inputs", "set inputs of " + op.name,
               [&](const Graph& g) { return set_op_inputs(g, op.name, split_names(typed)); });
  inline_error(s, "graph.sel.inputs");
  field_label("Writes", "Tensor names, comma-separated; a new name creates a tensor of the size set in the Add tab");
  if (commit_field(s, "##op_outputs", join_names(s.graph, op.outputs), typed, "graph.sel.outputs", w))
    edit_graph(s, "graph.sel.outputs", "set outputs of " + op.name,
               [&](const Graph& g) { return set_op_outputs(g, op.name, split_names(typed), new_tensor_bytes()); });
  inline_error(s, "graph.sel.outputs");
  field_label("Scratch", "Temporary buffer live only while this op runs (0 for none)");
  if (commit_field(s, "##op_scratch", format_bytes(op.scratch_bytes), typed, "graph.sel.scratch", w))
    edit_graph(s, "graph.sel.scratch", "set scratch of " + op.name, [&](const Graph& g) {
      return set_op_scratch(g, op.name, parse_byte_size(typed, "op " + op.name + " scratch"));
    });
  inline_error(s, "graph.sel.scratch");
}

void draw_op_tensor_sizes(AppState& s, OpId o) {
  const Op op = s.graph.ops[o];
  const std::vector<bool> live = live_tensors(s);
  ImGui::TextDisabled("Sizes of its tensors");
  const uint64_t revision = s.revision;
  for (const std::vector<TensorId>* list : {&op.inputs, &op.outputs})
    for (TensorId t : *list) {
      if (s.revision != revision) return;  // an accepted edit renumbered the tensors: next frame
      const Tensor x = s.graph.tensors[t];
      const std::string key = "graph.sel.tensor." + x.name + ".bytes";
      ImGui::PushID(key.c_str());
      ImGui::AlignTextToFramePadding();
      ImGui::Text("%s %s", list == &op.inputs ? "in " : "out", x.name.c_str());
      ImGui::SameLine();
      if (ImGui::GetCursorPosX() < 110) ImGui::SetCursorPosX(110);  // sizes in one column, long names pushing
      std::string typed;
      if (commit_field(s, "##bytes", format_bytes(x.bytes), typed, key, 110))
        edit_graph(s, key, "resize " + x.name + " to " + typed,
                   [&](const Graph& g) { return set_tensor_bytes(g, x.name, parse_byte_size(typed, "tensor " + x.name)); });
      if (live[t]) {
        ImGui::SameLine();
        ImGui::TextColored(kLiveText, "LIVE");
      }
      ImGui::PopID();
      inline_error(s, key);
    }
}

// downstream_ops walks the graph: once per revision and op, not per frame.
const std::vector<std::string>& downstream_cached(const AppState& s, OpId o) {
  static uint64_t revision = ~uint64_t{0};
  static OpId op = -1;
  static std::vector<std::string> names;
  if (revision != s.revision || op != o) {
    revision = s.revision;
    op = o;
    names = downstream_ops(s.graph, s.graph.ops[o].name);
  }
  return names;
}

void draw_op_removal(AppState& s, OpId o) {
  const std::string name = s.graph.ops[o].name;
  const std::vector<std::string> down = downstream_cached(s, o);  // before any edit renumbers `o`
  if (ImGui::Button("Remove op")) {
    edit_graph(s, "graph.sel.remove", "remove op " + name, [&](const Graph& g) { return remove_op(g, name); });
  }
  record_item_rect(s, "graph.sel.remove");
  if (down.size() > 1) {
    ImGui::SameLine();
    const std::string label = "Remove with " + std::to_string(down.size() - 1) + " downstream";
    if (ImGui::Button(label.c_str()))
      edit_graph(s, "graph.sel.remove", "remove op " + name + " and downstream",
                 [&](const Graph& g) { return remove_op(g, name, RemoveMode::kCascade); });
    record_item_rect(s, "graph.sel.remove_cascade");
    if (ImGui::IsItemHovered()) {
      std::string list;
      for (size_t i = 1; i < down.size() && i < 40; ++i) list += (i > 1 ? ", " : "") + down[i];
      ImGui::SetTooltip("Also removes: %s%s (undo with Ctrl+Z)", list.c_str(), down.size() > 40 ? ", ..." : "");
    }
  }
  inline_error(s, "graph.sel.remove");
}

void draw_op_tab(AppState& s) {
  draw_op_picker(s);
  const OpId o = s.selected_op;
  if (o < 0 || size_t(o) >= s.graph.ops.size()) {
    ImGui::TextWrapped("Click an op in the graph (or pick one above) to edit it.");
    return;
  }
  const Step st = step_of(s, o);
  ImGui::Text("Op %s at step %d%s", s.graph.ops[o].name.c_str(), st, o == running_op(s) ? "  RUNNING" : "");
  const uint64_t revision = s.revision;
  draw_op_removal(s, o);
  if (s.revision != revision) return;  // an accepted edit may have renumbered ops: next frame
  draw_op_fields(s, o);
  if (s.revision != revision) return;
  ImGui::Separator();
  draw_op_tensor_sizes(s, o);
}

void draw_tensor_row(AppState& s, TensorId t, const std::vector<bool>& live) {
  const Tensor x = s.graph.tensors[t];  // a copy: an accepted edit replaces the graph
  const std::string key = "graph.tensor." + x.name;
  ImGui::PushID(x.name.c_str());
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  std::string typed;
  if (commit_field(s, "##name", x.name, typed, key + ".name", -FLT_MIN))
    edit_graph(s, key + ".name", "rename tensor " + x.name + " to " + typed,
               [&](const Graph& g) { return rename_tensor(g, x.name, typed); });
  ImGui::TableNextColumn();
  if (commit_field(s, "##bytes", format_bytes(x.bytes), typed, key + ".bytes", -FLT_MIN))
    edit_graph(s, key + ".bytes", "resize " + x.name + " to " + typed,
               [&](const Graph& g) { return set_tensor_bytes(g, x.name, parse_byte_size(typed, "tensor " + x.name)); });
  ImGui::TableNextColumn();
  bool in = s.graph.is_input(t), out = s.graph.is_output(t);
  if (ImGui::Checkbox("##in", &in))
    edit_graph(s, key + ".input", std::string(in ? "mark " : "unmark ") + x.name + " as graph input",
               [&](const Graph& g) { return set_graph_input(g, x.name, in); });
  record_item_rect(s, key + ".input");
  ImGui::TableNextColumn();
  if (ImGui::Checkbox("##out", &out))
    edit_graph(s, key + ".output", std::string(out ? "mark " : "unmark ") + x.name + " as graph output",
               [&](const Graph& g) { return set_graph_output(g, x.name, out); });
  record_item_rect(s, key + ".output");
  ImGui::TableNextColumn();
  if (size_t(t) < live.size() && live[t]) ImGui::TextColored(kLiveText, "LIVE");
  else if (x.constant) ImGui::TextDisabled("const");
  else if (x.persistent) ImGui::TextDisabled("state");
  ImGui::TableNextColumn();
  if (ImGui::SmallButton("x"))
    edit_graph(s, key + ".remove", "remove tensor " + x.name, [&](const Graph& g) { return remove_tensor(g, x.name); });
  record_item_rect(s, key + ".remove");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove tensor %s", x.name.c_str());
  ImGui::PopID();
  // The refusal goes right under the row it belongs to (the table does not clip it to a column).
  for (const char* field : {".name", ".bytes", ".input", ".output", ".remove"})
    if (error_shown_for(s, key + field)) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      inline_error(s, key + field);
    }
}

void draw_tensor_tab(AppState& s) {
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputTextWithHint("##tensor_filter", "filter tensors by name", &g_edit.tensor_filter);
  record_item_rect(s, "graph.tensor_filter");
  std::vector<TensorId> rows;
  for (size_t t = 0; t < s.graph.tensors.size(); ++t)
    if (g_edit.tensor_filter.empty() || contains_ci(s.graph.tensors[t].name, g_edit.tensor_filter))
      rows.push_back(TensorId(t));
  const std::vector<bool> live = live_tensors(s);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_NoClip | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("graph_tensors", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Tensor", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, 74);
  ImGui::TableSetupColumn("In", ImGuiTableColumnFlags_WidthFixed, 20);
  ImGui::TableSetupColumn("Out", ImGuiTableColumnFlags_WidthFixed, 22);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 32);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 14);
  ImGui::TableHeadersRow();
  // After an accepted edit the rows (ids) are stale: finish the clipper without drawing them.
  const uint64_t revision = s.revision;
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd && s.revision == revision; ++i) draw_tensor_row(s, rows[i], live);
  ImGui::EndTable();
}

void draw_add_op(AppState& s) {
  ImGui::TextUnformatted("Add op");
  const float w = -FLT_MIN;
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_name", "name", &g_edit.add_name);
  record_item_rect(s, "graph.add.name");
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_kind", "kind (conv2d, add, ...)", &g_edit.add_kind);
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_inputs", "reads: tensor names, comma-separated", &g_edit.add_inputs);
  record_item_rect(s, "graph.add.inputs");
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_outputs", "writes: new or existing tensor names", &g_edit.add_outputs);
  record_item_rect(s, "graph.add.outputs");
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("new tensor size", &g_edit.new_bytes);
  record_item_rect(s, "graph.add.bytes");
  ImGui::Checkbox("new outputs are graph outputs", &g_edit.add_outputs_are_results);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("A new op whose outputs nothing reads would be unreachable");
  if (ImGui::Button("Add op")) {
    const OpSpec spec{g_edit.add_name, g_edit.add_kind, split_names(g_edit.add_inputs), split_names(g_edit.add_outputs), 0};
    const bool results = g_edit.add_outputs_are_results;
    if (edit_graph(s, "graph.add_op", "add op " + spec.name,
                   [&](const Graph& g) { return add_op(g, spec, new_tensor_bytes(), results); }, spec.name)) {
      select_op(s, s.selected_op);
      g_edit.add_name.clear();
    }
  }
  record_item_rect(s, "graph.add_op");
  inline_error(s, "graph.add_op");
}

void draw_add_tensor(AppState& s) {
  ImGui::TextUnformatted("Add tensor");
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputTextWithHint("##tensor_name", "name", &g_edit.tensor_name);
  record_item_rect(s, "graph.add_tensor.name");
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("size##tensor", &g_edit.tensor_bytes);
  record_item_rect(s, "graph.add_tensor.bytes");
  ImGui::SameLine();
  ImGui::Checkbox("graph input", &g_edit.tensor_is_input);
  if (ImGui::Button("Add tensor")) {
    const std::string name = g_edit.tensor_name, bytes = g_edit.tensor_bytes;
    const bool input = g_edit.tensor_is_input;
    if (edit_graph(s, "graph.add_tensor", "add tensor " + name, [&](const Graph& g) {
          return add_tensor(g, name, parse_byte_size(bytes, "tensor " + name + " size"), input);
        }))
      g_edit.tensor_name.clear();
  }
  record_item_rect(s, "graph.add_tensor");
  inline_error(s, "graph.add_tensor");
}

void draw_add_tab(AppState& s) {
  if (ImGui::IsWindowAppearing() && g_edit.add_inputs.empty() && s.selected_op >= 0)
    g_edit.add_inputs = join_names(s.graph, s.graph.ops[s.selected_op].outputs);  // append after the selection
  draw_add_op(s);
  ImGui::Separator();
  draw_add_tensor(s);
}

void editor_tab(AppState& s, const char* title, void (*draw)(AppState&)) {
  const bool requested = g_edit.request_tab && std::string(g_edit.request_tab) == title;
  const bool open = ImGui::BeginTabItem(title, nullptr, requested ? ImGuiTabItemFlags_SetSelected : 0);
  record_item_rect(s, std::string("graph.editor.tab.") + title);
  if (requested) g_edit.request_tab = nullptr;
  if (!open) return;
  ImGui::BeginChild(title, ImVec2(0, 0), false);
  draw(s);
  ImGui::EndChild();
  ImGui::EndTabItem();
}

void draw_editor(AppState& s) {
  draw_history_buttons(s);
  if (ImGui::BeginTabBar("graph_editor_tabs")) {
    editor_tab(s, "Op", draw_op_tab);
    editor_tab(s, "Tensors", draw_tensor_tab);
    editor_tab(s, "Add", draw_add_tab);
    ImGui::EndTabBar();
  }
}

void draw_graph_panel(AppState& s) {
  refresh_layout(s);
  keep_selection(s);
  draw_toolbar(s);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float editor_w = std::clamp(avail.x * 0.4f, 280.0f, 460.0f);
  draw_canvas(s, ImVec2(std::max(120.0f, avail.x - editor_w - ImGui::GetStyle().ItemSpacing.x), avail.y));
  ImGui::SameLine();
  ImGui::BeginChild("graph_editor", ImVec2(0, avail.y), false);
  draw_editor(s);
  ImGui::EndChild();
}

JsonOut export_graph_view(const AppState& s) {
  const DagLayout& d = g_cache.layout;
  return {{"layers", d.layers.size()},
          {"crossings", d.crossings},
          {"crossings_initial", d.crossings_initial},
          {"joints", d.joints},
          {"layout_ms", g_cache.layout_ms},
          {"visible_ops", g_view.visible_ops},
          {"zoom", g_view.zoom},
          {"selected_op", s.selected_op >= 0 && size_t(s.selected_op) < s.graph.ops.size() ? s.graph.ops[s.selected_op].name : ""},
          {"last_error", g_edit.error},
          {"error_field", g_edit.error.empty() ? "" : g_edit.error_field}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kMain, 5, "Graph", draw_graph_panel);
ARENAPLAN_STATE_EXPORT("graph_view", export_graph_view);

}  // namespace arenaplan::web
