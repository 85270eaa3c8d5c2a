// Live-bytes panel: live bytes per step as a bar chart (ImDrawList), the peak marked with text,
// the live set of the current step, and step controls; plus core's text timeline in the bottom
// tile. Every number is read from the LiveAnalysis core computed; nothing is recomputed here.
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/schedule/schedule.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"
#include "web/panel_exercise.h"
#include "web/ui_style.h"

namespace arenaplan::web {

// Listing every order is instant for classroom graphs and pointless for real models, whose order
// count explodes; the bound keeps a big model's first frame free of it.
constexpr size_t kBestOrderMaxOps = 16;
constexpr int64_t kBestOrderList = 5000;

const BestOrder& best_order(AppState& s) {
  return s.live_panel.best.get(s.graph_revision, [&](BestOrder& out) {
    if (s.graph.ops.size() > kBestOrderMaxOps) return;
    try {
      const OrderCount count = count_orders(s.graph, kBestOrderList);
      if (!count.exact() || count.value > static_cast<unsigned __int128>(kBestOrderList)) return;
      const Enumeration e = enumerate_orders(s.graph, kBestOrderList, kBestOrderList);
      if (!e.scanned_all || e.orders.empty()) return;
      const auto best = std::min_element(e.orders.begin(), e.orders.end(),
                                         [](const OrderPeak& a, const OrderPeak& b) { return a.peak_bytes < b.peak_bytes; });
      out = {true, best->order, best->peak_bytes};
    } catch (const std::exception&) {
      out = BestOrder();  // an order count core cannot give: nothing to claim
    }
  });
}

namespace {

// "The best order peaks at 136 KiB (A, B, C, D, E, F)" with one click to show it, or that this
// order is already the best: the story of the two-branch graph told where the peak is drawn.
void draw_best_order(AppState& s) {
  // Under an exam lock on the optimiser the best order is an answer, not a hint.
  if (!exam_lock_note(s, ExamTool::kOptimiseOrder).empty()) return;
  const BestOrder& best = best_order(s);
  if (!best.known) return;
  if (best.peak_bytes >= s.live.peak_bytes) {
    ImGui::TextWrapped("This order is the best possible: no order of these ops peaks below %s.",
                       kib_text(best.peak_bytes).c_str());
    record_item_rect(s, "live.best_text");
    return;
  }
  ImGui::TextWrapped("The best order peaks at %s (%s), %s less than this one.", kib_text(best.peak_bytes).c_str(),
                     order_names(s.graph, best.order).c_str(), kib_text(s.live.peak_bytes - best.peak_bytes).c_str());
  record_item_rect(s, "live.best_text");
  if (ImGui::Button("Show the best order")) set_order(s, best.order);
  record_item_rect(s, "live.show_best");
}

void draw_step_controls(AppState& s) {
  const Step n = Step(s.live.steps.size());
  ImGui::BeginDisabled(s.step <= 0);
  if (ImGui::Button("< Prev step")) set_step(s, s.step - 1);
  ImGui::EndDisabled();
  record_item_rect(s, "live.prev");
  ImGui::SameLine();
  ImGui::BeginDisabled(s.step + 1 >= n);
  if (ImGui::Button("Next step >")) set_step(s, s.step + 1);
  ImGui::EndDisabled();
  record_item_rect(s, "live.next");
  ImGui::SameLine();
  if (n > 0) {
    const StepLive& cur = s.live.steps[s.step];
    text_elided("Step " + std::to_string(s.step) + " (0.." + std::to_string(n - 1) + "): op " +
                without_scope(s.graph.ops[cur.op].name, name_scopes(s).ops) + ", " + kib_text(cur.live_bytes) +
                " live   (Alt+Left / Alt+Right)");
  }
}

// One bar per step, scaled to the peak; clicking a bar selects that step.
void draw_bar_chart(AppState& s, float height) {
  const LiveAnalysis& a = s.live;
  const Step n = Step(a.steps.size());
  if (n == 0 || a.peak_bytes <= 0) {
    ImGui::TextDisabled("Nothing live: the graph has no arena tensors.");
    return;
  }
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 200.0f);
  ImGui::InvisibleButton("chart", ImVec2(width, height));
  const bool clicked = ImGui::IsItemClicked();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  record_item_rect(s, "live.chart");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float axis_w = ImGui::CalcTextSize("0000 KiB").x + 6;
  const float top = origin.y + line * 2.2f;  // room for the value and "PEAK" labels
  const float bottom = origin.y + height - line * 1.6f;  // room for op names
  const float left = origin.x + axis_w;
  const float plot_w = width - axis_w;
  const float slot = plot_w / float(n);
  const float bar_w = std::max(4.0f, slot * 0.62f);
  auto y_of = [&](Bytes b) { return bottom - (bottom - top) * float(double(b) / double(a.peak_bytes)); };

  // Every label goes through draw_label: one that would overlap another is left out, so with
  // hundreds of steps the chart thins its labels instead of smearing them. The current step's and
  // the peak's labels are placed first so they are the ones kept.
  std::vector<ImVec4> taken;
  const ImVec4 box(origin.x, origin.y, origin.x + width, origin.y + height);
  const std::string& scope = name_scopes(s).ops;
  auto short_name = [&](OpId op) { return without_scope(s.graph.ops[op].name, scope); };
  auto labels_of = [&](Step t) {
    const StepLive& st = a.steps[t];
    const float cx = left + slot * (float(t) + 0.5f);
    const float y = y_of(st.live_bytes);
    const std::string value = kib_text(st.live_bytes);
    draw_label(s, dl, "live.value", ImVec2(cx - ImGui::CalcTextSize(value.c_str()).x * 0.5f, y - line - 2), kTextColor,
               value, box, taken);
    if (st.live_bytes == a.peak_bytes)
      draw_label(s, dl, "live.peak", ImVec2(cx - ImGui::CalcTextSize("PEAK").x * 0.5f, y - line * 2 - 2), kPeakColor,
                 "PEAK", box, taken);
    const std::string name = (t == s.step ? "^ " : "") + short_name(st.op);  // current step marked in text too
    draw_label(s, dl, "live.op", ImVec2(cx - ImGui::CalcTextSize(name.c_str()).x * 0.5f, bottom + 3), kTextColor, name,
               box, taken);
  };
  if (s.step < n) labels_of(s.step);
  if (a.peak_step != s.step && a.peak_step < n) labels_of(a.peak_step);

