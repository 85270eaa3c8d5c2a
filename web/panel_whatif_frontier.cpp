// The What-if tab's Frontier: core's pareto_frontier (`arenaplan transform --auto --pareto`), the
// verified, bit-exact rewrite points of peak bytes against extra MACs, drawn as a chart (x: extra
// MACs in %, y: peak bytes; one marker per point, the step line between them, the current graph
// marked at 0 %) over a table of the same points. The search takes seconds to minutes, so it runs
// in the search worker (kind "pareto", web/worker/search_session.h) with progress and Stop; what
// comes back is checked on the page before it is drawn, and a click on a point puts its rewrites
// in the What-if list, whose report re-plans, verifies and simulates them (as "Use" does).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/graph/graph_edit.h"
#include "core/teach/share.h"
#include "core/transform/transform.h"
#include "imgui.h"
#include "web/panel_common.h"
#include "web/panel_whatif.h"
#include "web/ui_style.h"
#include "web/worker/search_session.h"

namespace arenaplan::web {
namespace {

constexpr float kChartHeight = 220;
constexpr float kMarkerRadius = 5;
constexpr float kHoverRadius = 9;  // how near the mouse must be to a marker to pick it
constexpr ImU32 kPointColor = IM_COL32(0x00, 0x9E, 0x73, 0xFF);  // Okabe-Ito bluish green
constexpr ImU32 kStepColor = IM_COL32(0x00, 0x9E, 0x73, 0xA0);

std::string pct_text(double pct) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f %%", pct);
  return b;
}

void forget_frontier(WhatIfPanelState& v) {
  v.frontier_job.reset();
  v.frontier.reset();
  v.frontier_json = nullptr;
  v.frontier_message.clear();
  v.frontier_hovered = v.frontier_taken = -1;
}

// Why the worker's frontier cannot be drawn as the frontier of the page's graph, or "". The worker
// ran core's pareto_frontier; the page does not trust the transport: the start is the page's own
// graph, and the points are what non_dominated promises (verified, outputs not differing, extra
// MACs rising and peak falling, within the cap asked for), each rewrite a well-formed spec.
std::string refusal(const ParetoFrontier& f, std::optional<Bytes> page_start_peak, double max_pct) {
  if (page_start_peak && f.start_peak_bytes != *page_start_peak)
    return "it starts from a peak of " + exact_bytes_text(f.start_peak_bytes) + ", the page's graph has " +
           exact_bytes_text(*page_start_peak);
  for (size_t i = 0; i < f.points.size(); ++i) {
    const ParetoPoint& p = f.points[i];
    const std::string which = "point " + std::to_string(i + 1);
    if (!p.verified || p.outputs_check == "differ") return which + " is not verified bit-exact";
    if (p.extra_macs_pct > max_pct + 1e-9) return which + " adds " + pct_text(p.extra_macs_pct) + ", over the cap";
    if (i > 0 && (p.extra_macs <= f.points[i - 1].extra_macs || p.peak_bytes >= f.points[i - 1].peak_bytes))
      return which + " does not trade MACs for memory against the point before it";
    for (const std::string& spec : p.rewrites) {
      try {
        parse_transformation(spec);
      } catch (const std::exception& e) {
        return which + " has an unreadable rewrite: " + e.what();
      }
    }
  }
  return "";
}

// The finished job's result, accepted or turned into a message (never half of both).
void finish_frontier(AppState& s, std::optional<Bytes> page_start_peak) {
  WhatIfPanelState& v = s.whatif;
  const SearchJob& job = *v.frontier_job;
  const JsonOut& result = job.result();
  const JsonOut progress = job.progress();
  if (!job.error().empty()) {
    v.frontier_message = "The frontier search failed: " + job.error();
  } else if (result.is_object() && result.contains("error")) {
    v.frontier_message = "The frontier search failed: " + result["error"].get<std::string>();
  } else if (result.value("cancelled", false)) {
    v.frontier_message = "Frontier stopped after " + std::to_string(progress.value("stage", 0)) + " of " +
                         std::to_string(progress.value("stages", 0)) +
                         " stages: nothing drawn (part of the ladder is not the frontier).";
  } else {
    try {
      ParetoFrontier f = pareto_frontier_from_json(result);
      const std::string why = refusal(f, page_start_peak, v.frontier_max_macs_pct);
      const bool beyond = std::any_of(f.points.begin(), f.points.end(),
                                      [&](const ParetoPoint& p) { return p.peak_bytes < f.start_peak_bytes; });
      if (!why.empty()) {
        v.frontier_message = "Refused the frontier: " + why + ".";
      } else if (!beyond) {
        char cap[32];
        std::snprintf(cap, sizeof cap, "%g", double(v.frontier_max_macs_pct));
        v.frontier_message = "No verified rewrite lowers the peak within +" + std::string(cap) +
                             " % MACs: the frontier is the current graph alone (peak " + kib_text(f.start_peak_bytes, 2) +
                             "). Nothing to draw.";
      } else {
        v.frontier = std::move(f);
        v.frontier_json = result;
      }
    } catch (const std::exception& e) {
      v.frontier_message = std::string("Refused the frontier: ") + e.what();
    }
  }
  v.frontier_job.reset();
}

// A click on a point (chart or table): its rewrites become the list, as "Use these rewrites" does.
void take_point(AppState& s, int i) {
  WhatIfPanelState& v = s.whatif;
  std::vector<WhatIfSpec> next;
  for (const std::string& spec : v.frontier->points[size_t(i)].rewrites) next.push_back({spec, true});
  edit_whatif_list(v, std::move(next));
  v.frontier_taken = i;
  v.frontier_taken_list = v.list_version;
}

void point_tooltip(const ParetoFrontier& f, int i) {
  const ParetoPoint& p = f.points[size_t(i)];
  ImGui::BeginTooltip();
  ImGui::Text("Point %d: peak %s (%s)", i + 1, kib_text(p.peak_bytes, 2).c_str(), exact_bytes_text(p.peak_bytes).c_str());
  ImGui::Text("extra MACs %lld (+%s), arena %s, outputs %s", (long long)p.extra_macs, pct_text(p.extra_macs_pct).c_str(),
              kib_text(p.arena_bytes, 2).c_str(), p.outputs_check.c_str());
  if (p.rewrites.empty()) ImGui::TextDisabled("no rewrites");
  for (const std::string& r : p.rewrites) ImGui::BulletText("%s", r.c_str());
  ImGui::TextDisabled("Click: put these rewrites in the list");
  ImGui::EndTooltip();
}

// The chart: x = extra MACs (%), y = peak bytes from 0; the staircase from the current graph
// through every point (each point holds its peak until the next one buys a lower one).
void draw_chart(AppState& s, const ParetoFrontier& f) {
  WhatIfPanelState& v = s.whatif;
  const float width = std::max(200.0f, ImGui::GetContentRegionAvail().x);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##frontier_chart", ImVec2(width, kChartHeight));
  record_item_rect(s, "whatif.frontier.chart");
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float left = origin.x + ImGui::CalcTextSize("000.00 KiB").x + 8, right = origin.x + width - 12;
  const float top = origin.y + line * 0.5f, bottom = origin.y + kChartHeight - line - 6;

  double x_max = 0;
  for (const ParetoPoint& p : f.points) x_max = std::max(x_max, p.extra_macs_pct);
  x_max = x_max > 0 ? x_max * 1.1 : 1.0;
  const double y_max = double(f.start_peak_bytes) * 1.08;
  const auto at = [&](double pct, Bytes peak) {
    return ImVec2(left + float(pct / x_max) * (right - left), bottom - float(double(peak) / y_max) * (bottom - top));
  };

  std::vector<ImVec4> taken;
  const ImVec4 box(origin.x, origin.y, origin.x + width, origin.y + kChartHeight);
  for (int k = 0; k <= 4; ++k) {  // y grid: peak bytes
    const Bytes b = Bytes(double(f.start_peak_bytes) * k / 4);
    const ImVec2 q = at(0, b);
    dl->AddLine(ImVec2(left, q.y), ImVec2(right, q.y), kGridColor);
    const std::string t = kib_text(b, 1);
    draw_label(s, dl, "whatif.frontier.y", ImVec2(left - 4 - ImGui::CalcTextSize(t.c_str()).x, q.y - line * 0.5f), kTextColor, t,
               box, taken);
  }
  for (int k = 0; k <= 4; ++k) {  // x grid: extra MACs
    const double pct = x_max * k / 4;
    const ImVec2 q = at(pct, 0);
    dl->AddLine(ImVec2(q.x, top), ImVec2(q.x, bottom), kGridColor);
    char t[32];
    std::snprintf(t, sizeof t, "+%.3g %%", pct);
    draw_label(s, dl, "whatif.frontier.x", ImVec2(std::min(q.x, right - ImGui::CalcTextSize(t).x), bottom + 3), kTextColor, t,
               box, taken);
  }

  // The staircase, from the current graph (0 %, today's peak) to the last point and on to the edge.
  ImVec2 prev = at(0, f.start_peak_bytes);
  for (const ParetoPoint& p : f.points) {
    const ImVec2 q = at(p.extra_macs_pct, p.peak_bytes);
    dl->AddLine(prev, ImVec2(q.x, prev.y), kStepColor, 2);
    dl->AddLine(ImVec2(q.x, prev.y), q, kStepColor, 2);
    prev = q;
  }
  dl->AddLine(prev, ImVec2(right, prev.y), kStepColor, 2);

  // The current graph: a hollow diamond, labelled.
  const ImVec2 now = at(0, f.start_peak_bytes);
  const float d = kMarkerRadius + 2;
  dl->AddQuad(ImVec2(now.x, now.y - d), ImVec2(now.x + d, now.y), ImVec2(now.x, now.y + d), ImVec2(now.x - d, now.y),
              kCurrentColor, 2);
  s.ui_rects_building["whatif.frontier.now"] = {now.x - d, now.y - d, now.x + d, now.y + d};
  draw_label(s, dl, "whatif.frontier.now", ImVec2(now.x + d + 4, now.y - line * 0.5f), kCurrentColor,
             "now " + kib_text(f.start_peak_bytes, 2), box, taken);

  // Markers; the one nearest the mouse (within kHoverRadius) is hovered.
  int nearest = -1;
  float nearest_d2 = kHoverRadius * kHoverRadius;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < f.points.size(); ++i) {
    const ImVec2 q = at(f.points[i].extra_macs_pct, f.points[i].peak_bytes);
    s.ui_rects_building["whatif.frontier.point." + std::to_string(i)] = {q.x - kMarkerRadius, q.y - kMarkerRadius,
                                                                          q.x + kMarkerRadius, q.y + kMarkerRadius};
    const float dx = mouse.x - q.x, dy = mouse.y - q.y;
    if (hovered && dx * dx + dy * dy <= nearest_d2) nearest = int(i), nearest_d2 = dx * dx + dy * dy;
  }
  v.frontier_hovered = nearest;
  for (size_t i = 0; i < f.points.size(); ++i) {
    const ImVec2 q = at(f.points[i].extra_macs_pct, f.points[i].peak_bytes);
    const bool hot = int(i) == nearest;
    dl->AddCircleFilled(q, hot ? kMarkerRadius + 2 : kMarkerRadius, hot ? kPeakColor : kPointColor);
    if (int(i) == v.frontier_taken) dl->AddCircle(q, kMarkerRadius + 4, kCurrentColor, 0, 2);
  }
  if (nearest >= 0) {
    point_tooltip(f, nearest);
    if (clicked) take_point(s, nearest);
  }
}

