// What-if panel: a list of graph rewrites (toggle, reorder, remove, undo) applied to the loaded
// graph in its current order, and the before/after table of peak, arena, cycles and fits. Every
// number comes from core's run_whatif (re-planned, verified and simulated after each step), the
// same call behind `arenaplan transform --report`; combined savings are the recomputed ones.
// "Fit automatically" runs core's rewrite search (transform_auto.h, `transform --auto`) a slice
// per frame and offers its verified sequence as the list. "Frontier" (panel_whatif_frontier.cpp)
// draws core's pareto_frontier (`transform --auto --pareto`), computed in the search worker.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"
#include "core/transform/whatif.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"
#include "web/panel_whatif.h"

namespace arenaplan::web {

void edit_whatif_list(WhatIfPanelState& v, std::vector<WhatIfSpec> next) {
  v.undo.push_back(v.list);
  v.list = std::move(next);
  ++v.list_version;
}

namespace {

void edit_list(WhatIfPanelState& v, std::vector<WhatIfSpec> next) { edit_whatif_list(v, std::move(next)); }

// The report, once per change of the graph/order, the list or the budget.
const WhatIfResult& recompute(const AppState& s, WhatIfPanelState& v) {
  return v.result.get({s.revision, v.list_version, v.budget_kib}, [&](WhatIfResult& out) {
    try {
      // The user's current order is the starting schedule.
      const Graph base = reorder_ops(s.graph, s.order).graph;
      WhatIfOptions options;
      options.plan_time_limit_seconds = 0.2;  // a frame budget, not a batch job
      if (v.budget_kib > 0) options.arena_budget_bytes = Bytes(v.budget_kib) * 1024;
      TransformContext context;
      // "pool:NAME" shares the arena with a built-in example (the page has no file system).
      for (const WhatIfSpec& w : v.list)
        if (w.spec.rfind("pool:", 0) == 0)
          if (const std::string* text = find_example(w.spec.substr(5))) context.models[w.spec.substr(5)] = parse_graph_json(*text);
      out.report = run_whatif(base, v.list, options, context);
      out.json = whatif_json(out.report);
    } catch (const std::exception& e) {
      out.error = e.what();
      out.json = JsonOut{{"error", out.error}};
    }
  });
}

void figures_row(const char* label, const PlanFigures& f, const PlanFigures* before) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  ImGui::TableNextColumn();
  ImGui::Text("%s", kib_text(f.peak_bytes, 2).c_str());
  if (before && f.peak_bytes != before->peak_bytes) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%+lld)", (long long)(f.peak_bytes - before->peak_bytes) / 1024);
  }
  ImGui::TableNextColumn();
  ImGui::Text("%s", kib_text(f.arena_bytes, 2).c_str());
  ImGui::TableNextColumn();
  if (f.cycles >= 0) ImGui::Text("%lld", (long long)f.cycles);
  else ImGui::TextDisabled("-");
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(f.fits ? (*f.fits ? "fits" : "DOES NOT FIT") : "-");
  ImGui::TableNextColumn();
  ImGui::Text("%s%s", f.verified ? "verified" : "UNVERIFIED",
              f.simulated ? (f.sim_ok ? ", simulated ok" : ", SIMULATION FAILED") : "");
}

