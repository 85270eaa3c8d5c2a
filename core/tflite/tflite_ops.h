// TFLite builtin operator codes and tensor types: the few codes the importer treats specially,
// and names for everything (lowercased for our op kinds: "conv_2d", "dequantize", ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace arenaplan::tflite_ops {

// BuiltinOperator values of the published schema.
constexpr int32_t kConv2d = 3;
constexpr int32_t kDepthwiseConv2d = 4;
constexpr int32_t kDequantize = 6;
constexpr int32_t kTransposeConv = 67;
constexpr int32_t kReshape = 22;
constexpr int32_t kCustom = 32;
constexpr int32_t kPlaceholderForGreaterOpCodes = 127;
constexpr int32_t kDensify = 124;

// Lowercase name of a builtin code ("conv_2d"), or nullptr for a code this build does not know.
const char* builtin_name(int32_t code);

// Bytes per element of a TensorType, or 0 when the size is not static (STRING, RESOURCE, VARIANT)
// or the type is unknown. INT4 is packed two per byte: callers round up (see element_bytes).
int type_bits(int8_t type);
const char* type_name(int8_t type);
// Our DType for a TensorType when there is one (float64, complex, uint16/32/64 have none).
std::optional<DType> to_dtype(int8_t type);

// A name from a file as text: every byte that does not start a valid UTF-8 sequence becomes '?'.
// Names reach JSON, which must be UTF-8, and the terminal; a corrupt name must not end a run.
std::string utf8_text(std::string bytes);

}  // namespace arenaplan::tflite_ops