void draw_table(AppState& s, const ParetoFrontier& f) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("frontier", 6, flags)) return;
  for (const char* h : {"#", "peak", "arena", "extra MACs", "", "rewrites"}) ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted("now");
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(kib_text(f.start_peak_bytes, 2).c_str());
  bytes_tooltip(f.start_peak_bytes);
  ImGui::TableNextColumn();
  ImGui::TextDisabled("-");
  ImGui::TableNextColumn();
  ImGui::TextUnformatted("0 (+0.00 %)");
  ImGui::TableNextColumn();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("the graph as it is");
  for (size_t i = 0; i < f.points.size(); ++i) {
    const ParetoPoint& p = f.points[i];
    ImGui::PushID(int(i));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", int(i) + 1);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(kib_text(p.peak_bytes, 2).c_str());
    bytes_tooltip(p.peak_bytes);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(kib_text(p.arena_bytes, 2).c_str());
    bytes_tooltip(p.arena_bytes);
    ImGui::TableNextColumn();
    ImGui::Text("%lld (+%s)", (long long)p.extra_macs, pct_text(p.extra_macs_pct).c_str());
    ImGui::TableNextColumn();
    if (ImGui::SmallButton("Use")) take_point(s, int(i));
    record_item_rect(s, "whatif.frontier.use." + std::to_string(i));
    ImGui::TableNextColumn();
    std::string list;
    for (const std::string& r : p.rewrites) list += (list.empty() ? "" : "  ") + r;
    text_elided(list.empty() ? "(none)" : list);
    ImGui::PopID();
  }
  ImGui::EndTable();
}

}  // namespace

