// Simulator panel: runs the loaded graph inside its planned arena on a simulated MCU. Step or play
// through the ops; the arena is drawn as a heat map (each buffer its colour, the bytes the last op
// read and wrote highlighted, a hex tooltip); per-op and total cycles of the chosen profile (a
// model, said on screen); switches inject the faults the oracles must catch. Every number comes
// from core (sim::simulate_setup / sim::ArenaSimulator), the same calls behind `arenaplan simulate`.
// Its state is AppState::sim: the settings, and the run derived from them once per change.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/session/session.h"
#include "core/sim/sim.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

// The Budget tab's board gives the core, kernel library and clock when it names a core (as
// `simulate --board` does); a teaching board names none and runs the default profile.
void apply_profile(const AppState& s, const SimSettings& settings, sim::SimRequest& req) {
  if (settings.profile != SimSettings::kBoardProfile) {
    req.profile = sim::mcu_profiles()[settings.profile].name;
    return;
  }
  const MemoryMap& board = budget_state(s).board;
  if (!board.core.empty()) req.board_profile = sim::profile_for_board(board, std::nullopt);
}

bool has_async(const Graph& g) {
  for (const Op& op : g.ops)
    if (!op.async_reads.empty()) return true;
  return false;
}

void fail(SimRun& r, const std::exception& e) {
  r.error = e.what();
  r.json = JsonOut();
  r.reference.reset(), r.planned.reset(), r.stepper.reset();
}

// Runs the reference, then the planned run, for about `budget_ms`; once both are done, the
// report, its JSON and the stepper (which replays the same setup against the same reference, one
// op per Step) are made.
void advance_whole_run(SimRun& r, int budget_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + std::chrono::milliseconds(budget_ms);
  ++r.slices;
  auto run_until_end = [&](sim::ArenaSimulator& sim) {
    while (!sim.done() && Clock::now() < end) sim.step();
    return sim.done();
  };
  try {
    if (!run_until_end(*r.reference) || !run_until_end(*r.planned)) return;
    r.report = sim::planned_run_report(r.graph, r.setup, *r.planned);
    r.report.planner = export_plan_options().planner;
    r.json = sim::simulation_json(r.graph, r.report);
    r.planned.reset();
    r.stepper = std::make_unique<sim::ArenaSimulator>(r.graph, r.setup.live, r.setup.layout, r.setup.options);
    r.stepper->compare_with(r.reference.get());
    r.ready = true;
  } catch (const std::exception& e) {
    fail(r, e);
  }
}

// How far the whole run is, 0..1, and in words.
std::pair<float, std::string> whole_run_progress(const SimRun& r) {
  const sim::ArenaSimulator& ref = *r.reference;
  const bool in_reference = !ref.done();
  const sim::ArenaSimulator& sim = in_reference ? ref : *r.planned;
  const int64_t total = std::max<int64_t>(1, ref.steps_total());
  const float done = float(double(ref.steps_taken() + (in_reference ? 0 : sim.steps_taken())) / double(2 * total));
  return {done, std::string(in_reference ? "Reference run" : "Planned run, oracles on") + ": step " +
                    std::to_string(sim.steps_taken()) + " of " + std::to_string(sim.steps_total())};
}

