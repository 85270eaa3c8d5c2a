// Structural edits of a graph for the editor (web Graph tab) and scripts: pure functions
// Graph -> Graph. Each one builds the edited graph aside, re-links it and checks it with the same
// rules as the JSON reader (validate_graph plus the per-field rules of parse_graph_json), and
// either returns it or throws an InputError whose where() names the op or tensor ("op B",
// "tensor C") and whose message says what is wrong. The input graph is never modified, so a
// refused edit leaves nothing half-done. Ops and tensors are addressed by name; an edit that
// removes tensors or ops renumbers the ids of the rest, and every reference (op inputs/outputs,
// graph inputs/outputs, in-place and async declarations) is rewritten to follow.
#pragma once

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan {

// A new op: tensors by name. Output names that do not exist yet create new tensors.
struct OpSpec {
  std::string name;
  std::string kind;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  Bytes scratch_bytes = 0;
};

// Adds `spec` after the existing ops. Inputs must exist. An output that does not exist becomes a
// new tensor of `new_tensor_bytes` (> 0). A new op whose outputs nothing reads would be
// unreachable, so when `new_outputs_are_graph_outputs` is set its newly created output tensors
// become graph outputs (clear the flag later, once another op reads them).
Graph add_op(const Graph& g, const OpSpec& spec, Bytes new_tensor_bytes,
             bool new_outputs_are_graph_outputs = true);

// How remove_op treats ops that read the removed op's outputs.
enum class RemoveMode {
  kRefuseIfRead,  // refuse, naming the reader: the user removes (or rewires) readers first
  kCascade,       // also remove every op downstream of it (transitively)
};

// Removes op `name` (and, with kCascade, everything downstream). Its output tensors go with it,
// and so do constant inputs (weights) that no remaining op reads. A remaining op whose results
// were only read by removed ops would become unreachable: its tensors on the cut become graph
// outputs instead, so removing the last op of a chain makes its input the new result (removing F
// of the two-branch graph makes C and E the outputs). Nothing else changes role, so no other
// lifetime moves. Refused when nothing would remain.
Graph remove_op(const Graph& g, const std::string& name, RemoveMode mode = RemoveMode::kRefuseIfRead);

// The ops remove_op(g, name, kCascade) removes, `name` first then in op-index order (for a
// confirmation such as "also removes C, F").
std::vector<std::string> downstream_ops(const Graph& g, const std::string& name);

Graph rename_op(const Graph& g, const std::string& name, const std::string& new_name);
Graph set_op_kind(const Graph& g, const std::string& name, const std::string& kind);
// Scratch buffer of the op (>= 0 bytes; 0 removes it).
Graph set_op_scratch(const Graph& g, const std::string& name, Bytes scratch_bytes);

// The op's edges, by tensor names (no duplicates, no tensor both read and written). An in-place
// or async declaration whose tensor is no longer an input/output of the op is dropped with the
// edge (it described that edge). set_op_outputs creates missing tensors of `new_tensor_bytes`;
// a former output that nothing produces or reads afterwards stays as an unused tensor (remove it
// in the tensor table), unless it was a graph output, which then refuses ("never produced").
Graph set_op_inputs(const Graph& g, const std::string& name, const std::vector<std::string>& inputs);
Graph set_op_outputs(const Graph& g, const std::string& name, const std::vector<std::string>& outputs,
                     Bytes new_tensor_bytes);

// A new tensor nothing produces or reads yet; `graph_input` declares it an input of the graph.
Graph add_tensor(const Graph& g, const std::string& name, Bytes bytes, bool graph_input = false);
// Refused while an op reads or writes it (naming the op) or when it is the only graph output.
Graph remove_tensor(const Graph& g, const std::string& name);
// Renames only: references are ids, so every op edge, graph input/output, in-place and async
// declaration follows the tensor.
Graph rename_tensor(const Graph& g, const std::string& name, const std::string& new_name);
// Positive bytes. A tensor sized by shape x dtype keeps its dtype but loses its shape: the size is
// now given in bytes (the JSON then says "bytes"), because no shape is implied by a byte count.
// Refused (naming the op) when an in-place declaration no longer fits.
Graph set_tensor_bytes(const Graph& g, const std::string& name, Bytes bytes);
Graph set_graph_input(const Graph& g, const std::string& name, bool is_input);
Graph set_graph_output(const Graph& g, const std::string& name, bool is_output);

// The checks every edit ends with, usable on any hand-built graph: non-empty unique names, at
// least one op and one graph output, no duplicate or self edges, no constant graph output, then
// link_tensors and validate_graph. Returns the linked graph; throws InputError naming the place.
Graph check_edited_graph(Graph g);

// "B, C ,D" -> {"B", "C", "D"} (blanks trimmed, empty items dropped), for editor text fields.
std::vector<std::string> split_names(const std::string& comma_separated);
std::string join_names(const Graph& g, const std::vector<TensorId>& tensors);

}  // namespace arenaplan
