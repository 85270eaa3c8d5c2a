// The frame around the panels: menu bar, fixed tiles holding the registered panels as tabs, and a
// status line. Fixed tiles (no floating windows) so the first load never shows overlapping windows.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph/examples.h"
#include "imgui.h"
#include "web/app.h"
#include "web/embed.h"
#include "web/js_api.h"
#include "web/page_exports.h"
#include "web/share_link.h"
#include "web/ui_style.h"

namespace arenaplan::web {

void record_item_rect(AppState& s, const std::string& key) {
  const ImVec2 a = ImGui::GetItemRectMin();
  const ImVec2 b = ImGui::GetItemRectMax();
  s.ui_rects_building[key] = {a.x, a.y, b.x, b.y};
}

namespace {

// The built-in examples that are graphs (boards and exercises share the folder): the classroom
// sequence first (the article's two-branch graph, a residual block, an inception-like cell, a
// tiny CNN), then the others by name.
const std::vector<const Example*>& graph_examples() {
  static const std::vector<const Example*> list = [] {
    static const std::vector<std::string> kClassroom = {"two_branch", "residual_block", "inception_cell", "tiny_cnn"};
    auto rank = [](const std::string& name) {
      return std::find(kClassroom.begin(), kClassroom.end(), name) - kClassroom.begin();
    };
    std::vector<const Example*> out;
    for (const Example& ex : builtin_examples()) {
      const auto doc = nlohmann::json::parse(ex.json, nullptr, /*allow_exceptions=*/false);
      if (doc.is_object() && doc.value("format", "") == "arenaplan-graph") out.push_back(&ex);
    }
    std::stable_sort(out.begin(), out.end(), [&](const Example* a, const Example* b) {
      return std::make_pair(rank(a->name), a->name) < std::make_pair(rank(b->name), b->name);
    });
    return out;
  }();
  return list;
}

void draw_menu_bar(AppState& s) {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open graph JSON or .tflite...")) request_open_graph_file();
    record_item_rect(s, "menu.file.open");
    if (ImGui::MenuItem("Save graph JSON"))
      offer_download((s.graph.name.empty() ? "graph" : s.graph.name) + ".json", s.graph_json);
    if (ImGui::MenuItem("Copy share link")) copy_share_link(s);
    record_item_rect(s, "menu.file.share");
    if (ImGui::MenuItem("Copy embed code")) copy_embed_code(s);  // web/embed.cpp
    record_item_rect(s, "menu.file.embed");
    if (ImGui::MenuItem("Save analysis JSON"))
      offer_download((s.graph.name.empty() ? "graph" : s.graph.name) + ".analysis.json", s.analysis.dump(2));
    ImGui::Separator();
    if (ImGui::MenuItem("Export plan report JSON")) export_plan_file(s, PlanFileFormat::kJsonReport);
    record_item_rect(s, "menu.file.report");
    if (ImGui::MenuItem("Export C header")) export_plan_file(s, PlanFileFormat::kCHeader);
    if (ImGui::MenuItem("Export PNG of the view")) request_png_export(s);
    record_item_rect(s, "menu.file.png");
    ImGui::EndMenu();
  }
  record_item_rect(s, "menu.file");
  if (ImGui::BeginMenu("Edit")) {
    const std::string undo_label = can_undo(s) ? "Undo " + s.undo_stack.back().what : "Undo";
    const std::string redo_label = can_redo(s) ? "Redo " + s.redo_stack.back().what : "Redo";
    if (ImGui::MenuItem(undo_label.c_str(), "Ctrl+Z", false, can_undo(s))) undo(s);
    if (ImGui::MenuItem(redo_label.c_str(), "Ctrl+Shift+Z", false, can_redo(s))) redo(s);
    ImGui::Separator();
    const std::string reset_label = "Reset to example " + s.base_example;
    if (ImGui::MenuItem(reset_label.c_str())) reset_to_example(s);
    record_item_rect(s, "menu.edit.reset");
    ImGui::EndMenu();
  }
  record_item_rect(s, "menu.edit");
  if (ImGui::BeginMenu("Examples")) {
    for (const Example* ex : graph_examples()) {
      if (ImGui::MenuItem(ex->name.c_str(), nullptr, ex->name == s.example_name)) load_example(s, ex->name);
      record_item_rect(s, "menu.example." + ex->name);
    }
    ImGui::Separator();
    // The cache lab is not a graph: it opens its own tab and leaves the graph as it is.
    if (ImGui::MenuItem("Cache lab")) s.requested_panel = "Cache lab";
    record_item_rect(s, "menu.cache_lab");
    if (ImGui::MenuItem("Exercises")) s.requested_panel = "Exercises";
    record_item_rect(s, "menu.exercises");
    ImGui::EndMenu();
  }
  record_item_rect(s, "menu.examples");
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted("Keyboard");
    ImGui::BulletText("Arrows: move between widgets, Space: activate");
    ImGui::BulletText("Ctrl+Tab: next tile, Alt: menu bar, Esc: leave");
    ImGui::BulletText("Alt+Up / Alt+Down: move the selected op in the order");
    ImGui::BulletText("Alt+Left / Alt+Right: previous / next step");
    ImGui::Separator();
    ImGui::TextUnformatted("Numbers come from the arenaplan core library,");
    ImGui::TextUnformatted("the same code as the `arenaplan analyze` CLI.");
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

// Draws the panels of one area as tabs inside a fixed window covering `pos`/`size`.
void draw_tile(AppState& s, const char* window_name, PanelArea area, ImVec2 pos, ImVec2 size) {
  std::vector<const Panel*> panels;
  for (const Panel& p : panel_registry())
    if (p.area == area) panels.push_back(&p);
  std::sort(panels.begin(), panels.end(), [](const Panel* a, const Panel* b) {
    return std::make_tuple(a->priority, std::string(a->title)) < std::make_tuple(b->priority, std::string(b->title));
  });
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  // Exported so tests can check the tiling (no overlaps, inside the window) at any size.
  s.ui_rects_building[std::string("tile.") + (window_name + 2)] = {pos.x, pos.y, pos.x + size.x, pos.y + size.y};
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin(window_name, nullptr, flags)) {
    if (ImGui::BeginTabBar(window_name)) {
      for (const Panel* p : panels) {
        const bool requested = !s.requested_panel.empty() && s.requested_panel == p->title;
        const bool open = ImGui::BeginTabItem(p->title, nullptr, requested ? ImGuiTabItemFlags_SetSelected : 0);
        record_item_rect(s, std::string("tab.") + p->title);
        if (requested) s.requested_panel.clear();
        if (open) {
          if (area == PanelArea::kMain) s.active_panel = p->title;
          // NavFlattened: arrow keys reach the panel's widgets without first "entering" the child.
          ImGui::BeginChild(p->title, ImVec2(0, 0), false,
                            ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NavFlattened);
          p->draw(s);
          ImGui::EndChild();
          ImGui::EndTabItem();
        }
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
}

bool area_used(PanelArea area) {
  for (const Panel& p : panel_registry())
    if (p.area == area) return true;
  return false;
}

void draw_status_line(AppState& s, ImVec2 pos, ImVec2 size) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoNav;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 3));
  if (ImGui::Begin("##status", nullptr, flags)) {
    if (!s.error.empty()) {
      // Text mark ("Refused") as well as colour, for colour-blind users.
      ImGui::PushStyleColor(ImGuiCol_Text, kColorError);
      ImGui::Text("Refused: %s", s.error.c_str());
      ImGui::PopStyleColor();
    } else {
      ImGui::TextUnformatted(summary_text(s).c_str());
    }
    record_item_rect(s, "status");
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

// Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) anywhere except while typing in a text field, which has
// its own undo of the characters being typed.
void handle_history_keys(AppState& s) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || !io.KeyCtrl) return;
  // ImGui 1.86 (Debian): IsKeyPressed takes the backend's key index, hence GetKeyIndex.
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z), false)) io.KeyShift ? redo(s) : undo(s);
  else if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y), false)) redo(s);
}

}  // namespace