// The simulation of the current graph and order with the current settings: set up once per
// change of either (Derived), never per frame, then run a slice per frame. One reference run
// serves both the whole-run report and the stepper.
void recompute(AppState& s) {
  SimPanelState& v = s.sim;
  if (v.run.value().revision != s.revision) {
    // A new graph or order: settings that no longer apply are dropped before the key is taken.
    int shiftable = 0;
    for (const LiveBuffer& b : s.live.buffers) shiftable += b.kind == BufferKind::kTensor;
    v.settings.shift_tensor = std::min(v.settings.shift_tensor, std::max(0, shiftable - 1));
    if (!has_async(s.graph)) v.settings.ignore_async = false;
  }
  v.settings.board_version = v.settings.profile == SimSettings::kBoardProfile ? budget_state(s).board_version : 0;
  v.run.get({s.revision, v.settings}, [&](SimRun& r) {
    v.playing = false;
    r.revision = s.revision;
    // An opened .tflite runs with its quantization and weights (the model kernels), as
    // `arenaplan simulate MODEL.tflite` does; the graph JSON alone carries only sizes.
    const OpenedModel* model = current_model(s);
    r.graph = model ? model->graph : s.graph;
    for (const LiveBuffer& b : s.live.buffers)
      if (b.kind == BufferKind::kTensor) r.shiftable.push_back(b.name);
    try {
      sim::SimRequest req;
      req.order = s.order;
      req.plan = export_plan_options();  // as `arenaplan simulate` plans by default
      apply_profile(s, v.settings, req);
      if (v.settings.shared) req.sessions = 2, req.shared_arena = true;
      if (v.settings.shift && v.settings.shift_tensor < static_cast<int>(r.shiftable.size()))
        req.inject.push_back("shift:" + r.shiftable[v.settings.shift_tensor]);
      if (v.settings.ignore_async) req.inject.push_back("ignore-async");
      r.setup = sim::prepare_simulation(r.graph, req);
      r.reference = sim::reference_simulator(r.graph, r.setup.live, r.setup.options);
      r.planned = std::make_unique<sim::ArenaSimulator>(r.graph, r.setup.live, r.setup.layout, r.setup.options);
      r.planned->compare_with(r.reference.get());
    } catch (const std::exception& e) {
      fail(r, e);
    }
  });
  // The first slice is longer, so a small graph is done in the frame that asked and never shows a bar.
  SimRun& r = v.run.value();
  if (!r.ready && r.error.empty()) advance_whole_run(r, r.slices == 0 ? 150 : 40);
}

void step_once(SimPanelState& v) {
  SimRun& r = v.run.value();
  if (!r.stepper || r.stepper->done()) {
    v.playing = false;
    return;
  }
  r.last = r.stepper->step();
  ++r.steps_done;
  r.cycles_so_far += r.last.stats->cycles;
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
  const SimRun& run = s.sim.run.value();
  const sim::ArenaSimulator& sim = *run.stepper;
  const sim::ArenaLayout& layout = sim.layout();
  const LiveAnalysis& live = sim.live();
  const Bytes shown = std::max<Bytes>(1, std::max(layout.arena_bytes, sim.high_water_bytes()));
  const int cols = 64, rows = 16;
  const Bytes per_cell = std::max<Bytes>(1, (shown + cols * rows - 1) / (cols * rows));
  const float avail = ImGui::GetContentRegionAvail().x;
  const float cw = std::max(4.0f, avail / cols), ch = 9;  // compact: the summary stays in view
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Step step = run.steps_done > 0 ? run.last.step : -1;
  std::vector<int> owner(static_cast<size_t>(cols * rows), -1);
  if (step >= 0)
    for (int b : live.live_at(step)) {
      const Bytes lo = layout.offsets[b] / per_cell, hi = (layout.offsets[b] + live.buffers[b].size - 1) / per_cell;
      for (Bytes c = lo; c <= hi && c < cols * rows; ++c) owner[c] = b;
    }
  auto mark = [&](const std::vector<sim::ByteRange>* ranges, std::vector<bool>& out) {
    out.assign(static_cast<size_t>(cols * rows), false);
    if (!ranges || run.steps_done == 0) return;
    for (const sim::ByteRange& r : *ranges)
      for (Bytes c = r.offset / per_cell; c <= (r.offset + r.bytes - 1) / per_cell && c < cols * rows; ++c) out[c] = true;
  };
  std::vector<bool> read, written;
  mark(run.last.reads, read);
  mark(run.last.writes, written);
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
    const uint8_t* bytes = sim.region_data(run.steps_done > 0 ? run.last.region : 0);
    std::string hex;
    for (Bytes k = at; k < at + 16 && k < sim.region_bytes(); ++k) {
      char h[4];
      std::snprintf(h, sizeof h, "%02x ", bytes[k]);
      hex += h;
    }
    ImGui::Text("%s", hex.c_str());
    ImGui::EndTooltip();
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("%lld bytes per cell; colour = buffer live now, orange fill = written, blue outline = read, dark red = past "
              "the planned arena",
              (long long)per_cell);
  ImGui::PopTextWrapPos();
}

