// arenaplan layout: place every buffer of a graph (or a MiniMalloc CSV) in one arena, verified.
#include <iostream>

#include "cli/command.h"
#include "core/layout/layout.h"
#include "core/layout/minimalloc_csv.h"
#include "core/layout/pipeline.h"
#include "core/layout/planner.h"
#include "core/teach/explain.h"

namespace arenaplan::cli {

// Shared with cmd_verify.cpp: a graph JSON (or example:NAME) planned in --order, or a MiniMalloc CSV.
LayoutProblem load_layout_problem(const std::string& path, const Args& args) {
  if (!is_example(path)) {
    std::string text = read_file(path);
    if (looks_like_minimalloc_csv(text)) return in_file(path, [&] { return parse_minimalloc_csv(text).problem; });
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
  options.time_limit_seconds = args.time_limit_left("time-limit", 5.0, 86400.0);
  ArenaPlan plan = plan_arena(problem, options);
  if (args.flag("explain")) {  // one sentence per placed buffer (core/teach/explain.h), as the page steps
    const std::vector<PlacementExplanation> steps = explain_layout(problem, plan.offsets);
    if (args.flag("json")) {
      JsonOut out = layout_json(problem, plan);
      out["explanation"] = layout_explanation_json(problem, steps);
      std::cout << out.dump(2) << "\n";
    } else {
      for (const PlacementExplanation& e : steps) std::cout << e.sentence << "\n";
    }
    return 0;
  }
  if (args.flag("json")) std::cout << layout_json(problem, plan).dump(2) << "\n";
  else std::cout << layout_text(problem, plan, static_cast<int>(args.int_option("width", 64, 8, 400)));
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("layout",
                  "layout INPUT [--planner " + planner_list_text("|", "|") +
                      "] [--order A,B,...] "
                      "[--time-limit S] [--width N] [--explain] [--json]   (INPUT: graph JSON, example:NAME or MiniMalloc CSV)",
                  {"json", "explain"}, {"planner", "order", "time-limit", "width"}, run_layout,
                  "Places every buffer of one operator order in one arena with a planner, verifies it and draws it.",
                  {{"planner", "the planner (default: best): see arenaplan layout --help's usage line for all"},
                   {"order", "the operator order (default: the file's order)"},
                   {"time-limit", "seconds for the whole command (default: 5)"},
                   {"width", "characters of the ASCII picture (default: 64)"},
                   {"json", "machine-readable output"},
                   {"explain", "one sentence per placed buffer, lowest offset first"}},
                  {"layout example:two_branch --planner tflm-greedy", "layout tests/unit/data/minimalloc/P.csv --planner portfolio --json"});

}  // namespace arenaplan::cli
