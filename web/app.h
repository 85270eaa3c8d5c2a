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
// puts a readable message in AppState::error; a successful edit clears it and bumps `revision`
// (and `graph_revision` when the graph itself changed).
//
// Panel state: a panel that keeps anything between frames has one struct below ("Panel state")
// and one member in AppState; values it derives from the input are Derived<T> (web/derived.h)
// keyed by the revision they depend on. No panel state in file-scope globals.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/budget/board.h"
#include "core/budget/budget.h"
#include "core/graph/graph.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/layout/layout.h"
#include "core/layout/planner.h"
#include "core/schedule/schedule.h"
#include "core/sim/sim.h"
#include "core/teach/cachelab.h"
#include "core/teach/dag_layout.h"
#include "core/teach/explain.h"
#include "core/tflite/tflm_arena.h"
#include "core/budget/flash.h"
#include "core/transform/transform_auto.h"
#include "core/transform/whatif.h"
#include "imgui.h"
#include "web/derived.h"
#include "web/panel_exercise_state.h"
#include "web/search_job.h"

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


// ---- Panel state ----------------------------------------------------------------------------
// Each panel keeps what it needs beyond the input (view options, drafts, values derived from the
// input) in ONE struct below, held by AppState, instead of file-scope globals: the whole state of
// the page is visible here, a test or a second AppState never shares it by accident, and every
// derived value is a Derived<> whose key says what it depends on. One block per panel.

// -- Graph tab: the canvas (web/graph_canvas.cpp, web/graph_overview.cpp) --
// The DAG drawing of the graph, computed once per graph (not per order change or frame).
struct GraphDrawing {
  DagLayout layout;
  std::vector<float> lower_dx, upper_dx;  // per segment: port offsets in slots, so edges fan out
  double layout_ms = 0;
};
// The overview (minimap): the whole DAG binned into pixel cells, once per graph and overview size,
// so a frame draws at most one rectangle per cell whatever the number of ops.
struct GraphOverviewCells {
  std::vector<ItemRect> cells;  // relative to the overview's corner, in pixels
  std::vector<int> ops_in_cell;  // how many ops each cell stands for
  int ops = 0;                   // ops binned (every op of the graph)
};
// One name the search field matched.
struct GraphSearchMatch {
  bool is_op = true;
  int id = -1;  // OpId or TensorId
  std::string name;
};
struct GraphCanvasState {
  Derived<GraphDrawing> drawing;  // keyed by graph_revision
  Derived<GraphOverviewCells, std::tuple<uint64_t, int, int>> overview_cells;  // graph_revision, w, h
  float zoom = 1.0f;
  ImVec2 pan{0, 0};        // screen offset of world (0, 0) from the canvas corner
  std::string fitted_for;  // "#" + name of the graph the view was last fitted to (edits keep the view)
  bool follow_step = true;
  Step last_step = -1;
  bool dragged = false;          // the current press moved: a pan, not a click
  bool dragging_overview = false;  // the current press started on the overview: it moves the view
  bool show_overview = true;
  int visible_ops = 0;           // op boxes drawn in the canvas last frame
  int labelled_ops = 0;          // of which with their name written
  ImVec2 canvas_size{0, 0};
  ItemRect overview_rect{};      // screen rect of the overview this frame (zero when hidden)
  ItemRect overview_viewport{};  // the canvas's view drawn inside it
  float overview_sx = 0, overview_sy = 0;  // overview pixels per world pixel (at zoom 1)
  std::string selected_tensor;  // name of a tensor the search jumped to (highlighted with its producer)
  // Search: the field's text, the matches (recomputed when the text or the graph changes), the
  // last name jumped to.
  std::string search;
  Derived<std::vector<GraphSearchMatch>, std::pair<uint64_t, std::string>> matches;
  std::string jumped_to;
};

// -- Graph tab: the structural editor (web/graph_editor.cpp) --
struct GraphEditorState {
  std::string error;        // InputError text of the last refused edit
  std::string error_field;  // rect key of the field it came from
  uint64_t error_revision = 0;
  std::string selected_name;  // the selection, by name, carried across edits that renumber ops
  const char* request_tab = nullptr;
  std::string tensor_filter;
  std::string new_bytes = "16KiB";  // size of tensors an edit creates (new outputs)
  std::string add_name, add_kind = "conv2d", add_inputs, add_outputs;
  bool add_outputs_are_results = true;
  std::string tensor_name, tensor_bytes = "16KiB";
  bool tensor_is_input = false;
  // The text field being typed into: its text lives here until Enter / Tab / click-away commits it.
  ImGuiID draft_id = 0;
  std::string draft_text;
  Derived<std::vector<std::string>, std::pair<uint64_t, OpId>> downstream;  // of the selected op
};

