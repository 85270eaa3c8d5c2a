// A .tflite written from a graph of model tensors: the inverse of import_tflite for what a Graph
// holds (shapes, types, quantization, constant bytes, variable tensors, the builtin options the
// kernels read). The project writes its own test models with it, so every fixture has a known
// provenance and can be measured in the real TFLM runtime.
#pragma once

#include <string>

#include "core/graph/graph.h"

namespace arenaplan {

// One subgraph "main" in the graph's tensor and op order; graph inputs and outputs as declared.
// Constant tensors become buffers with their bytes, persistent ones variable tensors. Throws
// InputError naming the tensor or op when the graph lacks a fact the file needs: a tensor without
// dtype and shape, a constant without bytes, an op kind that is no TFLite builtin, an attr that is
// not a field of the op's builtin options. The bytes are the same on every platform.
// An `ethos-u` op (Vela's NPU op) is written as the custom op with Vela's options, its operands in
// the graph's order (command stream, flash, scratch, fast scratch, then its inputs): a graph built
// that way, not one imported (import moves the scratch tensors to the op's outputs).
std::string tflite_from_graph(const Graph& g);

}  // namespace arenaplan
