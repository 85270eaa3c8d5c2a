#include "web/worker/search_session.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/layout/pipeline.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"
#include "core/teach/share.h"
#include "core/tflite/tflite_import.h"
#include "core/transform/schedule_views.h"
#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"

namespace arenaplan::web {

namespace {

// step() works in fixed slices so the result depends on the budget alone, never on how the caller
// split it: bench/search_budget_bench.cpp uses the same slices, so a page search with a budget
// and the bench with that budget do the same search.
constexpr int64_t kLayoutSlice = 2048;   // exact-solver nodes
constexpr int64_t kScheduleSlice = 512;  // schedule states
// The frontier's search counts its own work (rewrites tried per cap), so a step is time: 2048
// units (what the worker asks for between clock checks) are 20 ms, the in-page fallback's 256 are
// 2.5 ms. The frontier does not depend on the slicing (ParetoSearch).
constexpr double kParetoSecondsPerUnit = 0.02 / 2048;

enum class Kind { kLayout, kSchedule, kPareto };

// The frontier's options from the request, as `transform --auto --pareto` builds them from its
// flags (cli/cmd_transform.cpp): the page's plan time limit is the What-if tab's (--seconds 0.2).
ParetoOptions pareto_options(const nlohmann::json& req, int64_t budget) {
  ParetoOptions o;
  o.search.whatif.stop_on_error = true;
  o.search.whatif.plan_time_limit_seconds = 0.2;
  o.search.max_rewrites = ParetoOptions::kDefaultMaxRewrites;
  if (budget >= 0) o.search.max_evaluations = budget;
  const auto number = [&](const char* name, double lo, double hi) -> std::optional<double> {
    if (!req.contains(name)) return std::nullopt;
    if (!req[name].is_number() || req[name].get<double>() < lo || req[name].get<double>() > hi)
      throw InputError(std::string("search request.") + name, "not a number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return req[name].get<double>();
  };
  if (const auto pct = number("max_extra_macs_pct", 0, 1e6)) o.search.max_extra_macs_pct = *pct;
  if (const auto seconds = number("seconds_per_cap", 0.01, 86400)) o.search.time_limit_seconds = *seconds;
  if (req.contains("kinds")) {  // --kinds; an unknown name is refused when the first search starts
    if (!req["kinds"].is_array()) throw InputError("search request.kinds", "not an array of kind names");
    for (const nlohmann::json& k : req["kinds"]) {
      if (!k.is_string()) throw InputError("search request.kinds", "not an array of kind names");
      o.search.kinds.push_back(k.get<std::string>());
    }
  }
  return o;
}

}  // namespace

struct SearchSession::Impl {
  Kind kind = Kind::kLayout;
  bool layout = false;
  int64_t budget = -1;  // nodes / states; -1: until the search ends
  int64_t spent = 0;    // work handed to step() so far
  bool cancelled = false;
  Graph graph;
  // layout
  AnytimeLayout exact;
  // schedule
  std::unique_ptr<ScheduleSearch> schedule;
  // pareto (its budget is per cap, inside the search: not counted against `spent`)
  std::unique_ptr<ParetoSearch> pareto;
  std::string error;  // why the frontier stopped early (a search or a verification threw)

