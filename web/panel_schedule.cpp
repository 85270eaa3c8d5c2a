// Schedule panel (issue 3): every operator order (when countable) sorted by peak with a histogram
// of peaks; click one to make it current; step through it (Alt+Left / Alt+Right) watching the live
// set and live bytes; compare it with a second order step by step; run the optimiser time-sliced
// across frames with a progress bar, so the page never freezes. Every number comes from core
// (count_orders, enumerate_orders, ScheduleSearch, analyze_lifetimes, schedule_json).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"

namespace arenaplan::web {
namespace {

constexpr int64_t kListLimit = 5000;          // orders listed in the panel at most
constexpr int64_t kCountLevelCap = 1 << 14;   // down-sets per level before counting gives up
constexpr double kSliceSeconds = 0.012;       // optimiser time per frame

// View-side state like the other panels' (the graph and current order stay in AppState).
struct ScheduleView {
  std::string graph_key;
  OrderCount count;
  std::vector<OrderPeak> orders;  // sorted by peak, then enumeration order
  bool listed_all = false;
  Schedule compare;               // the second order of the side-by-side table
  std::string compare_label;
  LiveAnalysis compare_live;
  std::unique_ptr<ScheduleSearch> search;
  bool has_result = false;
  ScheduleResult result;
  JsonOut result_json;
  std::string error;
};

ScheduleView g_view;

void set_compare(const AppState& s, const Schedule& order, const std::string& label) {
  g_view.compare = order;
  g_view.compare_label = label;
  g_view.compare_live = analyze_lifetimes(s.graph, order);
}

void refresh(AppState& s) {
  const std::string key = s.example_name + "\n" + s.graph_json;
  if (key == g_view.graph_key) return;
  g_view = ScheduleView();
  g_view.graph_key = key;
  try {
    g_view.count = count_orders(s.graph, kCountLevelCap);
    if (g_view.count.exact() && g_view.count.value <= static_cast<unsigned __int128>(kListLimit)) {
      Enumeration e = enumerate_orders(s.graph, kListLimit, kListLimit);
      g_view.orders = e.orders;
      g_view.listed_all = e.scanned_all;
      std::stable_sort(g_view.orders.begin(), g_view.orders.end(),
                       [](const OrderPeak& a, const OrderPeak& b) { return a.peak_bytes < b.peak_bytes; });
    }
    Schedule file = s.graph.file_order();
    try {
      check_order(s.graph, file);
    } catch (const InputError&) {
      file = topological_order(s.graph);
    }
    set_compare(s, file, "file order");
  } catch (const std::exception& e) {
    g_view.error = e.what();
  }
}

// Histogram of peaks over the listed orders: one bar per distinct peak (binned when many).
void draw_histogram(AppState& s) {
  if (g_view.orders.empty()) return;
  const Bytes lo = g_view.orders.front().peak_bytes, hi = g_view.orders.back().peak_bytes;
  std::vector<Bytes> distinct;
  for (const OrderPeak& o : g_view.orders)
    if (distinct.empty() || distinct.back() != o.peak_bytes) distinct.push_back(o.peak_bytes);
  const int bins = std::min<int>(static_cast<int>(distinct.size()), 30);
  std::vector<int> counts(bins, 0);
  auto bin_of = [&](Bytes p) {
    if (bins == static_cast<int>(distinct.size()))
      return static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), p) - distinct.begin());
    return std::min(bins - 1, static_cast<int>(double(p - lo) / double(std::max<Bytes>(1, hi - lo)) * bins));
  };
  for (const OrderPeak& o : g_view.orders) ++counts[bin_of(o.peak_bytes)];
  const int most = *std::max_element(counts.begin(), counts.end());
  const float width = std::min(ImGui::GetContentRegionAvail().x, 60.0f * bins + 10), height = 44;
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##histogram", ImVec2(width, height + 16));
  record_item_rect(s, "schedule.histogram");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bar = width / bins;
  const int current = s.live.steps.empty() ? -1 : bin_of(s.live.peak_bytes);
  for (int b = 0; b < bins; ++b) {
    const float h = height * counts[b] / std::max(1, most);
    const ImU32 color = b == current ? IM_COL32(230, 159, 0, 255) : IM_COL32(86, 180, 233, 255);
    dl->AddRectFilled(ImVec2(p0.x + b * bar + 1, p0.y + height - h), ImVec2(p0.x + (b + 1) * bar - 1, p0.y + height), color);
    char label[48];
    std::snprintf(label, sizeof label, "%d", counts[b]);
    dl->AddText(ImVec2(p0.x + b * bar + 2, p0.y + height - h - 14 < p0.y ? p0.y : p0.y + height - h - 14),
                IM_COL32(240, 240, 240, 255), label);
  }
  dl->AddText(ImVec2(p0.x, p0.y + height + 2), IM_COL32(200, 200, 200, 255), kib_text(lo).c_str());
  const std::string hi_text = kib_text(hi);
  dl->AddText(ImVec2(p0.x + width - ImGui::CalcTextSize(hi_text.c_str()).x, p0.y + height + 2),
              IM_COL32(200, 200, 200, 255), hi_text.c_str());
}

