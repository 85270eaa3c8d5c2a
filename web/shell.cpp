// The frame around the panels: menu bar, fixed tiles holding the registered panels as tabs, and a
// status line. Fixed tiles (no floating windows) so the first load never shows overlapping windows.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph/examples.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "imgui.h"
#include "web/app.h"
#include "imgui_internal.h"  // window list for the text-overflow check
#include "web/embed.h"
#include "web/js_api.h"
#include "web/page_exports.h"
#include "web/panel_common.h"
#include "web/share_link.h"
#include "web/ui_style.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {

bool set_text_px(AppState& s, float px) {
  const bool known = std::find(std::begin(kTextSizes), std::end(kTextSizes), px) != std::end(kTextSizes);
  if (!known) {
    s.error = "Text size " + std::to_string(int(px)) + " px is not offered (13, 16, 20 or 24 px)";
    request_redraw(s);
    return false;
  }
  s.text_px = px;
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.storeSetting) Module.storeSetting('textPx', String($0)); }, int(px));
#endif
  request_redraw(s, 6);  // the font atlas is rebuilt on the next frame, the layout settles after
  return true;
}

void show_notice(AppState& s, const std::string& text) {
  s.notice = text;
  s.notice_until_frame = s.frame + 240;  // a few seconds at the usual frame rates
  request_redraw(s, 3);
}

void copy_to_clipboard(AppState& s, const std::string& text, const std::string& what) {
  show_notice(s, "Copying " + what + "...");
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.copyText) Module.copyText(UTF8ToString($0), UTF8ToString($1)); }, text.c_str(), what.c_str());
#else
  (void)text;
#endif
}

std::string page_address() {
#ifdef __EMSCRIPTEN__
  return emscripten_run_script_string("location.href.split('#')[0]");
#else
  return {};
#endif
}

void report_copy(AppState& s, bool copied, const std::string& what) {
  if (copied) {
    std::string w = what;
    if (!w.empty()) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    show_notice(s, w + " copied");
  } else {
    show_notice(s, "Could not copy the " + what + ": the browser refused the clipboard (it needs https or localhost); select the text and press Ctrl+C");
  }
}

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
    if (ImGui::MenuItem("Save graph JSON")) offer_download(human_model_title(s.graph.name) + ".json", s.graph_json);
    if (ImGui::MenuItem("Copy share link")) {
      copy_share_link(s);  // the address bar shows it; the status line says whether the clipboard took it
    }
    record_item_rect(s, "menu.file.share");
    if (ImGui::MenuItem("Copy embed code")) copy_embed_code(s);  // web/embed.cpp
    record_item_rect(s, "menu.file.embed");
    if (ImGui::MenuItem("Save analysis JSON"))
      offer_download(human_model_title(s.graph.name) + ".analysis.json", s.analysis.dump(2));
    ImGui::Separator();
    if (ImGui::MenuItem("Export plan report JSON")) export_plan_file(s, ExportFormat::kJsonReport);
    record_item_rect(s, "menu.file.report");
    if (ImGui::MenuItem("Export C header")) export_plan_file(s, ExportFormat::kCHeader);
    record_item_rect(s, "menu.file.header");
    if (ImGui::MenuItem("Export MiniMalloc CSV")) export_plan_file(s, ExportFormat::kMinimallocCsv);
    if (ImGui::MenuItem("Export lifetime trace (Perfetto)")) export_plan_file(s, ExportFormat::kTrace);
    // The model itself with the plan in it: stock TFLM then runs this plan.
    const bool model = current_model(s) != nullptr;
    if (ImGui::MenuItem("Export .tflite with offline plan", nullptr, false, model))
      export_plan_file(s, ExportFormat::kTfliteOffline);
    record_item_rect(s, "menu.file.tflite_offline");
    if (ImGui::MenuItem("Export .tflite in this order", nullptr, false, model))
      export_plan_file(s, ExportFormat::kTfliteReordered);
    record_item_rect(s, "menu.file.tflite_reordered");
    // The export policy, in view: the page's files are the CLI's for the same state.
    ImGui::TextDisabled("Exports plan with %s, as `arenaplan export` does", export_plan_options().planner.c_str());
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
  if (ImGui::BeginMenu("View")) {
    if (ImGui::BeginMenu("Text size")) {
      for (float px : kTextSizes) {
        const std::string label = std::to_string(int(px)) + " px" + (px >= 24 ? " (large projector)" : px >= 20 ? " (projector)" : px <= 13 ? " (compact)" : "");
        if (ImGui::MenuItem(label.c_str(), nullptr, s.text_px == px)) set_text_px(s, px);
        record_item_rect(s, "menu.view.text." + std::to_string(int(px)));
      }
      ImGui::EndMenu();
    }
    record_item_rect(s, "menu.view.text");
    ImGui::EndMenu();
  }
  record_item_rect(s, "menu.view");
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Tour: what this page answers")) s.welcome_open = true;
    record_item_rect(s, "menu.help.tour");
    ImGui::Separator();
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
  record_item_rect(s, "menu.help");
  // Developer switches, out of the way of users.
  if (ImGui::BeginMenu("Debug")) {
    if (ImGui::MenuItem("Stress: +10,000 rectangles in Lifetimes", nullptr, s.stress_rects)) {
      s.stress_rects = !s.stress_rects;
      if (s.stress_rects) s.requested_panel = "Lifetimes";
    }
    record_item_rect(s, "menu.debug.stress");
    if (ImGui::MenuItem("Show frame figures (fps, draw calls, core calls)", nullptr, s.debug_figures))
      s.debug_figures = !s.debug_figures;
    record_item_rect(s, "menu.debug.figures");
    ImGui::EndMenu();
  }
  record_item_rect(s, "menu.debug");
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
  // NoBackground: the tiles cover the canvas, whose clear colour is their background colour
  // (main.cpp, tile_background_rgb), so the GL clear paints it once instead of a full-screen
  // blended quad per tile on top of it: software GL pays for every pixel of every layer.
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;
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
          // No horizontal scrolling: wrapped text, headers and tables then take the panel's
          // visible width (with it, ImGui lays them out to the widest content, which then sticks).
          ImGui::BeginChild(p->title, ImVec2(0, 0), false, ImGuiWindowFlags_NavFlattened);
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
    const bool notice = !s.notice.empty() && s.frame < s.notice_until_frame;
    if (!notice && !s.notice.empty()) s.notice.clear();
    if (notice) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.0f, 0.62f, 0.45f, 1.0f));
      ImGui::TextUnformatted("OK:");
      ImGui::PopStyleColor();
      ImGui::SameLine();
      text_elided(s.notice);
      request_redraw(s, 2);  // keep drawing until the notice times out
    } else if (!s.error.empty()) {
      // Text mark ("Refused") as well as colour, for colour-blind users; elided, full on hover.
      text_elided("Refused: " + s.error, ImGui::GetColorU32(kColorError));
    } else {
      text_elided(summary_text(s));
    }
    record_item_rect(s, "status");
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

