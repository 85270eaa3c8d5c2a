// Layered DAG layout (core/teach/dag_layout.h): edges point down one layer at a time (through joints),
// no two nodes share a place, sweeps never add crossings, the two-branch graph has none.
#include <random>
#include <set>

#include "core/teach/dag_layout.h"
#include "core/graph/graph_edit.h"
#include "core/schedule/schedule_generators.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

const DagNode& op_node(const DagLayout& d, const Graph& g, const char* name) {
  return d.nodes[d.node_of_op[*g.find_op(name)]];
}

// The properties every layout must have, whatever the graph.
void check_layout_invariants(const Graph& g, const DagLayout& d) {
  REQUIRE(d.node_of_op.size() == g.ops.size());
  std::set<std::pair<int, int>> places;
  for (size_t l = 0; l < d.layers.size(); ++l)
    for (size_t i = 0; i < d.layers[l].size(); ++i) {
      const DagNode& n = d.nodes[d.layers[l][i]];
      CHECK(n.layer == int(l));
      CHECK(n.pos == int(i));
      CHECK(places.insert({n.layer, n.pos}).second);  // no two nodes at the same (layer, position)
      if (i > 0) {  // left to right, never overlapping
        const DagNode& left = d.nodes[d.layers[l][i - 1]];
        CHECK(n.x - left.x >= (n.width + left.width) / 2 - 1e-9);
      }
      CHECK(n.x - n.width / 2 >= -1e-9);
      CHECK(n.x + n.width / 2 <= d.width + 1e-9);
    }
  CHECK(places.size() == d.nodes.size());
  size_t reads = 0;
  for (const Op& op : g.ops)
    for (TensorId t : op.inputs)
      if (g.tensors[t].producer >= 0 || g.is_input(t)) ++reads;
  CHECK(d.edges.size() == reads);  // one edge per read of a produced tensor or graph input
  for (const DagEdge& e : d.edges) {
    CHECK(d.nodes[e.from].layer < d.nodes[e.to].layer);  // every edge goes down
    REQUIRE(e.path.size() >= 2);
    CHECK(e.path.front() == e.from);
    CHECK(e.path.back() == e.to);
    for (size_t i = 1; i < e.path.size() && !e.direct; ++i)
      CHECK(d.nodes[e.path[i]].layer == d.nodes[e.path[i - 1]].layer + 1);
    CHECK(d.nodes[e.to].kind == DagNodeKind::kOp);
  }
  for (const DagSegment& s : d.segments) CHECK(d.nodes[s.lower].layer == d.nodes[s.upper].layer + 1);
  CHECK(d.crossings <= d.crossings_initial);
  CHECK(count_crossings(d) == d.crossings);
}

}  // namespace

TEST_CASE("dag layout: the two-branch graph in five layers with no crossings") {
  const Graph g = example_graph("two_branch");
  const DagLayout d = layout_dag(g);
  check_layout_invariants(g, d);
  CHECK(d.layers.size() == 5);  // I; A; B D; C E; F
  CHECK(op_node(d, g, "A").layer == 1);
  CHECK(op_node(d, g, "B").layer == 2);
  CHECK(op_node(d, g, "D").layer == 2);
  CHECK(op_node(d, g, "C").layer == 3);
  CHECK(op_node(d, g, "E").layer == 3);
  CHECK(op_node(d, g, "F").layer == 4);
  CHECK(d.nodes[d.node_of_input[*g.find_tensor("I")]].layer == 0);
  CHECK(d.crossings == 0);
  CHECK(d.joints == 0);
  CHECK(d.edges.size() == 7);  // I-A, A-B, A-D, B-C, D-E, C-F, E-F
  // The branches sit side by side, B left of D, and A centred above them.
  CHECK(op_node(d, g, "B").x < op_node(d, g, "D").x);
  CHECK(op_node(d, g, "C").x < op_node(d, g, "E").x);
  CHECK(op_node(d, g, "A").x == doctest::Approx((op_node(d, g, "B").x + op_node(d, g, "D").x) / 2));
  // Each tensor's label goes on exactly one segment.
  std::set<TensorId> labelled;
  for (const DagSegment& s : d.segments)
    if (s.first) CHECK(labelled.insert(s.tensor).second);
  CHECK(labelled.size() == 6);  // I, A, B, C, D, E (F is read by nobody)
}