void draw_orders(AppState& s) {
  ImGui::Text("Orders: %s%s", g_view.count.text().c_str(), g_view.count.exact() ? "" : " (not exact)");
  if (g_view.orders.empty()) {
    ImGui::TextDisabled("Too many to list here (more than %lld); use the optimiser.", (long long)kListLimit);
    return;
  }
  ImGui::SameLine();
  ImGui::TextDisabled("  peaks %s .. %s, sorted by peak", kib_text(g_view.orders.front().peak_bytes).c_str(),
                      kib_text(g_view.orders.back().peak_bytes).c_str());
  draw_histogram(s);
  ImGui::BeginChild("##orders", ImVec2(0, 7 * ImGui::GetTextLineHeightWithSpacing()), true);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(g_view.orders.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const OrderPeak& o = g_view.orders[i];
      const std::string label = kib_text(o.peak_bytes) + "   " + order_names(s.graph, o.order, "-");
      ImGui::PushID(i);
      if (ImGui::Selectable(label.c_str(), o.order == s.order)) set_order(s, o.order);
      record_item_rect(s, "schedule.order." + std::to_string(i));
      if (ImGui::BeginPopupContextItem()) {
        if (ImGui::MenuItem("Compare with the current order")) set_compare(s, o.order, "order #" + std::to_string(i));
        ImGui::EndPopup();
      }
      ImGui::PopID();
    }
  ImGui::EndChild();
  ImGui::TextDisabled("Click: make current.  Right-click: compare side by side.");
}

void draw_optimiser(AppState& s) {
  if (!g_view.search) {
    if (ImGui::Button("Optimise order")) {
      g_view.search = std::make_unique<ScheduleSearch>(s.graph);
      g_view.has_result = false;
    }
    record_item_rect(s, "schedule.optimise");
  } else {
    // Time-sliced: a few milliseconds of search per frame keep the page responsive.
    const auto start = std::chrono::steady_clock::now();
    while (!g_view.search->done() &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < kSliceSeconds)
      g_view.search->step(512);
    request_redraw(s);
    if (ImGui::Button("Cancel")) g_view.search->cancel();
    record_item_rect(s, "schedule.cancel");
    ImGui::SameLine();
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "best %s, lower bound %s", kib_text(g_view.search->best_peak()).c_str(),
                  kib_text(g_view.search->lower_bound()).c_str());
    ImGui::ProgressBar(static_cast<float>(g_view.search->progress()), ImVec2(-1, 0), overlay);
    if (g_view.search->done()) {
      g_view.result = g_view.search->result();
      g_view.result_json = schedule_json(s.graph, g_view.result);
      g_view.has_result = true;
      g_view.search.reset();
      set_compare(s, g_view.result.order, "optimised");
    }
  }
  if (g_view.has_result) {
    const ScheduleResult& r = g_view.result;
    ImGui::SameLine();
    ImGui::Text("%s (%s) vs file order %s; lower bound %s; %s; %lld states, %.3f s", kib_text(r.peak_bytes).c_str(),
                r.method.c_str(), kib_text(r.baseline_peak_bytes).c_str(), kib_text(r.lower_bound_bytes).c_str(),
                r.proven_optimal ? "proven optimal" : "not proven", (long long)r.states_explored, r.seconds);
    if (ImGui::Button("Use the optimised order")) set_order(s, r.order);
    record_item_rect(s, "schedule.use");
    if (!r.explanation.empty() && ImGui::TreeNode("Why it cannot be lower")) {
      ImGui::TextWrapped("%s", r.explanation.c_str());
      ImGui::TreePop();
    }
  }
}

