// The valid order closest to one the user had, for a graph that just changed (an edit in the Graph
// tab, undo/redo across edits): the user's order keeps its meaning instead of snapping back to
// the file order.
//
// Usage:
//   Graph edited = rename_op(g, "B", "B2");               // any core/graph/graph_edit.h edit
//   Schedule order = nearest_valid_order(edited, {"A", "B2", "D", "C", "E", "F"});
//   // -> A B2 D C E F: the ops keep their relative order wherever the graph allows it
//
// Rule, and why: every op gets a rank, its position in `preferred`; an op not named there (a new
// op) ranks just after its latest ranked predecessor, so it runs as early as its inputs allow and
// does not push ops around. Kahn's algorithm then always takes the ready op of smallest rank (ties:
// smallest op index), so an order that is still valid comes back unchanged, and an order a new
// edge made invalid moves only the ops that must move.
#pragma once

#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"

namespace arenaplan {

// A valid order of `g` (respecting op_predecessors) nearest `preferred` (op names; names the graph
// lacks are ignored). Throws InputError when `g` has a cycle.
Schedule nearest_valid_order(const Graph& g, const std::vector<std::string>& preferred);

}  // namespace arenaplan
