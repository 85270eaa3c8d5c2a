// The playground's application state, the edits that change it, and the two registries other
// files plug into. Panels are plain functions over AppState (like imgui_demo's ShowXxx): they read
// the state and call the edit functions below; they never compute numbers themselves (core does).
//
// Adding a panel (in your own web/panel_xxx.cpp; every web/*.cpp is compiled into the app):
//
//   #include "web/app.h"
//   #include "imgui.h"
//   namespace arenaplan::web {
//   static void draw_arena(AppState& s) {
//     ImGui::Text("peak %lld bytes", (long long)s.live.peak_bytes);
//     if (ImGui::Button("Next step")) set_step(s, s.step + 1);
//     record_item_rect(s, "arena.next");  // lets browser tests click it by name
//   }
//   ARENAPLAN_PANEL("Arena", draw_arena);                       // a tab in the main area
//   // ARENAPLAN_PANEL_AT(PanelArea::kBottom, 50, "Timeline", draw_timeline);  // area + priority
//
//   static JsonOut export_arena(const AppState& s) { return {{"arena_bytes", 0}}; }
//   ARENAPLAN_STATE_EXPORT("arena", export_arena);  // appears as "arena" in ap_state_json()
//   }  // namespace arenaplan::web
//
// Layout: fixed tiles, no floating windows. kSide is the left column, kMain the large top-right
// tile, kBottom the strip under it; each tile shows its panels as tabs ordered by (priority,
// title). A tile with no panels gives its space to the others.
//
// Edits are all-or-nothing: a failed edit (bad JSON, invalid order) keeps the last good state and
// puts a readable message in AppState::error; a successful edit clears it and bumps `revision`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"

namespace arenaplan::web {

// Screen rectangle of a widget in CSS pixels: {x0, y0, x1, y1}.
using ItemRect = std::array<float, 4>;

// The user's input at one moment (what undo goes back to): the graph text, where it came from
// and the order. Derived numbers are not stored: undo recomputes them through core.
struct InputSnapshot {
  std::string example_name;
  std::string graph_json;
  std::vector<std::string> order;  // op names
  std::string what;                // the edit that left this state, for the Edit menu ("move C")
  std::string base_example;        // what "Reset to example" went back to at that moment
};

struct AppState {
  // Input, as the user gave it.
  std::string example_name = "two_branch";  // built-in example loaded last; "" for user JSON
  std::string graph_json;                   // the text `graph` was parsed from
  Graph graph;
  Schedule order;  // the current operator order (always valid for `graph`)

  // Derived by core from graph + order on every successful edit, never edited directly.
  LiveAnalysis live;
  JsonOut analysis;      // analysis_json(graph, live): the numbers every panel and test reads
  std::string timeline;  // timeline_text(graph, live)

  // View state.
  Step step = 0;         // the step the panels highlight (0 .. order.size()-1)
  OpId selected_op = -1;  // op selected in the order editor, -1 for none
  std::string error;     // message of the last refused edit; "" after a successful one
  std::string active_panel;     // title of the tab open in the main tile (set by the shell)
  std::string requested_panel;  // a tab to open on the next frame (share links), then cleared
  std::string base_example = "two_branch";  // last built-in example loaded: "Reset to example"

  // Undo/redo: every accepted edit of the input pushes the state before it (capped, oldest
  // dropped); a new edit clears the redo side.
  std::vector<InputSnapshot> undo_stack;
  std::vector<InputSnapshot> redo_stack;

  uint64_t revision = 0;  // bumped by every successful edit: panels may cache per revision
  uint64_t frame = 0;     // frames drawn so far
  double frame_cpu_ms = 0;  // main-thread time of the last frame (UI + GL submission), set by main.cpp
  double frame_ui_ms = 0;   // of which: events, ImGui frame and panels (the rest is GL)
  double fps = 0;           // ImGui's running average frame rate
  int redraw_frames = 4;    // frames still to draw without new input (idle frames are skipped)
  int png_export_frames = 0;  // > 0: a PNG of the canvas is taken after that many more frames
  bool reduced_motion = false;  // the user asked the system for less motion (no blinking, no auto-play)

  // Widget rectangles recorded during the frame being drawn, and those of the last full frame
  // (exported as "ui" so tests click widgets by name instead of hard-coded pixels).
  std::map<std::string, ItemRect> ui_rects_building;
  std::map<std::string, ItemRect> ui_rects;

