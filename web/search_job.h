// A long search the page runs without blocking its main thread: in a Web Worker in the browser
// (web/worker/search_worker.js, started through index.html's window.arenaplanSearch), or
// in-process a slice per frame where there is no worker (the desktop build, a browser without
// Workers). Either way the same SearchSession (web/worker/search_session.h) does the work, so the
// result is the same for the same request. The result is NOT trusted: the panel verifies it
// against its own problem with core's verifier before showing it.
//
//   auto job = std::make_unique<SearchJob>(request);   // starts at once
//   job->poll();                                       // every frame (in-process: one slice)
//   job->progress()["progress"];  job->cancel();  if (job->done()) use(job->result());
#pragma once

#include <memory>
#include <string>

#include "core/graph/report.h"

namespace arenaplan::web {

class SearchSession;

class SearchJob {
 public:
  explicit SearchJob(const JsonOut& request);
  ~SearchJob();  // stops the worker
  SearchJob(const SearchJob&) = delete;
  SearchJob& operator=(const SearchJob&) = delete;

  void poll();    // in-process: ~10 ms of search; in a worker: nothing (messages update the job)
  void cancel();  // the best so far arrives as the result
  bool done() const { return done_; }
  bool in_worker() const { return worker_; }
  const JsonOut& progress() const { return progress_; }  // {"progress", "best_bytes", "bound_bytes", "text", ...}
  const JsonOut& result() const { return result_; }      // once done() and error() is empty
  const std::string& error() const { return error_; }    // the request was refused or the worker failed

  // A message from the worker (index.html forwards them): {"type": "progress" | "result" | "error", ...}.
  static void deliver(int id, const std::string& message_json);

 private:
  void finish_inline();
  int id_ = 0;
  bool worker_ = false;
  bool done_ = false;
  std::unique_ptr<SearchSession> inline_;
  JsonOut progress_ = JsonOut::object();
  JsonOut result_;
  std::string error_;
};

}  // namespace arenaplan::web
