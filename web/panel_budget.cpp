// Budget panel: does the firmware fit the board? One stacked bar per memory region (reservations,
// tensor arena, free space; red past the region's end), the reservations as an editable table,
// and the plan recomputed by core's plan_budget whenever the graph, the order or the board
// changes. Every number shown is read from the typed Budget (and core's budget_room /
// address_text), the figures `arenaplan budget --json` spells.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/budget/board.h"
#include "core/budget/budget.h"
#include "core/budget/budget_report.h"
#include "core/graph/examples.h"
#include "imgui.h"
#include "web/app.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

// The board being edited and the budget derived from it. View-side state like the other panels'
// options; the graph and order stay in AppState.
struct BudgetView {
  std::string board_name;   // built-in board example last loaded
  MemoryMap board;
  bool loaded = false;
  int scratch_policy = 0;   // 0 in_arena, 1 separate
  uint64_t board_version = 0;  // bumped by every board edit
  // Cache key: recompute only when the graph/order (revision) or the board changed.
  uint64_t planned_revision = ~0ull, planned_board = ~0ull;
  int planned_policy = -1;
  Budget budget;
  JsonOut json;
  std::string error;
};

BudgetView g_view;

constexpr ImU32 kOverflowColor = IM_COL32(0xD5, 0x3E, 0x00, 0xFF);  // vermillion, plus "OVER by"
constexpr ImU32 kFreeColor = IM_COL32(0x40, 0x40, 0x40, 0xFF);

// Okabe-Ito colours per item kind; each segment also carries its name in text.
ImU32 kind_color(const std::string& kind) {
  if (kind == "arena") return IM_COL32(0x56, 0xB4, 0xE9, 0xFF);
  if (kind == "stack") return IM_COL32(0xE6, 0x9F, 0x00, 0xFF);
  if (kind == "services") return IM_COL32(0xF0, 0xE4, 0x42, 0xFF);
  if (kind == "acquisition") return IM_COL32(0x00, 0x9E, 0x73, 0xFF);
  if (kind == "persistent") return IM_COL32(0xCC, 0x79, 0xA7, 0xFF);
  if (kind == "scratch") return IM_COL32(0x00, 0x72, 0xB2, 0xFF);
  return IM_COL32(0x99, 0x99, 0x99, 0xFF);
}

std::vector<std::string> board_examples() {
  std::vector<std::string> out;
  for (const Example& e : builtin_examples())
    if (e.json.find("\"arenaplan-board\"") != std::string::npos) out.push_back(e.name);
  return out;
}

void load_board(const std::string& name) {
  const std::string* text = find_example(name);
  if (!text) return;
  try {
    g_view.board = parse_board_json(*text);
    g_view.board_name = name;
    g_view.loaded = true;
    g_view.error.clear();
    ++g_view.board_version;
  } catch (const std::exception& e) {
    g_view.error = std::string("Board refused: ") + e.what();
  }
}

void ensure_board() {
  if (g_view.loaded) return;
  std::vector<std::string> boards = board_examples();
  const bool has_default = std::find(boards.begin(), boards.end(), "two_branch_board") != boards.end();
  if (has_default) load_board("two_branch_board");
  else if (!boards.empty()) load_board(boards.front());
}

// Recomputes the budget when its inputs changed (never every frame: planning is not free).
void replan(const AppState& s) {
  if (!g_view.loaded) return;
  if (g_view.planned_revision == s.revision && g_view.planned_board == g_view.board_version &&
      g_view.planned_policy == g_view.scratch_policy)
    return;
  g_view.planned_revision = s.revision;
  g_view.planned_board = g_view.board_version;
  g_view.planned_policy = g_view.scratch_policy;
  try {
    BudgetOptions options;
    options.plan.time_limit_seconds = 0.25;  // keep the page responsive; the planner says what it proved
    options.scratch = g_view.scratch_policy == 1 ? ScratchPolicy::kSeparate : ScratchPolicy::kInArena;
    g_view.budget = plan_budget(s.graph, s.live, g_view.board, options);
    g_view.json = budget_json(s.graph, s.live, g_view.board, g_view.budget);
    g_view.error.clear();
  } catch (const std::exception& e) {
    g_view.json = JsonOut();
    g_view.error = std::string("Budget refused: ") + e.what();
  }
}

