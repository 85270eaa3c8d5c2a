// Budget panel: does the firmware fit the board? One stacked bar per memory region (reservations,
// tensor arena, free space; red past the region's end), the reservations as an editable table,
// and the plan recomputed by core's plan_budget whenever the graph, the order or the board
// changes. Every number shown comes from core's typed Budget report (core/budget), the same one
// `arenaplan budget` prints; its JSON view is exported for tests.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/budget/board.h"
#include "core/budget/board_library.h"
#include "core/budget/budget.h"
#include "core/budget/budget_report.h"
#include "core/graph/examples.h"
#include "core/session/session.h"
#include "imgui.h"
#include "web/app.h"
#include "web/budget_tflm.h"
#include "web/js_api.h"
#include "web/panel_budget.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

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

// A board opened from a file has no built-in text: it travels inline in share links.
constexpr const char* kFileBoardPrefix = "file:";

void adopt_board(BudgetPanelState& v, MemoryMap board, const std::string& name) {
  v.board = std::move(board);
  v.board_name = name;
  v.loaded = true;
  v.error.clear();
  ++v.board_version;
}

void load_board(BudgetPanelState& v, const std::string& name) {
  const std::string* text = builtin_board_text(name);
  if (!text) return;
  try {
    adopt_board(v, parse_board_json(*text), name);
  } catch (const std::exception& e) {
    v.error = std::string("Board refused: ") + e.what();
  }
}

// "stm32h743: STM32H743 (e.g. NUCLEO-H743ZI2)" for library boards, the stem for teaching boards.
std::string board_label(const std::string& name) {
  for (const LibraryBoard& b : board_library())
    if (b.name == name) return b.title;
  if (name.rfind(kFileBoardPrefix, 0) == 0) return name.substr(5) + " (file)";
  return name + " (teaching)";
}

}  // namespace

BudgetPanelState& budget_state(const AppState& s) {
  BudgetPanelState& v = s.budget;
  if (v.loaded) return v;
  std::vector<std::string> boards = builtin_board_names();
  const bool has_default = std::find(boards.begin(), boards.end(), "two_branch_board") != boards.end();
  if (has_default) load_board(v, "two_branch_board");
  else if (!boards.empty()) load_board(v, boards.front());
  return v;
}

