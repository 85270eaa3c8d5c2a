// simulate_setup (core/sim/sim.h): the browser panel runs one reference for both the whole-run
// report and its stepper; that report must be exactly the one simulate() gives the CLI.
#include "core/sim/sim.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

std::string report_via_setup(const Graph& g, const sim::SimRequest& req) {
  const sim::SimSetup setup = sim::prepare_simulation(g, req);
  const auto reference = sim::reference_simulator(g, setup.live, setup.options);
  reference->run_all();
  sim::SimReport r = sim::simulate_setup(g, setup, *reference);
  r.planner = req.plan.planner;
  return sim::simulation_json(g, r).dump();
}

}  // namespace

TEST_CASE("one shared reference gives the same report as simulate(), faults included") {
  const Graph g = example_graph("tiny_cnn");
  sim::SimRequest req;
  req.order = g.file_order();
  CHECK(report_via_setup(g, req) == sim::simulation_json(g, sim::simulate(g, req)).dump());

  const LiveAnalysis live = analyze_lifetimes(g, req.order);
  std::string shiftable;
  for (const LiveBuffer& b : live.buffers)
    if (b.kind == BufferKind::kTensor) shiftable = b.name;
  REQUIRE(!shiftable.empty());
  req.inject = {"shift:" + shiftable};
  const std::string faulty = sim::simulation_json(g, sim::simulate(g, req)).dump();
  CHECK(report_via_setup(g, req) == faulty);
  CHECK(faulty.find("\"violations\":[]") == std::string::npos);  // the fault was caught, so the check compares something
}

TEST_CASE("a whole run stepped a slice at a time reports what simulate() does, with its progress counted") {
  const Graph g = example_graph("tiny_cnn");
  sim::SimRequest req;
  req.order = g.file_order();
  req.runs = 2;
  req.sessions = 2;
  const sim::SimSetup setup = sim::prepare_simulation(g, req);
  const auto reference = sim::reference_simulator(g, setup.live, setup.options);
  sim::ArenaSimulator planned(g, setup.live, setup.layout, setup.options);
  planned.compare_with(reference.get());
  const int64_t total = int64_t(req.runs) * req.sessions * int64_t(g.ops.size());
  CHECK(reference->steps_total() == total);
  CHECK(planned.steps_total() == total);
  int64_t taken = 0;
  for (sim::ArenaSimulator* sim : {reference.get(), &planned})
    for (taken = 0; !sim->done(); ++taken) {
      CHECK(sim->steps_taken() == taken);
      sim->step();
    }
  CHECK(taken == total);
  CHECK(planned.steps_taken() == total);
  sim::SimReport r = sim::planned_run_report(g, setup, planned);
  r.planner = req.plan.planner;
  CHECK(sim::simulation_json(g, r).dump() == sim::simulation_json(g, sim::simulate(g, req)).dump());

  sim::ArenaSimulator unfinished(g, setup.live, setup.layout, setup.options);
  unfinished.compare_with(reference.get());
  unfinished.step();
  CHECK_THROWS_AS(sim::planned_run_report(g, setup, unfinished), std::logic_error);
}

// simulate() runs the reference on a thread beside the plan search: an error on either side is
// reported as the InputError it is (never std::terminate), the plan's first, as when they ran in turn.
TEST_CASE("simulate: errors of the reference run and of the plan search reach the caller") {
  const Graph g = example_graph("tiny_cnn");
  sim::SimRequest req;
  req.runs = 0;  // refused by the reference simulator, on the thread
  CHECK(input_error_of([&] { sim::simulate(g, req); }) == "runs: must be in [1, 100000]");
  req.inject = {"shift:no_such_tensor"};  // refused by the plan's side too: that one is reported
  const std::string both = input_error_of([&] { sim::simulate(g, req); });
  CHECK(both.find("no_such_tensor") != std::string::npos);
  req.runs = 1;
  CHECK(input_error_of([&] { sim::simulate(g, req); }) == both);
}