void draw_list(AppState& s) {
  ImGui::TextUnformatted("Transformations (applied top to bottom)");
  ImGui::SetNextItemWidth(280);
  const bool enter = ImGui::InputTextWithHint("##spec", "fuse:A,B  inplace:C  quantize:T=int8 ...", s.whatif.input,
                                              sizeof s.whatif.input, ImGuiInputTextFlags_EnterReturnsTrue);
  record_item_rect(s, "whatif.spec");
  ImGui::SameLine();
  if ((ImGui::Button("Add") || enter) && s.whatif.input[0]) {
    std::vector<WhatIfSpec> next = s.whatif.list;
    next.push_back({s.whatif.input, true});
    edit_list(s.whatif, next);
    s.whatif.input[0] = '\0';
  }
  record_item_rect(s, "whatif.add");
  ImGui::SameLine();
  ImGui::BeginDisabled(s.whatif.undo.empty());
  if (ImGui::Button("Undo")) {
    s.whatif.list = s.whatif.undo.back();
    s.whatif.undo.pop_back();
    ++s.whatif.list_version;
  }
  ImGui::EndDisabled();
  record_item_rect(s, "whatif.undo");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", transformation_help());

  int remove = -1, up = -1, toggle = -1;
  for (size_t i = 0; i < s.whatif.list.size(); ++i) {
    ImGui::PushID(int(i));
    bool on = s.whatif.list[i].enabled;
    if (ImGui::Checkbox("##on", &on)) toggle = int(i);
    record_item_rect(s, "whatif.toggle." + std::to_string(i));
    ImGui::SameLine();
    if (ImGui::SmallButton("^") && i > 0) up = int(i);
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) remove = int(i);
    ImGui::SameLine();
    ImGui::TextUnformatted(s.whatif.list[i].spec.c_str());
    if (i < s.whatif.result.value().report.steps.size()) {
      const WhatIfStep& st = s.whatif.result.value().report.steps[i];
      if (!st.error.empty()) ImGui::TextWrapped("    refused: %s", st.error.c_str());
      else if (st.applied) ImGui::TextDisabled("    %s", st.summary.c_str());
    }
    ImGui::PopID();
  }
  if (toggle >= 0 || up >= 0 || remove >= 0) {
    std::vector<WhatIfSpec> next = s.whatif.list;
    if (toggle >= 0) next[toggle].enabled = !next[toggle].enabled;
    if (up > 0) std::swap(next[up], next[up - 1]);
    if (remove >= 0) next.erase(next.begin() + remove);
    edit_list(s.whatif, next);
  }
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt("arena budget (KiB, 0 = none)", &s.whatif.budget_kib, 8, 64);
  if (s.whatif.budget_kib < 0) s.whatif.budget_kib = 0;
}

constexpr double kAutoSliceSeconds = 0.010;  // search time per frame: the page stays responsive

void draw_auto_result(AppState& s, const AutoRewriteResult& r) {
  const WhatIfReport& w = r.report;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("Peak %s -> %s (arena %s), lower bound %s; %s, %s; outputs %s; %lld extra MACs",
              kib_text(w.before.peak_bytes, 2).c_str(), kib_text(w.after.peak_bytes, 2).c_str(),
              kib_text(w.after.arena_bytes, 2).c_str(), kib_text(r.lower_bound_bytes, 2).c_str(),
              w.after.verified ? "verified" : "UNVERIFIED",
              w.after.simulated ? (w.after.sim_ok ? "simulated ok" : "SIMULATION FAILED") : "not simulated",
              w.outputs_check.c_str(), (long long)r.extra_macs);
  if (r.budget_bytes) {
    if (r.budget_met) ImGui::Text("Budget %s met", kib_text(*r.budget_bytes, 2).c_str());
    else ImGui::TextWrapped("%s", auto_budget_shortfall(r).c_str());
  }
  ImGui::PopTextWrapPos();
  if (r.applied.empty()) ImGui::TextDisabled("No rewrite lowers the peak.");
  for (const AutoApplied& a : r.applied) {
    if (a.saving_bytes) ImGui::BulletText("%s  saves %s on the combined graph", a.spec.c_str(), kib_text(*a.saving_bytes, 2).c_str());
    else ImGui::BulletText("%s  (%s)", a.spec.c_str(), a.note.c_str());
  }
  ImGui::BeginDisabled(r.applied.empty());
  if (ImGui::Button("Use these rewrites")) {
    std::vector<WhatIfSpec> next;
    for (const AutoApplied& a : r.applied) next.push_back({a.spec, true});
    edit_list(s.whatif, next);
  }
  ImGui::EndDisabled();
  record_item_rect(s, "whatif.auto.use");
}

