#include "core/tflite/tflite_ops.h"

#include <array>

namespace arenaplan::tflite_ops {
namespace {

// Index = BuiltinOperator code (published schema order; 127 is the placeholder that marks the
// switch from the byte code to the int32 code).
constexpr std::array<const char*, 162> kBuiltinNames = {
    "add", "average_pool_2d", "concatenation", "conv_2d", "depthwise_conv_2d", "depth_to_space",
    "dequantize", "embedding_lookup", "floor", "fully_connected", "hashtable_lookup",
    "l2_normalization", "l2_pool_2d", "local_response_normalization", "logistic", "lsh_projection",
    "lstm", "max_pool_2d", "mul", "relu", "relu_n1_to_1", "relu6", "reshape", "resize_bilinear",
    "rnn", "softmax", "space_to_depth", "svdf", "tanh", "concat_embeddings", "skip_gram", "call",
    "custom", "embedding_lookup_sparse", "pad", "unidirectional_sequence_rnn", "gather",
    "batch_to_space_nd", "space_to_batch_nd", "transpose", "mean", "sub", "div", "squeeze",
    "unidirectional_sequence_lstm", "strided_slice", "bidirectional_sequence_rnn", "exp", "topk_v2",
    "split", "log_softmax", "delegate", "bidirectional_sequence_lstm", "cast", "prelu", "maximum",
    "arg_max", "minimum", "less", "neg", "padv2", "greater", "greater_equal", "less_equal",
    "select", "slice", "sin", "transpose_conv", "sparse_to_dense", "tile", "expand_dims", "equal",
    "not_equal", "log", "sum", "sqrt", "rsqrt", "shape", "pow", "arg_min", "fake_quant",
    "reduce_prod", "reduce_max", "pack", "logical_or", "one_hot", "logical_and", "logical_not",
    "unpack", "reduce_min", "floor_div", "reduce_any", "square", "zeros_like", "fill", "floor_mod",
    "range", "resize_nearest_neighbor", "leaky_relu", "squared_difference", "mirror_pad", "abs",
    "split_v", "unique", "ceil", "reverse_v2", "add_n", "gather_nd", "cos", "where", "rank", "elu",
    "reverse_sequence", "matrix_diag", "quantize", "matrix_set_diag", "round", "hard_swish", "if",
    "while", "non_max_suppression_v4", "non_max_suppression_v5", "scatter_nd", "select_v2",
    "densify", "segment_sum", "batch_matmul", "placeholder_for_greater_op_codes", "cumsum",
    "call_once", "broadcast_to", "rfft2d", "conv_3d", "imag", "real", "complex_abs", "hashtable",
    "hashtable_find", "hashtable_import", "hashtable_size", "reduce_all", "conv_3d_transpose",
    "var_handle", "read_variable", "assign_variable", "broadcast_args", "random_standard_normal",
    "bucketize", "random_uniform", "multinomial", "gelu", "dynamic_update_slice", "relu_0_to_1",
    "unsorted_segment_prod", "unsorted_segment_max", "unsorted_segment_sum", "atan2",
    "unsorted_segment_min", "sign", "bitcast", "bitwise_xor", "right_shift"};

struct TypeInfo {
  const char* name;
  int bits;  // 0: no static size
};
// Index = TensorType value.
constexpr std::array<TypeInfo, 19> kTypes = {{{"float32", 32}, {"float16", 16}, {"int32", 32},
                                              {"uint8", 8}, {"int64", 64}, {"string", 0},
                                              {"bool", 8}, {"int16", 16}, {"complex64", 64},
                                              {"int8", 8}, {"float64", 64}, {"complex128", 128},
                                              {"uint64", 64}, {"resource", 0}, {"variant", 0},
                                              {"uint32", 32}, {"uint16", 16}, {"int4", 4},
                                              {"bfloat16", 16}}};

}  // namespace

const char* builtin_name(int32_t code) {
  if (code < 0 || static_cast<size_t>(code) >= kBuiltinNames.size()) return nullptr;
  return kBuiltinNames[code];
}

int type_bits(int8_t type) {
  if (type < 0 || static_cast<size_t>(type) >= kTypes.size()) return 0;
  return kTypes[type].bits;
}

const char* type_name(int8_t type) {
  if (type < 0 || static_cast<size_t>(type) >= kTypes.size()) return "unknown";
  return kTypes[type].name;
}

std::optional<DType> to_dtype(int8_t type) {
  switch (type) {
    case 0: return DType::kFloat32;
    case 1: return DType::kFloat16;
    case 2: return DType::kInt32;
    case 3: return DType::kUInt8;
    case 4: return DType::kInt64;
    case 6: return DType::kBool;
    case 7: return DType::kInt16;
    case 9: return DType::kInt8;
    case 12: return DType::kUInt64;
    case 15: return DType::kUInt32;
    default: return std::nullopt;
  }
}

std::string utf8_text(std::string out) {
  for (size_t i = 0; i < out.size();) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= out.size() && !(n == 2 && c < 0xC2) && !(n == 4 && c > 0xF4);
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(out[i + k]) & 0xC0) == 0x80;
    if (ok && n == 3) {  // no overlong forms, no surrogates
      const unsigned char d = static_cast<unsigned char>(out[i + 1]);
      ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0);
    }
    if (ok && n == 4) {
      const unsigned char d = static_cast<unsigned char>(out[i + 1]);
      ok = !(c == 0xF0 && d < 0x90) && !(c == 0xF4 && d >= 0x90);
    }
    if (!ok) {
      out[i] = '?';
      ++i;
    } else {
      i += n;
    }
  }
  return out;
}


}  // namespace arenaplan::tflite_ops
