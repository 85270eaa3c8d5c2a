// The "bars" scale shape (recent_reads_graph): what the scale benchmark's 100,000-op figures rest
// on. Its properties are checked here on smaller sizes; its speed is measured in bench/scale_bench.cpp.
#include <algorithm>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule_generators.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

TEST_CASE("recent_reads_graph: each op reads one or two of the last 8 tensors produced") {
  const Graph g = recent_reads_graph(3000, 5);
  REQUIRE(g.ops.size() == 3000);
  REQUIRE(g.inputs.size() == 1);
  // Tensor 0 is the input, tensor k + 1 the output of op k: a read of tensor t by op k is at most
  // 8 tensors back when t >= k + 1 - 8.
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& op = g.ops[k];
    CHECK((op.inputs.size() == 1 || op.inputs.size() == 2));
    REQUIRE(op.outputs.size() == 1);
    CHECK(op.outputs[0] == static_cast<TensorId>(k + 1));
    for (TensorId t : op.inputs) {
      CHECK(t <= static_cast<TensorId>(k));
      CHECK(t + 8 >= static_cast<TensorId>(k + 1));
    }
  }
}

TEST_CASE("recent_reads_graph: the graph outputs are exactly the produced tensors nobody reads") {
  const Graph g = recent_reads_graph(5000, 2);
  std::vector<bool> read(g.tensors.size(), false);
  for (const Op& op : g.ops)
    for (TensorId t : op.inputs) read[t] = true;
  std::vector<TensorId> unread;
  for (size_t t = 1; t < g.tensors.size(); ++t)
    if (!read[t]) unread.push_back(static_cast<TensorId>(t));
  std::vector<TensorId> outputs = g.outputs;
  std::sort(outputs.begin(), outputs.end());
  CHECK(outputs == unread);
  // Each op picks about 1.5 of 8 recent tensors: about (1 - 1.5 / 8)^8 = 19 % are never read.
  CHECK(outputs.size() > 5000 * 15 / 100);
  CHECK(outputs.size() < 5000 * 25 / 100);
}

TEST_CASE("recent_reads_graph: the same seed gives the same graph, another seed another") {
  CHECK(graph_to_json(recent_reads_graph(500, 9)) == graph_to_json(recent_reads_graph(500, 9)));
  CHECK(graph_to_json(recent_reads_graph(500, 9)) != graph_to_json(recent_reads_graph(500, 10)));
}

TEST_CASE("recent_reads_graph: live bytes climb to every output plus the last op's inputs at the last step") {
  const Graph g = recent_reads_graph(4000, 1);
  const LiveAnalysis a = analyze_lifetimes(g, topological_order(g));
  const Step last = static_cast<Step>(g.ops.size()) - 1;
  Bytes expected = 0;
  for (TensorId t : g.outputs) expected += g.tensors[t].bytes;
  for (TensorId t : g.ops.back().inputs)
    if (!g.is_output(t)) expected += g.tensors[t].bytes;
  CHECK(a.steps[last].live_bytes == expected);
  // Earlier steps hold fewer outputs but up to the 8 recent tensors and an op: at most ~10 tensors above the end.
  CHECK(a.peak_bytes >= expected);
  CHECK(a.peak_bytes <= expected + 10 * 256 * 1024);
  // Sizes are about log-uniform in [1, 218) KiB, ~40 KiB on average, so the peak grows by about
  // 0.2 x 40 KiB per op (~850 MB at 100,000 ops).
  CHECK(a.peak_bytes > Bytes{4000} * 5 * 1024);
  CHECK(a.peak_bytes < Bytes{4000} * 12 * 1024);
}

}  // namespace
}  // namespace arenaplan