void draw_controls(AppState& s) {
  const SimRun& run = s.sim.run.value();
  const auto& profiles = sim::mcu_profiles();
  const bool from_board = s.sim.settings.profile == SimSettings::kBoardProfile;
  const std::string board_item = "Budget tab's board";
  ImGui::SetNextItemWidth(220);
  if (ImGui::BeginCombo("profile", from_board ? board_item.c_str() : profiles[s.sim.settings.profile].name.c_str())) {
    if (ImGui::Selectable(board_item.c_str(), from_board)) s.sim.settings.profile = SimSettings::kBoardProfile;
    for (int i = 0; i < static_cast<int>(profiles.size()); ++i)
      if (ImGui::Selectable(profiles[i].name.c_str(), i == s.sim.settings.profile)) s.sim.settings.profile = i;
    ImGui::EndCombo();
  }
  record_item_rect(s, "sim.profile");
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0.0f);  // the profile's assumptions wrap at the panel's edge
  const sim::McuProfile& used = run.report.profile;
  ImGui::TextDisabled("(%s %s, %g MHz: %s; %s)", used.core.c_str(), used.kernels.c_str(), used.clock_mhz,
                      used.assumptions.c_str(), used.basis.c_str());
  ImGui::PopTextWrapPos();

  ImGui::Text("Faults:");
  ImGui::SameLine();
  ImGui::Checkbox("shift one offset", &s.sim.settings.shift);
  record_item_rect(s, "sim.fault.shift");
  if (s.sim.settings.shift && !run.shiftable.empty()) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    if (ImGui::BeginCombo("##shift", run.shiftable[s.sim.settings.shift_tensor].c_str())) {
      for (int i = 0; i < static_cast<int>(run.shiftable.size()); ++i)
        if (ImGui::Selectable(run.shiftable[i].c_str(), i == s.sim.settings.shift_tensor)) s.sim.settings.shift_tensor = i;
      ImGui::EndCombo();
    }
  }
  // The fault switches reflow onto new lines when the panel is narrow.
  auto checkbox_w = [](const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
  };
  same_line_if_fits(checkbox_w("ignore DMA completion"));
  ImGui::BeginDisabled(!has_async(s.graph));
  ImGui::Checkbox("ignore DMA completion", &s.sim.settings.ignore_async);
  ImGui::EndDisabled();
  record_item_rect(s, "sim.fault.async");
  same_line_if_fits(checkbox_w("2 sessions, shared arena"));
  ImGui::Checkbox("2 sessions, shared arena", &s.sim.settings.shared);
  record_item_rect(s, "sim.fault.shared");
}

void draw_stepper(AppState& s) {
  SimRun& run = s.sim.run.value();
  sim::ArenaSimulator& sim = *run.stepper;
  ImGui::BeginDisabled(sim.done());
  if (ImGui::Button("Step")) step_once(s.sim);
  record_item_rect(s, "sim.step");
  ImGui::SameLine();
  // Reduced motion: no auto-play animation; Step and Run to end reach the same states.
  if (s.reduced_motion) s.sim.playing = false;
  ImGui::BeginDisabled(s.reduced_motion);
  if (ImGui::Button(s.sim.playing ? "Pause" : "Play")) s.sim.playing = !s.sim.playing;
  ImGui::EndDisabled();
  record_item_rect(s, "sim.play");
  ImGui::SameLine();
  if (ImGui::Button("Run to end"))
    while (!sim.done()) step_once(s.sim);
  record_item_rect(s, "sim.run");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Restart")) {
    s.sim.run.reset();  // a rebuild at the same settings
    recompute(s);
    return;
  }
  record_item_rect(s, "sim.restart");
  same_line_if_fits(100 + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("ops/s").x);
  ImGui::SetNextItemWidth(100);
  ImGui::SliderFloat("ops/s", &s.sim.steps_per_second, 1, 60, "%.0f");
  if (s.sim.playing) {
    const double now = ImGui::GetTime();
    if (now - s.sim.last_step_time >= 1.0 / s.sim.steps_per_second) {
      step_once(s.sim);
      s.sim.last_step_time = now;
    }
    request_redraw(s);
  }

  const sim::SimOptions& o = sim.options();
  ImGui::PushTextWrapPos(0.0f);  // long op names and fault reasons wrap at the panel's edge
  if (run.steps_done == 0) {
    ImGui::Text("Ready: %d op(s) x %d session(s). Step to run the first op.", int(sim.live().order.size()), o.sessions);
  } else {
    const sim::StepRecord& r = run.last;
    ImGui::Text("Ran step %d, op %s (%s)%s: %lld cycles, %lld MACs; %lld cycles so far", r.step,
                run.graph.ops[r.op].name.c_str(), r.stats->kernel,
                o.sessions > 1 ? (" session " + std::to_string(r.session)).c_str() : "", (long long)r.stats->cycles,
                (long long)r.stats->macs, (long long)run.cycles_so_far);
  }
  const auto& v = sim.violations();
  if (sim.violation_count() == 0) {
    ImGui::TextColored(ImVec4(0.0f, 0.62f, 0.45f, 1.0f), "Oracles: all green so far");
  } else {
    ImGui::TextColored(kColorError, "Oracles: %zu violation(s) so far. First: [%s] %s", sim.violation_count(),
                       v.front().oracle.c_str(), v.front().message.c_str());
  }
  ImGui::PopTextWrapPos();
  draw_heat_map(s);
}

