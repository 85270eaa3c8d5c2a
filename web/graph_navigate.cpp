// Graph tab, finding one's way in a deep graph: the toolbar (fit, zoom, follow-step, overview),
// the search field (an op or tensor by name: Enter centres the first match and selects it) and the
// overview (a minimap of the whole DAG in the canvas's corner with the view's rectangle; click or
// drag in it to move the view there). The overview is binned into pixel cells once per graph and
// size, so a frame draws at most one mark per cell plus the running op, the selection and the live
// set, whatever the number of ops.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "imgui.h"
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/graph_view.h"
#include "web/ui_style.h"

namespace arenaplan::web::graph_tab {
namespace {

constexpr size_t kMaxMatches = 50;   // kept per query
constexpr int kShownMatches = 5;     // buttons after the field
constexpr ImU32 kOverviewBg = IM_COL32(0x0C, 0x0D, 0x10, 0xE6);
constexpr ImU32 kOverviewOp = IM_COL32(0x8A, 0x96, 0xA8, 0xFF);

// ---- Search -----------------------------------------------------------------------------------

std::string lower(std::string v) {
  for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

// Ops and tensors whose name contains the query (case-insensitive): exact names first, then
// prefixes, then the rest; ops before tensors; then by name.
std::vector<GraphSearchMatch> find_matches(const Graph& g, const std::string& query) {
  std::vector<std::pair<int, GraphSearchMatch>> ranked;
  const std::string q = lower(query);
  if (q.empty()) return {};
  auto consider = [&](bool is_op, int id, const std::string& name) {
    const std::string n = lower(name);
    const size_t at = n.find(q);
    if (at == std::string::npos) return;
    const int rank = (n == q ? 0 : at == 0 ? 2 : 4) + (is_op ? 0 : 1);
    ranked.push_back({rank, GraphSearchMatch{is_op, id, name}});
  };
  for (size_t o = 0; o < g.ops.size(); ++o) consider(true, int(o), g.ops[o].name);
  for (size_t t = 0; t < g.tensors.size(); ++t) consider(false, int(t), g.tensors[t].name);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.first, a.second.name.size(), a.second.name) <
           std::make_tuple(b.first, b.second.name.size(), b.second.name);
  });
  std::vector<GraphSearchMatch> out;
  for (size_t i = 0; i < ranked.size() && i < kMaxMatches; ++i) out.push_back(ranked[i].second);
  return out;
}

// Centres the match and selects it: an op becomes the selected op (and the step moves to it); a
// tensor is highlighted with its producer and shown in the editor's tensor table.
void jump_to(AppState& s, const GraphSearchMatch& m) {
  GraphCanvasState& v = s.graph_canvas;
  v.jumped_to = m.name;
  if (m.is_op) {
    select_op(s, m.id);
    center_on_op(s, m.id);
    return;
  }
  const Tensor& t = s.graph.tensors[m.id];
  clear_selection(s);
  v.selected_tensor = t.name;
  s.graph_editor.tensor_filter = t.name;
  s.graph_editor.request_tab = "Tensors";
  const DagLayout& d = drawing_of(s).layout;
  if (t.producer >= 0) center_on_op(s, t.producer);
  else if (size_t(m.id) < d.node_of_input.size() && d.node_of_input[m.id] >= 0)
    center_on(v, d.nodes[d.node_of_input[m.id]], v.canvas_size);
  request_redraw(s);
}

// The first of `texts` that fits what is left of the current row; none when none fits (the
// toolbar never makes the panel scroll sideways).
void text_that_fits(std::initializer_list<std::string> texts) {
  for (const std::string& text : texts)
    if (ImGui::CalcTextSize(text.c_str()).x <= ImGui::GetContentRegionAvail().x) {
      ImGui::TextDisabled("%s", text.c_str());
      return;
    }
  ImGui::NewLine();
}

// ---- Overview ---------------------------------------------------------------------------------

