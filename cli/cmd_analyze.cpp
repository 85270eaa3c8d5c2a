// arenaplan analyze: lifetimes and live bytes for one operator order.
#include <iostream>

#include "cli/command.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/teach/explain.h"

namespace arenaplan::cli {
namespace {

int run_analyze(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  LiveAnalysis a = analyze_lifetimes(g, order_from_args(g, args));
  if (args.flag("explain")) {  // one sentence per step, from the live set (core/teach/explain.h)
    if (args.flag("json")) {
      write_explained_analysis_json(std::cout, g, a);
      std::cout << "\n";
    } else {
      write_schedule_explanation_text(std::cout, g, a);
    }
    return 0;
  }
  if (args.flag("json")) {
    write_analysis_json(std::cout, g, a);
    std::cout << "\n";
  } else {
    write_analysis_text(std::cout, g, a);
  }
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("analyze", "analyze GRAPH [--order A,B,...] [--explain] [--json]", {"json", "explain"}, {"order"},
                  run_analyze,
                  "Lifetimes of one operator order: the live bytes at every step, the peak and what is live there. --explain says why each buffer is live.",
                  {{"order", "the operator order, op names separated by commas (default: the file's order)"},
                   {"json", "machine-readable output (buffers with their live steps, per-step live bytes)"},
                   {"explain", "one sentence per step: why each live buffer is live"}},
                  {"analyze example:two_branch", "analyze example:two_branch --order A,B,D,C,E,F --json"});

}  // namespace arenaplan::cli
