#include "web/worker/search_session.h"

#include <algorithm>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/layout/pipeline.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"
#include "core/transform/schedule_views.h"

namespace arenaplan::web {

namespace {

// step() works in fixed slices so the result depends on the budget alone, never on how the caller
// split it: bench/search_budget_bench.cpp uses the same slices, so a page search with a budget
// and the bench with that budget do the same search.
constexpr int64_t kLayoutSlice = 2048;   // exact-solver nodes
constexpr int64_t kScheduleSlice = 512;  // schedule states

}  // namespace

struct SearchSession::Impl {
  bool layout = false;
  int64_t budget = -1;  // nodes / states; -1: until the search ends
  int64_t spent = 0;    // work handed to step() so far
  bool cancelled = false;
  Graph graph;
  // layout
  AnytimeLayout exact;
  // schedule
  std::unique_ptr<ScheduleSearch> schedule;

  bool finished() const {
    if (cancelled || (budget >= 0 && spent >= budget)) return true;
    return layout ? exact.search->done() : schedule->done();
  }
};

SearchSession::SearchSession(const std::string& request_json) : impl_(std::make_unique<Impl>()) {
  const nlohmann::json req = nlohmann::json::parse(request_json, nullptr, /*allow_exceptions=*/false);
  if (!req.is_object()) throw InputError("search request", "not a JSON object");
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!req.contains(name) || !req[name].is_string()) throw InputError(std::string("search request.") + name, "missing or not a string");
    return req[name];
  };
  const std::string kind = field("kind").get<std::string>();
  if (kind != "layout" && kind != "schedule") throw InputError("search request.kind", "\"" + kind + "\" is neither layout nor schedule");
  Impl& m = *impl_;
  m.layout = kind == "layout";
  if (req.contains("budget")) {
    if (!req["budget"].is_number_integer() || req["budget"].get<int64_t>() < 0)
      throw InputError("search request.budget", "not a non-negative integer");
    m.budget = req["budget"].get<int64_t>();
  }
  m.graph = parse_graph_json(field("graph").get<std::string>());
  if (m.layout) {
    // The same problem as the page's Arena panel (core's pipeline from the same graph and order),
    // so the offsets that come back index the page's own problem.
    m.exact = start_anytime_layout(m.graph, parse_order(m.graph, field("order").get<std::string>()));
  } else {
    m.schedule = std::make_unique<ScheduleSearch>(m.graph);
  }
}

SearchSession::~SearchSession() = default;

void SearchSession::step(int64_t work) {
  Impl& m = *impl_;
  const int64_t slice = m.layout ? kLayoutSlice : kScheduleSlice;
  for (int64_t left = work; left > 0 && !m.finished(); left -= slice) {
    const int64_t n = m.budget >= 0 ? std::min(slice, m.budget - m.spent) : slice;
    if (m.layout)
      m.exact.search->step(n);
    else
      m.schedule->step(n);
    m.spent += n;
  }
}

void SearchSession::cancel() {
  impl_->cancelled = true;
  if (impl_->layout)
    impl_->exact.search->cancel();
  else
    impl_->schedule->cancel();
}

bool SearchSession::done() const { return impl_->finished(); }

JsonOut SearchSession::progress_json() const {
  const Impl& m = *impl_;
  JsonOut out;
  out["done"] = done();
  if (m.layout) {
    const AnytimeLayoutSearch& search = *m.exact.search;
    out["progress"] = search.progress();
    out["best_bytes"] = search.best_arena_bytes();
    out["bound_bytes"] = m.exact.seed.lower_bound_bytes;
    out["text"] = search.progress_text();
  } else {
    out["progress"] = m.schedule->progress();
    out["best_bytes"] = m.schedule->best_peak();
    out["bound_bytes"] = m.schedule->lower_bound();
    out["text"] = "best " + std::to_string(m.schedule->best_peak()) + " B, lower bound " +
                  std::to_string(m.schedule->lower_bound()) + " B";
  }
  out["work"] = m.spent;
  return out;
}

JsonOut SearchSession::result_json() const {
  const Impl& m = *impl_;
  JsonOut out;
  if (m.layout) {
    out["kind"] = "layout";
    const AnytimeLayoutSearch& search = *m.exact.search;
    out["offsets"] = search.best_so_far();
    out["arena_bytes"] = search.best_arena_bytes();
    out["proven_optimal"] = search.proven_optimal();
    out["status"] = search.status_text();
  } else {
    out = schedule_json(m.graph, m.schedule->result());
    out["kind"] = "schedule";
    // `arenaplan schedule`'s second answer: the optimum once identity ops are views (proven at
    // once on graphs of the size a page holds; a second at most otherwise).
    const std::optional<ViewSchedule> views = schedule_with_views(m.graph, 1.0);
    out["views"] = views ? view_schedule_json(*views, m.schedule->result()) : JsonOut(nullptr);
  }
  out["work"] = m.spent;
  return out;
}

AnytimeAnswer layout_answer_from_json(const JsonOut& result) {
  try {
    return {result.at("offsets").get<std::vector<Bytes>>(), result.at("arena_bytes").get<Bytes>(),
            result.at("proven_optimal").get<bool>(), result.at("status").get<std::string>()};
  } catch (const std::exception& e) {
    throw InputError("search result", std::string("unreadable (") + e.what() + ")");
  }
}

}  // namespace arenaplan::web