// One region as a stacked bar: items in memory-map order, then free space or the overflow in red
// past a marker at the region's end.
void draw_region_bar(AppState& s, const RegionBudget& rb, int index) {
  const Region& region = g_view.board.regions[rb.region];
  const Bytes size = region.size;
  const Bytes used = rb.used_bytes;
  const Bytes free = rb.free_bytes;
  ImGui::Text("%s  %s at %s: used %s, %s", region.name.c_str(), kib_text(size).c_str(),
              address_text(region.base).c_str(), kib_text(used).c_str(),
              free >= 0 ? ("free " + kib_text(free)).c_str() : ("OVER by " + kib_text(-free)).c_str());
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 200.0f);
  const float height = line * 2.2f;
  ImGui::InvisibleButton(("bar" + std::to_string(index)).c_str(), ImVec2(width, height));
  record_item_rect(s, "budget.bar." + std::to_string(index));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Bytes scale = std::max(size, used);
  auto x_of = [&](Bytes b) { return origin.x + width * float(double(b) / double(std::max<Bytes>(1, scale))); };
  dl->AddRectFilled(origin, ImVec2(x_of(size), origin.y + height), kFreeColor);

  // Phase-only items overlay each other (init and inference never coexist), so draw each at its
  // offset; the arena and always-present items tile the start of the region.
  std::string tooltip;
  for (const BudgetItem& it : rb.items) {
    const Bytes off = it.offset, bytes = it.bytes;
    const std::string phase = phase_name(it.phase);
    const float y0 = origin.y + (phase == "init" ? height * 0.5f : 0.0f);
    const float y1 = origin.y + (phase == "inference" ? height * 0.5f : height);
    const ImVec2 p0(x_of(off), y0), p1(x_of(off + bytes), y1);
    dl->AddRectFilled(p0, p1, kind_color(it.kind));
    dl->AddRect(p0, p1, IM_COL32(0, 0, 0, 0xFF));
    const std::string label = it.owner + " " + kib_text(bytes);
    const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
    if (ts.x + 6 < p1.x - p0.x) dl->AddText(ImVec2(p0.x + 3, y0 + 2), IM_COL32(0, 0, 0, 0xFF), label.c_str());
    if (hovered && mouse.x >= p0.x && mouse.x < p1.x && mouse.y >= y0 && mouse.y < y1)
      tooltip = label + " [" + it.kind + (phase == "always" ? "" : ", " + phase + " only") + "]";
  }
  if (used > size) {
    dl->AddRectFilled(ImVec2(x_of(size), origin.y), ImVec2(x_of(used), origin.y + height), kOverflowColor & 0x80FFFFFF);
    dl->AddLine(ImVec2(x_of(size), origin.y - 3), ImVec2(x_of(size), origin.y + height + 3), kOverflowColor, 3.0f);
    dl->AddText(ImVec2(x_of(size) + 4, origin.y + height * 0.5f), kTextColor, "OVER");
  }
  if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
}

// Colour key, so no segment depends on colour alone (narrow ones also have a tooltip).
void draw_legend() {
  static const char* kKinds[] = {"arena", "stack", "services", "acquisition", "persistent", "scratch", "other"};
  const float box = ImGui::GetTextLineHeight() * 0.8f;
  for (const char* k : kKinds) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + box, p.y + 2 + box), kind_color(k));
    ImGui::Dummy(ImVec2(box, box));
    ImGui::SameLine();
    ImGui::TextUnformatted(k);
    ImGui::SameLine(0, 14);
  }
  ImGui::NewLine();
  ImGui::TextDisabled("Init-only items fill the lower half of a bar, inference-only items the upper half.");
}