void draw_app(AppState& s) {
  s.ui_rects_building.clear();
  if (!s.embed_view.empty()) {  // an <iframe> embed: one view filling the frame, no menus
    draw_embedded_view(s);
    s.ui_rects.swap(s.ui_rects_building);
    ++s.frame;
    return;
  }
  handle_history_keys(s);
  draw_menu_bar(s);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float status_h = ImGui::GetFrameHeight() + 6;
  const ImVec2 origin = vp->WorkPos;  // below the menu bar
  const ImVec2 work(vp->WorkSize.x, vp->WorkSize.y - status_h);

  const bool has_side = area_used(PanelArea::kSide);
  const bool has_bottom = area_used(PanelArea::kBottom);
  const float side_w = has_side ? std::clamp(work.x * 0.34f, std::min(360.0f, work.x * 0.5f), 520.0f) : 0.0f;
  const float right_w = work.x - side_w;
  const float bottom_h = has_bottom ? std::floor(work.y * 0.34f) : 0.0f;

  // Keyboard users start in the first tile: arrows work at once, without a click. Frame 1, not 0:
  // on frame 0 every newly created window takes the focus in turn.
  if (s.frame == 1) ImGui::SetNextWindowFocus();
  if (has_side) draw_tile(s, "##side", PanelArea::kSide, origin, ImVec2(side_w, work.y));
  draw_tile(s, "##main", PanelArea::kMain, ImVec2(origin.x + side_w, origin.y), ImVec2(right_w, work.y - bottom_h));
  if (has_bottom)
    draw_tile(s, "##bottom", PanelArea::kBottom, ImVec2(origin.x + side_w, origin.y + work.y - bottom_h),
              ImVec2(right_w, bottom_h));
  draw_status_line(s, ImVec2(origin.x, origin.y + work.y), ImVec2(vp->WorkSize.x, status_h));

  s.ui_rects.swap(s.ui_rects_building);
  ++s.frame;
}

}  // namespace arenaplan::web