// The search for the graph in its current order; a new graph or order drops it.
void draw_auto(AppState& s) {
  WhatIfPanelState& v = s.whatif;
  if ((v.auto_search || v.auto_result) && v.auto_revision != s.revision) {
    v.auto_search.reset();
    v.auto_result.reset();
    v.auto_json = nullptr;
  }
  ImGui::Separator();
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt("fit budget (KiB, 0 = lowest peak)", &v.auto_budget_kib, 8, 64);
  record_item_rect(s, "whatif.auto.budget");
  if (v.auto_budget_kib < 0) v.auto_budget_kib = 0;
  ImGui::SameLine();
  if (!v.auto_search) {
    if (ImGui::Button("Fit automatically")) {
      AutoRewriteOptions o;
      if (v.auto_budget_kib > 0) o.budget_bytes = Bytes(v.auto_budget_kib) * 1024;
      o.time_limit_seconds = 30;
      o.whatif.plan_time_limit_seconds = 0.2;
      try {
        v.auto_search = std::make_unique<AutoRewriteSearch>(reorder_ops(s.graph, s.order).graph, o);
        v.auto_revision = s.revision;
        v.auto_result.reset();
        v.auto_json = nullptr;
      } catch (const std::exception& e) {
        v.auto_json = JsonOut{{"error", e.what()}};
      }
    }
    record_item_rect(s, "whatif.auto.run");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Searches sets and orders of bit-exact rewrites for the lowest peak (or, with a budget, the "
                        "fewest extra MACs that fit); every candidate re-planned, the result verified and simulated.");
  } else {
    AutoRewriteSearch& search = *v.auto_search;
    search.step(kAutoSliceSeconds);
    request_redraw(s);
    if (ImGui::Button("Stop")) search.cancel();
    record_item_rect(s, "whatif.auto.stop");
    const AutoProgress& p = search.progress();
    ImGui::Text("%s: %lld rewrites tried, beam width %d, best peak %s (from %s), lower bound %s", p.phase.c_str(),
                (long long)p.evaluations, p.beam_width, kib_text(p.best_peak, 2).c_str(),
                kib_text(p.start_peak, 2).c_str(), kib_text(p.lower_bound_bytes, 2).c_str());
    const double span = double(p.start_peak - std::min(p.start_peak, p.lower_bound_bytes));
    ImGui::ProgressBar(span > 0 ? float(double(p.start_peak - p.best_peak) / span) : 1.0f, ImVec2(-1, 0),
                       "peak: from the start towards the bound");
    if (search.done()) {
      try {
        v.auto_result = search.result();
        v.auto_json = auto_rewrite_json(*v.auto_result);
      } catch (const std::exception& e) {
        v.auto_json = JsonOut{{"error", e.what()}};
      }
      v.auto_search.reset();
    }
  }
  if (v.auto_json.is_object() && v.auto_json.contains("error"))
    ImGui::TextWrapped("Error: %s", v.auto_json["error"].get<std::string>().c_str());
  if (v.auto_result) draw_auto_result(s, *v.auto_result);
}

