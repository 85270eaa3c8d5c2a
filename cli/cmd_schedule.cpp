// arenaplan schedule: every operator order with its peak (--enumerate), or the order with the
// smallest peak, with the baseline side by side and a lower bound.
#include <iostream>

#include "cli/command.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"
#include "core/transform/schedule_views.h"
#include "core/transform/transform_auto.h"

namespace arenaplan::cli {
namespace {

int run_enumerate(const Graph& g, const Args& args) {
  const int64_t limit = args.int_option("limit", 1000, 0, int64_t{1} << 40);
  Enumeration e = enumerate_orders(g, limit);
  if (args.flag("json")) std::cout << enumeration_json(g, e).dump(2) << "\n";
  else std::cout << enumeration_text(g, e);
  return 0;
}

int run_optimize(const Graph& g, const Args& args, const std::string& graph_arg) {
  ScheduleOptions options;
  options.memory_cap_bytes = args.int_option("memory-cap-mib", options.memory_cap_bytes >> 20, 1, 1 << 20) << 20;
  // With identity ops in the graph, half the time goes to the graph without them.
  const bool has_views = !view_candidates(g).empty();
  const double limit = args.time_limit_left("time-limit", 10.0, 1e6);
  ScheduleResult r = optimize_schedule(g, has_views ? limit / 2 : limit, options);
  std::optional<ViewSchedule> views;
  if (has_views) views = schedule_with_views(g, args.time_limit_left("time-limit", 10.0, 1e6), options);
  if (args.flag("json")) {
    JsonOut out = schedule_json(g, r);
    out["views"] = views ? view_schedule_json(*views, r) : JsonOut(nullptr);
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << schedule_text(g, r);
    if (views) std::cout << view_schedule_text(*views, r, graph_arg);
  }
  return 0;
}

int run_schedule(const Args& args) {
  const std::string graph_arg = args.positional_at(0, "GRAPH");
  Graph g = load_graph(graph_arg);
  if (args.flag("enumerate")) return run_enumerate(g, args);
  if (args.option("limit")) throw InputError("--limit", "only applies with --enumerate");
  return run_optimize(g, args, graph_arg);
}

}  // namespace

ARENAPLAN_COMMAND("schedule",
                  "schedule GRAPH [--enumerate [--limit N]] [--time-limit S] [--memory-cap-mib M] [--json]",
                  {"json", "enumerate"}, {"limit", "time-limit", "memory-cap-mib"}, run_schedule,
                  "The operator order with the lowest peak: optimal when proven (the lower bound met), with every order and its peak for small graphs, and the peak once ops that only copy their input are views.",
                  {{"limit", "--enumerate: list at most N orders (default: 1000)"},
                   {"time-limit", "seconds for the search (default: 10)"},
                   {"memory-cap-mib", "memory the exact search may use, in MiB"},
                   {"json", "machine-readable output"},
                   {"enumerate", "list every valid order with its peak (counted exactly)"}},
                  {"schedule example:two_branch", "schedule example:two_branch --enumerate --json"});

}  // namespace arenaplan::cli