// -- Graph JSON tab (web/panel_json.cpp) --
struct JsonPanelState {
  // The draft being edited. It follows the loaded graph until the user types, and again after
  // Apply or Revert.
  std::string text;
  uint64_t revision = ~uint64_t(0);
  bool edited = false;
};

// -- Schedule tab (web/panel_schedule.cpp) --
// Every order of the graph by peak: depends on the graph only (graph_revision).
struct ScheduleOrders {
  OrderCount count;
  std::vector<OrderPeak> orders;  // sorted by peak, then enumeration order
  bool listed_all = false;
  std::string error;
};
struct SchedulePanelState {
  Derived<ScheduleOrders> orders;  // keyed by graph_revision
  Schedule compare;                // the second order of the side-by-side table
  std::string compare_label;
  LiveAnalysis compare_live;
  std::unique_ptr<SearchJob> search;  // the optimiser, off the main thread (web/search_job.h)
  std::string search_error;           // the search was refused, failed, or its order did not check out
  bool has_result = false;
  ScheduleResult result;
  JsonOut result_json;
  std::string views_text;  // the optimum with identity ops as views, checked on the page; empty: none
};

// -- Arena tab (web/panel_arena.cpp) --
struct ArenaPlannerRow {
  std::string name;
  ArenaPlan plan;
};
// The planners' plans of the current order (compare_interactive_planners), by revision.
struct ArenaTable {
  LayoutProblem problem;
  std::vector<ArenaPlannerRow> rows;  // the interactive planners, then the anytime one once it has run
  int interactive_rows = 0;           // rows[0 .. interactive_rows) are the interactive planners
  std::string error;
};
struct ArenaPanelState {
  Derived<ArenaTable> table;         // keyed by revision; a new one drops the search below
  int shown = -1;                     // row drawn in the picture (-1: the anytime planner's seed)
  std::unique_ptr<SearchJob> exact;  // the anytime planner, off the main thread (web/search_job.h)
  bool exact_running = false;
  std::string exact_status;
};

// -- Simulator tab (web/panel_sim.cpp) --
struct SimSettings {
  // Index into sim::mcu_profiles(), or kBoardProfile: the Budget tab's board (its core, kernel
  // library and clock; cortex-m4 for a board that names no core, as the teaching boards).
  static constexpr int kBoardProfile = -1;
  int profile = kBoardProfile;
  uint64_t board_version = 0;  // the Budget tab's board_version the run used (kBoardProfile only)
  bool shift = false;         // fault: move one buffer onto a live neighbour
  int shift_tensor = 0;       // index into SimRun::shiftable
  bool ignore_async = false;  // fault: plan as if DMA reads finished at once
  bool shared = false;        // fault: two sessions interleaved on one arena
  bool operator==(const SimSettings&) const = default;
};
// One simulation of the current graph and order with the settings: the whole run's report, and a
// stepper over the same setup that shares the whole run's reference (nothing runs twice). A big
// model's runs take seconds: the reference and the planned run advance a slice per frame, with a
// progress bar, until `ready`.
struct SimRun {
  uint64_t revision = ~uint64_t{0};
  Graph graph;                         // copy the simulators refer to
  std::vector<std::string> shiftable;  // tensors with an arena buffer
  sim::SimSetup setup;                 // the plan and faults both runs use
  bool ready = false;                  // both runs finished: report, json and stepper are set
  int slices = 0;                      // frames that advanced the runs so far
  sim::SimReport report;               // the whole run, as the CLI reports it
  JsonOut json;                        // simulation_json(report)
  std::unique_ptr<sim::ArenaSimulator> reference, planned, stepper;  // planned: the whole run, until ready
  sim::StepRecord last;                // the step just executed (valid when steps_done > 0)
  int64_t steps_done = 0;
  int64_t cycles_so_far = 0;
  std::string error;
};
struct SimPanelState {
  SimSettings settings;
  Derived<SimRun, std::pair<uint64_t, SimSettings>> run;  // keyed by revision + settings
  bool playing = false;
  double last_step_time = 0;
  float steps_per_second = 4;
};

