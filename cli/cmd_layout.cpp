// arenaplan layout: place every buffer of a graph (or a MiniMalloc CSV) in one arena, verified.
#include <iostream>

#include "cli/command.h"
#include "core/layout/fragmentation.h"
#include "core/graph/graph_json.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/layout/minimalloc_csv.h"

namespace arenaplan::cli {

// Shared with cmd_verify.cpp: a graph JSON (or example:NAME) planned in --order, or a MiniMalloc CSV.
LayoutProblem load_layout_problem(const std::string& path, const Args& args) {
  if (path.rfind("example:", 0) != 0) {
    std::string text = read_file(path);
    if (looks_like_minimalloc_csv(text)) {
      try {
        return parse_minimalloc_csv(text).problem;
      } catch (const InputError& e) {
        throw InputError(path + ": " + e.where(), std::string(e.what()).substr(e.where().size() + 2));
      }
    }
  }
  Graph g = load_graph(path);
  return layout_problem(g, analyze_lifetimes(g, order_from_args(g, args)));
}

namespace {

int run_layout(const Args& args) {
  const std::string& input = args.positional_at(0, "INPUT");
  LayoutProblem problem = load_layout_problem(input, args);
  PlanOptions options;
  options.planner = args.option("planner").value_or("best");
  options.time_limit_seconds = args.double_option("time-limit", 5.0, 0.0, 86400.0);
  ArenaPlan plan = plan_arena(problem, options);
  if (args.flag("json")) {
    std::cout << layout_json(problem, plan).dump(2) << "\n";
    return 0;
  }
  const int width = static_cast<int>(args.int_option("width", 64, 8, 400));
  std::cout << "planner " << plan.planner << " (" << plan.detail << "): arena " << format_bytes(plan.arena_bytes) << " ("
            << plan.arena_bytes << " B), lower bound " << format_bytes(plan.lower_bound_bytes) << " ("
            << plan.lower_bound_bytes << " B)" << (plan.proven_optimal ? ", optimal" : "") << ", verified, "
            << plan.seconds << " s\n\n";
  std::cout << "time down, address across:\n" << plan_picture(problem, plan.offsets, width);
  FragmentationReport frag = fragmentation_report(problem, plan.offsets, plan.arena_bytes);
  std::cout << "\nabove the bound: " << frag.excess_bytes << " B (" << frag.excess_percent << " %)\n";
  for (const CategoryUsage& u : category_usage(problem, plan.offsets))
    if (u.buffers > 0)
      std::cout << category_name(u.category) << ": " << u.buffers << " buffers, peak live " << format_bytes(u.peak_live_bytes)
                << ", spans " << format_bytes(u.span_bytes) << "\n";
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("layout",
                  "layout INPUT [--planner naive|linear|tflm-greedy|portfolio|exact|best] [--order A,B,...] "
                  "[--time-limit S] [--width N] [--json]   (INPUT: graph JSON, example:NAME or MiniMalloc CSV)",
                  {"json"}, {"planner", "order", "time-limit", "width"}, run_layout);

}  // namespace arenaplan::cli
