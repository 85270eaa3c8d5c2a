// arenaplan simulate: run a graph inside its planned arena on a simulated MCU, count cycles and
// check with the oracles that the plan is safe. Faults can be injected to watch the oracles work.
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "cli/command.h"
#include "core/sim/sim.h"

namespace arenaplan::cli {
namespace {

void print_text(const Graph& g, const sim::SimReport& r) {
  std::cout << "graph " << g.name << ", order " << order_names(g, r.order, "-") << ", planner " << r.planner
            << ", profile " << r.profile.name << " (" << r.profile.clock_mhz << " MHz)\n";
  for (const std::string& f : r.injected) std::cout << "injected fault: " << f << "\n";
  std::cout << "\nstep  op          kernel               MACs   bytes read  bytes written     cycles\n";
  for (size_t s = 0; s < r.per_op.size(); ++s) {
    const sim::OpStats& st = r.per_op[s];
    std::cout << std::setw(4) << s << "  " << std::left << std::setw(10) << g.ops[st.op].name << "  " << std::setw(16)
              << st.kernel << std::right << std::setw(10) << st.macs << std::setw(13) << st.bytes_read << std::setw(15)
              << st.bytes_written << std::setw(11) << st.cycles << (st.note.empty() ? "" : "   (" + st.note + ")")
              << "\n";
  }
  std::cout << "\ntotal " << r.cycles_total << " cycles = " << std::fixed << std::setprecision(1) << r.latency_us
            << " us at " << r.profile.clock_mhz << " MHz (a model: " << r.profile.assumptions << ")\n";
  std::cout << "arena " << r.arena_bytes << " B (lower bound " << r.lower_bound_bytes << " B), high-water mark "
            << r.high_water_bytes << " B\n";
  std::cout << r.runs << " run(s) x " << r.sessions << " session(s)"
            << (r.sessions > 1 ? (r.shared_arena ? " sharing one arena" : " in separate arenas") : "") << ", seed "
            << r.seed << "\n\n";
  std::cout << "oracle outputs:    " << (r.outputs_match_reference ? "ok, bit-identical to the reference run" : "FAILED")
            << "\n";
  auto count = [&](const char* o) {
    size_t n = 0;
    for (const sim::Violation& v : r.violations) n += v.oracle == o;
    return n;
  };
  std::cout << "oracle writes:     " << (count("writes") ? "FAILED" : "ok, no byte changed outside the op's outputs")
            << "\n";
  std::cout << "oracle high_water: " << (count("high_water") ? "FAILED" : "ok, within the planned arena") << "\n";
  if (!r.violations.empty()) {
    std::cout << "\n" << r.violation_count << " violation(s)"
              << (r.violation_count > r.violations.size() ? ", first " + std::to_string(r.violations.size()) : "")
              << ":\n";
    for (size_t i = 0; i < r.violations.size() && i < 20; ++i)
      std::cout << "  [" << r.violations[i].oracle << "] " << r.violations[i].message << "\n";
  }
}

int run_simulate(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  sim::SimRequest req;
  req.order = order_from_args(g, args);
  req.planner = args.option("planner").value_or("best");
  req.profile = args.option("profile").value_or("cortex-m4");
  req.runs = static_cast<int>(args.int_option("runs", 1, 1, 100000));
  req.sessions = static_cast<int>(args.int_option("sessions", 1, 1, 16));
  req.shared_arena = args.flag("shared-arena");
  req.seed = static_cast<uint64_t>(args.int_option("seed", 1, 0, INT64_MAX));
  req.inject = args.options("inject");
  sim::SimReport r = sim::simulate(g, req);
  if (args.flag("json")) std::cout << sim::simulation_json(g, r).dump(2) << "\n";
  else print_text(g, r);
  if (!r.ok()) {
    std::cerr << "arenaplan simulate: oracle " << r.violations.front().oracle
              << " failed: " << r.violations.front().message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("simulate",
                  "simulate GRAPH [--order A,B,...] [--planner NAME] [--profile cortex-m0plus|cortex-m4|cortex-m7] "
                  "[--runs N] [--sessions N [--shared-arena]] [--seed N] [--inject shift:TENSOR[:BYTES]|ignore-async]... "
                  "[--json]",
                  {"json", "shared-arena"}, {"order", "planner", "profile", "runs", "sessions", "seed", "inject"},
                  run_simulate);

}  // namespace arenaplan::cli