// World size in pixels at zoom 1.
ImVec2 world_size(const DagLayout& d) {
  return ImVec2(float(std::max(1.0, d.width)) * kSlotPx, float(std::max<size_t>(1, d.layers.size())) * kLayerPx);
}

// Every op as a mark of at least 2x2 pixels at its place, marks on the same pixels merged (with
// the number of ops they stand for).
void bin_ops(GraphOverviewCells& out, const DagLayout& d, int w, int h) {
  const ImVec2 world = world_size(d);
  const float sx = float(w) / world.x, sy = float(h) / world.y;
  std::map<std::pair<int, int>, size_t> cell_of;  // top-left pixel -> index in cells
  const float mw = std::max(2.0f, kBoxPx * sx), mh = std::max(2.0f, kLayerPx * 0.55f * sy);
  for (size_t o = 0; o < d.node_of_op.size(); ++o) {
    const DagNode& n = d.nodes[d.node_of_op[o]];
    const float cx = float(n.x) * kSlotPx * sx, top = float(n.layer) * kLayerPx * sy;
    const int x0 = int(std::floor(cx - mw / 2)), y0 = int(std::floor(top));
    auto [it, added] = cell_of.try_emplace({x0, y0}, out.cells.size());
    if (added) {
      out.cells.push_back({float(x0), float(y0), float(x0) + mw, float(y0) + mh});
      out.ops_in_cell.push_back(0);
    }
    ++out.ops_in_cell[it->second];
    ++out.ops;
  }
}

// Overview pixel of a world point (pixels at zoom 1).
ImVec2 to_overview(const GraphCanvasState& v, float wx, float wy) {
  return ImVec2(v.overview_rect[0] + 2 + wx * v.overview_sx, v.overview_rect[1] + 2 + wy * v.overview_sy);
}

// A mark on the overview for one op (running, selected, live).
void mark_op(ImDrawList* dl, const GraphCanvasState& v, const DagNode& n, ImU32 color, float grow) {
  const ImVec2 c = to_overview(v, float(n.x) * kSlotPx, (float(n.layer) + 0.3f) * kLayerPx);
  const float hw = std::max(1.5f, kBoxPx * v.overview_sx / 2) + grow, hh = std::max(1.5f, kLayerPx * 0.3f * v.overview_sy) + grow;
  dl->AddRectFilled(ImVec2(c.x - hw, c.y - hh), ImVec2(c.x + hw, c.y + hh), color);
}

}  // namespace

void draw_search(AppState& s) {
  GraphCanvasState& v = s.graph_canvas;
  ImGui::SetNextItemWidth(170);
  const bool enter = ImGui::InputTextWithHint("##graph_search", "find op or tensor", &v.search,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  record_item_rect(s, "graph.search");
  const std::vector<GraphSearchMatch>& matches =
      v.matches.get({s.graph_revision, v.search}, [&](auto& out) { out = find_matches(s.graph, v.search); });
  if (enter && !matches.empty()) jump_to(s, matches.front());
  if (v.search.empty()) return;
  ImGui::SameLine();
  if (matches.empty()) {
    ImGui::TextDisabled("no op or tensor named like that");
    return;
  }
  ImGui::TextDisabled("%zu%s:", matches.size(), matches.size() == kMaxMatches ? "+" : "");
  for (int i = 0; i < int(matches.size()) && i < kShownMatches; ++i) {
    const std::string label = matches[i].name + (matches[i].is_op ? "" : " (tensor)");
    ImGui::SameLine();
    // Only the buttons that fit the row: the panel never grows a scrollbar for them.
    if (ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2 > ImGui::GetContentRegionAvail().x) {
      ImGui::TextDisabled("...");
      break;
    }
    ImGui::PushID(i);
    if (ImGui::SmallButton(label.c_str())) jump_to(s, matches[i]);
    record_item_rect(s, "graph.search.match." + std::to_string(i));
    ImGui::PopID();
  }
}


void draw_toolbar(AppState& s) {
  GraphCanvasState& v = s.graph_canvas;
  const DagLayout& d = drawing_of(s).layout;
  const ImVec2 canvas = v.canvas_size;
  if (ImGui::SmallButton("Fit")) fit_view(v, d, canvas, /*whole=*/true);
  record_item_rect(s, "graph.fit");
  ImGui::SameLine();
  if (ImGui::SmallButton("-")) zoom_at(v, 1 / 1.25f, ImVec2(canvas.x / 2, canvas.y / 2));
  record_item_rect(s, "graph.zoom_out");
  ImGui::SameLine();
  if (ImGui::SmallButton("+")) zoom_at(v, 1.25f, ImVec2(canvas.x / 2, canvas.y / 2));
  record_item_rect(s, "graph.zoom_in");
  ImGui::SameLine();
  ImGui::Text("%3.0f%%", v.zoom * 100);
  ImGui::SameLine();
  ImGui::Checkbox("Follow step", &v.follow_step);
  record_item_rect(s, "graph.follow");
  ImGui::SameLine();
  ImGui::Checkbox("Overview", &v.show_overview);
  record_item_rect(s, "graph.overview_toggle");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("A map of the whole graph in the corner while part of it is out of view");
  ImGui::SameLine();
  draw_search(s);
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
    ImGui::SameLine();
  }
  const std::string stats = std::to_string(s.graph.ops.size()) + " ops, " + std::to_string(d.layers.size()) +
                            " layers, " + std::to_string(d.crossings) + " crossings";
  text_that_fits({stats + " (drag: pan, wheel: zoom)", stats});
}

