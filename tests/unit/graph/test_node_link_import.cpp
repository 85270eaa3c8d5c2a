// Checkmate's and MOCCASIN's computation graphs (networkx node-link JSON) read as graphs: one op
// per node writing its memory cost, links as reads, sinks as outputs; every error names its place.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> out;
  for (const Op& op : g.ops) out.push_back(op.name);
  return out;
}

std::vector<std::string> tensor_names(const Graph& g, const std::vector<TensorId>& ids) {
  std::vector<std::string> out;
  for (TensorId t : ids) out.push_back(g.tensors[t].name);
  return out;
}

// MOCCASIN's layout: integer names, out_cost, links as "0" -> "1", the generator's order. A diamond
// 0 -> {2, 3} -> 1 with a side branch 0 -> 4 nobody reads.
const char* kMoccasin = R"json({"directed": true, "multigraph": false,
  "graph": {"name": "random_layered_tiny", "source_node": 0, "target_node": 1, "node_output_cost_tag": "out_cost",
            "order": [0, 3, 2, 4, 1]},
  "nodes": [{"out_cost": 100, "param_cost": 0, "duration": 0, "name": 0},
            {"out_cost": 7, "param_cost": 0, "duration": 0, "name": 1},
            {"out_cost": 300, "param_cost": 5, "duration": 3, "name": 2},
            {"out_cost": 20, "param_cost": 0, "duration": 1, "name": 3},
            {"out_cost": 1000, "param_cost": 0, "duration": 1, "name": 4}],
  "links": [{"0": 0, "1": 2}, {"0": 0, "1": 3}, {"0": 2, "1": 1}, {"0": 3, "1": 1}, {"0": 0, "1": 4}]})json";

// Checkmate's layout: integer ids, layer names, cost_ram, links source -> target, no order.
const char* kCheckmate = R"json({"directed": true, "multigraph": false, "graph": {"name": "tiny (MLSys)"},
  "nodes": [{"name": "conv1", "backward": false, "cost_cpu": 110, "cost_ram": 4096, "id": 0},
            {"name": "relu1", "backward": false, "cost_cpu": 10, "cost_ram": 4096.0, "id": 1},
            {"name": "fc", "backward": false, "cost_cpu": 30, "cost_ram": 40, "id": 2}],
  "links": [{"source": 1, "target": 2}, {"source": 0, "target": 1}]})json";

std::string error_of(const std::string& json) {
  return input_error_of([&] { parse_graph_json(json); });
}

}  // namespace

TEST_CASE("node-link graphs: MOCCASIN's random layered files become one op per node in the generator's order") {
  const Graph g = parse_graph_json(kMoccasin);
  CHECK(g.name == "random_layered_tiny");
  CHECK(g.alignment == 1);
  CHECK(op_names(g) == std::vector<std::string>{"0", "3", "2", "4", "1"});
  CHECK(g.tensors[2].bytes == 300);  // param_cost is weights, not the output's memory
  CHECK(tensor_names(g, g.ops[4].inputs) == std::vector<std::string>{"2", "3"});
  CHECK(tensor_names(g, g.ops[1].inputs) == std::vector<std::string>{"0"});
  CHECK(g.inputs.empty());
  // Sinks are the outputs: the target and the branch nobody reads.
  CHECK(tensor_names(g, g.outputs) == std::vector<std::string>{"4", "1"});
  // The peak of the given order, by hand: at step 2 (node 2) 100 + 20 + 300 are live, at step 3
  // (node 4) 100 + 20 + 300 + 1000 (0 is read by 4, 4 is an output and held to the end).
  const LiveAnalysis live = analyze_lifetimes(g, g.file_order());
  CHECK(live.peak_bytes == 1420);
  // Reading the same file twice gives the same graph.
  CHECK(graph_to_json(parse_graph_json(kMoccasin)) == graph_to_json(g));
}

TEST_CASE("node-link graphs: Checkmate's files take their layer names and cost_ram, in a topological order") {
  const Graph g = parse_graph_json(kCheckmate);
  CHECK(op_names(g) == std::vector<std::string>{"conv1", "relu1", "fc"});
  CHECK(g.tensors[1].bytes == 4096);  // 4096.0: a whole number written as a float
  CHECK(tensor_names(g, g.outputs) == std::vector<std::string>{"fc"});
  CHECK(analyze_lifetimes(g, g.file_order()).peak_bytes == 8192);
}

TEST_CASE("node-link graphs: an order that is not topological is replaced by the file's topological order") {
  std::string text = kMoccasin;
  text.replace(text.find("[0, 3, 2, 4, 1]"), 15, "[1, 3, 2, 4, 0]");
  // Ready nodes run earliest in the file first: after 0, node 2; after 3, node 1 (before 4).
  CHECK(op_names(parse_graph_json(text)) == std::vector<std::string>{"0", "2", "3", "1", "4"});
}

TEST_CASE("node-link graphs: bad files are refused naming the place") {
  auto with = [](const std::string& from, const std::string& to) {
    std::string text = kMoccasin;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  CHECK(error_of(with("\"out_cost\": 300", "\"cost\": 300")) == "/nodes/2: no memory cost: the node needs \"out_cost\" (bytes of its output)");
  CHECK(error_of(with("\"out_cost\": 300", "\"out_cost\": -300")) == "/nodes/2/out_cost: a memory cost must be at least one byte, found -300");
  CHECK(error_of(with("\"out_cost\": 300", "\"out_cost\": 0")) == "/nodes/2/out_cost: a memory cost must be at least one byte, found 0");
  CHECK(error_of(with("\"out_cost\": 300", "\"out_cost\": 30.5")) == "/nodes/2/out_cost: expected a whole number of bytes, found 30.5");
  CHECK(error_of(with("\"out_cost\": 300", "\"out_cost\": \"big\"")) == "/nodes/2/out_cost: expected an integer, found a string");
  CHECK(error_of(with("{\"0\": 0, \"1\": 2}", "{\"0\": 0, \"1\": 9}")) == "/links/0/1: no node 9");
  CHECK(error_of(with("{\"0\": 0, \"1\": 2}", "{\"0\": 2, \"1\": 2}")) == "/links/0: node 2 reads its own output (a self-loop)");
  CHECK(error_of(with("{\"0\": 0, \"1\": 2}", "{\"0\": 1, \"1\": 2}")).rfind("/links: the graph has a cycle through node", 0) == 0);
  CHECK(error_of(with("{\"0\": 0, \"1\": 2}", "{\"from\": 0, \"1\": 2}")) == "/links/0: a link needs \"source\" (or \"0\")");
  CHECK(error_of(with("\"directed\": true", "\"directed\": false")) == "/directed: an undirected graph gives no order of its nodes: expected true");
  CHECK(error_of(with("\"name\": 3}", "\"name\": 2}")) == "/nodes/3/name: duplicate node 2");
  CHECK(error_of(with("\"name\": 3}", "\"name\": [3]}")) == "/nodes/3/name: expected a node key (an integer or a string), found an array");
  CHECK(error_of(with("\"name\": 3}", "\"name\": \"2\"}")) == "/nodes/3: another node is also named 2");
  CHECK(error_of(R"({"nodes": [], "links": []})") == "/nodes: a graph needs at least one node");
  CHECK(error_of(R"({"nodes": {}, "links": []})") == "/nodes: expected an array of nodes, found an object");
  CHECK(error_of(R"({"nodes": [7], "links": []})") == "/nodes/0: expected a node object, found a number");
}