namespace {

// The budget of the current graph and order on the board, recomputed only when one of them or
// the scratch policy changed. A recomputation clears the last refusal notice (as it did before
// the result: the message shown is the newest).
const BudgetResult& budget_result(const AppState& s) {
  BudgetPanelState& v = budget_state(s);
  const std::tuple<uint64_t, uint64_t, int, uint64_t> key{s.revision, v.board_version, v.scratch_policy,
                                                          s.tflm_target_version};
  if (!v.loaded) return v.result.value();
  if (!v.result.fresh(key)) v.error.clear();
  return v.result.get(key, [&](BudgetResult& r) {
    try {
      BudgetOptions options;
      // The session's plan policy, as `arenaplan budget`: its node limit, not the clock, ends the
      // search, so the page's figures are the CLI's.
      options.plan = export_plan_options();
      // The fit must not depend on how busy the machine is: the region repair's first trials are
      // counted, not timed (selfie_segmentation on the ESP32-S3 board needs about 100).
      options.repair_min_trials = 512;
      options.scratch = v.scratch_policy == 1 ? ScratchPolicy::kSeparate : ScratchPolicy::kInArena;
      // An opened .tflite run by TFLM: the persistent part comes from the model, not from the
      // board's hand-typed reservation (the same rule as `arenaplan budget MODEL.tflite`).
      r.board = v.board;
      if (const TflmArena* a = tflm_offline_arena(s))
        use_model_persistent(r.board, tflm_persistent_bytes(*a), kTflmPersistentOwner);
      r.budget = plan_budget(s.graph, s.live, r.board, options);
      r.json = budget_json(s.graph, s.live, r.board, r.budget);
      r.planned = true;
    } catch (const std::exception& e) {
      r = BudgetResult();
      r.error = std::string("Budget refused: ") + e.what();
    }
  });
}

// The message the panel shows: a refusal newer than the last recomputation, else the result's.
const std::string& budget_error(const BudgetPanelState& v) {
  return v.error.empty() ? v.result.value().error : v.error;
}

// One region as a stacked bar: items in memory-map order, then free space or the overflow in red
// past a marker at the region's end.
void draw_region_bar(AppState& s, const Region& region, const RegionBudget& rb, int index) {
  const Bytes size = region.size;
  const Bytes used = rb.used_bytes;
  const Bytes free = rb.free_bytes;
  text_elided(region.name + "  " + kib_text(size) + " at " + address_text(region.base) +
              ": used " + kib_text(used) + ", " + (free >= 0 ? "free " + kib_text(free) : "OVER by " + kib_text(-free)));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("size %s, used %s", exact_bytes_text(size).c_str(), exact_bytes_text(used).c_str());
  const float line = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(ImGui::GetContentRegionAvail().x, 100.0f);
  const float height = line * 2.2f;
  ImGui::InvisibleButton(("bar" + std::to_string(index)).c_str(), ImVec2(width, height));
  record_item_rect(s, "budget.bar." + std::to_string(index));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Bytes scale = std::max(size, used);
  auto x_of = [&](Bytes b) { return origin.x + width * float(double(b) / double(std::max<Bytes>(1, scale))); };
  dl->AddRectFilled(origin, ImVec2(x_of(size), origin.y + height), kFreeColor);

  // The overflow first, so its "OVER" mark claims its place before any segment label: labels
  // are drawn only where they fit their box and overlap no other label.
  std::vector<ImVec4> taken;
  if (used > size) {
    dl->AddRectFilled(ImVec2(x_of(size), origin.y), ImVec2(x_of(used), origin.y + height), kOverflowColor & 0x80FFFFFF);
    dl->AddLine(ImVec2(x_of(size), origin.y - 3), ImVec2(x_of(size), origin.y + height + 3), kOverflowColor, 3.0f);
    draw_label(s, dl, "budget.bar", ImVec2(x_of(size) + 4, origin.y + height - line - 1), kTextColor, "OVER",
               ImVec4(x_of(size), origin.y, origin.x + width, origin.y + height), taken);
  }
  // Phase-only items overlay each other (init and inference never coexist), so draw each at its
  // offset; the arena and always-present items tile the start of the region.
  std::string tooltip;
  for (const BudgetItem& it : rb.items) {
    const Bytes off = it.offset, bytes = it.bytes;
    const float y0 = origin.y + (it.phase == Phase::kInit ? height * 0.5f : 0.0f);
    const float y1 = origin.y + (it.phase == Phase::kInference ? height * 0.5f : height);
    const ImVec2 p0(x_of(off), y0), p1(x_of(off + bytes), y1);
    dl->AddRectFilled(p0, p1, kind_color(it.kind));
    dl->AddRect(p0, p1, IM_COL32(0, 0, 0, 0xFF));
    const std::string label = it.owner + " " + kib_text(bytes);
    // Inside the segment and inside the region's end (the overflow keeps its own mark).
    const ImVec4 box(p0.x + 2, y0, std::min(p1.x, x_of(size)) - 2, y1);
    if (!draw_label(s, dl, "budget.bar", ImVec2(p0.x + 3, y0 + 2), IM_COL32(0, 0, 0, 0xFF), label, box, taken))
      draw_label(s, dl, "budget.bar", ImVec2(p0.x + 3, y0 + 2), IM_COL32(0, 0, 0, 0xFF), it.owner, box, taken);
    if (hovered && mouse.x >= p0.x && mouse.x < p1.x && mouse.y >= y0 && mouse.y < y1)
      tooltip = label + " (" + exact_bytes_text(bytes) + ") [" + it.kind +
                (it.phase == Phase::kAlways ? "" : ", " + std::string(phase_name(it.phase)) + " only") + "]";
  }
  if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
}

// Colour key, so no segment depends on colour alone (narrow ones also have a tooltip).
void draw_legend() {
  static const char* kKinds[] = {"arena", "stack", "services", "acquisition", "persistent", "scratch", "other"};
  const float box = ImGui::GetTextLineHeight() * 0.8f;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    const char* k = kKinds[i];
    // An entry (box and name) moves to the next line as a whole when the panel is narrow.
    if (i > 0) same_line_if_fits(box + gap + ImGui::CalcTextSize(k).x, 14);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + box, p.y + 2 + box), kind_color(k));
    ImGui::Dummy(ImVec2(box, box));
    ImGui::SameLine();
    ImGui::TextUnformatted(k);
  }
  note_wrapped("Init-only items fill the lower half of a bar, inference-only items the upper half.");
}

// A column of a board table: header, sizing flags, width (0: ImGui's default).
struct BoardColumn {
  const char* name;
  ImGuiTableColumnFlags flags;
  float width = 0;
};

