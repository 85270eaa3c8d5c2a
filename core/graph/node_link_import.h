// Computation graphs as the rematerialization and scheduling papers publish them: networkx
// node-link JSON ({"directed": true, "graph": {...}, "nodes": [...], "links": [...]}), the files of
// Checkmate (MLSys 2020: "cost_ram" per node, links "source" -> "target") and MOCCASIN (ICML 2023:
// random layered graphs with "out_cost" per node, links written as "0" -> "1").
//
// The memory model is theirs and ours: each node is an op that produces one tensor of its memory
// cost; a link u -> v makes v read u's tensor, so the tensor lives from u until its last reader.
// Nodes nobody reads (the graph's target) give the graph's outputs. A node's "param_cost" (weights)
// is not activation memory and is not counted; durations and CPU costs are not used.
//
// Usage:
//   if (is_node_link_graph(doc)) return import_node_link_graph(doc);   // parse_graph_json does this
#pragma once

#include "core/graph/graph.h"
#include "core/graph/json_read.h"

namespace arenaplan {

// A JSON object with "nodes" and "links" arrays and no "ops": a node-link graph.
bool is_node_link_graph(const json_read::Json& doc);

// The graph: one op per node, named by its "name" when every node has a distinct string name,
// else by its "id" (or "name") key; each op writes the tensor of the same name, of the node's
// memory cost (the key graph.node_output_cost_tag names, else "out_cost", else "cost_ram") in
// bytes, alignment 1. Ops come in graph.order when that is a topological order of every node,
// else in topological order by position in the file. Throws InputError naming the place for a
// missing cost or one below a byte, two nodes of one name, a link to an unknown node, a
// self-loop, a cycle or an undirected graph.
Graph import_node_link_graph(const json_read::Json& doc);

}  // namespace arenaplan
