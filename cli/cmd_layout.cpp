// arenaplan layout: place every buffer of a graph (or a MiniMalloc CSV) in one arena, verified.
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "core/layout/layout.h"
#include "core/layout/planner.h"
#include "core/session/session.h"
#include "core/teach/explain.h"

namespace arenaplan::cli {

// Shared with cmd_verify.cpp: INPUT (a file, or example:NAME's graph JSON) read, and the order
// --order gives for its graph (none for a CSV).
LayoutInput read_layout_input(const std::string& path) {
  if (is_example(path)) return load_layout_input(example_text(path));
  return in_file(path, [&] { return load_layout_input(read_file(path)); });
}
Schedule layout_order(const LayoutInput& in, const Args& args) { return in.graph ? order_from_args(*in.graph, args) : Schedule{}; }

namespace {

// Seconds writing the answer takes per buffer (measured at 100,000 buffers: ~1 us as JSON, ~0.8 us
// as text, about twice that kept for a loaded machine): kept free at the end of --time-limit, which
// covers the whole command.
double writing_seconds(const LayoutProblem& problem, bool json) {
  return (json ? 3e-6 : 2e-6) * static_cast<double>(problem.buffers.size());
}

int run_layout(const Args& args) {
  const LayoutInput in = read_layout_input(args.positional_at(0, "INPUT"));
  const LayoutProblem problem = layout_problem_of(in, layout_order(in, args));
  PlanOptions options = plan_options_from_args(args);
  // What reading left, less the writing.
  options.time_limit_seconds = std::max(0.0, options.time_limit_seconds - writing_seconds(problem, args.flag("json")));
  const ArenaPlan plan = plan_arena(problem, options);
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
  if (args.flag("json")) {
    write_layout_json(std::cout, problem, plan);
    std::cout << "\n";
  }
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
                  {{"planner", "the planner (default: best, within export's node limit unless --time-limit is given): see the usage line for all"},
                   {"order", "the operator order (default: the file's order)"},
                   {"time-limit", "seconds for the whole command (default: 5)"},
                   {"width", "characters of the ASCII picture (default: 64)"},
                   {"json", "machine-readable output"},
                   {"explain", "one sentence per placed buffer, lowest offset first"}},
                  {"layout example:two_branch --planner tflm-greedy", "layout tests/unit/data/minimalloc/P.csv --planner portfolio --json"});

}  // namespace arenaplan::cli
