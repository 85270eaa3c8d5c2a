// The C functions JavaScript calls (window.arenaplan in index.html wraps them), and the push of
// the key numbers into the page's aria-live region.
#pragma once

#include <string>
#include <string_view>

#include "web/app.h"

namespace arenaplan::web {

// The state the exported functions read and edit (owned by main.cpp).
void bind_js_api(AppState* state);

// Sends summary_text() to the page (Module.onSummary) when it changed; no-op natively.
void publish_summary(const AppState& state);

// Asks the page to show a file picker; the chosen file comes back through ap_load_graph_json.
// Browsers allow this only shortly after a user gesture (a click or key press in the app).
void request_open_graph_file();

// Asks the page for a board file (Budget > Open board file...); it comes back through
// ap_load_board_json.
void request_open_board_file();

// Asks the page for students' result files (Exercises > Teacher tools); each comes back through
// ap_open_file and goes to the grading table.
void request_open_result_files();
// Offers `text` as a file download named `filename` with MIME type `type` (browser only).
void offer_download(const std::string& filename, const std::string& text, const char* type = "application/json");

// A file opened or dropped on the page, by name and bytes: a .tflite model, graph JSON, or a
// clear refusal saying what the file looks like ("a PNG image").
bool open_file_bytes(AppState& s, const std::string& file_name, std::string_view bytes);

}  // namespace arenaplan::web

// Returned strings stay valid until the next call of the same function.
extern "C" {
const char* ap_state_json();                     // export_state() as JSON text
const char* ap_load_example(const char* name);   // "" on success, else the error
const char* ap_load_graph_json(const char* text);
const char* ap_load_tflite(const unsigned char* bytes, int size);  // a .tflite model
const char* ap_open_file(const char* name, const unsigned char* bytes, int size);  // any file: model, graph or refusal
const char* ap_load_board_json(const char* name, const char* text);  // a board file for the Budget panel
const char* ap_set_text_px(int px);             // View > Text size (from local storage); "" or why not
void ap_set_first_visit(int first);             // 1: show the welcome card (the page keeps the "seen" flag)
const char* ap_set_order(const char* csv);       // "A,B,D,C,E,F"
const char* ap_set_step(int step);
void ap_request_redraw(int frames);              // draw `frames` more frames even when idle
const char* ap_share_fragment();                 // the share-link fragment of the current state
const char* ap_apply_share_fragment(const char* fragment);  // "" when applied, else why refused
void ap_set_reduced_motion(int on);              // prefers-reduced-motion, followed live by the page
const char* ap_undo();                           // "" when undone, else why not
const char* ap_redo();
}
