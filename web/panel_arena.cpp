// Arena panel: the current order's buffers placed in one arena, address across and time
// down, each buffer a rectangle (hover: name, size, offset, lifetime), the free holes left dark,
// the current step outlined and the lower bound marked; every planner side by side with its arena
// size; and the exact solver time-sliced across frames with a progress bar and its best so far.
// Every number comes from core (compare_interactive_planners, adopt_anytime_answer, holes_at, layout_json).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/layout/fragmentation.h"
#include "core/layout/layout.h"
#include "core/layout/pipeline.h"
#include "core/layout/planner.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_exercise.h"
#include "web/panel_common.h"
#include "web/rect_renderer.h"
#include "web/ui_style.h"
#include "web/worker/search_session.h"

namespace arenaplan::web {
namespace {

using PlannerRow = ArenaPlannerRow;  // the panel's state is AppState::arena (web/app.h)

// Row of a planner's plan in the table (0 when it is not there, e.g. after an error).
int row_of(const ArenaTable& t, const std::string& planner) {
  for (size_t i = 0; i < t.rows.size(); ++i)
    if (t.rows[i].name == planner) return static_cast<int>(i);
  return 0;
}

// The interactive planners' plans of the current order, once per revision; the anytime planner's
// row is added when its search finishes.
ArenaTable& table(AppState& s) {
  ArenaPanelState& v = s.arena;
  return v.table.get(s.revision, [&](ArenaTable& t) {
    // A search of the previous order would answer for other buffers: it goes with them.
    v.exact.reset();
    v.exact_running = false;
    v.exact_status.clear();
    try {
      PlannerComparison c = compare_interactive_planners(s.graph, s.live);
      t.problem = std::move(c.problem);
      for (size_t i = 0; i < c.plans.size(); ++i) t.rows.push_back({interactive_planner_names()[i], std::move(c.plans[i])});
      t.interactive_rows = static_cast<int>(t.rows.size());
    } catch (const std::exception& e) {
      t.error = e.what();
      t.rows.clear();
    }
    if (v.shown < 0) v.shown = row_of(t, anytime_planner().seed_planner);
    if (v.shown >= static_cast<int>(t.rows.size())) v.shown = static_cast<int>(t.rows.size()) - 1;
  });
}

// The search's answer becomes a table row only when core's verifier accepts it against this
// panel's own problem: the worker derived its problem from the same graph and order, but nothing
// that crossed a thread boundary is shown unchecked.
void finish_exact(ArenaPanelState& v, ArenaTable& t) {
  const SearchJob& job = *v.exact;
  if (!job.error().empty()) {
    v.exact_status = "failed: " + job.error();
    return;
  }
  try {
    ArenaPlan plan = adopt_anytime_answer(t.problem, layout_answer_from_json(job.result()));
    v.exact_status = plan.detail;
    t.rows.resize(t.interactive_rows);
    t.rows.push_back({plan.planner, std::move(plan)});
    v.shown = static_cast<int>(t.rows.size()) - 1;
  } catch (const InputError& e) {
    v.exact_status = std::string("refused: ") + e.what();
  }
}

void draw_planner_table(AppState& s, const ArenaTable& t) {
  ArenaPanelState& v = s.arena;
  const Bytes bound = t.rows.empty() ? 0 : t.rows[0].plan.lower_bound_bytes;
  ImGui::Text("Lower bound (peak live bytes): %s (%lld B)", kib_text(bound).c_str(), (long long)bound);
  if (!ImGui::BeginTable("planners", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("show");
  ImGui::TableSetupColumn("planner");
  ImGui::TableSetupColumn("arena");
  ImGui::TableSetupColumn("above bound");
  ImGui::TableSetupColumn("verified / optimal");
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const PlannerRow& r = t.rows[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::RadioButton("##show", v.shown == static_cast<int>(i))) v.shown = static_cast<int>(i);
    record_item_rect(s, "arena.show." + r.name);
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s", kib_text(r.plan.arena_bytes).c_str());
    ImGui::TableNextColumn();
    const Bytes over = r.plan.arena_bytes - bound;
    ImGui::Text("%s (%.1f %%)", kib_text(over).c_str(), bound > 0 ? 100.0 * double(over) / double(bound) : 0.0);
    ImGui::TableNextColumn();
    ImGui::Text("%s%s", r.plan.verified ? "verified" : "NOT VERIFIED", r.plan.proven_optimal ? ", optimal" : "");
  }
  ImGui::EndTable();
}

void draw_exact_controls(AppState& s, ArenaTable& t) {
  ArenaPanelState& v = s.arena;
  if (!v.exact_running) {
    if (ImGui::Button("Run exact solver")) {
      // Seeded inside the search with the anytime planner's seed planner, as the table's row.
      v.exact = std::make_unique<SearchJob>(search_request(s, "layout"));
      v.exact_running = true;
    }
    record_item_rect(s, "arena.exact");
    if (!v.exact_status.empty()) {
      ImGui::SameLine();
      ImGui::Text("exact: %s", v.exact_status.c_str());
    }
    return;
  }
  SearchJob& x = *v.exact;
  x.poll();
  request_redraw(s);  // the progress bar moves
  const bool stop = ImGui::Button("Stop");
  record_item_rect(s, "arena.stop");
  ImGui::SameLine();
  const JsonOut& p = x.progress();
  const std::string text = p.value("text", std::string("starting the search..."));
  ImGui::ProgressBar(static_cast<float>(p.value("progress", 0.0)), ImVec2(-1, 0), text.c_str());
  if (stop) x.cancel();
  if (x.done()) {
    finish_exact(v, t);
    v.exact_running = false;
  }
}

ImU32 buffer_color(const LayoutBuffer& b, size_t i) {
  static const ImU32 kPalette[] = {IM_COL32(0x56, 0xB4, 0xE9, 0xFF), IM_COL32(0x00, 0x9E, 0x73, 0xFF),
                                   IM_COL32(0xCC, 0x79, 0xA7, 0xFF), IM_COL32(0x00, 0x72, 0xB2, 0xFF),
                                   IM_COL32(0xF0, 0xE4, 0x42, 0xFF)};
  if (b.category == ArenaCategory::kTemp) return IM_COL32(0xD5, 0x5E, 0x00, 0xFF);  // scratch: vermillion
  return kPalette[i % 5];
}

// Address across, time down; each buffer one rectangle; the current step outlined.
void draw_picture(AppState& s, const LayoutProblem& p, const ArenaPlan& plan) {
  const Step steps = static_cast<Step>(s.live.steps.size());
  if (steps == 0 || plan.arena_bytes <= 0) {
    ImGui::TextDisabled("Nothing to place: the graph has no arena buffers.");
    return;
  }
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 240.0f);
  const float label_w = ImGui::CalcTextSize("step 00 ").x;
  const float row_h = std::clamp((ImGui::GetContentRegionAvail().y - 2 * line) / float(steps), line, 3 * line);
  const float height = row_h * float(steps) + 1.6f * line;
  ImGui::InvisibleButton("arena_picture", ImVec2(width, height));
  const bool clicked = ImGui::IsItemClicked();
  record_item_rect(s, "arena.picture");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float left = origin.x + label_w, plot_w = width - label_w - 4, top = origin.y;
  auto x_of = [&](Bytes b) { return left + plot_w * float(double(b) / double(plan.arena_bytes)); };
  auto y_of = [&](Step t) { return top + row_h * float(t); };
  dl->AddRectFilled(ImVec2(left, top), ImVec2(left + plot_w, y_of(steps)), IM_COL32(0x20, 0x20, 0x24, 0xFF));  // holes
  // The buffers go through the instanced-rectangle renderer in plot units (bytes across, steps
  // down): a model with thousands of buffers costs one draw call, not thousands of ImDrawList
  // rectangles. Only buffers wide enough for their name get a label.
  std::vector<RectInstance> rects;
  rects.reserve(p.buffers.size());
  std::vector<std::pair<ImVec2, const char*>> labels;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  for (size_t i = 0; i < p.buffers.size() && i < plan.offsets.size(); ++i) {
    const LayoutBuffer& b = p.buffers[i];
    rects.push_back({float(plan.offsets[i]), float(b.first), float(plan.offsets[i] + b.size), float(b.last + 1),
                     buffer_color(b, i)});
    const ImVec2 a(x_of(plan.offsets[i]), y_of(b.first)), z(x_of(plan.offsets[i] + b.size), y_of(b.last + 1));
    if (z.x - a.x > 24 && z.y - a.y > line) {
      const ImVec2 text = ImGui::CalcTextSize(b.name.c_str());
      if (z.x - a.x > text.x + 4) labels.push_back({ImVec2(a.x + 3, a.y + 1), b.name.c_str()});
    }
    if (mouse.x >= a.x && mouse.x < z.x && mouse.y >= a.y && mouse.y < z.y) hovered = static_cast<int>(i);
  }
  if (!queue_rects(dl, ImVec2(left, top), ImVec2(left + plot_w, y_of(steps)),
                   {0, 0, float(plan.arena_bytes), float(steps)}, std::move(rects)))
    ImGui::TextColored(kColorError, "GPU rectangles unavailable: %s", rect_renderer_error().c_str());
  // After the renderer's callback in the draw list, so the names sit on top of their buffers.
  for (const auto& [at, name] : labels) dl->AddText(at, IM_COL32(0, 0, 0, 0xFF), name);
  for (Step t = 0; t < steps; ++t) {
    char label[32];
    std::snprintf(label, sizeof label, "step %d", t);
    dl->AddText(ImVec2(origin.x, y_of(t) + (row_h - line) / 2), kTextColor, label);
  }
  // The current step: outlined, with "now" beside it (not colour alone).
  dl->AddRect(ImVec2(left - 1, y_of(s.step)), ImVec2(left + plot_w + 1, y_of(s.step + 1)), kCurrentColor, 0, 0, 2.0f);
  // The lower bound as a dashed-looking vertical mark, labelled.
  const float xb = x_of(plan.lower_bound_bytes);
  for (float y = top; y < y_of(steps); y += 8) dl->AddLine(ImVec2(xb, y), ImVec2(xb, std::min(y + 4, y_of(steps))), kPeakColor, 2);
  char axis[96];
  std::snprintf(axis, sizeof axis, "0 .. %s (arena)   | bound %s", kib_text(plan.arena_bytes).c_str(), kib_text(plan.lower_bound_bytes).c_str());
  dl->AddText(ImVec2(left, y_of(steps) + 0.3f * line), kTextColor, axis);
  if (hovered >= 0) {
    const LayoutBuffer& b = p.buffers[hovered];
    ImGui::BeginTooltip();
    ImGui::Text("%s (%s)", b.name.c_str(), category_name(b.category));
    ImGui::Text("size %s (%lld B), offset %lld", kib_text(b.size).c_str(), (long long)b.size, (long long)plan.offsets[hovered]);
    ImGui::Text("live steps %d..%d", b.first, b.last);
    ImGui::EndTooltip();
  } else if (ImGui::IsItemHovered() && mouse.y >= top && mouse.y < y_of(steps)) {
    const Step t = std::clamp(static_cast<Step>((mouse.y - top) / row_h), 0, steps - 1);
    const std::vector<Hole> holes = holes_at(p, plan.offsets, plan.arena_bytes, t);
    Bytes largest = 0;
    for (const Hole& h : holes) largest = std::max(largest, h.bytes());
    ImGui::SetTooltip("step %d: %s, largest %s (click: make current)", t,
                      plural(int64_t(holes.size()), "hole", "holes").c_str(), kib_text(largest).c_str());
  }
  if (clicked && mouse.y >= top && mouse.y < y_of(steps))
    set_step(s, std::clamp(static_cast<Step>((mouse.y - top) / row_h), 0, steps - 1));
}

void draw_arena(AppState& s) {
  ArenaPanelState& v = s.arena;
  ArenaTable& t = table(s);
  if (!t.error.empty()) {
    ImGui::TextColored(kColorError, "Cannot plan: %s", t.error.c_str());
    return;
  }
  if (t.rows.empty() || draw_exam_lock(s, ExamTool::kArenaPlanners)) return;
  draw_planner_table(s, t);
  draw_exact_controls(s, t);
  const ArenaPlan& plan = t.rows[v.shown].plan;
  const std::vector<Hole> holes = holes_at(t.problem, plan.offsets, plan.arena_bytes, s.step);
  Bytes largest = 0;
  for (const Hole& h : holes) largest = std::max(largest, h.bytes());
  ImGui::Text("Showing %s: %s. During step %d: %s, largest %s.", t.rows[v.shown].name.c_str(),
              kib_text(plan.arena_bytes).c_str(), s.step, plural(int64_t(holes.size()), "hole", "holes").c_str(),
              kib_text(largest).c_str());
  draw_picture(s, t.problem, plan);
}

JsonOut export_arena(const AppState& s) {
  const ArenaPanelState& v = s.arena;
  const ArenaTable& t = v.table.value();  // as last drawn
  JsonOut out;
  JsonOut planners = JsonOut::array();
  for (const PlannerRow& r : t.rows)
    planners.push_back({{"planner", r.name},
                        {"arena_bytes", r.plan.arena_bytes},
                        {"verified", r.plan.verified},
                        {"proven_optimal", r.plan.proven_optimal}});
  out["planners"] = planners;
  out["lower_bound_bytes"] = t.rows.empty() ? 0 : t.rows[0].plan.lower_bound_bytes;
  out["shown"] = t.rows.empty() ? "" : t.rows[v.shown].name;
  out["exact_running"] = v.exact_running;
  if (v.exact) {
    out["exact_best_bytes"] = v.exact->progress().value("best_bytes", Bytes{0});
    out["exact_progress"] = v.exact->progress().value("progress", 0.0);
    out["exact_in_worker"] = v.exact->in_worker();  // false: stepped on the page (no Worker)
  }
  out["exact_status"] = v.exact_status;
  out["error"] = t.error;
  if (!t.rows.empty()) out["plan"] = layout_json(t.problem, t.rows[v.shown].plan);
  return out;
}

// The planner whose picture is shown travels in share links (the anytime search's row does not:
// it is a search the receiver starts, so the link names its seed, the portfolio).
JsonOut save_arena_view(const AppState& s) {
  const ArenaPanelState& v = s.arena;
  const std::vector<std::string> names = interactive_planner_names();
  const bool interactive = v.shown >= 0 && v.shown < static_cast<int>(names.size());
  return {{"planner", interactive ? names[v.shown] : anytime_planner().seed_planner}};
}

void load_arena_view(AppState& s, const JsonOut& j) {
  ArenaPanelState& v = s.arena;
  const std::string name = j.at("planner").get<std::string>();
  const std::vector<std::string> names = interactive_planner_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw InputError("arena.planner", "unknown planner \"" + name + "\"");
  v.shown = static_cast<int>(it - names.begin());
}

}  // namespace

ARENAPLAN_SHARE_SECTION("arena", save_arena_view, load_arena_view);
ARENAPLAN_PANEL("Arena", draw_arena);
ARENAPLAN_STATE_EXPORT("arena", export_arena);

}  // namespace arenaplan::web
