// What TFLM's MicroAllocator reads from a .tflite, read the way TFLM reads it: every subgraph's
// tensors (size from shape x TfLiteTypeSizeOf, weights, variables, quantization channel counts),
// operators (builtin code, inputs, outputs) and the OfflineMemoryAllocation words (only the count
// and the offsets matter to TFLM). Internal to core/tflite (the TFLM arena model).
#pragma once

#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan::tflm {

struct Tensor {
  std::string name;
  int8_t type = 0;                 // TensorType code
  std::vector<int32_t> dims;       // empty: a scalar (one element) as TFLM counts it
  Bytes bytes = 0;                 // element count x TfLiteTypeSizeOf (INT4: one byte per element)
  bool has_data = false;           // weights in the file: never planned
  bool is_variable = false;
  int32_t quant_channels = 0;      // scale count when TFLM builds TfLiteAffineQuantization, else 0
};

// The window of a CONV_2D, DEPTHWISE_CONV_2D or TRANSPOSE_CONV (strides only) as TFLM's Prepare
// computes it (CMSIS-NN picks its kernel, and so its scratch buffer, from these).
struct Window {
  int32_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int32_t pad_h = 0, pad_w = 0;    // TFLM's padding.height / .width: the rows / columns before
};

struct Operator {
  int32_t builtin = 0;             // BuiltinOperator code (32 = custom)
  std::string kind;                // "conv_2d", or the custom code
  std::vector<int32_t> inputs;     // -1: omitted optional input
  std::vector<int32_t> outputs;
  std::vector<int32_t> intermediates;
  Window window;                   // conv_2d, depthwise_conv_2d, transpose_conv only
  bool adj_x = false, adj_y = false;  // batch_matmul's options (which inputs Prepare copies)
  // A custom op's flexbuffer options (integer and boolean values by key): the sizes of the Signal
  // library's state come from them.
  std::map<std::string, int64_t> custom_options;
};

struct Subgraph {
  std::vector<Tensor> tensors;
  std::vector<Operator> ops;
  std::vector<int32_t> inputs, outputs;
};

// OfflineMemoryAllocation as TFLM uses it: words [version, subgraph, count, offsets...].
struct OfflinePlan {
  int32_t version = 0;             // informative: TFLM never checks it (Vela writes 0)
  int32_t subgraph = 0;            // informative: TFLM never checks it
  int32_t count = 0;               // must equal the tensor count of all subgraphs
  std::vector<int32_t> offsets;    // one per tensor of all subgraphs, -1 = planned online
};

struct Model {
  std::vector<Subgraph> subgraphs;
  std::optional<OfflinePlan> offline;
  int32_t total_tensors() const;
};

// Reads and verifies (flatbuffers::Verifier, then every index this model uses); InputError names
// the place for anything TFLM would refuse (unknown tensor type size, out-of-range index, an
// offline plan whose count differs from the model's tensor count, ...).
Model read_model(std::string_view bytes);

// Bytes per element as TFLM's TfLiteTypeSizeOf, 0 for types TFLM cannot size.
int type_size(int8_t type);

}  // namespace arenaplan::tflm