void draw_summary(const AppState& s) {
  const SimRun& run = s.sim.run.value();
  const sim::SimReport& r = run.report;
  ImGui::Separator();
  ImGui::PushTextWrapPos(0.0f);  // the summary lines wrap instead of running past the panel
  ImGui::Text("Whole run (as `arenaplan simulate` reports it):");
  // Core's own summary, line for line as the CLI prints it: latency in ms, every oracle, and
  // whether the outputs are the model's (a stand-in keeps the plan checks but not the numbers).
  for (const std::string& f : r.injected) ImGui::TextColored(kColorError, "Injected: %s", f.c_str());
  ImGui::TextUnformatted(sim::simulation_summary_text(r).c_str());
  ImGui::TextWrapped("%s", sim::cycle_model_note());
  ImGui::PopTextWrapPos();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollY;
  if (ImGui::BeginTable("sim.per_op", 6, flags, ImVec2(0, 180))) {
    for (const char* h : {"step", "op", "kernel", "MACs", "bytes r/w", "cycles"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < r.per_op.size(); ++i) {
      const sim::OpStats& st = r.per_op[i];
      ImGui::TableNextRow();
      const bool now = run.steps_done > 0 && run.last.step == static_cast<Step>(i);
      if (now) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(0x56, 0xB4, 0xE9, 0x50));
      ImGui::TableNextColumn();
      ImGui::Text("%zu%s", i, now ? " <" : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(run.graph.ops[st.op].name.c_str());
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
  const SimRun& run = s.sim.run.value();
  ImGui::Separator();
  if (!run.error.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kColorError, "Cannot simulate: %s", run.error.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (!run.ready) {
    const auto [fraction, words] = whole_run_progress(run);
    ImGui::TextUnformatted("Simulating the whole run...");
    ImGui::ProgressBar(fraction, ImVec2(-FLT_MIN, 0), words.c_str());
    record_item_rect(s, "sim.progress");
    request_redraw(s);  // the next slice runs in the next frame
    return;
  }
  draw_stepper(s);
  draw_summary(s);
}

JsonOut export_sim(const AppState& s) {
  const SimRun& run = s.sim.run.value();
  JsonOut j;
  j["report"] = run.json;
  j["steps_done"] = run.steps_done;
  j["cycles_so_far"] = run.cycles_so_far;
  j["playing"] = s.sim.playing;
  j["ready"] = run.ready;
  j["progress"] = !run.ready && run.reference ? whole_run_progress(run).second : "";
  j["done"] = run.stepper ? run.stepper->done() : false;
  j["violations_so_far"] = run.stepper ? run.stepper->violation_count() : 0;
  j["last_op"] = run.steps_done > 0 ? run.graph.ops[run.last.op].name : "";
  j["error"] = run.error;
  j["simulations"] = s.sim.run.computations();  // once per change of graph, order or settings
  return j;
}

}  // namespace

ARENAPLAN_PANEL("Simulator", draw_sim);
ARENAPLAN_STATE_EXPORT("sim", export_sim);

}  // namespace arenaplan::web