// The card's first suggestion reads the state the page opened with (a shared link's graph and
// order): an order above the best gets the better one; the best order gets a worse one to compare;
// a graph too big to list every order gets a step through its peak. The step a link brought is
// kept unless the order changes.
void draw_welcome_order(AppState& s) {
  const BestOrder& best = best_order(s);
  const std::string peak = kib_text(s.live.peak_bytes);
  if (best.known && best.peak_bytes < s.live.peak_bytes) {
    if (ImGui::Button("1. Try the better order")) {
      set_order(s, best.order);
      s.requested_panel = "Live bytes";
      s.welcome_open = false;
    }
    record_item_rect(s, "welcome.try_order");
    ImGui::SameLine();
    text_wrapped("This order of " + human_model_title(s.graph.name) + " peaks at " + peak + "; " +
                 order_names(s.graph, best.order) + " peaks at " + kib_text(best.peak_bytes) + ".");
    return;
  }
  std::optional<Bytes> worse;
  if (s.example_name == "two_branch" && s.order == s.graph.file_order()) {
    try {
      worse = order_peak(s.graph, parse_order(s.graph, "A,B,D,C,E,F"));
    } catch (const InputError&) {
      // an edited two-branch graph without those ops: the generic suggestion below
    }
  }
  if (worse) {
    if (ImGui::Button("1. Move C after D")) {
      set_order_csv(s, "A,B,D,C,E,F");
      s.requested_panel = "Live bytes";
      s.welcome_open = false;
    }
    record_item_rect(s, "welcome.try_order");
    ImGui::SameLine();
    text_wrapped("in the two-branch graph and watch the peak rise from " + peak + " to " +
                 kib_text(*worse) + ".");
    return;
  }
  if (ImGui::Button("1. Step to the peak")) {
    set_step(s, s.live.peak_step);
    s.requested_panel = "Live bytes";
    s.welcome_open = false;
  }
  record_item_rect(s, "welcome.try_order");
  ImGui::SameLine();
  text_wrapped("of " + human_model_title(s.graph.name) + ": " + peak + " live at step " + std::to_string(s.live.peak_step) +
               (best.known ? ", already the best any order reaches." : "."));
}

