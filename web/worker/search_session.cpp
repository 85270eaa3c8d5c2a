#include "web/worker/search_session.h"

#include <algorithm>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/layout/layout.h"
#include "core/layout/planner.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"

namespace arenaplan::web {

namespace {

// step() works in fixed slices so the result depends on the budget alone, never on how the caller
// split it: bench/search_budget_bench.cpp uses the same slices, so a page search with a budget
// and the bench with that budget do the same search.
constexpr int64_t kLayoutSlice = 2048;   // exact-solver nodes
constexpr int64_t kScheduleSlice = 512;  // schedule states

// The registry's anytime layout planner and its seed, as the Arena panel picks them.
const Planner& anytime_planner() {
  for (const Planner& p : planners())
    if (p.start_search) return p;
  throw InputError("search", "no anytime layout planner registered");
}

}  // namespace

struct SearchSession::Impl {
  bool layout = false;
  int64_t budget = -1;  // nodes / states; -1: until the search ends
  int64_t spent = 0;    // work handed to step() so far
  bool cancelled = false;
  Graph graph;
  // layout
  LayoutProblem problem;
  std::unique_ptr<AnytimeLayoutSearch> exact;
  // schedule
  std::unique_ptr<ScheduleSearch> schedule;

  bool finished() const {
    if (cancelled || (budget >= 0 && spent >= budget)) return true;
    return layout ? exact->done() : schedule->done();
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
    // The same derivation as the page's Arena panel (layout_problem over analyze_lifetimes), so
    // the offsets that come back index the page's own problem.
    const Schedule order = parse_order(m.graph, field("order").get<std::string>());
    m.problem = layout_problem(m.graph, analyze_lifetimes(m.graph, order));
    const Planner& anytime = anytime_planner();
    const ArenaPlan seed = plan_arena(m.problem, {anytime.seed_planner, 1.0});
    m.exact = anytime.start_search(m.problem, seed.offsets, seed.arena_bytes);
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
      m.exact->step(n);
    else
      m.schedule->step(n);
    m.spent += n;
  }
}

void SearchSession::cancel() {
  impl_->cancelled = true;
  if (impl_->layout)
    impl_->exact->cancel();
  else
    impl_->schedule->cancel();
}

bool SearchSession::done() const { return impl_->finished(); }

JsonOut SearchSession::progress_json() const {
  const Impl& m = *impl_;
  JsonOut out;
  out["done"] = done();
  if (m.layout) {
    out["progress"] = m.exact->progress();
    out["best_bytes"] = m.exact->best_arena_bytes();
    out["bound_bytes"] = layout_lower_bound(m.problem);
    out["text"] = m.exact->progress_text();
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
    out["offsets"] = m.exact->best_so_far();
    out["arena_bytes"] = m.exact->best_arena_bytes();
    out["proven_optimal"] = m.exact->proven_optimal();
    out["status"] = m.exact->status_text();
  } else {
    out = schedule_json(m.graph, m.schedule->result());
    out["kind"] = "schedule";
  }
  out["work"] = m.spent;
  return out;
}

}  // namespace arenaplan::web
