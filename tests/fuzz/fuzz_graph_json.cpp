// libFuzzer target: graph JSON -> validation -> lifetimes. Bad input must end in InputError, never
// a crash, a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/graph/graph_json.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  try {
    Graph g = parse_graph_json(std::string_view(reinterpret_cast<const char*>(data), size));
    if (g.ops.size() > 2000 || g.tensors.size() > 5000) return 0;
    LiveAnalysis a = analyze_lifetimes(g, topological_order(g));
    // The peak is a max over steps, so no step may exceed it.
    for (const StepLive& s : a.steps)
      if (s.live_bytes > a.peak_bytes) __builtin_trap();
    // Plan, then verify independently: the verifier must accept every plan.
    LayoutProblem problem = layout_problem(g, a);
    ArenaPlan plan = plan_arena(problem, {"portfolio", 0.05});
    if (!verify_plan(problem, plan.offsets, plan.arena_bytes).ok() || plan.arena_bytes < a.peak_bytes) __builtin_trap();
    Graph again = parse_graph_json(graph_to_json(g));  // the writer's output always parses back
    if (again.ops.size() != g.ops.size()) __builtin_trap();
  } catch (const InputError&) {
  }
  return 0;
}
