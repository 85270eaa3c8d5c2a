// arenaplan analyze: lifetimes and live bytes for one operator order.
#include <iomanip>
#include <iostream>

#include "cli/command.h"
#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/teach/explain.h"

namespace arenaplan::cli {
namespace {

void print_table(const Graph& g, const LiveAnalysis& a) {
  std::cout << "graph " << g.name << ", order " << order_names(g, a.order, "-") << "\n\n";
  std::cout << "step  op          live bytes   live\n";
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const StepLive& st = a.steps[s];
    std::string live;
    for (int b : st.buffers) live += (live.empty() ? "" : " ") + a.buffers[b].name;
    std::cout << std::setw(4) << s << "  " << std::left << std::setw(10) << g.ops[st.op].name
              << std::right << std::setw(12) << format_bytes(st.live_bytes) << "   " << live
              << (static_cast<Step>(s) == a.peak_step ? "   <- peak" : "") << "\n";
  }
  std::cout << "\npeak " << format_bytes(a.peak_bytes) << " (" << a.peak_bytes << " B) at step "
            << a.peak_step << " (" << g.ops[a.order[a.peak_step]].name << "); all tensors "
            << format_bytes(a.total_bytes) << ", largest " << format_bytes(a.largest_tensor_bytes)
            << "\n\ntimeline (# = live):\n"
            << timeline_text(g, a);
}

int run_analyze(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  LiveAnalysis a = analyze_lifetimes(g, order_from_args(g, args));
  if (args.flag("explain")) {  // one sentence per step, from the live set (core/teach/explain.h)
    const std::vector<StepExplanation> steps = explain_schedule(g, a);
    if (args.flag("json")) {
      JsonOut out = analysis_json(g, a);
      out["explanation"] = schedule_explanation_json(g, a, steps);
      std::cout << out.dump(2) << "\n";
    } else {
      for (const StepExplanation& e : steps) std::cout << e.sentence << "\n";
    }
    return 0;
  }
  if (args.flag("json")) std::cout << analysis_json(g, a).dump(2) << "\n";
  else print_table(g, a);
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("analyze", "analyze GRAPH [--order A,B,...] [--explain] [--json]", {"json", "explain"}, {"order"},
                  run_analyze);

}  // namespace arenaplan::cli
