// File > Export: the plan of the current graph and order written by the same core functions as
// `arenaplan export` (verified first, never an unverified plan), and a PNG of what the canvas
// shows. Files are handed to the page as downloads; nothing leaves the machine.
#include "web/page_exports.h"

#include <cctype>
#include <exception>

#include "web/budget_tflm.h"
#include "web/js_api.h"
#include "web/panel_common.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {
namespace {

// The trimmed title ("selfie_segmentation", not "keras2tflite_...v1215.tflite.generated").
std::string base_name(const AppState& s) { return human_model_title(s.graph.name); }

// "Live bytes" -> "live-bytes": file names without spaces or characters file systems dislike.
std::string file_word(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    if (keep) out += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  return out.empty() ? "view" : out;
}

}  // namespace

// The current state as core's export takes it: the opened model's file while the graph is the one
// imported from it (named as it was opened: the file's name, as the CLI names it), else the graph
// and its JSON text.
LoadedInput export_input(const AppState& s) {
  if (const OpenedModel* m = current_model(s)) return load_input(m->bytes, m->graph.name);
  return loaded_graph(s.graph, s.graph_json);
}

// "person_detect.plan.json", "person_detect_arena.h", "person_detect.offline.tflite", ...
std::string download_name(const AppState& s, ExportFormat f) {
  switch (f) {
    case ExportFormat::kJsonReport: return base_name(s) + ".plan.json";
    case ExportFormat::kCHeader: return base_name(s) + "_arena.h";
    case ExportFormat::kMinimallocCsv: return base_name(s) + ".minimalloc.csv";
    case ExportFormat::kTrace: return base_name(s) + ".trace.json";
    case ExportFormat::kTfliteOffline: return base_name(s) + ".offline.tflite";
    case ExportFormat::kTfliteReordered: return base_name(s) + ".reordered.tflite";
  }
  return base_name(s);
}

const char* mime_type(ExportFormat f) {
  switch (f) {
    case ExportFormat::kCHeader: return "text/x-c";
    case ExportFormat::kMinimallocCsv: return "text/csv";
    case ExportFormat::kTfliteOffline:
    case ExportFormat::kTfliteReordered: return "application/octet-stream";
    default: return "application/json";
  }
}

ExportRequest page_export_request(const AppState& s, ExportFormat format) {
  ExportRequest r;
  r.format = format;
  r.order = s.order;
  r.plan = export_plan_options();
  r.tflm_target = page_tflm_target(s);
  return r;
}

std::string plan_file_bytes(const AppState& s, ExportFormat format) {
  return export_artifact(export_input(s), page_export_request(s, format));
}

void export_plan_file(AppState& s, ExportFormat format) {
  try {
    offer_download(download_name(s, format), plan_file_bytes(s, format), mime_type(format));
  } catch (const std::exception& e) {
    s.error = std::string("Export refused: ") + e.what();
  }
  request_redraw(s);
}

void request_png_export(AppState& s) {
  // The menu that was clicked is still open in this frame; two more frames and it is gone.
  s.png_export_frames = 2;
  request_redraw(s, 3);
}

void deliver_png_if_due(AppState& s) {
  if (s.png_export_frames == 0 || --s.png_export_frames > 0) return;
  const std::string name = file_word(base_name(s)) + "-" + file_word(s.active_panel) + ".png";
#ifdef __EMSCRIPTEN__
  // Called right after the frame is drawn, in the same task: the WebGL drawing buffer still
  // holds the picture (it is cleared only once the browser composites it).
  EM_ASM({ if (Module.downloadCanvasPng) Module.downloadCanvasPng(UTF8ToString($0)); }, name.c_str());
#else
  (void)name;
#endif
}

}  // namespace arenaplan::web