TEST_CASE("dag layout: barycenter sweeps remove the crossings of a crossed file order") {
  // X and Y side by side; their readers listed the other way round, so the first order crosses.
  const Graph g = parse_graph_json(R"({"tensors": {"I": {"bytes": 16}, "X": {"bytes": 16}, "Y": {"bytes": 16},
    "P": {"bytes": 16}, "Q": {"bytes": 16}, "R": {"bytes": 16}},
    "ops": [{"name": "X", "inputs": ["I"], "outputs": ["X"]}, {"name": "Y", "inputs": ["I"], "outputs": ["Y"]},
            {"name": "P", "inputs": ["Y"], "outputs": ["P"]}, {"name": "Q", "inputs": ["X"], "outputs": ["Q"]},
            {"name": "R", "inputs": ["P", "Q"], "outputs": ["R"]}],
    "inputs": ["I"], "outputs": ["R"]})");
  const DagLayout d = layout_dag(g);
  check_layout_invariants(g, d);
  CHECK(d.crossings_initial == 1);
  CHECK(d.crossings == 0);
  DagLayoutOptions none;
  none.sweeps = 0;
  CHECK(layout_dag(g, none).crossings == 1);
}

TEST_CASE("dag layout: long edges go through one chain of joints per tensor") {
  // I is read by every op of a chain of four: one joint per crossed layer, shared by the readers.
  const Graph g = parse_graph_json(R"({"tensors": {"I": {"bytes": 16}, "a": {"bytes": 16}, "b": {"bytes": 16},
    "c": {"bytes": 16}, "d": {"bytes": 16}},
    "ops": [{"name": "A", "inputs": ["I"], "outputs": ["a"]}, {"name": "B", "inputs": ["a", "I"], "outputs": ["b"]},
            {"name": "C", "inputs": ["b", "I"], "outputs": ["c"]}, {"name": "D", "inputs": ["c", "I"], "outputs": ["d"]}],
    "inputs": ["I"], "outputs": ["d"]})");
  const DagLayout d = layout_dag(g);
  check_layout_invariants(g, d);
  CHECK(d.layers.size() == 5);
  CHECK(d.joints == 3);  // layers 1, 2, 3
  CHECK(d.crossings == 0);
  // Without joints the long edges are drawn direct and left out of the crossing count.
  DagLayoutOptions no_joints;
  no_joints.max_joints = 0;
  const DagLayout direct = layout_dag(g, no_joints);
  check_layout_invariants(g, direct);
  CHECK(direct.joints == 0);
  CHECK(direct.long_segments.size() == 3);
}

TEST_CASE("dag layout: a chain is one straight column") {
  const Graph g = parse_graph_json(R"({"tensors": {"I": {"bytes": 16}, "a": {"bytes": 16}, "b": {"bytes": 16}},
    "ops": [{"name": "A", "inputs": ["I"], "outputs": ["a"]}, {"name": "B", "inputs": ["a"], "outputs": ["b"]}],
    "inputs": ["I"], "outputs": ["b"]})");
  const DagLayout d = layout_dag(g);
  for (const DagNode& n : d.nodes) CHECK(n.x == doctest::Approx(0.5));
  CHECK(d.width == doctest::Approx(1.0));
}

TEST_CASE("dag layout: random DAGs keep every invariant and sweeps never add crossings") {
  int improved = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    const int ops = 5 + int(rng() % 120);  // drawn in sequence: the same DAG under every compiler
    const int reach = 1 + int(rng() % 12);
    const Graph g = skip_chain_graph(ops, reach, rng());
    CAPTURE(seed);
    const DagLayout d = layout_dag(g);
    check_layout_invariants(g, d);
    if (d.crossings < d.crossings_initial) ++improved;
  }
  CHECK(improved > 10);  // the sweeps do real work on most of them
}

TEST_CASE("dag layout: a cycle (refused by validation anyway) is an InputError, not a hang") {
  Graph g = example_graph("two_branch");
  g.ops[0].inputs.push_back(*g.find_tensor("F"));  // A reads F: A -> ... -> F -> A
  CHECK_THROWS_AS(layout_dag(g), InputError);
}
