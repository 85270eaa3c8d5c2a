// Lifetimes panel: one row per arena buffer, a bar from its first to its last live step, drawn
// through the instanced-rectangle renderer (shaders/rect.*.glsl). The same path will carry the
// dense arena view; a stress switch draws 10,000 extra rectangles to check it stays smooth
// (bench/page_bench.mjs measures the frame rate).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"
#include "web/rect_renderer.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

constexpr ImU32 kHeadColor = IM_COL32(0x00, 0x72, 0xB2, 0xFF);     // blue: activations
constexpr ImU32 kTempColor = IM_COL32(0xCC, 0x79, 0xA7, 0xFF);     // purple: scratch
constexpr ImU32 kTailColor = IM_COL32(0x00, 0x9E, 0x73, 0xFF);     // green: persistent
constexpr ImU32 kStepShade = IM_COL32(0xFF, 0xFF, 0xFF, 0x28);

ImU32 color_of(ArenaCategory c) {
  switch (c) {
    case ArenaCategory::kTemp: return kTempColor;
    case ArenaCategory::kTail: return kTailColor;
    default: return kHeadColor;
  }
}

// Deterministic pseudo-random rectangles (an xorshift), so the stress picture is repeatable.
void add_stress_rects(std::vector<RectInstance>& out, float steps, float rows) {
  uint32_t x = 2463534242u;
  auto next = [&x] { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return float(x % 10000) / 10000.0f; };
  for (int i = 0; i < 10000; ++i) {
    const float t0 = next() * steps, len = 0.05f + next() * steps * 0.2f;
    const float y = next() * rows;
    // Category colours like the real views (a handful, not 10,000 distinct ones).
    static const ImU32 kColors[] = {kHeadColor, kTempColor, kTailColor, IM_COL32(0xE6, 0x9F, 0x00, 0xFF)};
    const ImU32 c = (kColors[int(next() * 4) % 4] & 0x00FFFFFF) | 0xB0000000;
    out.push_back({t0, y, std::min(steps, t0 + len), y + 0.08f, c});
  }
}

// The bytes a buffer's tensors hold (aliased tensors share one buffer: the largest), or a
// scratch buffer's size.
Bytes data_bytes(const Graph& g, const LiveBuffer& buf) {
  if (buf.tensors.empty()) return buf.size;
  Bytes most = 0;
  for (TensorId t : buf.tensors) most = std::max(most, g.tensors[t].bytes);
  return most;
}