// One editable table of the board: the header, then draw_row(i) for each of `rows` rows in its own
// ID scope; draw_row edits the panel's copy of the board and returns true when it changed it.
template <class DrawRow>
bool draw_board_table(const char* id, std::initializer_list<BoardColumn> columns, size_t rows, DrawRow&& draw_row) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable(id, int(columns.size()), flags)) return false;
  for (const BoardColumn& c : columns) ImGui::TableSetupColumn(c.name, c.flags, c.width);
  ImGui::TableHeadersRow();
  bool changed = false;
  for (size_t i = 0; i < rows; ++i) {
    ImGui::PushID(int(i));
    ImGui::TableNextRow();
    if (draw_row(i)) changed = true;
    ImGui::PopID();
  }
  ImGui::EndTable();
  return changed;
}

// An edited copy of the board replaces it only once core's validate_board accepts it.
void commit_board_edit(BudgetPanelState& v, MemoryMap edited) {
  try {
    validate_board(edited);
    v.board = std::move(edited);
    ++v.board_version;
  } catch (const std::exception& e) {
    v.error = std::string("Edit refused: ") + e.what();
  }
}

// The reservations table: every field editable; an edit is validated by core before it counts.
void draw_reservations(AppState& s) {
  BudgetPanelState& v = s.budget;
  MemoryMap edited = v.board;
  int remove = -1;
  static const char* kKinds[] = {"stack", "services", "acquisition", "persistent", "heap", "conversion", "other"};
  static const char* kPhases[] = {"always", "init", "inference"};
  const float em = ImGui::CalcTextSize("M").x;
  bool changed = draw_board_table(
      "reservations",
      {{"Owner", ImGuiTableColumnFlags_WidthStretch},
       {"Kind", ImGuiTableColumnFlags_WidthFixed, em * 13},
       {"Region", ImGuiTableColumnFlags_WidthFixed, em * 10},
       {"KiB", ImGuiTableColumnFlags_WidthFixed, em * 16},
       {"Phase", ImGuiTableColumnFlags_WidthFixed, em * 11},
       {"", ImGuiTableColumnFlags_WidthFixed}},
      edited.reservations.size(), [&](size_t i) {
        bool row_changed = false;
        Reservation& r = edited.reservations[i];
        ImGui::TableNextColumn();
        char owner[96];
        std::snprintf(owner, sizeof owner, "%s", r.owner.c_str());
        ImGui::SetNextItemWidth(r.assumption ? -ImGui::CalcTextSize("(assumed)").x - 8 : -1);
        if (ImGui::InputText("##owner", owner, sizeof owner, ImGuiInputTextFlags_EnterReturnsTrue) && owner[0]) {
          r.owner = owner;
          row_changed = true;
        }
        if (r.assumption) {
          ImGui::SameLine(0, 4);
          ImGui::TextDisabled("(assumed)");
          if (ImGui::IsItemHovered())
            ImGui::SetTooltip("A default guessed by the board file, not a datasheet figure: set it to what your firmware uses.");
        }
        ImGui::TableNextColumn();
        int kind = 0;
        for (int k = 0; k < 7; ++k)
          if (r.kind == *reservation_kind_from_name(kKinds[k])) kind = k;
        ImGui::SetNextItemWidth(-1);
        if (ImGui::Combo("##kind", &kind, kKinds, 7)) {
          r.kind = *reservation_kind_from_name(kKinds[kind]);
          row_changed = true;
        }
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##region", edited.regions[r.region].name.c_str())) {
          for (size_t g = 0; g < edited.regions.size(); ++g)
            if (ImGui::Selectable(edited.regions[g].name.c_str(), RegionId(g) == r.region)) {
              r.region = RegionId(g);
              row_changed = true;
            }
          ImGui::EndCombo();
        }
        ImGui::TableNextColumn();
        int kibs = int(std::min<Bytes>(r.bytes / 1024, 1 << 30));
        ImGui::SetNextItemWidth(-1);
        if (ImGui::InputInt("##kib", &kibs, 4, 16) && kibs > 0) {
          r.bytes = Bytes(kibs) * 1024;
          r.assumption = false;  // the user has set it
          row_changed = true;
        }
        bytes_tooltip(r.bytes);
        record_item_rect(s, "budget.reservation." + std::to_string(i) + ".kib");
        ImGui::TableNextColumn();
        int phase = r.phase == Phase::kInit ? 1 : r.phase == Phase::kInference ? 2 : 0;
        ImGui::SetNextItemWidth(-1);
        if (ImGui::Combo("##phase", &phase, kPhases, 3)) {
          r.phase = *phase_from_name(kPhases[phase]);
          if (r.phase != Phase::kInit) r.in_arena = false;
          row_changed = true;
        }
        ImGui::TableNextColumn();
        if (ImGui::SmallButton("x")) remove = int(i);
        return row_changed;
      });
  if (remove >= 0) {
    edited.reservations.erase(edited.reservations.begin() + remove);
    changed = true;
  }
  if (ImGui::Button("Add reservation")) {
    edited.reservations.push_back({"new reservation", ReservationKind::kOther, edited.arena_regions.front(), 4096,
                                   Phase::kAlways, false, false});
    changed = true;
  }
  record_item_rect(s, "budget.add");
  if (changed) commit_board_edit(v, std::move(edited));
}

