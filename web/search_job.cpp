#include "web/search_job.h"

#include <chrono>
#include <map>

#include "web/worker/search_session.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {
namespace {

constexpr double kInlineSliceSeconds = 0.010;  // in-process search per frame: the page stays responsive

// Jobs waiting for worker messages, by id (a message for a job already gone is dropped).
std::map<int, SearchJob*>& live_jobs() {
  static std::map<int, SearchJob*> jobs;
  return jobs;
}

}  // namespace

SearchJob::SearchJob(const JsonOut& request) {
  static int next_id = 0;
  id_ = ++next_id;
  const std::string text = request.dump();
#ifdef __EMSCRIPTEN__
  worker_ = EM_ASM_INT({ return window.arenaplanSearch ? window.arenaplanSearch.start($0, UTF8ToString($1)) : 0; }, id_,
                       text.c_str()) != 0;
#endif
  if (worker_) {
    live_jobs()[id_] = this;
    return;
  }
  try {
    inline_ = std::make_unique<SearchSession>(text);
    progress_ = inline_->progress_json();
  } catch (const std::exception& e) {
    error_ = e.what();
    done_ = true;
  }
}

SearchJob::~SearchJob() {
  if (!worker_) return;
  live_jobs().erase(id_);
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (window.arenaplanSearch) window.arenaplanSearch.stop($0); }, id_);
#endif
}

void SearchJob::poll() {
  if (done_ || !inline_) return;
  const auto start = std::chrono::steady_clock::now();
  while (!inline_->done() &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < kInlineSliceSeconds)
    inline_->step(256);
  progress_ = inline_->progress_json();
  if (inline_->done()) finish_inline();
}

void SearchJob::finish_inline() {
  result_ = inline_->result_json();
  done_ = true;
  inline_.reset();
}

void SearchJob::cancel() {
  if (done_) return;
  if (inline_) {
    inline_->cancel();
    finish_inline();
    return;
  }
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (window.arenaplanSearch) window.arenaplanSearch.cancel($0); }, id_);
#endif
}

void SearchJob::deliver(int id, const std::string& message_json) {
  const auto it = live_jobs().find(id);
  if (it == live_jobs().end()) return;
  SearchJob& job = *it->second;
  const JsonOut msg = JsonOut::parse(message_json, nullptr, /*allow_exceptions=*/false);
  const std::string type = msg.is_object() && msg.contains("type") && msg["type"].is_string() ? msg["type"].get<std::string>() : "";
  if (type == "progress" && msg.contains("progress")) {
    job.progress_ = msg["progress"];
  } else if (type == "result" && msg.contains("result")) {
    job.result_ = msg["result"];
    job.done_ = true;
  } else {
    job.error_ = type == "error" && msg.contains("error") && msg["error"].is_string() ? msg["error"].get<std::string>()
                                                                                       : "an unreadable message from the search worker";
    job.done_ = true;
  }
}

}  // namespace arenaplan::web