// The first-visit card: what the tool answers and three things to try. Dismissed for good (the
// page remembers it in local storage); Help > Tour opens it again.
void draw_welcome(AppState& s) {
  if (!s.welcome_open) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float w = std::min(vp->WorkSize.x * 0.9f, ImGui::GetFontSize() * 44);
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.45f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(w, 0));
  if (!s.welcome_focused) {  // focus the card once when it opens, not on every frame
    s.welcome_focused = true;
    ImGui::SetNextWindowFocus();
  }
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize;
  bool open = true;
  ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  bg.w = 1.0f;  // opaque: the tiles behind must not show through the card's text
  ImGui::PushStyleColor(ImGuiCol_WindowBg, bg);
  if (ImGui::Begin("Welcome to arenaplan", &open, flags)) {
    text_wrapped("arenaplan answers one question before the firmware runs: how much RAM does this network "
                 "need for inference on this microcontroller? It shows which tensors coexist, which operator "
                 "order keeps the peak lowest, where each tensor sits in the arena (proved by a verifier) and "
                 "whether the whole firmware fits the board. Everything runs in this page; nothing is uploaded.");
    ImGui::Spacing();
    ImGui::TextUnformatted("Three things to try:");
    draw_welcome_order(s);
    if (ImGui::Button("2. Open your own .tflite")) {
      request_open_graph_file();
      s.welcome_open = false;
    }
    record_item_rect(s, "welcome.open_model");
    ImGui::SameLine();
    text_wrapped("(or drop it on the page), then pick a board in the Budget tab.");
    if (ImGui::Button("3. Start the exercises")) {
      s.requested_panel = "Exercises";
      s.welcome_open = false;
    }
    record_item_rect(s, "welcome.exercises");
    ImGui::SameLine();
    text_wrapped("guided questions on live sets, orders and offsets, with hints.");
    ImGui::Spacing();
    if (ImGui::Button("Close (Help > Tour shows this again)")) open = false;
    record_item_rect(s, "welcome.close");
    s.ui_rects_building["welcome.card"] = {ImGui::GetWindowPos().x, ImGui::GetWindowPos().y,
                                           ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                                           ImGui::GetWindowPos().y + ImGui::GetWindowSize().y};
  }
  ImGui::End();
  ImGui::PopStyleColor();
  if (!open) s.welcome_open = false;
  if (!s.welcome_open) {
    s.welcome_focused = false;
#ifdef __EMSCRIPTEN__
    EM_ASM({ if (Module.storeSetting) Module.storeSetting('welcomeSeen', '1'); });
#endif
    request_redraw(s);
  }
}

// After every window is drawn: windows whose widgets reach past their right edge (text that is
// cut off or needs a horizontal scroll). Read from ImGui's own bookkeeping (the furthest cursor
// position of each window this frame), so it covers every panel without instrumenting them.
void collect_text_overflows(AppState& s) {
  s.text_overflows.clear();
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  for (const ImGuiWindow* w : g.Windows) {
    if (!w->WasActive && !w->Active) continue;
    if (w->Hidden || (w->Flags & ImGuiWindowFlags_Tooltip) || (w->Flags & ImGuiWindowFlags_Popup)) continue;
    if (w->Flags & ImGuiWindowFlags_ChildMenu) continue;
    // Tiles, their panels and the status line; not children inside a panel (a text editor or a
    // scrolling table scrolls sideways by design).
    const std::string name = w->Name;
    if (name.rfind("##", 0) != 0 || std::count(name.begin(), name.end(), '/') > 1) continue;
    const float right = w->InnerClipRect.Max.x;
    // Where widgets were actually placed (not IdealMaxPos, which is the room tab bars and tables
    // would like: they shrink and elide to the width they get).
    const float content_right = w->DC.CursorMaxPos.x;
    if (content_right > right + 1.0f) s.text_overflows.push_back({w->Name, right, content_right});
  }
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
  s.labels_building.clear();
  if (!s.embed_view.empty()) {  // an <iframe> embed: one view filling the frame, no menus
    draw_embedded_view(s);
    s.ui_rects.swap(s.ui_rects_building);
    s.labels.swap(s.labels_building);
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
  draw_welcome(s);
  collect_text_overflows(s);

  s.ui_rects.swap(s.ui_rects_building);
  s.labels.swap(s.labels_building);
  s.labels_building.clear();
  ++s.frame;
}

namespace {

// View settings in share links: a lecturer's projector text size travels with the link.
JsonOut save_view(const AppState& s) { return {{"text_px", s.text_px}}; }
void load_view(AppState& s, const JsonOut& j) {
  if (!j.contains("text_px")) return;
  if (!j["text_px"].is_number() || !set_text_px(s, j["text_px"].get<float>()))
    throw InputError("view.text_px", "expected one of 13, 16, 20, 24");
}

// The page's own state for tests: text size, welcome card, notice, text that overflows its
// window, and custom-drawn labels (for "nothing overprints" checks).
JsonOut export_page(const AppState& s) {
  JsonOut overflows = JsonOut::array();
  for (const AppState::TextOverflow& o : s.text_overflows)
    overflows.push_back({{"window", o.window}, {"right", o.right}, {"content_right", o.content_right}});
  JsonOut labels = JsonOut::array();
  for (const AppState::DrawnLabel& l : s.labels)
    labels.push_back({{"owner", l.owner}, {"text", l.text}, {"rect", l.rect}, {"clip", l.clip}});
  return {{"text_px", s.text_px},
          {"welcome_open", s.welcome_open},
          {"notice", s.notice},
          {"title", human_model_title(s.graph.name)},
          {"text_overflows", overflows},
          {"labels", labels}};
}

}  // namespace

ARENAPLAN_SHARE_SECTION("view", save_view, load_view);
ARENAPLAN_STATE_EXPORT("page", export_page);

}  // namespace arenaplan::web
