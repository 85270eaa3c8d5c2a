// Simulator panel: runs the loaded graph inside its planned arena on a simulated MCU. Step or play
// through the ops; the arena is drawn as a heat map (each buffer its colour, the bytes the last op
// read and wrote highlighted, a hex tooltip); per-op and total cycles of the chosen profile (a
// model, said on screen); switches inject the faults the oracles must catch. Every number comes
// from core (sim::simulate / sim::ArenaSimulator), the same calls behind `arenaplan simulate`.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/sim/sim.h"
#include "imgui.h"
#include "web/app.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

// View-side state like the other panels' (the graph and order stay in AppState).
struct SimView {
  int profile = 1;            // index into sim::mcu_profiles(): cortex-m4
  bool shift = false;         // fault: move one buffer onto a live neighbour
  int shift_tensor = 0;       // index into `shiftable`
  bool ignore_async = false;  // fault: plan as if DMA reads finished at once
  bool shared = false;        // fault: two sessions interleaved on one arena
  bool playing = false;
  double last_step_time = 0;
  float steps_per_second = 4;

  // What the view was computed for; a change rebuilds everything.
  uint64_t revision = ~0ull;
  std::string key;

  Graph graph;                        // copy the simulators refer to
  std::vector<std::string> shiftable;  // tensors with an arena buffer
  sim::SimReport report;              // the whole run, as the CLI reports it
  JsonOut json;                       // simulation_json(report)
  std::unique_ptr<sim::ArenaSimulator> reference, stepper;
  sim::StepRecord last;               // the step just executed (valid when steps_done > 0)
  int64_t steps_done = 0;
  int64_t cycles_so_far = 0;
  std::string error;
};

SimView g_view;

sim::SimRequest request_of(const AppState& s) {
  sim::SimRequest req;
  req.order = s.order;
  req.planner = "best";
  req.profile = sim::mcu_profiles()[g_view.profile].name;
  if (g_view.shared) req.sessions = 2, req.shared_arena = true;
  if (g_view.shift && g_view.shift_tensor < static_cast<int>(g_view.shiftable.size()))
    req.inject.push_back("shift:" + g_view.shiftable[g_view.shift_tensor]);
  if (g_view.ignore_async) req.inject.push_back("ignore-async");
  return req;
}

bool has_async(const Graph& g) {
  for (const Op& op : g.ops)
    if (!op.async_reads.empty()) return true;
  return false;
}

void recompute(AppState& s) {
  const std::string key = std::to_string(g_view.profile) + (g_view.shift ? "s" + std::to_string(g_view.shift_tensor) : "") +
                          (g_view.ignore_async ? "a" : "") + (g_view.shared ? "x" : "");
  if (g_view.revision == s.revision && g_view.key == key) return;
  g_view.stepper.reset();  // they refer to g_view.graph: gone before it changes
  g_view.reference.reset();
  if (g_view.revision != s.revision) {
    g_view.graph = s.graph;
    g_view.shiftable.clear();
    for (const LiveBuffer& b : s.live.buffers)
      if (b.kind == BufferKind::kTensor) g_view.shiftable.push_back(b.name);
    g_view.shift_tensor = std::min(g_view.shift_tensor, std::max(0, static_cast<int>(g_view.shiftable.size()) - 1));
    if (!has_async(g_view.graph)) g_view.ignore_async = false;
  }
  g_view.revision = s.revision;
  g_view.key = key;
  g_view.error.clear();
  g_view.stepper.reset();
  g_view.reference.reset();
  g_view.steps_done = 0;
  g_view.cycles_so_far = 0;
  g_view.playing = false;
  try {
    const sim::SimRequest req = request_of(s);
    g_view.report = sim::simulate(g_view.graph, req);
    g_view.json = sim::simulation_json(g_view.graph, g_view.report);
    // The stepper replays the same setup; its reference run gives the outputs oracle its answer.
    sim::SimSetup setup = sim::prepare_simulation(g_view.graph, req);
    sim::SimOptions ref_options = setup.options;
    ref_options.oracles = false;
    ref_options.shared_arena = false;
    g_view.reference = std::make_unique<sim::ArenaSimulator>(
        g_view.graph, setup.live, sim::separate_layout(setup.live, g_view.graph.alignment), ref_options);
    g_view.reference->run_all();
    g_view.stepper = std::make_unique<sim::ArenaSimulator>(g_view.graph, setup.live, setup.layout, setup.options);
    g_view.stepper->compare_with(g_view.reference.get());
  } catch (const std::exception& e) {
    g_view.error = e.what();
    g_view.json = JsonOut();
  }
}

