// A layered drawing of the op DAG (Sugiyama style) for the Graph view: which layer each op sits
// in, its order inside the layer, and the edges between layers, in abstract units (layer index,
// horizontal slot) that the UI scales, pans and zooms. No screen, no fonts: the UI decides pixels.
//
// Rules, and why:
// - Layer = longest path from the sources (graph inputs at layer 0; an op is one layer below the
//   deepest producer of its inputs). Every edge then points down, a chain is a straight column
//   and ops that can run together share a row, which is how people read a network.
// - An edge spanning several layers is routed through joints (virtual nodes), one per crossed
//   layer and per TENSOR, not per edge: a tensor read by many later ops (a skip connection, an
//   input reused everywhere) costs one chain, so the node count stays O(tensors x span) and long
//   edges take part in crossing reduction instead of cutting through boxes.
// - Order inside a layer: a few barycenter sweeps (down, then up), each O(segments), keeping the
//   order with the fewest crossings seen (the first order included, so sweeps never make it worse).
// - Horizontal coordinates: each layer is placed as close as possible to the mean position of
//   its neighbours while keeping the order and a minimum gap (an isotonic regression, O(nodes)),
//   so chains come out straight instead of piled to the left.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan {

enum class DagNodeKind {
  kOp,     // an operator
  kInput,  // a graph input tensor (a source)
  kJoint,  // a bend point of a tensor's edges crossing this layer
};

struct DagNode {
  DagNodeKind kind = DagNodeKind::kOp;
  OpId op = -1;          // kOp: the op
  TensorId tensor = -1;  // kInput: the input; kJoint: the tensor whose edges pass here
  int layer = 0;         // 0 = top
  int pos = 0;           // index in layers[layer] (left to right)
  double x = 0;          // centre, in slots (an op box is one slot wide; joints are narrow)
  double width = 1;      // slots this node needs (kJointWidth for joints)
};

// One drawn piece of a tensor's edges: from `upper` in layer L to `lower` in layer L + 1 (or, for
// a long edge left without joints, to any lower layer). Shared by every consumer of the tensor that
// goes through it, so a fan-out is drawn once.
struct DagSegment {
  int upper = -1;  // node ids
  int lower = -1;
  TensorId tensor = -1;
  bool first = false;  // leaves the tensor's producer: where its label goes
};

// A tensor edge from its producer (op or graph-input node) to one consuming op.
struct DagEdge {
  TensorId tensor = -1;
  int from = -1;          // node id of the producer (op or input)
  int to = -1;            // node id of the consuming op
  std::vector<int> path;  // node ids from `from` to `to`, joints in between
  bool direct = false;    // drawn without joints (the joint budget ran out)
};

struct DagLayoutOptions {
  int sweeps = 8;                 // barycenter sweeps, alternating down and up
  int coordinate_passes = 6;      // placement passes, alternating down and up
  int64_t max_joints = 200000;    // beyond this, long edges are drawn direct (no joints)
};

inline constexpr double kJointWidth = 0.25;

struct DagLayout {
  std::vector<DagNode> nodes;
  std::vector<std::vector<int>> layers;  // node ids left to right
  std::vector<int> node_of_op;           // per op: its node id
  std::vector<int> node_of_input;        // per tensor: its kInput node id, or -1
  std::vector<DagEdge> edges;            // one per (tensor, consuming op)
  std::vector<DagSegment> segments;      // sorted by the upper node's layer
  std::vector<int> layer_segments;       // segments of layer L: [layer_segments[L], layer_segments[L + 1])
  std::vector<DagSegment> long_segments; // direct edges spanning several layers (no joints)
  int64_t crossings_initial = 0;  // between adjacent layers, in the order before any sweep
  int64_t crossings = 0;          // after the sweeps (never more than crossings_initial)
  int joints = 0;
  double width = 0;  // slots from the leftmost node edge (x - width/2 = 0) to the rightmost one
};

// Lays out a linked graph (every graph parse_graph_json or the editor returns is). Throws
// InputError on a cycle (which validate_graph refuses anyway).
DagLayout layout_dag(const Graph& g, const DagLayoutOptions& options = {});

// Crossings between adjacent layers of `layout` in its current order (tests recount with it).
int64_t count_crossings(const DagLayout& layout);

}  // namespace arenaplan
