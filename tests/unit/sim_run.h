// A simulation run the way `arenaplan simulate` runs it (prepare, the reference run, the planned
// run checked against it), keeping the reference so a test can read the outputs it captured.
#pragma once

#include <memory>

#include "core/sim/sim.h"

namespace arenaplan::test {

struct SimRun {
  sim::SimSetup setup;
  std::unique_ptr<sim::ArenaSimulator> reference;  // run to its end; captured(run, session) holds the outputs
  sim::SimReport report;
};

inline SimRun simulate_keeping_reference(const Graph& g, const sim::SimRequest& req) {
  SimRun r;
  r.setup = sim::prepare_simulation(g, req);
  r.reference = sim::reference_simulator(g, r.setup.live, r.setup.options);
  r.reference->run_all();
  r.report = sim::simulate_setup(g, r.setup, *r.reference);
  return r;
}

}  // namespace arenaplan::test
