// Reads a TensorFlow Lite model (.tflite flatbuffer) into the graph model: subgraph 0's tensors
// and operators, with weights as constants (not arena tensors), variable tensors as persistent
// state, all-constant ops folded into constants (optional) and RESHAPE aliased in place when
// legal. Parses bytes only (the CLI and the browser read the file). Every file is checked with
// flatbuffers::Verifier first: a corrupt or truncated file is an InputError, never a crash.
//
// Usage:
//   TfliteModel m = import_tflite(bytes, {});
//   LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan {

struct TfliteImportOptions {
  // Ops whose inputs are all constant (DEQUANTIZE of fp16 weights, DENSIFY of sparse weights) run
  // once at initialisation: their outputs become constants and the ops leave the schedule.
  // TFLM runs every op at each invoke: exports for TFLM import with this off.
  bool fold_constant_ops = true;
  // RESHAPE's output shares its input's buffer when the input has no other reader and is neither
  // a graph input nor output (a reshape only relabels the bytes).
  bool reshape_in_place = true;
  Bytes alignment = 16;
  std::string name;  // graph name; empty: the subgraph's name, else "model"
};

struct TfliteSubgraphInfo {
  std::string name;
  int32_t tensors = 0;
  int32_t operators = 0;
};

struct TfliteModel {
  Graph graph;
  std::string sha256;     // of the whole file
  Bytes file_bytes = 0;
  uint32_t schema_version = 0;
  std::string description;
  std::vector<TfliteSubgraphInfo> subgraphs;  // all of them; only subgraph 0 is imported
  int32_t total_tensors = 0;                  // over all subgraphs (TFLM's offline-plan count)

  std::vector<int32_t> tensor_index;   // per graph tensor: its index in subgraph 0
  std::vector<TensorId> graph_tensor;  // per subgraph-0 tensor: graph tensor, or -1 (unused)
  std::vector<int32_t> op_index;       // per graph op: its index in subgraph 0's operators
  std::vector<int32_t> folded_ops;     // subgraph-0 operators evaluated at initialisation
  std::vector<std::string> custom_ops;  // distinct custom op names, in first-use order
  // A custom op's working memory (Vela's scratch and fast scratch of its `ethos-u` op): tensors
  // without data that no op writes and only custom ops read. TFLM allocates them in the arena;
  // here the first custom op reading one writes it, so it lives from that op to its last reader.
  std::vector<TensorId> working_tensors;

  Bytes constant_bytes = 0;  // weight bytes in the file read by subgraph 0 (flash)
  Bytes folded_bytes = 0;    // constants made at initialisation by folded ops
  Bytes variable_bytes = 0;  // persistent state tensors (RAM for the whole run)

  // OfflineMemoryAllocation metadata, when the file has it: one offset per subgraph-0 tensor,
  // -1 for "planned online".
  std::optional<std::vector<int32_t>> offline_offsets;
};

TfliteModel import_tflite(std::string_view bytes, const TfliteImportOptions& options = {});

// True when the bytes carry the TFLite file identifier ("TFL3" at offset 4): lets callers accept
// a model wherever a graph is accepted.
bool looks_like_tflite(std::string_view bytes);

// Max over ops of the bytes that must coexist while the op runs (its non-constant inputs and
// outputs, its scratch, in-place pairs once) plus persistent state: a lower bound on the peak of
// every schedule, and so on every arena.
Bytes io_lower_bound_bytes(const Graph& g);

}  // namespace arenaplan