  // ---- Classroom embeds (issue 18; web/embed.cpp) ----
  std::string embed_view;   // share-link "embed": one view alone, no menus ("" = the whole app)
  std::string embed_code;   // the last snippet File > Copy embed code made
};

// Edits. Each returns true on success; on failure it leaves the state as it was and sets `error`.
bool load_example(AppState& s, const std::string& name);
bool load_graph_json(AppState& s, const std::string& text);
// A .tflite model's bytes (File > Open or a drop): imported by core, then shown as its graph.
bool load_tflite(AppState& s, std::string_view bytes);
bool set_order(AppState& s, const Schedule& order);
bool set_order_csv(AppState& s, const std::string& comma_separated_op_names);
// Moves the op at `step` by `delta` positions (clamped to the schedule); refused when invalid.
bool move_op(AppState& s, Step step, int delta);
void set_step(AppState& s, Step step);  // clamped to the schedule

// Replaces the graph by `edited` (built with core/graph/graph_edit.h); the order keeps the surviving
// ops in their current relative order, new ops as early as their inputs allow. Recorded for undo
// under `what` ("rename B to B2"). Refused (false, `error` set, state unchanged) when core
// rejects the graph.
bool apply_graph_edit(AppState& s, const Graph& edited, const std::string& what);

// Undo/redo of every input edit above (graph, order, example, file); set_step is a view change
// and not recorded. Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) are handled by the shell.
bool undo(AppState& s);
bool redo(AppState& s);
bool can_undo(const AppState& s);
bool can_redo(const AppState& s);
// Back to the last loaded built-in example (base_example), as an undoable edit.
bool reset_to_example(AppState& s);

// Idle frames are skipped (no input, no edit: the canvas keeps its last picture) to spare CPU and
// battery. Input and every edit above redraw by themselves; a panel that animates or measures
// frame rate calls this on each frame it needs the next one.
void request_redraw(AppState& s, int frames = 3);

// The state as JSON for tests and the JS API: graph, order, peak_bytes, step, error, frame,
// analysis, ui rects, and every registered exporter under its key.
JsonOut export_state(const AppState& s);

// A short sentence with the key numbers (graph, peak, current step), for the page's aria-live
// region: screen readers cannot read the canvas.
std::string summary_text(const AppState& s);

// Records the rectangle of the last ImGui item under `key` (call right after the widget).
void record_item_rect(AppState& s, const std::string& key);

// ---- Panel registry -------------------------------------------------------------------------

using PanelFn = void (*)(AppState&);

enum class PanelArea { kSide, kMain, kBottom };

struct Panel {
  const char* title;  // tab label, unique
  PanelFn draw;       // draws the panel's contents inside its tile
  PanelArea area = PanelArea::kMain;
  int priority = 100;  // lower comes first among the tabs of an area
};

std::vector<Panel>& panel_registry();

struct PanelRegistrar {
  explicit PanelRegistrar(Panel p) { panel_registry().push_back(p); }
};

// ---- State-exporter registry ----------------------------------------------------------------

using StateExportFn = JsonOut (*)(const AppState&);

struct StateExporter {
  const char* key;  // top-level key in the exported state
  StateExportFn fn;
};

std::vector<StateExporter>& state_exporter_registry();

struct StateExportRegistrar {
  explicit StateExportRegistrar(StateExporter e) { state_exporter_registry().push_back(e); }
};

// ---- Share-section registry -----------------------------------------------------------------
// A panel with settings worth sharing (cache-lab capacity, budget reservations, ...) saves them
// as JSON under its key in the share link and restores them when a link is opened. `load` throws
// (InputError or any std::exception) on a bad section; the link is then refused as a whole.

using ShareSaveFn = JsonOut (*)(const AppState&);
using ShareLoadFn = void (*)(AppState&, const JsonOut&);

struct ShareSection {
  const char* key;
  ShareSaveFn save;
  ShareLoadFn load;
};

std::vector<ShareSection>& share_section_registry();

struct ShareSectionRegistrar {
  explicit ShareSectionRegistrar(ShareSection s) { share_section_registry().push_back(s); }
};

#define ARENAPLAN_WEB_CONCAT2(a, b) a##b
#define ARENAPLAN_WEB_CONCAT(a, b) ARENAPLAN_WEB_CONCAT2(a, b)
#define ARENAPLAN_PANEL_AT(area, priority, title, fn)                                      \
  static ::arenaplan::web::PanelRegistrar ARENAPLAN_WEB_CONCAT(ap_panel_, __LINE__)( \
      ::arenaplan::web::Panel{title, fn, area, priority})
#define ARENAPLAN_PANEL(title, fn) ARENAPLAN_PANEL_AT(::arenaplan::web::PanelArea::kMain, 100, title, fn)
#define ARENAPLAN_STATE_EXPORT(key, fn)                                                            \
  static ::arenaplan::web::StateExportRegistrar ARENAPLAN_WEB_CONCAT(ap_state_export_, __LINE__)( \
      ::arenaplan::web::StateExporter{key, fn})

#define ARENAPLAN_SHARE_SECTION(key, save, load)                                                    \
  static ::arenaplan::web::ShareSectionRegistrar ARENAPLAN_WEB_CONCAT(ap_share_section_, __LINE__)( \
      ::arenaplan::web::ShareSection{key, save, load})

// ---- The frame (web/shell.cpp) --------------------------------------------------------------

// Draws one frame of the whole UI (menu bar + tiles) into the current ImGui frame.
void draw_app(AppState& s);

}  // namespace arenaplan::web
