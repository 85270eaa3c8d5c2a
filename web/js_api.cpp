// Thin C wrappers over the AppState edits, for tests and page scripts. They return the error text
// rather than a bool so a test can assert on the exact message core produced.
#include "web/js_api.h"
#include "web/page_exports.h"

#include "web/share_link.h"

#include <string>

#include "core/graph/file_kind.h"
#include "core/tflite/tflite_import.h"
#include "web/budget_tflm.h"
#include "web/panel_budget.h"
#include "web/panel_common.h"
#include "web/panel_exercise.h"
#include "core/teach/assignment.h"
#include "web/search_job.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define AP_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define AP_EXPORT
#endif

namespace arenaplan::web {
namespace {
AppState* g_state = nullptr;

const char* result(bool ok) {
  static std::string text;
  text = ok ? "" : g_state->error;
  return text.c_str();
}
}  // namespace

void bind_js_api(AppState* state) { g_state = state; }

void publish_summary(const AppState& state) {
#ifdef __EMSCRIPTEN__
  static std::string last;
  std::string now = summary_text(state);
  if (now == last) return;
  last = std::move(now);
  EM_ASM({ if (Module.onSummary) Module.onSummary(UTF8ToString($0)); }, last.c_str());
#else
  (void)state;
#endif
}

void request_open_graph_file() {
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.openGraphFile) Module.openGraphFile(); });
#endif
}

void request_open_board_file() {
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.openBoardFile) Module.openBoardFile(); });
#endif
}

void request_open_result_files() {
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.openResultFiles) Module.openResultFiles(); });
#endif
}

void offer_download(const std::string& filename, const std::string& text, const char* type) {
#ifdef __EMSCRIPTEN__
  // Text goes through UTF8ToString; other bytes (a .tflite holds NULs) as a view of the heap.
  if (std::string_view(type).rfind("application/octet-stream", 0) == 0)
    EM_ASM({ if (Module.downloadBytes) Module.downloadBytes(UTF8ToString($0), HEAPU8.subarray($1, $1 + $2), UTF8ToString($3)); },
           filename.c_str(), text.data(), text.size(), type);
  else
    EM_ASM({ if (Module.downloadText) Module.downloadText(UTF8ToString($0), UTF8ToString($1), UTF8ToString($2)); },
           filename.c_str(), text.c_str(), type);
#else
  (void)filename;
  (void)text;
  (void)type;
#endif
}

bool open_file_bytes(AppState& s, const std::string& file_name, std::string_view bytes) {
  if (looks_like_tflite(bytes)) return load_tflite(s, bytes, file_name.empty() ? "" : human_model_title(file_name));
  if (is_result_json(bytes)) {  // a student's result: the teacher grades it (web/panel_exercise_teacher.cpp)
    add_result_file(s, file_name, bytes);
    return true;
  }
  if (auto what = non_graph_file_kind(bytes)) {
    s.error = "Not opened: " + (file_name.empty() ? std::string("the file") : file_name) + " looks like " + *what +
              ", not a graph JSON or a .tflite model";
    request_redraw(s);
    return false;
  }
  return load_graph_json(s, std::string(bytes));
}

}  // namespace arenaplan::web

using arenaplan::web::g_state;
using arenaplan::web::result;