  bool finished() const {
    if (kind == Kind::kPareto) return cancelled || !error.empty() || pareto->done();
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
  if (kind != "layout" && kind != "schedule" && kind != "pareto")
    throw InputError("search request.kind", "\"" + kind + "\" is not layout, schedule or pareto");
  Impl& m = *impl_;
  m.kind = kind == "layout" ? Kind::kLayout : kind == "schedule" ? Kind::kSchedule : Kind::kPareto;
  m.layout = m.kind == Kind::kLayout;
  if (req.contains("budget")) {
    if (!req["budget"].is_number_integer() || req["budget"].get<int64_t>() < 0)
      throw InputError("search request.budget", "not a non-negative integer");
    m.budget = req["budget"].get<int64_t>();
  }
  m.graph = parse_graph_json(field("graph").get<std::string>());
  if (m.kind == Kind::kPareto) {
    if (req.contains("model_base64url")) {
      // The opened .tflite as the CLI reads it: the same ops and tensors plus quantization and
      // weights, which graph JSON does not carry.
      TfliteImportOptions options;
      if (req.contains("model_name")) options.name = field("model_name").get<std::string>();
      m.graph = import_tflite(base64url_decode(field("model_base64url").get<std::string>()), options).graph;
    }
    // The frontier starts from the page's current order, as the What-if list does.
    const Graph ordered = reorder_ops(m.graph, parse_order(m.graph, field("order").get<std::string>())).graph;
    m.pareto = std::make_unique<ParetoSearch>(ordered, pareto_options(req, m.budget));
  } else if (m.layout) {
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
  if (m.kind == Kind::kPareto) {
    try {
      if (!m.finished()) m.pareto->step(static_cast<double>(work) * kParetoSecondsPerUnit);
    } catch (const std::exception& e) {
      m.error = e.what();  // reported, never a half frontier shown as whole
    }
    m.spent += work;
    return;
  }
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
  if (impl_->kind == Kind::kPareto)
    impl_->pareto->cancel();
  else if (impl_->layout)
    impl_->exact.search->cancel();
  else
    impl_->schedule->cancel();
}

bool SearchSession::done() const { return impl_->finished(); }

JsonOut SearchSession::progress_json() const {
  const Impl& m = *impl_;
  JsonOut out;
  out["done"] = done();
  if (m.kind == Kind::kPareto) {
    const ParetoProgress& p = m.pareto->progress();
    out["progress"] = p.stages > 0 ? static_cast<double>(p.stage) / p.stages : 1.0;
    out["best_bytes"] = p.search.best_peak;
    out["bound_bytes"] = p.search.lower_bound_bytes;
    out["stage"] = p.stage;
    out["stages"] = p.stages;
    out["phase"] = p.phase;
    out["cap_pct"] = p.cap_pct;
    if (!m.error.empty()) out["error"] = m.error;
    char cap[32];
    std::snprintf(cap, sizeof cap, "%g", p.cap_pct);
    out["text"] = p.phase == "recipe" ? "msf-CNN's recipe over a ladder of grids"
                  : "cap " + std::string(cap) + " %: " + p.phase + ", " + std::to_string(p.search.evaluations) +
                        " rewrites tried, best peak " + std::to_string(p.search.best_peak) + " B";
  } else if (m.layout) {
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
  if (m.kind == Kind::kPareto) {
    if (!m.error.empty()) return JsonOut{{"kind", "pareto"}, {"error", m.error}, {"work", m.spent}};
    out = pareto_json(m.pareto->frontier());
    out["kind"] = "pareto";
    out["cancelled"] = m.cancelled || m.pareto->progress().stopped;
  } else if (m.layout) {
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

ParetoFrontier pareto_frontier_from_json(const JsonOut& result) {
  const auto point = [](const JsonOut& j) {
    ParetoPoint p;
    p.peak_bytes = j.at("peak_bytes").get<Bytes>();
    p.arena_bytes = j.at("arena_bytes").get<Bytes>();
    p.extra_macs = j.at("extra_macs").get<int64_t>();
    p.extra_macs_pct = j.at("extra_macs_pct").get<double>();
    p.cap_pct = j.at("cap_pct").get<double>();
    p.verified = j.at("verified").get<bool>();
    p.outputs_check = j.at("outputs_check").get<std::string>();
    p.rewrites = j.at("rewrites").get<std::vector<std::string>>();
    return p;
  };
  try {
    ParetoFrontier f;
    f.start_peak_bytes = result.at("start_peak_bytes").get<Bytes>();
    f.start_macs = result.at("start_macs").get<int64_t>();
    for (const JsonOut& j : result.at("points")) f.points.push_back(point(j));
    for (const JsonOut& j : result.at("tried")) f.tried.push_back(point(j));
    return f;
  } catch (const std::exception& e) {
    throw InputError("frontier result", std::string("unreadable (") + e.what() + ")");
  }
}

}  // namespace arenaplan::web
