// The arenaplan-graph JSON format (docs/DESIGN.md "Graph format"). Every error is an InputError whose
// where() is a JSON pointer ("/tensors/B/bytes") or "line L, column C" for syntax errors.
#pragma once

#include <string>
#include <string_view>

#include "core/graph/graph.h"

namespace arenaplan {

// Resource limits: bigger inputs are refused with a message instead of exhausting the browser.
constexpr size_t kMaxGraphJsonBytes = size_t{64} << 20;
constexpr size_t kMaxGraphOps = 100000;
constexpr size_t kMaxGraphTensors = 200000;

// An arenaplan graph document, or a computation graph in networkx node-link JSON as Checkmate and
// MOCCASIN publish them (node_link_import.h).
Graph parse_graph_json(std::string_view text);

// Writes a graph back in the same format (parse_graph_json(graph_to_json(g)) reproduces g).
std::string graph_to_json(const Graph& g);

// "16KiB", "1MiB", "1.5KiB" or an integer string -> bytes; throws InputError(where) otherwise.
Bytes parse_byte_size(const std::string& text, const std::string& where);

}  // namespace arenaplan
