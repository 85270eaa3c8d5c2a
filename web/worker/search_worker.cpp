// The search module's entry points (build target arenaplan_search_worker -> search.js/search.wasm,
// loaded by search_worker.js inside a Web Worker). Core only: no SDL, no ImGui, no GL, so the
// module is small and starts fast. One session per worker; every call returns JSON text.
#include <memory>
#include <string>

#include <emscripten.h>

#include "web/worker/search_session.h"

namespace {
std::unique_ptr<arenaplan::web::SearchSession> g_session;  // the worker's one search
std::string g_reply;                                       // the last reply, alive until the next call

const char* reply(const arenaplan::JsonOut& j) {
  g_reply = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return g_reply.c_str();
}
}  // namespace

extern "C" {

// Starts a search (request: see search_session.h). Returns "" or why the request was refused.
EMSCRIPTEN_KEEPALIVE const char* ap_job_start(const char* request_json) {
  try {
    g_session = std::make_unique<arenaplan::web::SearchSession>(request_json);
    g_reply.clear();
  } catch (const std::exception& e) {
    g_session.reset();
    g_reply = e.what();
  }
  return g_reply.c_str();
}

// Expands about `work` nodes / states; returns the progress JSON.
EMSCRIPTEN_KEEPALIVE const char* ap_job_step(int work) {
  if (!g_session) return reply({{"done", true}, {"error", "no search started"}});
  g_session->step(work);
  return reply(g_session->progress_json());
}

EMSCRIPTEN_KEEPALIVE void ap_job_cancel() {
  if (g_session) g_session->cancel();
}

// The best so far (the result once the progress says done).
EMSCRIPTEN_KEEPALIVE const char* ap_job_result() {
  if (!g_session) return reply({{"error", "no search started"}});
  return reply(g_session->result_json());
}

}  // extern "C"