// -- What-if tab (web/panel_whatif.cpp) --
struct WhatIfResult {
  WhatIfReport report;
  JsonOut json;
  std::string error;
};
struct WhatIfPanelState {
  std::vector<WhatIfSpec> list;
  std::vector<std::vector<WhatIfSpec>> undo;  // earlier lists, for Undo
  char input[256] = "";
  int budget_kib = 0;         // 0: no budget, "fits" not judged
  uint64_t list_version = 0;  // bumped by every list edit
  uint64_t list_graph = ~uint64_t{0};  // graph_revision the list was made for; a new graph clears it
  Derived<WhatIfResult, std::tuple<uint64_t, uint64_t, int>> result;  // revision, list_version, budget
  // "Fit automatically": the rewrite search, run a slice per frame, and its verified result.
  int auto_budget_kib = 0;  // 0: the lowest peak
  std::unique_ptr<AutoRewriteSearch> auto_search;
  std::optional<AutoRewriteResult> auto_result;
  JsonOut auto_json;
  uint64_t auto_revision = 0;  // the graph/order revision the search ran on
  // "Frontier": core's pareto_frontier (`transform --auto --pareto`) stepped in the search worker,
  // checked on the page, drawn as peak against extra MACs; clicking a point puts its rewrites in
  // the list above (whose report re-plans, verifies and simulates them, as "Use" does).
  float frontier_max_macs_pct = 100;    // the ladder's top cap (--max-extra-macs; the CLI's ladder ends at 100)
  float frontier_seconds_per_cap = 2;   // each cap's search (--time-limit; the CLI's 10 s would take minutes here)
  char frontier_kinds[160] = "";        // --kinds: comma-separated rewrite kinds, "" = every default one
  std::unique_ptr<SearchJob> frontier_job;
  uint64_t frontier_revision = 0;           // the graph/order revision the frontier was asked for
  std::optional<ParetoFrontier> frontier;   // accepted (see the panel's accept_frontier), for that revision
  JsonOut frontier_json;                    // the worker's pareto_json as accepted (exported for tests)
  std::string frontier_message;             // why nothing is drawn: refused, cancelled, nothing beyond now
  int frontier_hovered = -1;                // index into frontier->points under the mouse
  int frontier_taken = -1;                  // the point whose rewrites were put in the list
  uint64_t frontier_taken_list = 0;         // list_version right after that, so a later edit unmarks it
};

// -- Cache lab tab (web/panel_cache.cpp) --
enum class CacheGuess { kNone, kHit, kMiss };
struct CachePanelState {
  int capacity = 4;
  int stride = 4;
  // A typed list of blocks replaces the stride stream when not empty (a question's trace).
  std::vector<Block> blocks;
  std::string blocks_draft;  // the list field as typed
  std::string question;      // the exercise whose cache and requests were loaded ("Try it in the Cache lab")
  int ways = 0;  // 0 = fully associative
  int policy = 0;
  int run_count = 16;
  CacheLab lab{CacheConfig{4, 0, ReplacementPolicy::kLru}, RequestStream::strided(4)};
  // Prediction mode: outcomes of the first `predict_n` requests stay hidden until revealed.
  bool predicting = false;
  bool revealed = false;
  int predict_n = 8;
  std::vector<CacheGuess> guesses;
  std::string error;
};

// The .tflite the current graph was imported from (File > Open or a drop). The graph JSON keeps
// only sizes and shapes; the model itself still holds what the Budget panel (TFLM's whole arena)
// and the Simulator (quantization and weights, for the model kernels) need. It belongs to the
// graph as imported: any edit of the graph leaves it behind (current_model() returns null).
struct OpenedModel {
  std::string bytes;            // the file
  Graph graph;                  // import_tflite's graph: the same ops and tensors, with model data
  uint64_t graph_revision = 0;  // AppState::graph_revision right after the import
  std::vector<std::string> kernel_kinds;  // what TFLM links for it (tflm_kernel_kinds): the flash line
};

// -- Budget tab (web/panel_budget.cpp) --
// The budget of the current graph and order on the edited board, as core's plan_budget returns it
// (the panel draws these typed results), with the JSON view `arenaplan budget --json` prints
// (exported for tests).
struct BudgetResult {
  bool planned = false;  // false when there is no board or core refused (then `error` says why)
  MemoryMap board;       // the board as planned: an opened .tflite's persistent reservation applied
  Budget budget;
  JsonOut json;          // budget_json(graph, live, board, budget); null unless planned
  std::string error;     // "Budget refused: ..."
};
struct BudgetPanelState {
  std::string board_name;      // built-in board last loaded ("file:NAME" for an opened file)
  MemoryMap board;             // as edited in the tables
  bool loaded = false;
  int scratch_policy = 0;      // 0 in_arena, 1 separate
  uint64_t board_version = 0;  // bumped by every board edit
  std::string error;           // the last refused board or edit; cleared when the budget is recomputed
  // Planning is not free: recomputed only when the graph/order, the board or the policy changed.
  // revision, board_version, scratch_policy, tflm_target_version
  Derived<BudgetResult, std::tuple<uint64_t, uint64_t, int, uint64_t>> result;
};
// The Budget tab's board: the default built-in one until the user picks another (or none is
// built in); the Simulator takes its core, kernel library and clock from it.
struct AppState;
BudgetPanelState& budget_state(const AppState& s);