void step_once() {
  if (!g_view.stepper || g_view.stepper->done()) {
    g_view.playing = false;
    return;
  }
  g_view.last = g_view.stepper->step();
  ++g_view.steps_done;
  g_view.cycles_so_far += g_view.last.stats->cycles;
}

// Okabe-Ito-like hues per buffer, cycling; free bytes stay dark grey.
ImU32 buffer_color(int b, int alpha) {
  static const ImU32 kPalette[] = {IM_COL32(0x56, 0xB4, 0xE9, 0), IM_COL32(0x00, 0x9E, 0x73, 0), IM_COL32(0xCC, 0x79, 0xA7, 0),
                                   IM_COL32(0xF0, 0xE4, 0x42, 0), IM_COL32(0x00, 0x72, 0xB2, 0), IM_COL32(0xD5, 0x5E, 0x00, 0),
                                   IM_COL32(0x99, 0x99, 0x99, 0), IM_COL32(0xE6, 0x9F, 0x00, 0)};
  return kPalette[b % 8] | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
}

// The arena as a grid of cells; each cell covers `per_cell` bytes. Colour: the buffer live there
// at the current step; red: written by the last op; blue outline: read by it.
void draw_heat_map(AppState& s) {
  const sim::ArenaSimulator& sim = *g_view.stepper;
  const sim::ArenaLayout& layout = sim.layout();
  const LiveAnalysis& live = sim.live();
  const Bytes shown = std::max<Bytes>(1, std::max(layout.arena_bytes, sim.high_water_bytes()));
  const int cols = 64, rows = 16;
  const Bytes per_cell = std::max<Bytes>(1, (shown + cols * rows - 1) / (cols * rows));
  const float avail = ImGui::GetContentRegionAvail().x;
  const float cw = std::max(4.0f, avail / cols), ch = 9;  // compact: the summary stays in view
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Step step = g_view.steps_done > 0 ? g_view.last.step : -1;
  std::vector<int> owner(static_cast<size_t>(cols * rows), -1);
  if (step >= 0)
    for (int b : live.live_at(step)) {
      const Bytes lo = layout.offsets[b] / per_cell, hi = (layout.offsets[b] + live.buffers[b].size - 1) / per_cell;
      for (Bytes c = lo; c <= hi && c < cols * rows; ++c) owner[c] = b;
    }
  auto mark = [&](const std::vector<sim::ByteRange>* ranges, std::vector<bool>& out) {
    out.assign(static_cast<size_t>(cols * rows), false);
    if (!ranges || g_view.steps_done == 0) return;
    for (const sim::ByteRange& r : *ranges)
      for (Bytes c = r.offset / per_cell; c <= (r.offset + r.bytes - 1) / per_cell && c < cols * rows; ++c) out[c] = true;
  };
  std::vector<bool> read, written;
  mark(g_view.last.reads, read);
  mark(g_view.last.writes, written);
  for (int i = 0; i < cols * rows; ++i) {
    const ImVec2 a(origin.x + (i % cols) * cw, origin.y + (i / cols) * ch), b(a.x + cw - 1, a.y + ch - 1);
    const Bytes at = Bytes(i) * per_cell;
    ImU32 fill = at >= layout.arena_bytes ? IM_COL32(0x50, 0x20, 0x20, 0xFF)  // past the planned arena
                 : owner[i] >= 0          ? buffer_color(owner[i], 0xC0)
                                          : IM_COL32(0x30, 0x30, 0x30, 0xFF);
    dl->AddRectFilled(a, b, fill);
    if (written[i]) dl->AddRectFilled(a, b, IM_COL32(0xD5, 0x5E, 0x00, 0xA0));
    if (read[i]) dl->AddRect(a, b, IM_COL32(0x56, 0xB4, 0xE9, 0xFF), 0, 0, 2);
  }
  ImGui::InvisibleButton("sim.heatmap", ImVec2(cw * cols, ch * rows));
  record_item_rect(s, "sim.heatmap");
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetMousePos();
    const int c = std::clamp(int((m.x - origin.x) / cw), 0, cols - 1), r = std::clamp(int((m.y - origin.y) / ch), 0, rows - 1);
    const int i = r * cols + c;
    const Bytes at = Bytes(i) * per_cell;
    ImGui::BeginTooltip();
    ImGui::Text("bytes %lld..%lld: %s%s%s", (long long)at, (long long)(at + per_cell - 1),
                owner[i] >= 0 ? live.buffers[owner[i]].name.c_str() : (at >= layout.arena_bytes ? "past the arena" : "free"),
                written[i] ? ", WRITTEN by the last op" : "", read[i] ? ", READ by the last op" : "");
    const uint8_t* bytes = sim.region_data(g_view.steps_done > 0 ? g_view.last.region : 0);
    std::string hex;
    for (Bytes k = at; k < at + 16 && k < sim.region_bytes(); ++k) {
      char h[4];
      std::snprintf(h, sizeof h, "%02x ", bytes[k]);
      hex += h;
    }
    ImGui::Text("%s", hex.c_str());
    ImGui::EndTooltip();
  }
  ImGui::Text("%lld bytes per cell; colour = buffer live now, orange fill = written, blue outline = read, dark red = past "
              "the planned arena",
              (long long)per_cell);
}