void place_overview(AppState& s, const DagLayout& d, ImVec2 p0, ImVec2 p1) {
  GraphCanvasState& v = s.graph_canvas;
  v.overview_rect = {};
  if (!v.show_overview || d.node_of_op.empty()) return;
  const Frame f = view_frame(v, p0);
  const ImVec2 world = world_size(d);
  // Shown only while part of the graph is out of view: a graph that fits needs no map.
  const float left = f.x(0), right = f.x(d.width), top = f.top(0);
  const float bottom = f.top(int(d.layers.size()) - 1) + f.box_h();
  if (left >= p0.x - 1 && right <= p1.x + 1 && top >= p0.y - 1 && bottom <= p1.y + 1) return;
  const ImVec2 canvas(p1.x - p0.x, p1.y - p0.y);
  // The same scale both ways when that leaves a usable map; a deep, narrow graph is stretched
  // across instead (its layers matter more than its exact width).
  const float max_w = std::clamp(canvas.x * 0.25f, 40.0f, 180.0f), max_h = std::max(40.0f, canvas.y * 0.6f);
  const float k = std::min(max_w / world.x, max_h / world.y);
  const float w = std::clamp(world.x * k, std::min(60.0f, max_w), max_w);
  const float h = std::clamp(world.y * k, 40.0f, max_h);
  v.overview_sx = (w - 4) / world.x;
  v.overview_sy = (h - 4) / world.y;
  v.overview_rect = {p1.x - w - 8, p1.y - h - 8, p1.x - 8, p1.y - 8};
}

bool overview_hovered(const AppState& s, ImVec2 mouse) {
  const ItemRect& r = s.graph_canvas.overview_rect;
  return r[2] > r[0] && mouse.x >= r[0] && mouse.x <= r[2] && mouse.y >= r[1] && mouse.y <= r[3];
}

bool clip_to_overview(const GraphCanvasState& v, ItemRect& r) {
  const ItemRect& o = v.overview_rect;
  if (o[2] <= o[0] || r[2] <= o[0] || r[0] >= o[2] || r[3] <= o[1] || r[1] >= o[3]) return r[2] > r[0] && r[3] > r[1];
  if (r[0] < o[0]) r[2] = o[0];       // its left part shows beside the map
  else if (r[1] < o[1]) r[3] = o[1];  // its top part shows above it
  else return false;                  // hidden under the map
  return r[2] > r[0] && r[3] > r[1];
}

