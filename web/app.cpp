// AppState edits: every edit builds the complete new state aside and swaps it in only when core
// accepted it, so a refused edit can never leave the graph and its analysis out of step.
#include "web/app.h"
#include "web/panel_common.h"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <utility>

#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/schedule/nearest_order.h"
#include "core/teach/explain.h"
#include "core/tflite/tflite_import.h"
#include "web/clear_fills.h"

namespace arenaplan::web {

std::vector<Panel>& panel_registry() {
  static std::vector<Panel> panels;
  return panels;
}

std::vector<StateExporter>& state_exporter_registry() {
  static std::vector<StateExporter> exporters;
  return exporters;
}

namespace {

// Everything derived from a graph and an order, computed before anything is committed.
struct DerivedNumbers {
  LiveAnalysis live;
  JsonOut analysis;
  std::string timeline;
};

DerivedNumbers derive(const Graph& g, const Schedule& order) {
  DerivedNumbers d;
  d.live = analyze_lifetimes(g, order);
  d.analysis = analysis_json(g, d.live);
  d.timeline = timeline_text(g, d.live);
  return d;
}

// Every edit, accepted or refused, changes what the panels show.
bool redraw_after(AppState& s, bool ok) {
  request_redraw(s);
  return ok;
}

void commit(AppState& s, Schedule order, DerivedNumbers d) {
  s.order = std::move(order);
  s.live = std::move(d.live);
  s.analysis = std::move(d.analysis);
  s.timeline = std::move(d.timeline);
  s.step = std::clamp<Step>(s.step, 0, std::max<Step>(0, Step(s.order.size()) - 1));
  s.error.clear();
  ++s.revision;
}

std::vector<std::string> order_names_of(const AppState& s) {
  std::vector<std::string> names;
  for (OpId op : s.order) names.push_back(s.graph.ops[op].name);
  return names;
}

// Takes `g` (already checked by core) as the new graph with `text` as its JSON, in the order
// nearest `preferred` (the file's order when empty); commits only if every stage succeeded.
bool take_graph(AppState& s, Graph g, const std::string& text, const std::string& example_name,
                const std::string& what, const std::vector<std::string>& preferred) {
  try {
    Schedule order = preferred.empty() ? g.file_order() : nearest_valid_order(g, preferred);
    check_order(g, order);
    DerivedNumbers d = derive(g, order);
    // The selection follows the op by name across edits, undo and redo (gone: none).
    const std::string selected = s.selected_op >= 0 ? s.graph.ops[s.selected_op].name : "";
    // Views derived from the graph alone (its drawing, the list of orders) recompute only when
    // the graph itself changed, not when an undo of an order edit reloads the same text.
    if (text != s.graph_json || example_name != s.example_name) ++s.graph_revision;
    s.graph = std::move(g);
    s.graph_json = text;
    s.example_name = example_name;
    const auto still_there = s.graph.find_op(selected);
    s.selected_op = still_there ? *still_there : -1;
    if (preferred.empty()) s.step = 0;
    commit(s, std::move(order), std::move(d));
    return true;
  } catch (const std::exception& e) {
    s.error = what + " refused: " + e.what();
    return false;
  }
}

// Parses `text`, then take_graph.
bool load_graph_text(AppState& s, const std::string& text, const std::string& example_name,
                     const std::string& what, const std::vector<std::string>& preferred = {}) {
  Graph g;
  try {
    g = parse_graph_json(text);
  } catch (const std::exception& e) {
    s.error = what + " refused: " + e.what();
    return false;
  }
  return take_graph(s, std::move(g), text, example_name, what, preferred);
}

InputSnapshot snapshot(const AppState& s, std::string what = "") {
  return {s.example_name, s.graph_json, order_names_of(s), std::move(what), s.base_example};
}

bool same_input(const InputSnapshot& a, const InputSnapshot& b) {
  return a.example_name == b.example_name && a.graph_json == b.graph_json && a.order == b.order;
}

// Snapshots hold the graph text: bounded in count and in bytes (a big imported model's JSON is
// megabytes; 200 of them would not fit a browser tab).
constexpr size_t kUndoDepth = 200;
constexpr size_t kUndoBytes = size_t{64} << 20;

void trim_history(std::vector<InputSnapshot>& stack) {
  size_t bytes = 0;
  for (const InputSnapshot& snap : stack) bytes += snap.graph_json.size();
  size_t drop = 0;
  while (stack.size() - drop > 1 && (stack.size() - drop > kUndoDepth || bytes > kUndoBytes))
    bytes -= stack[drop++].graph_json.size();
  stack.erase(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(drop));
}

// Runs an edit of the input; when it was accepted and changed something, the state before it
// goes on the undo stack (labelled `what`) and the redo side is dropped. Nothing is recorded
// before the first graph exists (page start, share link).
template <typename Edit>
bool undoable(AppState& s, const std::string& what, Edit&& edit) {
  InputSnapshot before = snapshot(s, what);
  const bool ok = edit();
  if (ok && !before.graph_json.empty() && !same_input(before, snapshot(s))) {
    s.undo_stack.push_back(std::move(before));
    trim_history(s.undo_stack);
    s.redo_stack.clear();
  }
  return redraw_after(s, ok);
}

// Restores a snapshot (undo/redo); the current input goes to `other_side`.
bool restore(AppState& s, std::vector<InputSnapshot>& from, std::vector<InputSnapshot>& other_side) {
  if (from.empty()) return false;
  InputSnapshot target = std::move(from.back());
  from.pop_back();
  InputSnapshot current = snapshot(s, target.what);
  if (!load_graph_text(s, target.graph_json, target.example_name, "Undo", target.order)) {
    return redraw_after(s, false);  // cannot happen for a state we accepted before; keep going
  }
  s.base_example = target.base_example;
  other_side.push_back(std::move(current));
  return redraw_after(s, true);
}

}  // namespace

bool load_example(AppState& s, const std::string& name) {
  const std::string* text = find_example(name);
  if (!text) {
    s.error = "No built-in example named \"" + name + "\"";
    return redraw_after(s, false);
  }
  return undoable(s, "load example " + name, [&] {
    if (!load_graph_text(s, *text, name, "Example \"" + name + "\"")) return false;
    s.base_example = name;
    return true;
  });
}

bool load_graph_json(AppState& s, const std::string& text) {
  return undoable(s, "load graph JSON", [&] { return load_graph_text(s, text, "", "Graph"); });
}

bool load_tflite(AppState& s, std::string_view bytes, const std::string& name) {
  std::string json;
  OpenedModel model;
  try {
    // Imported in the browser, never uploaded. The graph is an ordinary (inline) graph from here
    // on; the model stays beside it while the graph is unedited (OpenedModel).
    TfliteImportOptions options;
    options.name = name;
    model.graph = import_tflite(bytes, options).graph;
    model.kernel_kinds = tflm_kernel_kinds(bytes);
    json = graph_to_json(model.graph);
  } catch (const std::exception& e) {
    s.error = std::string("Model refused: ") + e.what();
    return redraw_after(s, false);
  }
  // The state holds the import's own graph, not its JSON read back: the same ops and tensors plus
  // what graph JSON does not carry (quantization, weights), so What-if, Fit automatically and the
  // Simulator judge the model as `arenaplan transform|simulate MODEL.tflite` do. The JSON text is
  // what undo and share links keep.
  if (!undoable(s, "open model", [&] { return take_graph(s, model.graph, json, "", "Model", {}); })) return false;
  model.bytes = std::string(bytes);
  model.graph_revision = s.graph_revision;
  s.model = std::move(model);
  return true;
}

const OpenedModel* current_model(const AppState& s) {
  return s.model && s.model->graph_revision == s.graph_revision ? &*s.model : nullptr;
}

JsonOut search_request(const AppState& s, const char* kind) {
  JsonOut r = {{"kind", kind}, {"graph", graph_to_json(s.graph)}, {"order", order_names(s.graph, s.order)}};
  if (s.search_budget >= 0) r["budget"] = s.search_budget;
  return r;
}

bool set_order(AppState& s, const Schedule& order) {
  return undoable(s, "change the order", [&] {
    try {
      check_order(s.graph, order);
      commit(s, order, derive(s.graph, order));
      return true;
    } catch (const std::exception& e) {
      s.error = std::string("Order refused: ") + e.what();
      return false;
    }
  });
}

bool set_order_csv(AppState& s, const std::string& csv) {
  try {
    return set_order(s, parse_order(s.graph, csv));
  } catch (const std::exception& e) {
    s.error = std::string("Order refused: ") + e.what();
    return redraw_after(s, false);
  }
}

bool move_op(AppState& s, Step step, int delta) {
  const Step n = Step(s.order.size());
  if (step < 0 || step >= n) return false;
  const Step to = std::clamp<Step>(step + delta, 0, n - 1);
  if (to == step) return true;  // already at the edge: nothing to do, nothing wrong
  Schedule order = s.order;
  const OpId op = order[step];
  order.erase(order.begin() + step);
  order.insert(order.begin() + to, op);
  if (!set_order(s, order)) return false;
  if (!s.undo_stack.empty()) s.undo_stack.back().what = "move " + s.graph.ops[op].name;
  // Keep the highlighted step on the op the user is moving, so the live set follows it.
  if (s.step == step) s.step = to;
  return true;
}

bool apply_graph_edit(AppState& s, const Graph& edited, const std::string& what) {
  // The edited graph is taken as it is (core's edit checked it); its JSON is written only because
  // undo snapshots, share links, Save and the JSON tab hold the text.
  std::string text;
  try {
    text = graph_to_json(edited);
  } catch (const std::exception& e) {
    s.error = what + " refused: " + e.what();
    return redraw_after(s, false);
  }
  const std::vector<std::string> preferred = order_names_of(s);
  // An edited graph travels inline (share links), so it is no longer "the example".
  return undoable(s, what, [&] { return take_graph(s, edited, text, "", "Edit (" + what + ")", preferred); });
}

bool undo(AppState& s) { return restore(s, s.undo_stack, s.redo_stack); }
bool redo(AppState& s) { return restore(s, s.redo_stack, s.undo_stack); }
bool can_undo(const AppState& s) { return !s.undo_stack.empty(); }
bool can_redo(const AppState& s) { return !s.redo_stack.empty(); }

bool reset_to_example(AppState& s) { return load_example(s, s.base_example); }

void set_step(AppState& s, Step step) {
  s.step = std::clamp<Step>(step, 0, std::max<Step>(0, Step(s.order.size()) - 1));
  request_redraw(s);
}

void request_redraw(AppState& s, int frames) { s.redraw_frames = std::max(s.redraw_frames, frames); }

JsonOut export_state(const AppState& s) {
  JsonOut out;
  out["graph"] = s.graph.name;
  out["example"] = s.example_name;
  out["order"] = order_json(s.graph, s.order);
  out["peak_bytes"] = s.live.peak_bytes;
  out["step"] = s.step;
  out["step_op"] = s.order.empty() ? "" : s.graph.ops[s.order[s.step]].name;
  out["selected_op"] = s.selected_op >= 0 ? s.graph.ops[s.selected_op].name : "";
  out["error"] = s.error;
  out["panel"] = s.active_panel;
  out["revision"] = s.revision;
  out["frame"] = s.frame;
  out["reduced_motion"] = s.reduced_motion;
  out["perf"] = {{"frame_cpu_ms", s.frame_cpu_ms}, {"frame_ui_ms", s.frame_ui_ms}, {"fps", s.fps},
                 {"rasterized_frames", s.rasterized_frames}, {"skip_unchanged_frames", s.skip_unchanged_frames},
                 {"clear_fills", last_clear_fill_stats().fills}, {"clear_fill_pixels", last_clear_fill_stats().pixels}};
  out["analysis"] = s.analysis;
  out["history"] = {{"undo", s.undo_stack.size()},
                    {"redo", s.redo_stack.size()},
                    {"undo_what", s.undo_stack.empty() ? "" : s.undo_stack.back().what},
                    {"redo_what", s.redo_stack.empty() ? "" : s.redo_stack.back().what},
                    {"base_example", s.base_example}};
  JsonOut ui = JsonOut::object();
  for (const auto& [key, r] : s.ui_rects) ui[key] = {r[0], r[1], r[2], r[3]};
  out["ui"] = ui;
  for (const StateExporter& e : state_exporter_registry()) {
    try {
      out[e.key] = e.fn(s);
    } catch (const std::exception& ex) {
      // One broken exporter must not hide the rest of the state from the tests.
      out[e.key] = {{"export_error", ex.what()}};
    }
  }
  return out;
}

std::string summary_text(const AppState& s) {
  std::string text = "Graph " + human_model_title(s.graph.name) + ". Order " + order_names(s.graph, s.order) +
                     ". Peak live " + kib_text(s.live.peak_bytes) + " (" +
                     std::to_string(s.live.peak_bytes) + " bytes)";
  if (!s.live.steps.empty()) {
    text += " at step " + std::to_string(s.live.peak_step) + " (" +
            s.graph.ops[s.live.steps[s.live.peak_step].op].name + ")";
    const StepLive& cur = s.live.steps[s.step];
    text += ". Current step " + std::to_string(s.step) + " of 0.." +
            std::to_string(s.live.steps.size() - 1) + ": " + s.graph.ops[cur.op].name + ", " +
            kib_text(cur.live_bytes) + " live";
    // Classroom: the step's reasons, so a screen reader hears why, not only how much.
    text += ". " + explain_step(s.graph, s.live, s.step).sentence;
  }
  text += ".";
  if (!s.error.empty()) text += " Error: " + s.error;
  return s.announcement.empty() ? text : s.announcement + " " + text;
}

}  // namespace arenaplan::web