void draw_lifetimes_panel(AppState& s) {
  const LiveAnalysis& a = s.live;
  const int steps = int(a.steps.size());
  const int rows = int(a.buffers.size());
  // The stress switch (+10,000 rectangles) lives in the Debug menu (AppState::stress_rects).
  // The frame rate is shown as sampled twice a second: readable, and it does not change the
  // picture every frame (an unchanged picture is not rasterised again, main.cpp). Kept in
  // ImGui's per-window storage, like a widget's state.
  ImGuiStorage* storage = ImGui::GetStateStorage();
  float& fps_shown = *storage->GetFloatRef(ImGui::GetID("fps.shown"), 0.0f);
  float& fps_sampled_at = *storage->GetFloatRef(ImGui::GetID("fps.at"), -1.0f);
  if (fps_sampled_at < 0 || float(ImGui::GetTime()) - fps_sampled_at >= 0.5f) {
    fps_shown = ImGui::GetIO().Framerate;
    fps_sampled_at = float(ImGui::GetTime());
  }
  if (s.debug_figures || s.stress_rects)
    ImGui::TextDisabled("%.0f fps, one draw call%s", fps_shown,
                        s.stress_rects ? ", +10,000 stress rectangles (Debug menu)" : "");
  else
    ImGui::TextDisabled("%s over %s", plural(rows, "arena buffer", "arena buffers").c_str(),
                        plural(steps, "step", "steps").c_str());
  if (steps == 0 || rows == 0) {
    ImGui::TextDisabled("No arena buffers.");
    return;
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float label_w = ImGui::CalcTextSize("MMMMMMMM 0000 KiB").x;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, label_w + 100.0f);
  const float height = line * float(rows + 1);
  ImGui::Dummy(ImVec2(width, height));
  record_item_rect(s, "lifetimes.plot");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 plot_min(origin.x + label_w, origin.y + line);
  const ImVec2 plot_max(origin.x + width, origin.y + height);
  const float col_w = (plot_max.x - plot_min.x) / float(steps);
  // Column labels: op names while they fit, else step numbers every few columns, never overlapping.
  const bool names_fit = col_w >= ImGui::CalcTextSize("000 MMMMMM").x;
  const int every = names_fit ? 1 : std::max(1, int(std::ceil(ImGui::CalcTextSize("00000").x / col_w)));
  const NameScopes& scopes = name_scopes(s);
  // Labels go through draw_label (recorded for the overprint checks), each elided to its column.
  std::vector<ImVec4> taken;
  const ImVec4 header(plot_min.x, origin.y, plot_max.x, plot_min.y);
  for (int t = 0; t < steps; t += every) {
    const std::string label = names_fit ? std::to_string(t) + " " + without_scope(s.graph.ops[a.steps[t].op].name, scopes.ops)
                                        : std::to_string(t);
    const float x = plot_min.x + col_w * float(t) + 3;
    draw_label(s, dl, "lifetimes.step", ImVec2(x, origin.y), kTextColor,
               elide_to_width(label, std::min(col_w * float(every), plot_max.x - x + 3) - 6), header, taken);
  }
  const ImVec4 label_column(origin.x, plot_min.y, plot_min.x - 4, plot_max.y);
  const float visible_top = dl->GetClipRectMin().y, visible_bottom = dl->GetClipRectMax().y;

  std::vector<RectInstance> rects;
  rects.reserve(size_t(rows) + 1 + (s.stress_rects ? 10000 : 0));
  // The current step as a shaded column behind the bars.
  rects.push_back({float(s.step), 0.0f, float(s.step + 1), float(rows), kStepShade});
  const std::vector<int> peak_live = a.steps.empty() ? std::vector<int>{} : a.live_at(a.peak_step);
  for (int b = 0; b < rows; ++b) {
    const LiveBuffer& buf = a.buffers[b];
    const bool at_peak = std::binary_search(peak_live.begin(), peak_live.end(), b);
    // "*" marks buffers live at the peak step (a text mark, not only a colour). The size is the
    // tensor's data size, as the Graph and Tensors views give it (the arena slot rounds it up to
    // the graph's alignment: the Arena view shows slots). The name goes without the graph's
    // shared scope and is elided to the label column (the full name on hover), so long tensor
    // names never run into the bars nor hide the size.
    const std::string size = " " + kib_text(data_bytes(s.graph, buf));
    const std::string mark = at_peak ? "*" : " ";
    const float name_w = plot_min.x - 4 - origin.x - ImGui::CalcTextSize((mark + size).c_str()).x;
    const std::string label = mark + elide_to_width(without_scope(buf.name, scopes.tensors), name_w) + size;
    const ImVec2 row(origin.x, plot_min.y + line * float(b));
    if (row.y + line >= visible_top && row.y <= visible_bottom) {  // rows scrolled out of view: no label
      draw_label(s, dl, "lifetimes.buffer", row, kTextColor, label, label_column, taken);
      if (ImGui::IsMouseHoveringRect(row, ImVec2(plot_min.x - 4, row.y + line)) && ImGui::IsWindowHovered())
        full_text_tooltip(buf.name + size);
    }
    rects.push_back({float(buf.first), float(b) + 0.15f, float(buf.last + 1), float(b) + 0.85f, color_of(buf.category)});
  }
  if (s.stress_rects) {
    add_stress_rects(rects, float(steps), float(rows));
    request_redraw(s);  // a stress test measures frame rate: keep drawing while it is on
  }
  if (!queue_rects(dl, plot_min, plot_max, {0, 0, float(steps), float(rows)}, std::move(rects)))
    ImGui::TextColored(kColorError, "GPU rectangles unavailable: %s", rect_renderer_error().c_str());
  text_wrapped("Rows: arena buffers (* = live at the peak step " + std::to_string(a.peak_step) + "). Columns: steps.");
}

JsonOut export_gpu(const AppState& s) {
  const RectRendererStats st = rect_renderer_stats();
  return {{"queued_rects", st.frame_rects}, {"draw_calls", st.draw_calls}, {"drawn_rects", st.drawn_rects},
          {"layer_renders", st.layer_renders},
          {"stress", s.stress_rects}, {"error", rect_renderer_error()}, {"fps", ImGui::GetIO().Framerate}};
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kBottom, 5, "Lifetimes", draw_lifetimes_panel);
ARENAPLAN_STATE_EXPORT("gpu_rects", export_gpu);

}  // namespace arenaplan::web
