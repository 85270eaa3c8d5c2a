// File > Export: the plan of the current graph and order written by the same core functions as
// `arenaplan export` (verified first, never an unverified plan), and a PNG of what the canvas
// shows. Files are handed to the page as downloads; nothing leaves the machine.
#include "web/page_exports.h"

#include <cctype>
#include <exception>

#include "core/layout/pipeline.h"
#include "core/tflite/exports.h"
#include "core/tflite/tflite_sha256.h"
#include "web/js_api.h"
#include "web/panel_common.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {
namespace {

// The page's planner: the portfolio answers within a frame even for big models (the exact
// search lives in the Arena panel, time-sliced).
constexpr const char* kPagePlanner = "portfolio";

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

void export_plan_file(AppState& s, PlanFileFormat format) {
  try {
    // The lifetimes of the current order are already analysed: plan_graph starts from them.
    const GraphPlan planned = plan_graph(s.graph, s.live, {kPagePlanner, 1.0});
    const PlanView view{s.graph, planned.live, planned.problem, planned.plan};
    require_verified(view);
    const PlanSource source{base_name(s), sha256_hex(s.graph_json)};
    if (format == PlanFileFormat::kJsonReport)
      offer_download(base_name(s) + ".plan.json", plan_report_json(view, source).dump(2) + "\n");
    else
      offer_download(base_name(s) + "_arena.h", c_header(view, source), "text/x-c");
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
