// Shared by the automatic search's units (transform_auto_*.cpp) only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/transform/transform_auto.h"

namespace arenaplan::auto_detail {

// The sequence the search chose and how to re-measure variants of it.
struct Verified {
  Graph original;                  // normalized input graph
  std::vector<std::string> specs;  // the chosen rewrites, in order
  int64_t counted_macs_before = 0;
  std::function<Graph(const std::vector<std::string>&)> replay;  // throws the first refusal
  std::function<Bytes(const Graph&)> peak_of;                    // the search's peak measure
};

// run_whatif on the sequence (re-planned with the real planner, verified, simulated, outputs
// compared) and each rewrite's saving on the combined graph.
AutoRewriteResult verify(const Verified& v, const AutoRewriteOptions& options);

}  // namespace arenaplan::auto_detail

namespace arenaplan {
// MACs of a graph by the simulator's kernel plans (fused ops: their parts); ops it cannot
// describe count 0.
int64_t count_macs(const Graph& g);
}  // namespace arenaplan