void draw_overview(AppState& s, ImDrawList* dl, ImVec2 p0, ImVec2 p1) {
  GraphCanvasState& v = s.graph_canvas;
  v.overview_viewport = {};
  const ItemRect o = v.overview_rect;
  if (o[2] <= o[0]) return;
  const DagLayout& d = drawing_of(s).layout;
  const int inner_w = int(o[2] - o[0]) - 4, inner_h = int(o[3] - o[1]) - 4;
  const GraphOverviewCells& cells = v.overview_cells.get(
      {s.graph_revision, inner_w, inner_h}, [&](GraphOverviewCells& out) { bin_ops(out, d, inner_w, inner_h); });
  dl->AddRectFilled(ImVec2(o[0], o[1]), ImVec2(o[2], o[3]), kOverviewBg, 3.0f);
  dl->AddRect(ImVec2(o[0], o[1]), ImVec2(o[2], o[3]), kGridColor, 3.0f);
  dl->PushClipRect(ImVec2(o[0] + 1, o[1] + 1), ImVec2(o[2] - 1, o[3] - 1), true);
  for (const ItemRect& c : cells.cells)
    dl->AddRectFilled(ImVec2(o[0] + 2 + c[0], o[1] + 2 + c[1]), ImVec2(o[0] + 2 + c[2], o[1] + 2 + c[3]), kOverviewOp);
  // The live set, the selection and the running op on top, bigger than an ordinary op.
  if (!s.live.steps.empty() && size_t(s.step) < s.live.steps.size())
    for (int b : s.live.live_at(s.step))
      for (TensorId t : s.live.buffers[b].tensors) {
        const OpId producer = size_t(t) < s.graph.tensors.size() ? s.graph.tensors[t].producer : -1;
        if (producer >= 0) mark_op(dl, v, d.nodes[d.node_of_op[producer]], kLiveColor, 0.5f);
      }
  if (s.selected_op >= 0 && size_t(s.selected_op) < d.node_of_op.size())
    mark_op(dl, v, d.nodes[d.node_of_op[s.selected_op]], kBarColor, 1.0f);
  if (const OpId run = running_op(s); run >= 0 && size_t(run) < d.node_of_op.size())
    mark_op(dl, v, d.nodes[d.node_of_op[run]], kCurrentColor, 1.5f);
  // The canvas's view: world = (screen - origin) / zoom.
  const ImVec2 a = to_overview(v, -v.pan.x / v.zoom, -v.pan.y / v.zoom);
  const ImVec2 b = to_overview(v, (p1.x - p0.x - v.pan.x) / v.zoom, (p1.y - p0.y - v.pan.y) / v.zoom);
  const ImVec2 ca(std::clamp(a.x, o[0], o[2]), std::clamp(a.y, o[1], o[3]));
  const ImVec2 cb(std::clamp(b.x, o[0], o[2]), std::clamp(b.y, o[1], o[3]));
  dl->AddRect(ca, ImVec2(std::max(cb.x, ca.x + 2), std::max(cb.y, ca.y + 2)), kPeakColor, 0, 0, 1.5f);
  v.overview_viewport = {ca.x, ca.y, cb.x, cb.y};
  dl->PopClipRect();
  s.ui_rects_building["graph.overview"] = o;
}

void handle_overview_input(AppState& s, ImVec2 p0, ImVec2 canvas) {
  (void)p0;
  GraphCanvasState& v = s.graph_canvas;
  if (!ImGui::IsItemActive() || v.overview_sx <= 0 || v.overview_sy <= 0) return;
  const ImVec2 m = ImGui::GetIO().MousePos;
  const ItemRect& o = v.overview_rect;
  if (o[2] <= o[0]) return;
  const float wx = (std::clamp(m.x, o[0], o[2]) - o[0] - 2) / v.overview_sx;
  const float wy = (std::clamp(m.y, o[1], o[3]) - o[1] - 2) / v.overview_sy;
  center_on_world(v, ImVec2(wx, wy), canvas);
  request_redraw(s);
}

}  // namespace arenaplan::web::graph_tab