void draw_whatif(AppState& s) {
  WhatIfPanelState& v = s.whatif;
  if (v.list_graph != s.graph_revision) {  // a list, a fit and their errors belong to the graph they were made for
    v.list_graph = s.graph_revision;
    v.list.clear();
    v.undo.clear();
    ++v.list_version;
    v.auto_search.reset();
    v.auto_result.reset();
    v.auto_json = nullptr;
  }
  draw_list(s);
  draw_auto(s);
  const WhatIfResult& result = recompute(s, v);
  draw_whatif_frontier(s, result.error.empty() ? std::optional<Bytes>(result.report.before.peak_bytes) : std::nullopt);
  ImGui::Separator();
  if (!result.error.empty()) {
    ImGui::TextWrapped("Error: %s", result.error.c_str());
    return;
  }
  const WhatIfReport& r = result.report;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("whatif", 6, flags)) {
    for (const char* h : {"", "peak", "arena", "cycles", "fits", "checks"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    figures_row("before", r.before, nullptr);
    for (const WhatIfStep& st : r.steps)
      if (st.applied) figures_row(("+ " + st.spec).c_str(), st.after, &r.before);
    figures_row("after", r.after, &r.before);
    ImGui::EndTable();
  }
  ImGui::Text("Peak saving %s (recomputed on the combined graph)", kib_text(r.peak.combined, 2).c_str());
  if (r.peak.steps_measured_alone > 1) {
    ImGui::Text("Separately measured savings add up to %s", kib_text(r.peak.sum_of_separate, 2).c_str());
    if (r.peak.overstated_by > 0) ImGui::Text("  - the sum overstates the truth by %s", kib_text(r.peak.overstated_by, 2).c_str());
    else if (r.peak.overstated_by < 0) ImGui::Text("  - together they save %s more than the sum", kib_text(-r.peak.overstated_by, 2).c_str());
  }
  ImGui::Text("Arena saving %s", kib_text(r.arena.combined, 2).c_str());
  if (r.pool)
    ImGui::Text("Shared pool: partitioned %s, time-shared %s", kib_text(r.pool->partitioned_bytes, 2).c_str(),
                kib_text(r.pool->time_shared_bytes, 2).c_str());
  ImGui::TextWrapped("Outputs: %s (%s)", r.outputs_check.c_str(), r.outputs_note.c_str());
  if (r.after.ops > 0 && ImGui::Button("Load the transformed graph")) {
    load_graph_json(s, graph_to_json(r.result));  // an ordinary edit: refused edits keep the state
  }
  record_item_rect(s, "whatif.load");
}

JsonOut export_whatif(const AppState& s) {
  JsonOut list = JsonOut::array();
  for (const WhatIfSpec& w : s.whatif.list) list.push_back({{"spec", w.spec}, {"enabled", w.enabled}});
  JsonOut fit = {{"budget_kib", s.whatif.auto_budget_kib}, {"running", bool(s.whatif.auto_search)},
                 {"result", s.whatif.auto_json}};
  if (s.whatif.auto_search) {
    const AutoProgress& p = s.whatif.auto_search->progress();
    fit["progress"] = {{"phase", p.phase}, {"evaluations", p.evaluations}, {"best_peak", p.best_peak},
                       {"lower_bound_bytes", p.lower_bound_bytes}};
  }
  return {{"list", list}, {"report", s.whatif.result.value().json}, {"auto", fit}, {"frontier", export_whatif_frontier(s)}};
}

// The list of changes and the budget travel in share links; the report is recomputed on load.
JsonOut save_whatif(const AppState& s) {
  JsonOut list = JsonOut::array();
  for (const WhatIfSpec& w : s.whatif.list) list.push_back({{"spec", w.spec}, {"enabled", w.enabled}});
  return {{"list", list}, {"budget_kib", s.whatif.budget_kib}};
}

// Runs after the link's graph is loaded, so the list belongs to that graph.
void load_whatif(AppState& s, const JsonOut& j) {
  std::vector<WhatIfSpec> list;
  for (const JsonOut& w : j.at("list")) list.push_back({w.at("spec").get<std::string>(), w.at("enabled").get<bool>()});
  const int budget = j.at("budget_kib").get<int>();
  if (budget < 0) throw InputError("whatif.budget_kib", "must be >= 0");
  s.whatif.list_graph = s.graph_revision;
  s.whatif.list = std::move(list);
  s.whatif.undo.clear();
  s.whatif.budget_kib = budget;
  ++s.whatif.list_version;
}

}  // namespace

ARENAPLAN_SHARE_SECTION("whatif", save_whatif, load_whatif);
ARENAPLAN_PANEL("What-if", draw_whatif);
ARENAPLAN_STATE_EXPORT("whatif", export_whatif);

}  // namespace arenaplan::web