// -- Budget tab: TFLM's whole arena for an opened .tflite (web/budget_tflm.cpp) --
struct TflmArenaView {
  std::optional<TflmArenaComparison> comparison;
  std::string error;  // a model TFLM cannot run (e.g. dynamic shapes)
};

// -- Live bytes tab (web/panel_live.cpp), also read by the welcome card --
// The lowest peak over every order (core's enumerate_orders), for graphs small enough to list them
// all at once; `known` is false for bigger graphs (the Schedule tab's optimiser covers those).
struct BestOrder {
  bool known = false;
  Schedule order;
  Bytes peak_bytes = 0;
};
struct LivePanelState {
  Derived<BestOrder> best;  // by graph_revision
};

// The scopes every op name and every tensor name share (web/panel_common.h's name_scopes).
struct NameScopes {
  std::string ops, tensors;
};

// -- Step reasons tab (web/panel_explain.cpp) --
struct ExplainPanelState {
  // TFLM's greedy plan of the current order, placed one buffer at a time; by AppState::revision.
  Derived<std::vector<PlacementExplanation>> layout_walk;
  int shown = 0;  // placements shown so far (0 = none yet); back to 0 when the walk is rebuilt
};

struct AppState {
  // Input, as the user gave it.
  std::string example_name = "two_branch";  // built-in example loaded last; "" for user JSON
  std::string graph_json;                   // the text `graph` was parsed from
  Graph graph;
  Schedule order;  // the current operator order (always valid for `graph`)
  std::optional<OpenedModel> model;  // see OpenedModel; read it through current_model()

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
  uint64_t graph_revision = 0;  // bumped when the graph itself changed (not only the order)
  uint64_t frame = 0;     // frames drawn so far (the UI ran; see rasterized_frames)
  // Frames whose picture differed from the one on the canvas and were rasterised; the others
  // were left as they were (main.cpp). skip_unchanged_frames = false rasterises every frame
  // (bench/page_bench.mjs measures both).
  uint64_t rasterized_frames = 0;
  bool skip_unchanged_frames = true;
  double frame_cpu_ms = 0;  // main-thread time of the last frame (UI + GL submission), set by main.cpp
  double frame_ui_ms = 0;   // of which: events, ImGui frame and panels (the rest is GL)
  double fps = 0;           // ImGui's running average frame rate
  int redraw_frames = 4;    // frames still to draw without new input (idle frames are skipped)
  int png_export_frames = 0;  // > 0: a PNG of the canvas is taken after that many more frames
  bool reduced_motion = false;  // the user asked the system for less motion (no blinking, no auto-play)

  // ---- Page settings and notices (View > Text size, welcome card, Debug menu; web/shell.cpp) ----
  float text_px = 13;            // UI text size in CSS pixels (View > Text size); share link + local storage
  bool welcome_open = false;     // the first-visit card (Help > Tour re-opens it)
  bool welcome_focused = false;  // the open card took the keyboard focus (once per opening)
  bool stress_rects = false;     // Debug > "+10,000 rectangles" (read by the Lifetimes panel)
  bool debug_figures = false;    // Debug > "Show frame figures": fps, draw calls, which core call a view prints
  int64_t search_budget = -1;    // >= 0: the long searches stop after that many nodes / states (tests, benches)
  std::string notice;            // short confirmation ("Link copied"), shown in the status line
  // The latest result a student asked for (an answer checked, a cache run), read out first by the
  // aria-live region (summary_text): screen readers cannot see the canvas's feedback.
  std::string announcement;
  uint64_t notice_until_frame = 0;
  // Per frame: windows whose widgets reach past the window's right edge (browser tests assert
  // none), and custom-drawn labels with their owner, for overprint checks.
  struct TextOverflow { std::string window; float right = 0, content_right = 0; };
  std::vector<TextOverflow> text_overflows;
  struct DrawnLabel { std::string owner, text; ItemRect rect; ItemRect clip; };
  std::vector<DrawnLabel> labels_building, labels;