// The reservations table: every field editable; an edit is validated by core before it counts.
void draw_reservations(AppState& s) {
  MemoryMap edited = g_view.board;
  bool changed = false;
  int remove = -1;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("reservations", 6, flags)) {
    const float em = ImGui::CalcTextSize("M").x;
    ImGui::TableSetupColumn("Owner", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Kind", ImGuiTableColumnFlags_WidthFixed, em * 13);
    ImGui::TableSetupColumn("Region", ImGuiTableColumnFlags_WidthFixed, em * 10);
    ImGui::TableSetupColumn("KiB", ImGuiTableColumnFlags_WidthFixed, em * 16);
    ImGui::TableSetupColumn("Phase", ImGuiTableColumnFlags_WidthFixed, em * 11);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    static const char* kKinds[] = {"stack", "services", "acquisition", "persistent", "heap", "conversion", "other"};
    static const char* kPhases[] = {"always", "init", "inference"};
    for (size_t i = 0; i < edited.reservations.size(); ++i) {
      Reservation& r = edited.reservations[i];
      ImGui::PushID(int(i));
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char owner[96];
      std::snprintf(owner, sizeof owner, "%s", r.owner.c_str());
      ImGui::SetNextItemWidth(-1);
      if (ImGui::InputText("##owner", owner, sizeof owner, ImGuiInputTextFlags_EnterReturnsTrue) && owner[0]) {
        r.owner = owner;
        changed = true;
      }
      ImGui::TableNextColumn();
      int kind = 0;
      for (int k = 0; k < 7; ++k)
        if (r.kind == *reservation_kind_from_name(kKinds[k])) kind = k;
      ImGui::SetNextItemWidth(-1);
      if (ImGui::Combo("##kind", &kind, kKinds, 7)) {
        r.kind = *reservation_kind_from_name(kKinds[kind]);
        changed = true;
      }
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(-1);
      if (ImGui::BeginCombo("##region", edited.regions[r.region].name.c_str())) {
        for (size_t g = 0; g < edited.regions.size(); ++g)
          if (ImGui::Selectable(edited.regions[g].name.c_str(), RegionId(g) == r.region)) {
            r.region = RegionId(g);
            changed = true;
          }
        ImGui::EndCombo();
      }
      ImGui::TableNextColumn();
      int kibs = int(std::min<Bytes>(r.bytes / 1024, 1 << 30));
      ImGui::SetNextItemWidth(-1);
      if (ImGui::InputInt("##kib", &kibs, 4, 16) && kibs > 0) {
        r.bytes = Bytes(kibs) * 1024;
        changed = true;
      }
      record_item_rect(s, "budget.reservation." + std::to_string(i) + ".kib");
      ImGui::TableNextColumn();
      int phase = r.phase == Phase::kInit ? 1 : r.phase == Phase::kInference ? 2 : 0;
      ImGui::SetNextItemWidth(-1);
      if (ImGui::Combo("##phase", &phase, kPhases, 3)) {
        r.phase = *phase_from_name(kPhases[phase]);
        if (r.phase != Phase::kInit) r.in_arena = false;
        changed = true;
      }
      ImGui::TableNextColumn();
      if (ImGui::SmallButton("x")) remove = int(i);
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (remove >= 0) {
    edited.reservations.erase(edited.reservations.begin() + remove);
    changed = true;
  }
  if (ImGui::Button("Add reservation")) {
    edited.reservations.push_back({"new reservation", ReservationKind::kOther, edited.arena_regions.front(), 4096,
                                   Phase::kAlways, false});
    changed = true;
  }
  record_item_rect(s, "budget.add");
  if (!changed) return;
  try {
    validate_board(edited);
    g_view.board = std::move(edited);
    ++g_view.board_version;
  } catch (const std::exception& e) {
    g_view.error = std::string("Edit refused: ") + e.what();
  }
}

void draw_budget_panel(AppState& s) {
  ensure_board();
  if (!g_view.loaded) {
    ImGui::TextDisabled("No board example is built in.");
    return;
  }
  std::vector<std::string> boards = board_examples();
  ImGui::SetNextItemWidth(220);
  if (ImGui::BeginCombo("Board", g_view.board_name.c_str())) {
    for (const std::string& b : boards)
      if (ImGui::Selectable(b.c_str(), b == g_view.board_name)) load_board(b);
    ImGui::EndCombo();
  }
  record_item_rect(s, "budget.board");
  ImGui::SameLine();
  static const char* kPolicies[] = {"scratch in the arena (new plan)", "scratch kept separate"};
  ImGui::SetNextItemWidth(240);
  ImGui::Combo("##scratch", &g_view.scratch_policy, kPolicies, 2);
  record_item_rect(s, "budget.scratch");
  replan(s);
  if (!g_view.error.empty()) ImGui::TextColored(kColorError, "%s", g_view.error.c_str());
  if (!g_view.json.is_object()) return;  // no plan for this graph and board (the error says why)

  const Budget& b = g_view.budget;
  const bool fits = b.fits;
  ImGui::TextColored(fits ? ImVec4(0.0f, 0.62f, 0.45f, 1.0f) : ImVec4(0.84f, 0.24f, 0.0f, 1.0f), "%s",
                     fits ? "FITS" : "DOES NOT FIT");
  ImGui::SameLine();
  ImGui::Text("tensor arena %s + outside the arena %s (order %s)", kib_text(b.arena_bytes).c_str(),
              kib_text(b.outside_arena_bytes).c_str(), order_names(s.graph, s.order).c_str());
  if (!fits) ImGui::TextWrapped("Reason: %s", b.reason.c_str());
  for (const std::string& w : b.warnings) ImGui::TextDisabled("warning: %s", w.c_str());

  ImGui::Separator();
  int index = 0;
  for (const RegionBudget& rb : b.regions) draw_region_bar(s, rb, index++);
  draw_legend();

  ImGui::Separator();
  if (ImGui::CollapsingHeader("Reservations (editable)", ImGuiTreeNodeFlags_DefaultOpen)) draw_reservations(s);
  if (ImGui::CollapsingHeader("The three answers")) {
    const LiveAnalysis& live = s.live;  // the lifetimes the budget was planned from
    std::string peak;
    if (!live.steps.empty())
      for (int i : live.steps[live.peak_step].buffers) peak += (peak.empty() ? "" : " + ") + live.buffers[i].name;
    ImGui::Text("1. Which data coexist: peak %s during %s (%s)", kib_text(live.peak_bytes).c_str(),
                live.steps.empty() ? "-" : s.graph.ops[live.order[live.peak_step]].name.c_str(), peak.c_str());
    ImGui::Text("2. Where they are placed:");
    for (size_t i = 0; i < live.buffers.size() && i < b.placements.size(); ++i) {
      const BufferPlacement& p = b.placements[i];
      ImGui::BulletText("%s: %s %s, %s%s", live.buffers[i].name.c_str(),
                        p.region < 0 ? "no region" : g_view.board.regions[p.region].name.c_str(),
                        address_text(p.address).c_str(), kib_text(live.buffers[i].size).c_str(),
                        p.separate ? " (separate reservation)" : "");
    }
    const BudgetRoom room = budget_room(g_view.board, b);
    ImGui::Text("3. Room left: %s of %s", kib_text(room.free_bytes).c_str(), kib_text(room.total_bytes).c_str());
    const MeasurementRecord& m = b.measurement;
    ImGui::TextDisabled("Measurement record: model %s, alignment %lld, planner %s, arenaplan %s", m.model_hash.c_str(),
                        (long long)m.alignment, m.planner.c_str(), m.tool_version.c_str());
  }
}

JsonOut export_budget(const AppState& s) {
  // Tests read the budget without opening the tab, so the exporter plans too (cached).
  ensure_board();
  replan(s);
  JsonOut out;
  out["board"] = g_view.board_name;
  out["board_version"] = g_view.board_version;
  out["error"] = g_view.error;
  out["report"] = g_view.json;
  return out;
}

// The board travels by name while it is the built-in one, inline once edited; the scratch
// policy with it. The budget itself is recomputed on load.
JsonOut save_budget(const AppState&) {
  ensure_board();
  JsonOut out = {{"board", g_view.board_name}, {"scratch_policy", g_view.scratch_policy == 1 ? "separate" : "in_arena"}};
  const std::string* builtin = find_example(g_view.board_name);
  const std::string current = board_to_json(g_view.board);
  if (!builtin || board_to_json(parse_board_json(*builtin)) != current) out["board_json"] = current;
  return out;
}

void load_budget(AppState&, const JsonOut& j) {
  const std::string policy = j.at("scratch_policy").get<std::string>();
  if (policy != "separate" && policy != "in_arena")
    throw InputError("budget.scratch_policy", "expected \"in_arena\" or \"separate\"");
  const std::string name = j.at("board").get<std::string>();
  MemoryMap board;
  if (j.contains("board_json")) board = parse_board_json(j.at("board_json").get<std::string>());
  else if (const std::string* text = find_example(name)) board = parse_board_json(*text);
  else throw InputError("budget.board", "no built-in board named \"" + name + "\"");
  g_view.board = std::move(board);
  g_view.board_name = name;
  g_view.loaded = true;
  g_view.scratch_policy = policy == "separate" ? 1 : 0;
  g_view.error.clear();
  ++g_view.board_version;
}

}  // namespace

ARENAPLAN_SHARE_SECTION("budget", save_budget, load_budget);
ARENAPLAN_PANEL_AT(PanelArea::kMain, 60, "Budget", draw_budget_panel);
ARENAPLAN_STATE_EXPORT("budget", export_budget);

}  // namespace arenaplan::web