void draw_controls(AppState& s) {
  const auto& profiles = sim::mcu_profiles();
  ImGui::SetNextItemWidth(160);
  if (ImGui::BeginCombo("profile", profiles[g_view.profile].name.c_str())) {
    for (int i = 0; i < static_cast<int>(profiles.size()); ++i)
      if (ImGui::Selectable(profiles[i].name.c_str(), i == g_view.profile)) g_view.profile = i;
    ImGui::EndCombo();
  }
  record_item_rect(s, "sim.profile");
  ImGui::SameLine();
  ImGui::TextDisabled("(%s)", profiles[g_view.profile].assumptions.c_str());

  ImGui::Text("Faults:");
  ImGui::SameLine();
  ImGui::Checkbox("shift one offset", &g_view.shift);
  record_item_rect(s, "sim.fault.shift");
  if (g_view.shift && !g_view.shiftable.empty()) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    if (ImGui::BeginCombo("##shift", g_view.shiftable[g_view.shift_tensor].c_str())) {
      for (int i = 0; i < static_cast<int>(g_view.shiftable.size()); ++i)
        if (ImGui::Selectable(g_view.shiftable[i].c_str(), i == g_view.shift_tensor)) g_view.shift_tensor = i;
      ImGui::EndCombo();
    }
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!has_async(s.graph));
  ImGui::Checkbox("ignore DMA completion", &g_view.ignore_async);
  ImGui::EndDisabled();
  record_item_rect(s, "sim.fault.async");
  ImGui::SameLine();
  ImGui::Checkbox("2 sessions, shared arena", &g_view.shared);
  record_item_rect(s, "sim.fault.shared");
}

void draw_stepper(AppState& s) {
  sim::ArenaSimulator& sim = *g_view.stepper;
  ImGui::BeginDisabled(sim.done());
  if (ImGui::Button("Step")) step_once();
  record_item_rect(s, "sim.step");
  ImGui::SameLine();
  // Reduced motion: no auto-play animation; Step and Run to end reach the same states.
  if (s.reduced_motion) g_view.playing = false;
  ImGui::BeginDisabled(s.reduced_motion);
  if (ImGui::Button(g_view.playing ? "Pause" : "Play")) g_view.playing = !g_view.playing;
  ImGui::EndDisabled();
  record_item_rect(s, "sim.play");
  ImGui::SameLine();
  if (ImGui::Button("Run to end"))
    while (!sim.done()) step_once();
  record_item_rect(s, "sim.run");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Restart")) {
    g_view.key.clear();  // forces a rebuild at the same settings
    recompute(s);
    return;
  }
  record_item_rect(s, "sim.restart");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(100);
  ImGui::SliderFloat("ops/s", &g_view.steps_per_second, 1, 60, "%.0f");
  if (g_view.playing) {
    const double now = ImGui::GetTime();
    if (now - g_view.last_step_time >= 1.0 / g_view.steps_per_second) {
      step_once();
      g_view.last_step_time = now;
    }
    request_redraw(s);
  }

  const sim::SimOptions& o = sim.options();
  if (g_view.steps_done == 0) {
    ImGui::Text("Ready: %d op(s) x %d session(s). Step to run the first op.", int(sim.live().order.size()), o.sessions);
  } else {
    const sim::StepRecord& r = g_view.last;
    ImGui::Text("Ran step %d, op %s (%s)%s: %lld cycles, %lld MACs; %lld cycles so far", r.step,
                g_view.graph.ops[r.op].name.c_str(), r.stats->kernel,
                o.sessions > 1 ? (" session " + std::to_string(r.session)).c_str() : "", (long long)r.stats->cycles,
                (long long)r.stats->macs, (long long)g_view.cycles_so_far);
  }
  const auto& v = sim.violations();
  if (sim.violation_count() == 0) {
    ImGui::TextColored(ImVec4(0.0f, 0.62f, 0.45f, 1.0f), "Oracles: all green so far");
  } else {
    ImGui::TextColored(kColorError, "Oracles: %zu violation(s) so far. First: [%s] %s", sim.violation_count(),
                       v.front().oracle.c_str(), v.front().message.c_str());
  }
  draw_heat_map(s);
}