void draw_whatif_frontier(AppState& s, std::optional<Bytes> page_start_peak) {
  WhatIfPanelState& v = s.whatif;
  // A frontier belongs to the graph and order it was computed for.
  if ((v.frontier_job || v.frontier || !v.frontier_message.empty()) && v.frontier_revision != s.revision) forget_frontier(v);
  if (v.frontier_taken >= 0 && v.frontier_taken_list != v.list_version) v.frontier_taken = -1;  // the list moved on

  ImGui::Separator();
  text_wrapped("Frontier: peak against extra MACs (transform --auto --pareto)");
  ImGui::SetNextItemWidth(120);
  ImGui::InputFloat("max extra MACs (%)", &v.frontier_max_macs_pct, 5, 20, "%g");
  record_item_rect(s, "whatif.frontier.max_macs");
  v.frontier_max_macs_pct = std::clamp(v.frontier_max_macs_pct, 0.0f, 1000.0f);
  same_line_if_fits(260);
  ImGui::SetNextItemWidth(120);
  ImGui::InputFloat("s per cap", &v.frontier_seconds_per_cap, 1, 5, "%g");
  record_item_rect(s, "whatif.frontier.seconds");
  v.frontier_seconds_per_cap = std::clamp(v.frontier_seconds_per_cap, 0.1f, 600.0f);
  same_line_if_fits(200);
  ImGui::SetNextItemWidth(200);
  ImGui::InputTextWithHint("##frontier_kinds", "kinds (all): fuse,patch,...", v.frontier_kinds, sizeof v.frontier_kinds);
  record_item_rect(s, "whatif.frontier.kinds");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Only these rewrite kinds, comma-separated (--kinds); empty: every kind the search uses by default. "
                      "order:best is re-searched on a time limit wherever it is applied, so without it the points "
                      "do not depend on the machine's speed.");
  same_line_if_fits(80);
  if (!v.frontier_job) {
    if (ImGui::Button("Frontier")) {
      forget_frontier(v);
      JsonOut request = search_request(s, "pareto");
      request["max_extra_macs_pct"] = v.frontier_max_macs_pct;
      request["seconds_per_cap"] = v.frontier_seconds_per_cap;
      if (v.frontier_kinds[0]) request["kinds"] = split_names(v.frontier_kinds);
      if (const OpenedModel* m = current_model(s)) {  // the worker imports the model as the CLI does
        request["model_base64url"] = base64url_encode(m->bytes);
        request["model_name"] = m->graph.name;
      }
      v.frontier_job = std::make_unique<SearchJob>(request);
      v.frontier_revision = s.revision;
    }
    record_item_rect(s, "whatif.frontier.run");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Searches the lowest peak under each MAC cap from 0 %% up to the one above, plus msf-CNN's recipe, "
                        "in a background worker; every point re-planned, verified and simulated bit-exact.");
  } else {
    SearchJob& job = *v.frontier_job;
    job.poll();  // in a worker: nothing; without one, a slice of the search on this frame
    request_redraw(s);
    if (ImGui::Button("Stop")) job.cancel();
    record_item_rect(s, "whatif.frontier.stop");
    const JsonOut& p = job.progress();
    ImGui::ProgressBar(float(p.value("progress", 0.0)), ImVec2(-1, 0),
                       ("stage " + std::to_string(p.value("stage", 0)) + " of " + std::to_string(p.value("stages", 0))).c_str());
    text_elided(p.value("text", std::string("starting")));
    if (job.done()) finish_frontier(s, page_start_peak);
  }
  if (!v.frontier_message.empty()) text_wrapped(v.frontier_message, &kColorError);
  if (!v.frontier) return;
  const ParetoFrontier& f = *v.frontier;
  draw_chart(s, f);
  // The list's report once it is for the list the click made (the click's own frame still has the old one).
  if (v.frontier_taken >= 0 && v.result.fresh({s.revision, v.list_version, v.budget_kib})) {
    const WhatIfResult& r = v.result.value();
    const Bytes claimed = f.points[size_t(v.frontier_taken)].peak_bytes;
    if (!r.error.empty()) ImGui::TextWrapped("Point %d's rewrites were refused: %s", v.frontier_taken + 1, r.error.c_str());
    else if (r.report.after.peak_bytes != claimed)
      ImGui::TextColored(kColorError, "Point %d re-planned gives %s, not the frontier's %s", v.frontier_taken + 1,
                         kib_text(r.report.after.peak_bytes, 2).c_str(), kib_text(claimed, 2).c_str());
    else
      ImGui::Text("Point %d's rewrites are in the list: peak %s, %s, outputs %s", v.frontier_taken + 1,
                  kib_text(r.report.after.peak_bytes, 2).c_str(), r.report.after.verified ? "verified" : "UNVERIFIED",
                  r.report.outputs_check.c_str());
  }
  draw_table(s, f);
}

JsonOut export_whatif_frontier(const AppState& s) {
  const WhatIfPanelState& v = s.whatif;
  JsonOut out = {{"running", bool(v.frontier_job)}, {"message", v.frontier_message}, {"result", v.frontier_json},
                 {"hovered", v.frontier_hovered}, {"taken", v.frontier_taken},
                 {"max_extra_macs_pct", v.frontier_max_macs_pct}, {"seconds_per_cap", v.frontier_seconds_per_cap},
                 {"kinds", v.frontier_kinds}};
  if (v.frontier_job) {
    out["progress"] = v.frontier_job->progress();
    out["in_worker"] = v.frontier_job->in_worker();
  }
  return out;
}

}  // namespace arenaplan::web
