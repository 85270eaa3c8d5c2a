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
  r.planner = req.planner;
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