// Current order and the comparison order, per step: op, live bytes (as bars) and live set.
void draw_side_by_side(AppState& s) {
  const LiveAnalysis& a = s.live;
  const LiveAnalysis& b = g_view.compare_live;
  if (a.steps.empty() || b.steps.size() != a.steps.size()) return;
  const Bytes top = std::max(a.peak_bytes, b.peak_bytes);
  ImGui::Text("Current order (peak %s) vs %s (peak %s).  Step %d; Alt+Left / Alt+Right to step.",
              kib_text(a.peak_bytes).c_str(), g_view.compare_label.c_str(), kib_text(b.peak_bytes).c_str(), s.step);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##sbs", 5, flags, ImVec2(0, std::max(140.0f, ImGui::GetContentRegionAvail().y)))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"step", "current", "live (current | compared)", "compared", "live set (current / compared)"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  LiveSweep a_sweep(a), b_sweep(b);
  for (size_t i = 0; i < a.steps.size(); ++i) {
    ImGui::TableNextRow();
    if (static_cast<Step>(i) == s.step) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(90, 70, 20, 255));
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(std::to_string(i).c_str(), static_cast<Step>(i) == s.step, ImGuiSelectableFlags_SpanAllColumns))
      set_step(s, static_cast<Step>(i));
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(s.graph.ops[a.steps[i].op].name.c_str());
    ImGui::TableNextColumn();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    auto bar = [&](float y0, float y1, Bytes v, bool peak) {
      const float len = top > 0 ? (w - 2) * float(double(v) / double(top)) : 0;
      dl->AddRectFilled(ImVec2(p.x, p.y + y0), ImVec2(p.x + len, p.y + y1),
                        peak ? IM_COL32(213, 94, 0, 255) : IM_COL32(0, 158, 115, 255));
    };
    bar(0, h / 2 - 1, a.steps[i].live_bytes, static_cast<Step>(i) == a.peak_step);
    bar(h / 2, h - 1, b.steps[i].live_bytes, static_cast<Step>(i) == b.peak_step);
    ImGui::Text("%s | %s", kib_text(a.steps[i].live_bytes).c_str(), kib_text(b.steps[i].live_bytes).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(s.graph.ops[b.steps[i].op].name.c_str());
    ImGui::TableNextColumn();
    std::string live;
    for (int x : a_sweep.at(static_cast<Step>(i))) live += a.buffers[x].name + " ";
    live += "/ ";
    for (int x : b_sweep.at(static_cast<Step>(i))) live += b.buffers[x].name + " ";
    ImGui::TextUnformatted(live.c_str());
  }
  ImGui::EndTable();
}

void draw_schedule(AppState& s) {
  refresh(s);
  handle_step_keys(s);
  if (!g_view.error.empty()) {
    ImGui::TextWrapped("Error: %s", g_view.error.c_str());
    return;
  }
  draw_orders(s);
  ImGui::Separator();
  draw_optimiser(s);
  ImGui::Separator();
  draw_side_by_side(s);
}

JsonOut export_schedule(const AppState& s) {
  JsonOut orders = JsonOut::array();
  for (size_t i = 0; i < g_view.orders.size() && i < 50; ++i)
    orders.push_back({{"order", order_json(s.graph, g_view.orders[i].order)}, {"peak_bytes", g_view.orders[i].peak_bytes}});
  JsonOut out;
  out["count_text"] = g_view.count.text();
  out["count_exact"] = g_view.count.exact();
  out["listed"] = static_cast<int64_t>(g_view.orders.size());
  out["orders_by_peak"] = orders;  // the first 50 of the sorted list
  out["compare_label"] = g_view.compare_label;
  out["compare_order"] = order_json(s.graph, g_view.compare);
  out["running"] = static_cast<bool>(g_view.search);
  out["progress"] = g_view.search ? g_view.search->progress() : (g_view.has_result ? 1.0 : 0.0);
  out["result"] = g_view.has_result ? g_view.result_json : JsonOut();
  return out;
}

}  // namespace

ARENAPLAN_PANEL("Schedule", draw_schedule);
ARENAPLAN_STATE_EXPORT("schedule", export_schedule);

}  // namespace arenaplan::web
