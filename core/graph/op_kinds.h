// The one table of operator kinds: every spelling a graph file, the shape unit, the transforms
// and the .tflite importer use (the importer names ops by TFLite's lowercase builtin names:
// "conv_2d", "depthwise_conv_2d", "average_pool_2d", ...), mapped to the family that decides how
// an op is treated. Op::kind stays free text: a kind not in the table is kOther, which every unit
// handles by trusting the declared sizes.
//
// Usage:
//   switch (op_family(op.kind)) { case OpFamily::kConv: ...; }
//   if (is_elementwise_kind(op.kind)) ...   // one output element from the same element of each input
#pragma once

#include <string_view>
#include <vector>

namespace arenaplan {

enum class OpFamily {
  kOther,          // unknown to the table: declared shapes and sizes stand
  kConv,           // 2-D convolution, weights OHWI
  kDepthwiseConv,  // depthwise 2-D convolution, weights [1, KH, KW, C]
  kMaxPool,        // 2-D max pooling
  kAvgPool,        // 2-D average pooling
  kPool,           // 2-D pooling, which one unspecified ("pool")
  kDense,          // fully connected
  kConcat,         // concatenation along an axis
  kReshape,        // same bytes, another shape (reshape, flatten, squeeze, expand_dims)
  kElementwise,    // output element i from element i of each (broadcast) input
  kSoftmax,        // normalises along the last axis; shape-preserving
};

struct OpKind {
  const char* name;  // a spelling Op::kind may have
  OpFamily family;
};

// Every known spelling, grouped by family.
const std::vector<OpKind>& op_kinds();

// The family of an Op::kind spelling (kOther when unknown).
OpFamily op_family(std::string_view kind);

// "conv", "depthwise_conv", "max_pool", "avg_pool", "pool", "dense", "concat", "reshape",
// "elementwise", "softmax", "other".
const char* op_family_name(OpFamily family);

inline bool is_window_family(OpFamily f) {  // sliding a KH x KW window over H x W
  return f == OpFamily::kConv || f == OpFamily::kDepthwiseConv || f == OpFamily::kMaxPool ||
         f == OpFamily::kAvgPool || f == OpFamily::kPool;
}
inline bool is_pool_family(OpFamily f) {
  return f == OpFamily::kMaxPool || f == OpFamily::kAvgPool || f == OpFamily::kPool;
}
inline bool is_elementwise_kind(std::string_view kind) { return op_family(kind) == OpFamily::kElementwise; }

// Ops that run on an NPU, not on the CPU: Vela's `ethos-u` custom op (an Ethos-U command stream).
// The simulator refuses them by name and every view draws them apart; their tensors still take
// arena memory as TFLM allocates them.
bool runs_on_npu(std::string_view kind);

}  // namespace arenaplan