// The regions table: sizes editable (boards differ: FlexRAM splits, PSRAM sizes, a smaller
// part of the family), whether the arena may use a region, and where each figure comes from.
void draw_regions(AppState& s) {
  BudgetPanelState& v = s.budget;
  MemoryMap edited = v.board;
  const ImGuiStyle& st = ImGui::GetStyle();
  const bool changed = draw_board_table(
      "regions",
      {{"Region", ImGuiTableColumnFlags_WidthStretch},
       {"Base", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("0x00000000").x + 4},
       // Room for seven digits and the -/+ buttons of InputInt.
       {"KiB", ImGuiTableColumnFlags_WidthFixed,
        ImGui::CalcTextSize("0000000").x + 2 * ImGui::GetFrameHeight() + 2 * st.ItemInnerSpacing.x + 2 * st.FramePadding.x},
       {"Kind", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("fast+dma").x + 4},
       {"Arena", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("Arena").x + 4}},
      edited.regions.size(), [&](size_t i) {
        bool row_changed = false;
        Region& r = edited.regions[i];
        ImGui::TableNextColumn();
        text_elided(r.name);
        if (!r.source.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("Source: %s", r.source.c_str());
        ImGui::TableNextColumn();
        char base[24];
        std::snprintf(base, sizeof base, "0x%08llX", static_cast<unsigned long long>(r.base));
        text_elided(base);
        ImGui::TableNextColumn();
        int kibs = int(std::min<Bytes>(r.size / 1024, 1 << 30));
        ImGui::SetNextItemWidth(-1);
        if (ImGui::InputInt("##size", &kibs, 16, 256) && kibs > 0) {
          r.size = Bytes(kibs) * 1024;
          row_changed = true;
        }
        record_item_rect(s, "budget.region." + std::to_string(i) + ".kib");
        bytes_tooltip(r.size);
        ImGui::TableNextColumn();
        std::string attrs;
        for (RegionAttribute a : r.attributes) attrs += (attrs.empty() ? "" : "+") + std::string(attribute_name(a));
        text_elided(attrs.empty() ? "-" : attrs);
        ImGui::TableNextColumn();
        const auto pos = std::find(edited.arena_regions.begin(), edited.arena_regions.end(), RegionId(i));
        bool in_arena = pos != edited.arena_regions.end();
        if (ImGui::Checkbox("##arena", &in_arena)) {
          if (in_arena) edited.arena_regions.push_back(RegionId(i));
          else edited.arena_regions.erase(pos);
          row_changed = true;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("May unconstrained arena buffers use this region?");
        return row_changed;
      });
  if (changed) commit_board_edit(v, std::move(edited));
}

// The report's three answers (which data coexist, where they are placed, room left) and the
// measurement record, from core's typed results.
void draw_three_answers(const AppState& s, const BudgetResult& r) {
  const Budget& b = r.budget;
  const BudgetCoexist c = budget_coexist(s.graph, s.live);
  ImGui::Text("1. Which data coexist: peak %s during %s (%s)", kib_text(c.peak_bytes).c_str(),
              c.peak_step >= 0 ? c.peak_op.c_str() : "-", peak_buffers_text(c).c_str());
  ImGui::Text("2. Where they are placed:");
  for (size_t i = 0; i < s.live.buffers.size(); ++i) {
    const BufferPlacement& p = b.placements[i];
    ImGui::BulletText("%s: %s %s, %s%s", s.live.buffers[i].name.c_str(),
                      p.region < 0 ? "no region" : r.board.regions[p.region].name.c_str(), address_text(p.address).c_str(),
                      kib_text(s.live.buffers[i].size).c_str(), p.separate ? " (separate reservation)" : "");
  }
  const BudgetRoom room = budget_room(r.board, b);
  ImGui::Text("3. Room left: %s of %s", kib_text(room.free_bytes).c_str(), kib_text(room.total_bytes).c_str());
  const MeasurementRecord& m = b.measurement;
  ImGui::TextDisabled("Measurement record: model %s, alignment %lld, planner %s, arenaplan %s", m.model_hash.c_str(),
                      (long long)m.alignment, m.planner.c_str(), m.tool_version.c_str());
}

void draw_board_picker(AppState& s) {
  BudgetPanelState& v = s.budget;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float open_w = button_width("Open board file...");
  const std::string current = board_label(v.board_name);
  // Wide enough for the whole name when the panel allows (the combo clips its preview).
  const float want = ImGui::CalcTextSize(current.c_str()).x + ImGui::GetFrameHeight() + st.FramePadding.x * 2;
  const float room = avail - open_w - ImGui::CalcTextSize("Board").x - st.ItemInnerSpacing.x - 2 * st.ItemSpacing.x;
  ImGui::SetNextItemWidth(std::max(120.0f, std::min(room, want)));
  // The library has dozens of boards: the list takes the window's height rather than eight rows.
  if (ImGui::BeginCombo("Board", current.c_str(), ImGuiComboFlags_HeightLargest)) {
    for (const std::string& b : builtin_board_names()) {
      if (ImGui::Selectable(board_label(b).c_str(), b == v.board_name)) load_board(v, b);
      if (ImGui::IsItemVisible()) record_item_rect(s, "budget.board." + b);  // only what a click can reach
      for (const LibraryBoard& lb : board_library())
        if (lb.name == b && ImGui::IsItemHovered())
          ImGui::SetTooltip("%s: %s RAM in %s", lb.name.c_str(), kib_text(lb.total_bytes).c_str(),
                            plural(int64_t(parse_board_json(lb.json).regions.size()), "region", "regions").c_str());
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
    ImGui::TextUnformatted(current.c_str());
    if (!v.board.source.empty()) ImGui::TextUnformatted(("Source: " + v.board.source).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  record_item_rect(s, "budget.board");
  ImGui::SameLine();
  if (ImGui::Button("Open board file...")) request_open_board_file();
  record_item_rect(s, "budget.open_board");
  static const char* kPolicies[] = {"scratch in the arena (new plan)", "scratch kept separate"};
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, ImGui::CalcTextSize(kPolicies[0]).x +
                                                                       ImGui::GetFrameHeight() +
                                                                       2 * ImGui::GetStyle().FramePadding.x));
  ImGui::Combo("##scratch", &v.scratch_policy, kPolicies, 2);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kPolicies[v.scratch_policy]);
  record_item_rect(s, "budget.scratch");
}

void draw_budget_panel(AppState& s) {
  BudgetPanelState& v = budget_state(s);
  if (!v.loaded) {
    ImGui::TextDisabled("No board is built in.");
    return;
  }
  draw_board_picker(s);
  const BudgetResult& r = budget_result(s);
  if (!budget_error(v).empty()) text_wrapped(budget_error(v), &kColorError);
  if (!r.planned) return;

  const Budget& b = r.budget;
  ImGui::TextColored(b.fits ? ImVec4(0.0f, 0.62f, 0.45f, 1.0f) : ImVec4(0.84f, 0.24f, 0.0f, 1.0f), "%s",
                     b.fits ? "FITS" : "DOES NOT FIT");
  ImGui::SameLine();
  const Bytes arena = b.arena_bytes, outside = b.outside_arena_bytes;
  text_elided("tensor arena " + kib_text(arena) + " + outside the arena " + kib_text(outside) + " on " +
              (v.board.title.empty() ? v.board.name : v.board.title));
  if (ImGui::IsItemHovered() && !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopup))
    ImGui::SetTooltip("arena %s, outside %s; order %s", exact_bytes_text(arena).c_str(), exact_bytes_text(outside).c_str(),
                      order_names(s.graph, s.order).c_str());
  if (!b.fits) text_wrapped("Reason: " + b.reason);
  for (const std::string& w : b.warnings) note_wrapped("warning: " + w);
  ImGui::Separator();
  int index = 0;
  for (const RegionBudget& rb : b.regions) draw_region_bar(s, r.board.regions[rb.region], rb, index++);
  draw_legend();
  draw_tflm_arena(s);  // an opened .tflite: TFLM's whole tensor_arena_size (web/budget_tflm.cpp)

  ImGui::Separator();
  if (ImGui::CollapsingHeader("Regions (editable sizes)", ImGuiTreeNodeFlags_DefaultOpen)) draw_regions(s);
  if (ImGui::CollapsingHeader("Reservations (editable)", ImGuiTreeNodeFlags_DefaultOpen)) draw_reservations(s);
  if (!v.board.description.empty() && ImGui::CollapsingHeader("About this board")) {
    text_wrapped(v.board.description);
    if (!v.board.source.empty()) text_wrapped("Source: " + v.board.source);
  }
  if (ImGui::CollapsingHeader("The three answers")) draw_three_answers(s, r);
}

JsonOut export_budget(const AppState& s) {
  // Tests read the budget without opening the tab, so the exporter plans too (cached).
  const BudgetPanelState& v = budget_state(s);
  const BudgetResult& r = budget_result(s);
  JsonOut out;
  out["board"] = v.board_name;
  out["board_title"] = v.board.title;
  out["board_version"] = v.board_version;
  out["regions"] = JsonOut::array();
  for (const Region& g : v.board.regions) out["regions"].push_back({{"name", g.name}, {"size_bytes", g.size}});
  out["reservations"] = JsonOut::array();
  for (const Reservation& g : v.board.reservations)
    out["reservations"].push_back({{"owner", g.owner}, {"bytes", g.bytes}, {"assumption", g.assumption}});
  out["library"] = JsonOut::array();
  for (const std::string& n : builtin_board_names()) out["library"].push_back(n);
  out["error"] = budget_error(v);
  out["report"] = r.json;
  out["tflm_arena"] = export_tflm_arena(s);
  out["flash"] = export_flash(s);
  return out;
}

// The board travels by name while it is the built-in one, inline once edited; the scratch
// policy with it. The budget itself is recomputed on load.
JsonOut save_budget(const AppState& s) {
  const BudgetPanelState& v = budget_state(s);
  JsonOut out = {{"board", v.board_name}, {"scratch_policy", v.scratch_policy == 1 ? "separate" : "in_arena"}};
  const std::string* builtin = builtin_board_text(v.board_name);
  const std::string current = board_to_json(v.board);
  if (!builtin || board_to_json(parse_board_json(*builtin)) != current) out["board_json"] = current;
  return out;
}

void load_budget(AppState& s, const JsonOut& j) {
  const std::string policy = j.at("scratch_policy").get<std::string>();
  if (policy != "separate" && policy != "in_arena")
    throw InputError("budget.scratch_policy", "expected \"in_arena\" or \"separate\"");
  const std::string name = j.at("board").get<std::string>();
  MemoryMap board;
  if (j.contains("board_json")) board = parse_board_json(j.at("board_json").get<std::string>());
  else if (const std::string* text = builtin_board_text(name)) board = parse_board_json(*text);
  else throw InputError("budget.board", "no built-in board named \"" + name + "\"");
  adopt_board(s.budget, std::move(board), name);
  s.budget.scratch_policy = policy == "separate" ? 1 : 0;
}

}  // namespace

bool load_board_file(AppState& s, const std::string& file_name, const std::string& text) {
  try {
    MemoryMap board = parse_board_json(text);
    adopt_board(s.budget, std::move(board), kFileBoardPrefix + (file_name.empty() ? std::string("board.json") : file_name));
    s.requested_panel = "Budget";
    request_redraw(s);
    return true;
  } catch (const std::exception& e) {
    s.budget.error = "Board file refused: " + file_name + ": " + e.what();
    s.error = s.budget.error;
    request_redraw(s);
    return false;
  }
}

bool select_library_board(AppState& s, const std::string& name) {
  if (!builtin_board_text(name)) {
    s.error = "No library board \"" + name + "\" (the Budget tab's list names them)";
    request_redraw(s);
    return false;
  }
  load_board(s.budget, name);
  request_redraw(s);
  if (s.budget.error.empty()) return true;
  s.error = s.budget.error;
  return false;
}

ARENAPLAN_SHARE_SECTION("budget", save_budget, load_budget);
ARENAPLAN_PANEL_AT(PanelArea::kMain, 60, "Budget", draw_budget_panel);
ARENAPLAN_STATE_EXPORT("budget", export_budget);

}  // namespace arenaplan::web
