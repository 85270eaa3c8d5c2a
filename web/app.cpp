// AppState edits: every edit builds the complete new state aside and swaps it in only when core
// accepted it, so a refused edit can never leave the graph and its analysis out of step.
#include "web/app.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "core/examples.h"
#include "core/graph_json.h"
#include "core/tflite_import.h"

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
struct Derived {
  LiveAnalysis live;
  JsonOut analysis;
  std::string timeline;
};

Derived derive(const Graph& g, const Schedule& order) {
  Derived d;
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

void commit(AppState& s, Schedule order, Derived d) {
  s.order = std::move(order);
  s.live = std::move(d.live);
  s.analysis = std::move(d.analysis);
  s.timeline = std::move(d.timeline);
  s.step = std::clamp<Step>(s.step, 0, std::max<Step>(0, Step(s.order.size()) - 1));
  s.error.clear();
  ++s.revision;
}

// Parses and analyses `text`; commits only if every stage succeeded.
bool load_graph_text(AppState& s, const std::string& text, const std::string& example_name,
                     const std::string& what) {
  try {
    Graph g = parse_graph_json(text);
    Schedule order = g.file_order();
    check_order(g, order);
    Derived d = derive(g, order);
    s.graph = std::move(g);
    s.graph_json = text;
    s.example_name = example_name;
    s.selected_op = -1;
    s.step = 0;
    commit(s, std::move(order), std::move(d));
    return true;
  } catch (const std::exception& e) {
    s.error = what + " refused: " + e.what();
    return false;
  }
}

}  // namespace

bool load_example(AppState& s, const std::string& name) {
  const std::string* text = find_example(name);
  if (!text) {
    s.error = "No built-in example named \"" + name + "\"";
    return redraw_after(s, false);
  }
  return redraw_after(s, load_graph_text(s, *text, name, "Example \"" + name + "\""));
}

bool load_graph_json(AppState& s, const std::string& text) {
  return redraw_after(s, load_graph_text(s, text, "", "Graph"));
}

bool load_tflite(AppState& s, std::string_view bytes) {
  std::string json;
  try {
    // Imported in the browser, never uploaded; from here on it is an ordinary (inline) graph.
    json = graph_to_json(import_tflite(bytes).graph);
  } catch (const std::exception& e) {
    s.error = std::string("Model refused: ") + e.what();
    return redraw_after(s, false);
  }
  return redraw_after(s, load_graph_text(s, json, "", "Model"));
}

bool set_order(AppState& s, const Schedule& order) {
  try {
    check_order(s.graph, order);
    commit(s, order, derive(s.graph, order));
    return redraw_after(s, true);
  } catch (const std::exception& e) {
    s.error = std::string("Order refused: ") + e.what();
    return redraw_after(s, false);
  }
}

bool set_order_csv(AppState& s, const std::string& csv) {
  try {
    Schedule order = parse_order(s.graph, csv);
    commit(s, order, derive(s.graph, order));
    return redraw_after(s, true);
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
  // Keep the highlighted step on the op the user is moving, so the live set follows it.
  if (s.step == step) s.step = to;
  return true;
}

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
  out["perf"] = {{"frame_cpu_ms", s.frame_cpu_ms}, {"frame_ui_ms", s.frame_ui_ms}, {"fps", s.fps}};
  out["analysis"] = s.analysis;
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
  std::string text = "Graph " + s.graph.name + ". Order " + order_names(s.graph, s.order) +
                     ". Peak live " + format_bytes(s.live.peak_bytes) + " (" +
                     std::to_string(s.live.peak_bytes) + " bytes)";
  if (!s.live.steps.empty()) {
    text += " at step " + std::to_string(s.live.peak_step) + " (" +
            s.graph.ops[s.live.steps[s.live.peak_step].op].name + ")";
    const StepLive& cur = s.live.steps[s.step];
    text += ". Current step " + std::to_string(s.step) + " of 0.." +
            std::to_string(s.live.steps.size() - 1) + ": " + s.graph.ops[cur.op].name + ", " +
            format_bytes(cur.live_bytes) + " live";
  }
  text += ".";
  if (!s.error.empty()) text += " Error: " + s.error;
  return text;
}

}  // namespace arenaplan::web