  // Widget rectangles recorded during the frame being drawn, and those of the last full frame
  // (exported as "ui" so tests click widgets by name instead of hard-coded pixels).
  std::map<std::string, ItemRect> ui_rects_building;
  std::map<std::string, ItemRect> ui_rects;

  // Panel state (see "Panel state" above), one member per panel.
  GraphCanvasState graph_canvas;
  GraphEditorState graph_editor;
  JsonPanelState json_panel;
  SchedulePanelState schedule;
  ArenaPanelState arena;
  SimPanelState sim;
  ExplainPanelState explain;
  LivePanelState live_panel;
  Derived<NameScopes> name_scopes;  // by graph_revision (web/panel_common.h)
  WhatIfPanelState whatif;
  CachePanelState cache;
  // Mutable like a cache: the state exporter (const) loads the default board and plans on demand,
  // so tests read the budget without opening the tab.
  mutable BudgetPanelState budget;
  ExercisePanelState exercise;  // web/panel_exercise_state.h

  // The firmware build TFLM's figures are for (Budget tab, C header, JSON report), as the CLI's
  // --kernels / --core give it; tflm_target_version counts its changes.
  TflmTarget tflm_target;
  uint64_t tflm_target_version = 0;
  // The optimisation level of the Budget tab's flash line (the CLI's budget --opt).
  FlashOpt flash_opt = FlashOpt::kOs;
  // By (revision, tflm_target_version, budget board_version) (web/budget_tflm.cpp); a cache.
  mutable Derived<TflmArenaView, std::tuple<uint64_t, uint64_t, uint64_t>> tflm_arena;
  // A share link made with a .tflite open carries its graph, not the file: what the sender's TFLM
  // figures were and why they are not recomputed here, shown while the link's graph is the one
  // open (`carried_tflm_revision` is its graph_revision).
  std::string carried_tflm_note;
  uint64_t carried_tflm_revision = ~uint64_t{0};

  // ---- Classroom embeds (web/embed.cpp) ----
  std::string embed_view;   // share-link "embed": one view alone, no menus ("" = the whole app)
  std::string embed_code;   // the last snippet File > Copy embed code made
};

// Edits. Each returns true on success; on failure it leaves the state as it was and sets `error`.
bool load_example(AppState& s, const std::string& name);
bool load_graph_json(AppState& s, const std::string& text);
// A .tflite model's bytes (File > Open or a drop): imported by core, then shown as its graph,
// named `name` (the file's name, trimmed) when given, else by the model's own subgraph name.
bool load_tflite(AppState& s, std::string_view bytes, const std::string& name = "");
// The model the current graph was imported from, or null once the graph was edited (or for
// graphs that did not come from a .tflite).
const OpenedModel* current_model(const AppState& s);
// What a long search (web/search_job.h) of `kind` ("layout": the exact solver on the current
// order's buffers; "schedule": the order optimiser) needs: the graph, the order, the test budget.
JsonOut search_request(const AppState& s, const char* kind);
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

// ---- Page settings (web/shell.cpp) ----
// Supported text sizes in CSS pixels, smallest first (View > Text size); the largest are for
// projectors.
inline constexpr float kTextSizes[] = {13, 16, 20, 24};
// Sets the UI text size (one of kTextSizes, else refused with a message); the page stores it.
bool set_text_px(AppState& s, float px);
// A short confirmation ("Link copied") shown in the status line for a few seconds.
void show_notice(AppState& s, const std::string& text);
// Puts `text` on the clipboard. The browser answers later (ap_copy_result): the status line then
// says "<what> copied" or that the copy was refused (the clipboard needs https or localhost, which
// a plain-http classroom server is not), so nobody is told a link was copied when it was not.
void copy_to_clipboard(AppState& s, const std::string& text, const std::string& what);
// The page's address without its fragment (empty outside the browser), to build links.
std::string page_address();
// The clipboard's answer to copy_to_clipboard.
void report_copy(AppState& s, bool copied, const std::string& what);

// Idle frames are skipped (no input, no edit: the canvas keeps its last picture) to spare CPU and
// battery. Input and every edit above redraw by themselves; a panel that animates or measures
// frame rate calls this on each frame it needs the next one.
void request_redraw(AppState& s, int frames = 3);

// The lowest-peak order of the current graph when it is small enough to list every order
// (BestOrder), computed once per graph.
const BestOrder& best_order(AppState& s);

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
