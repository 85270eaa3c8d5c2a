// Schedule panel: every operator order (when countable) sorted by peak with a histogram
// of peaks; click one to make it current; step through it (Alt+Left / Alt+Right) watching the live
// set and live bytes; compare it with a second order step by step; run the optimiser time-sliced
// across frames with a progress bar, so the page never freezes. Every number comes from core
// (count_orders, enumerate_orders, ScheduleSearch, analyze_lifetimes, schedule_json).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"
#include "core/transform/schedule_views.h"
#include "core/transform/transform.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_exercise.h"
#include "web/panel_common.h"

namespace arenaplan::web {
namespace {

constexpr int64_t kListLimit = 5000;          // orders listed in the panel at most
constexpr int64_t kCountLevelCap = 1 << 14;   // down-sets per level before counting gives up

void set_compare(AppState& s, const Schedule& order, const std::string& label) {
  SchedulePanelState& v = s.schedule;
  v.compare = order;
  v.compare_label = label;
  v.compare_live = analyze_lifetimes(s.graph, order);
}

// The orders of the graph, once per graph (not per order change: the optimiser's result and the
// comparison survive a click on "Use the optimised order"); a new graph resets the whole panel.
const ScheduleOrders& refresh(AppState& s) {
  SchedulePanelState& v = s.schedule;
  return v.orders.get(s.graph_revision, [&](ScheduleOrders& o) {
    v.search.reset();
    v.search_error.clear();
    v.has_result = false;
    v.result = ScheduleResult();
    v.result_json = JsonOut();
    v.compare.clear();
    v.compare_label.clear();
    v.compare_live = LiveAnalysis();
    try {
      o.count = count_orders(s.graph, kCountLevelCap);
      if (o.count.exact() && o.count.value <= static_cast<unsigned __int128>(kListLimit)) {
        Enumeration e = enumerate_orders(s.graph, kListLimit, kListLimit);
        o.orders = e.orders;
        o.listed_all = e.scanned_all;
        std::stable_sort(o.orders.begin(), o.orders.end(),
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
      o.error = e.what();
    }
  });
}

// Histogram of peaks over the listed orders: one bar per distinct peak (binned when many).
void draw_histogram(AppState& s) {
  const ScheduleOrders& o = s.schedule.orders.value();
  if (o.orders.empty()) return;
  const Bytes lo = o.orders.front().peak_bytes, hi = o.orders.back().peak_bytes;
  std::vector<Bytes> distinct;
  for (const OrderPeak& p : o.orders)
    if (distinct.empty() || distinct.back() != p.peak_bytes) distinct.push_back(p.peak_bytes);
  const int bins = std::min<int>(static_cast<int>(distinct.size()), 30);
  std::vector<int> counts(bins, 0);
  auto bin_of = [&](Bytes p) {
    if (bins == static_cast<int>(distinct.size()))
      return static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), p) - distinct.begin());
    return std::min(bins - 1, static_cast<int>(double(p - lo) / double(std::max<Bytes>(1, hi - lo)) * bins));
  };
  for (const OrderPeak& p : o.orders) ++counts[bin_of(p.peak_bytes)];
  const int most = *std::max_element(counts.begin(), counts.end());
  const float width = std::min(ImGui::GetContentRegionAvail().x, 60.0f * bins + 10), height = 44;
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##histogram", ImVec2(width, height + 4 + ImGui::GetTextLineHeight()));
  record_item_rect(s, "schedule.histogram");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bar = width / bins;
  const int current = s.live.steps.empty() ? -1 : bin_of(s.live.peak_bytes);
  // Labels go through draw_label: only where they fit and never over another label (one peak
  // value gives lo == hi: a single axis label, not two overprinted ones).
  std::vector<ImVec4> taken;
  const float line = ImGui::GetTextLineHeight();
  const ImVec4 box(p0.x, p0.y, p0.x + width, p0.y + height + 2 + line);
  for (int b = 0; b < bins; ++b) {
    const float h = height * counts[b] / std::max(1, most);
    const ImU32 color = b == current ? IM_COL32(230, 159, 0, 255) : IM_COL32(86, 180, 233, 255);
    dl->AddRectFilled(ImVec2(p0.x + b * bar + 1, p0.y + height - h), ImVec2(p0.x + (b + 1) * bar - 1, p0.y + height), color);
    char label[48];
    std::snprintf(label, sizeof label, "%d", counts[b]);
    draw_label(s, dl, "schedule.histogram", ImVec2(p0.x + b * bar + 2, std::max(p0.y, p0.y + height - h - line)),
               IM_COL32(240, 240, 240, 255), label, box, taken);
  }
  draw_label(s, dl, "schedule.histogram", ImVec2(p0.x, p0.y + height + 2), IM_COL32(200, 200, 200, 255), kib_text(lo),
             box, taken);
  const std::string hi_text = kib_text(hi);
  if (hi != lo)
    draw_label(s, dl, "schedule.histogram", ImVec2(p0.x + width - ImGui::CalcTextSize(hi_text.c_str()).x, p0.y + height + 2),
               IM_COL32(200, 200, 200, 255), hi_text, box, taken);
}

void draw_orders(AppState& s) {
  if (draw_exam_lock(s, ExamTool::kOrderList)) return;
  const ScheduleOrders& o = s.schedule.orders.value();
  ImGui::Text("Orders: %s%s", o.count.text().c_str(), o.count.exact() ? "" : " (not exact)");
  if (o.orders.empty()) {
    ImGui::TextDisabled("Too many to list here (more than %lld); use the optimiser.", (long long)kListLimit);
    return;
  }
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("  peaks %s .. %s, sorted by peak", kib_text(o.orders.front().peak_bytes).c_str(),
                      kib_text(o.orders.back().peak_bytes).c_str());
  ImGui::PopTextWrapPos();
  draw_histogram(s);
  ImGui::BeginChild("##orders", ImVec2(0, 7 * ImGui::GetTextLineHeightWithSpacing()), true);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(o.orders.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const OrderPeak& p = o.orders[i];
      const std::string label = kib_text(p.peak_bytes) + "   " + order_names(s.graph, p.order, "-");
      ImGui::PushID(i);
      if (ImGui::Selectable(label.c_str(), p.order == s.order)) set_order(s, p.order);
      record_item_rect(s, "schedule.order." + std::to_string(i));
      if (ImGui::BeginPopupContextItem()) {
        if (ImGui::MenuItem("Compare with the current order")) set_compare(s, p.order, "order #" + std::to_string(i));
        ImGui::EndPopup();
      }
      ImGui::PopID();
    }
  ImGui::EndChild();
  ImGui::TextDisabled("Click: make current.  Right-click: compare side by side.");
}

// The search's optimum with identity ops as views, in words, once it checks out like the order
// does: the rewrites applied to this graph, and the order's peak on what they leave. Empty when
// the graph has no such op or the answer does not check out (the panel then shows none).
std::string checked_views_text(const AppState& s, const JsonOut& views, const ScheduleResult& file) {
  if (!views.is_object()) return "";
  try {
    ViewSchedule v;
    v.graph = s.graph;
    for (const auto& spec : views.at("rewrites")) {
      v.rewrites.push_back(spec.get<std::string>());
      v.graph = apply_transformation(v.graph, parse_transformation(v.rewrites.back()), {}).graph;
    }
    std::string names;
    for (const auto& name : views.at("order")) names += (names.empty() ? "" : ",") + name.get<std::string>();
    v.result.order = parse_order(v.graph, names);
    v.result.peak_bytes = analyze_lifetimes(v.graph, v.result.order).peak_bytes;
    v.result.lower_bound_bytes = views.at("lower_bound_bytes").get<Bytes>();
    v.result.proven_optimal = views.at("proven_optimal").get<bool>();
    if (v.result.peak_bytes != views.at("peak_bytes").get<Bytes>() || v.result.peak_bytes > file.peak_bytes) return "";
    const std::string text = view_schedule_text(v, file, "MODEL");
    return text.substr(text.find_first_not_of('\n'));
  } catch (const std::exception&) {
    return "";
  }
}

// The search's order is shown only when it checks out on the page: a valid order of this graph
// whose peak under analyze_lifetimes is the one the search claims. Every other figure of the
// result (bound, method, states) is the search's own report.
void finish_search(AppState& s) {
  SchedulePanelState& v = s.schedule;
  const SearchJob& job = *v.search;
  if (!job.error().empty()) {
    v.search_error = "The search failed: " + job.error();
    return;
  }
  const JsonOut& j = job.result();
  ScheduleResult r;
  try {
    std::string names;
    for (const auto& name : j.at("order")) names += (names.empty() ? "" : ",") + name.get<std::string>();
    r.order = parse_order(s.graph, names);  // throws unless it is a valid order of this graph
    r.peak_bytes = analyze_lifetimes(s.graph, r.order).peak_bytes;
    if (r.peak_bytes != j.at("peak_bytes").get<Bytes>()) {
      v.search_error = "Refused the search's order: its peak is " + kib_text(r.peak_bytes) + ", not the " +
                       kib_text(j.at("peak_bytes").get<Bytes>()) + " it reported.";
      return;
    }
    r.baseline_peak_bytes = j.at("baseline_peak_bytes").get<Bytes>();
    r.lower_bound_bytes = j.at("lower_bound_bytes").get<Bytes>();
    r.proven_optimal = j.at("proven_optimal").get<bool>();
    r.states_explored = j.at("states_explored").get<int64_t>();
    r.seconds = j.at("seconds").get<double>();
    r.method = j.value("method", std::string());
    r.explanation = j.value("explanation", std::string());
    r.memory_bytes = j.value("memory_bytes", int64_t{0});
    r.memory_cap_bytes = j.value("memory_cap_bytes", int64_t{0});
    r.memory_cap_hit = j.value("memory_cap_hit", false);
  } catch (const std::exception& e) {
    v.search_error = std::string("Refused the search's result: ") + e.what();
    return;
  }
  v.result = r;
  v.result_json = schedule_json(s.graph, v.result);
  v.views_text = checked_views_text(s, j.value("views", JsonOut()), r);
  if (!v.views_text.empty()) v.result_json["views"] = j.at("views");
  v.has_result = true;
  set_compare(s, v.result.order, "optimised");
}

void draw_optimiser(AppState& s) {
  if (draw_exam_lock(s, ExamTool::kOptimiseOrder)) {
    s.schedule.search.reset();  // a search started before the question opened stops with it
    return;
  }
  if (!s.schedule.search) {
    if (ImGui::Button("Optimise order")) {
      s.schedule.search = std::make_unique<SearchJob>(search_request(s, "schedule"));
      s.schedule.has_result = false;
      s.schedule.search_error.clear();
    }
    record_item_rect(s, "schedule.optimise");
    if (!s.schedule.search_error.empty()) {
      ImGui::SameLine();
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextUnformatted(s.schedule.search_error.c_str());
      ImGui::PopTextWrapPos();
    }
  } else {
    SearchJob& job = *s.schedule.search;
    job.poll();  // in a Worker: nothing to do here; otherwise a slice of search on this frame
    request_redraw(s);
    if (ImGui::Button("Cancel")) job.cancel();
    record_item_rect(s, "schedule.cancel");
    ImGui::SameLine();
    const JsonOut& p = job.progress();
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "best %s, lower bound %s", kib_text(p.value("best_bytes", Bytes{0})).c_str(),
                  kib_text(p.value("bound_bytes", Bytes{0})).c_str());
    ImGui::ProgressBar(static_cast<float>(p.value("progress", 0.0)), ImVec2(-1, 0), overlay);
    if (job.done()) {
      finish_search(s);
      s.schedule.search.reset();
    }
  }
  if (s.schedule.has_result) {
    const ScheduleResult& r = s.schedule.result;
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0.0f);  // the result wraps at the panel's edge instead of being cut
    ImGui::Text("%s (%s) vs file order %s; lower bound %s; %s; %lld states, %.3f s", kib_text(r.peak_bytes).c_str(),
                r.method.c_str(), kib_text(r.baseline_peak_bytes).c_str(), kib_text(r.lower_bound_bytes).c_str(),
                r.proven_optimal ? "proven optimal" : "not proven", (long long)r.states_explored, r.seconds);
    ImGui::PopTextWrapPos();
    if (!s.schedule.views_text.empty()) ImGui::TextWrapped("%s", s.schedule.views_text.c_str());
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
  const LiveAnalysis& b = s.schedule.compare_live;
  if (a.steps.empty() || b.steps.size() != a.steps.size()) return;
  const Bytes top = std::max(a.peak_bytes, b.peak_bytes);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("Current order (peak %s) vs %s (peak %s).  Step %d; Alt+Left / Alt+Right to step.",
              kib_text(a.peak_bytes).c_str(), s.schedule.compare_label.c_str(), kib_text(b.peak_bytes).c_str(), s.step);
  ImGui::PopTextWrapPos();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##sbs", 5, flags, ImVec2(0, std::max(140.0f, ImGui::GetContentRegionAvail().y)))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"step", "current", "live (current | compared)", "compared", "live set (current / compared)"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  // Cells hold names without the graph's shared scope, elided to their column (full text on hover).
  const NameScopes& scopes = name_scopes(s);
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
    text_elided(without_scope(s.graph.ops[a.steps[i].op].name, scopes.ops));
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
    text_elided(without_scope(s.graph.ops[b.steps[i].op].name, scopes.ops));
    ImGui::TableNextColumn();
    std::string live;
    for (int x : a_sweep.at(static_cast<Step>(i))) live += without_scope(a.buffers[x].name, scopes.tensors) + " ";
    live += "/ ";
    for (int x : b_sweep.at(static_cast<Step>(i))) live += without_scope(b.buffers[x].name, scopes.tensors) + " ";
    text_elided(live);
  }
  ImGui::EndTable();
}