extern "C" {

// Never throws (JavaScript would see an abort): bytes that are not UTF-8 (a message quoting a
// binary file) are replaced by U+FFFD, and any other failure becomes {"export_error": ...}.
AP_EXPORT const char* ap_state_json() {
  static std::string text;
  try {
    text = g_state ? arenaplan::web::export_state(*g_state).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                   : "{}";
  } catch (const std::exception& e) {
    text = nlohmann::json({{"export_error", std::string(e.what())}}).dump(-1, ' ', false,
                                                                             nlohmann::json::error_handler_t::replace);
  }
  return text.c_str();
}

AP_EXPORT const char* ap_open_file(const char* name, const unsigned char* bytes, int size) {
  return result(arenaplan::web::open_file_bytes(
      *g_state, name ? name : "",
      std::string_view(reinterpret_cast<const char*>(bytes), size > 0 ? static_cast<size_t>(size) : 0)));
}

AP_EXPORT const char* ap_load_board_json(const char* name, const char* text) {
  return result(arenaplan::web::load_board_file(*g_state, name ? name : "", text ? text : ""));
}

AP_EXPORT const char* ap_select_board(const char* name) {
  return result(arenaplan::web::select_library_board(*g_state, name ? name : ""));
}

AP_EXPORT const char* ap_set_text_px(int px) {
  return result(arenaplan::web::set_text_px(*g_state, float(px)));
}

AP_EXPORT void ap_copy_result(int copied, const char* what) {
  if (g_state) arenaplan::web::report_copy(*g_state, copied != 0, what ? what : "");
}

AP_EXPORT void ap_set_first_visit(int first) {
  if (!g_state) return;
  g_state->welcome_open = first != 0;
  arenaplan::web::request_redraw(*g_state);
}

AP_EXPORT const char* ap_load_example(const char* name) {
  return result(arenaplan::web::load_example(*g_state, name));
}

AP_EXPORT const char* ap_load_graph_json(const char* text) {
  return result(arenaplan::web::load_graph_json(*g_state, text));
}

AP_EXPORT const char* ap_load_tflite(const unsigned char* bytes, int size) {
  return result(arenaplan::web::load_tflite(
      *g_state, std::string_view(reinterpret_cast<const char*>(bytes), size > 0 ? static_cast<size_t>(size) : 0)));
}

AP_EXPORT const char* ap_set_order(const char* csv) {
  return result(arenaplan::web::set_order_csv(*g_state, csv));
}

AP_EXPORT const char* ap_set_step(int step) {
  arenaplan::web::set_step(*g_state, step);
  return result(true);
}

AP_EXPORT void ap_request_redraw(int frames) {
  if (g_state) arenaplan::web::request_redraw(*g_state, frames);
}

// Tests and benches: the long searches stop after `work` nodes / states (< 0: no budget), so the
// page does exactly the work `bench_search_budget_bench --nodes/--states` does.
AP_EXPORT void ap_set_search_budget(double work) {
  if (g_state) g_state->search_budget = work < 0 ? -1 : static_cast<int64_t>(work);
}

// A message from a search worker (index.html's window.arenaplanSearch): progress, result or error.
AP_EXPORT void ap_search_message(int job, const char* message_json) {
  arenaplan::web::SearchJob::deliver(job, message_json);
  if (g_state) arenaplan::web::request_redraw(*g_state, 2);
}

AP_EXPORT const char* ap_share_fragment() {
  static std::string text;
  text = arenaplan::web::share_fragment(*g_state);
  return text.c_str();
}

AP_EXPORT const char* ap_apply_share_fragment(const char* fragment) {
  return result(arenaplan::web::apply_share_fragment(*g_state, fragment));
}

AP_EXPORT void ap_set_reduced_motion(int on) {
  if (!g_state) return;
  g_state->reduced_motion = on != 0;
  arenaplan::web::request_redraw(*g_state);
}

AP_EXPORT const char* ap_undo() {
  if (!arenaplan::web::can_undo(*g_state)) return "nothing to undo";
  return result(arenaplan::web::undo(*g_state));
}

// File > Export without the menu: `format` as `arenaplan export --format` spells it. "" when the
// download was offered, else why not.
AP_EXPORT const char* ap_export_file(const char* format) {
  g_state->error.clear();
  try {
    arenaplan::web::export_plan_file(*g_state, arenaplan::parse_export_format(format));
  } catch (const arenaplan::InputError& e) {
    g_state->error = e.what();
  }
  return result(g_state->error.empty());
}

// The Budget tab's kernels and core, as `--kernels K --core C` spell them (core "" = none).
AP_EXPORT const char* ap_set_tflm_target(const char* kernels, const char* core) {
  g_state->error.clear();
  try {
    const arenaplan::TflmKernels k = arenaplan::parse_tflm_kernels(kernels);
    arenaplan::TflmTarget t;
    if (*core) t = arenaplan::tflm_target_for_core(core, k);
    t.kernels = k;
    arenaplan::web::set_tflm_target(*g_state, t);
  } catch (const arenaplan::InputError& e) {
    g_state->error = e.what();
  }
  return result(g_state->error.empty());
}

AP_EXPORT const char* ap_redo() {
  if (!arenaplan::web::can_redo(*g_state)) return "nothing to redo";
  return result(arenaplan::web::redo(*g_state));
}

}  // extern "C"