  // Grid lines at quarters of the peak, labelled in KiB.
  for (int q = 0; q <= 4; ++q) {
    const Bytes b = a.peak_bytes * q / 4;
    const float y = y_of(b);
    dl->AddLine(ImVec2(left, y), ImVec2(origin.x + width, y), kGridColor);
    draw_label(s, dl, "live.axis", ImVec2(origin.x, y - line * 0.5f), kTextColor, kib_text(b), box, taken);
  }

  for (Step t = 0; t < n; ++t) {
    const StepLive& st = a.steps[t];
    const float cx = left + slot * (float(t) + 0.5f);
    const ImVec2 p0(cx - bar_w * 0.5f, y_of(st.live_bytes));
    const ImVec2 p1(cx + bar_w * 0.5f, bottom);
    const bool is_peak = st.live_bytes == a.peak_bytes;
    dl->AddRectFilled(p0, p1, is_peak ? kPeakColor : kBarColor);
    if (t == s.step) dl->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p1.x + 2, p1.y + 2), kCurrentColor, 0, 0, 2.0f);

    if (t != s.step && t != a.peak_step) labels_of(t);
    if (ImGui::IsItemHovered() && mouse.x >= cx - slot * 0.5f && mouse.x < cx + slot * 0.5f)
      ImGui::SetTooltip("step %d: %s, %s live", t, s.graph.ops[st.op].name.c_str(), kib_text(st.live_bytes).c_str());

    // Exported so tests can click a bar by step without knowing the layout.
    s.ui_rects_building["live.bar." + std::to_string(t)] = {cx - slot * 0.5f, top, cx + slot * 0.5f, bottom};
    if (clicked && mouse.x >= cx - slot * 0.5f && mouse.x < cx + slot * 0.5f) set_step(s, t);
  }
}

void draw_live_set(AppState& s) {
  if (s.live.steps.empty()) return;
  const StepLive& cur = s.live.steps[s.step];
  const NameScopes& scopes = name_scopes(s);
  ImGui::Text("Live during step %d (%s): %s", s.step, without_scope(s.graph.ops[cur.op].name, scopes.ops).c_str(),
              kib_text(cur.live_bytes).c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("liveset", 4, flags)) {
    ImGui::TableSetupColumn("Buffer");
    ImGui::TableSetupColumn("Size");
    ImGui::TableSetupColumn("Live steps");
    ImGui::TableSetupColumn("Note", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (int b : s.live.live_at(s.step)) {
      const LiveBuffer& buf = s.live.buffers[b];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(without_scope(buf.name, scopes.tensors).c_str());
      if (ImGui::IsItemHovered() && !scopes.tensors.empty()) full_text_tooltip(buf.name);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(kib_text(buf.size).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d..%d", buf.first, buf.last);
      ImGui::TableNextColumn();
      std::string note = category_name(buf.category);
      if (buf.first == s.step) note += ", born here";
      if (buf.last == s.step) note += ", last use here";
      ImGui::TextUnformatted(note.c_str());
    }
    ImGui::EndTable();
  }
}

void draw_live_panel(AppState& s) {
  handle_step_keys(s);
  const LiveAnalysis& a = s.live;
  // One line: a long order (hundreds of ops) is elided, the whole of it on hover.
  if (!a.steps.empty())
    text_elided("Peak " + kib_text(a.peak_bytes) + " (" + std::to_string(a.peak_bytes) + " bytes) at step " +
                std::to_string(a.peak_step) + " (" + without_scope(s.graph.ops[a.steps[a.peak_step].op].name, name_scopes(s).ops) +
                "); order " + order_names(s.graph, s.order));
  draw_best_order(s);
  draw_step_controls(s);
  const float chart_h = std::clamp(ImGui::GetContentRegionAvail().y * 0.55f, 160.0f, 420.0f);
  draw_bar_chart(s, chart_h);
  ImGui::Separator();
  draw_live_set(s);
}

void draw_timeline_panel(AppState& s) {
  if (s.debug_figures) ImGui::TextDisabled("core timeline_text(): one row per step, live buffers as bars");
  // A text dump whose rows grow with the graph: it scrolls sideways rather than run past the panel.
  ImGui::BeginChild("timeline", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::TextUnformatted(s.timeline.c_str());
  ImGui::EndChild();
}

JsonOut export_best_order(const AppState& s) {
  const BestOrder& best = s.live_panel.best.value();  // as last drawn
  if (!best.known) return {{"known", false}};
  return {{"known", true}, {"order", order_json(s.graph, best.order)}, {"peak_bytes", best.peak_bytes}};
}

}  // namespace

ARENAPLAN_STATE_EXPORT("best_order", export_best_order);

ARENAPLAN_PANEL_AT(PanelArea::kMain, 10, "Live bytes", draw_live_panel);
ARENAPLAN_PANEL_AT(PanelArea::kBottom, 10, "Timeline (text)", draw_timeline_panel);

}  // namespace arenaplan::web