void draw_summary(const AppState&) {
  const sim::SimReport& r = g_view.report;
  ImGui::Separator();
  ImGui::Text("Whole run (as `arenaplan simulate` reports it):");
  ImGui::Text("%lld cycles = %.1f us at %.0f MHz   arena %lld B, high-water %lld B, lower bound %lld B",
              (long long)r.cycles_total, r.latency_us, r.profile.clock_mhz, (long long)r.arena_bytes,
              (long long)r.high_water_bytes, (long long)r.lower_bound_bytes);
  ImGui::TextWrapped("%s", sim::cycle_model_note());
  for (const std::string& f : r.injected) ImGui::TextColored(kColorError, "Injected: %s", f.c_str());
  ImGui::Text("outputs = reference: %s   write oracle: %s   high-water oracle: %s",
              r.outputs_match_reference ? "yes" : "NO (FAILED)",
              std::any_of(r.violations.begin(), r.violations.end(), [](auto& v) { return v.oracle == "writes"; }) ? "FAILED" : "ok",
              std::any_of(r.violations.begin(), r.violations.end(), [](auto& v) { return v.oracle == "high_water"; }) ? "FAILED"
                                                                                                                     : "ok");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollY;
  if (ImGui::BeginTable("sim.per_op", 6, flags, ImVec2(0, 180))) {
    for (const char* h : {"step", "op", "kernel", "MACs", "bytes r/w", "cycles"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < r.per_op.size(); ++i) {
      const sim::OpStats& st = r.per_op[i];
      ImGui::TableNextRow();
      const bool now = g_view.steps_done > 0 && g_view.last.step == static_cast<Step>(i);
      if (now) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(0x56, 0xB4, 0xE9, 0x50));
      ImGui::TableNextColumn();
      ImGui::Text("%zu%s", i, now ? " <" : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g_view.graph.ops[st.op].name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.kernel);
      if (!st.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", st.note.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", (long long)st.macs);
      ImGui::TableNextColumn();
      ImGui::Text("%lld / %lld", (long long)st.bytes_read, (long long)st.bytes_written);
      ImGui::TableNextColumn();
      ImGui::Text("%lld", (long long)st.cycles);
    }
    ImGui::EndTable();
  }
  for (size_t i = 0; i < r.violations.size() && i < 8; ++i)
    ImGui::TextWrapped("[%s] %s", r.violations[i].oracle.c_str(), r.violations[i].message.c_str());
}

void draw_sim(AppState& s) {
  draw_controls(s);
  recompute(s);
  ImGui::Separator();
  if (!g_view.error.empty()) {
    ImGui::TextColored(kColorError, "Cannot simulate: %s", g_view.error.c_str());
    return;
  }
  if (g_view.stepper) draw_stepper(s);
  draw_summary(s);
}

JsonOut export_sim(const AppState&) {
  JsonOut j;
  j["report"] = g_view.json;
  j["steps_done"] = g_view.steps_done;
  j["cycles_so_far"] = g_view.cycles_so_far;
  j["playing"] = g_view.playing;
  j["done"] = g_view.stepper ? g_view.stepper->done() : false;
  j["violations_so_far"] = g_view.stepper ? g_view.stepper->violation_count() : 0;
  j["last_op"] = g_view.steps_done > 0 ? g_view.graph.ops[g_view.last.op].name : "";
  j["error"] = g_view.error;
  return j;
}

}  // namespace

ARENAPLAN_PANEL("Simulator", draw_sim);
ARENAPLAN_STATE_EXPORT("sim", export_sim);

}  // namespace arenaplan::web