void draw_schedule(AppState& s) {
  const ScheduleOrders& o = refresh(s);
  handle_step_keys(s);
  if (!o.error.empty()) {
    ImGui::TextWrapped("Error: %s", o.error.c_str());
    return;
  }
  draw_orders(s);
  ImGui::Separator();
  draw_optimiser(s);
  ImGui::Separator();
  draw_side_by_side(s);
}

JsonOut export_schedule(const AppState& s) {
  const ScheduleOrders& o = s.schedule.orders.value();
  JsonOut orders = JsonOut::array();
  for (size_t i = 0; i < o.orders.size() && i < 50; ++i)
    orders.push_back({{"order", order_json(s.graph, o.orders[i].order)}, {"peak_bytes", o.orders[i].peak_bytes}});
  JsonOut out;
  out["count_text"] = o.count.text();
  out["count_exact"] = o.count.exact();
  out["listed"] = static_cast<int64_t>(o.orders.size());
  out["orders_by_peak"] = orders;  // the first 50 of the sorted list
  out["compare_label"] = s.schedule.compare_label;
  out["compare_order"] = order_json(s.graph, s.schedule.compare);
  out["running"] = static_cast<bool>(s.schedule.search);
  out["in_worker"] = s.schedule.search && s.schedule.search->in_worker();  // false: stepped on the page
  out["progress"] = s.schedule.search ? s.schedule.search->progress().value("progress", 0.0) : (s.schedule.has_result ? 1.0 : 0.0);
  out["error"] = s.schedule.search_error;
  out["result"] = s.schedule.has_result ? s.schedule.result_json : JsonOut();
  return out;
}

}  // namespace

ARENAPLAN_PANEL("Schedule", draw_schedule);
ARENAPLAN_STATE_EXPORT("schedule", export_schedule);

}  // namespace arenaplan::web
