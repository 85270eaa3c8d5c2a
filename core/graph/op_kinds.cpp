#include "core/graph/op_kinds.h"

#include <algorithm>

namespace arenaplan {

const std::vector<OpKind>& op_kinds() {
  using F = OpFamily;
  static const std::vector<OpKind> kinds = {
      {"conv2d", F::kConv}, {"conv_2d", F::kConv}, {"conv", F::kConv},
      {"depthwise_conv2d", F::kDepthwiseConv}, {"depthwise_conv_2d", F::kDepthwiseConv},
      {"dwconv2d", F::kDepthwiseConv}, {"depthwise", F::kDepthwiseConv},
      {"max_pool2d", F::kMaxPool}, {"max_pool_2d", F::kMaxPool}, {"maxpool", F::kMaxPool},
      {"avg_pool2d", F::kAvgPool}, {"average_pool2d", F::kAvgPool}, {"average_pool_2d", F::kAvgPool},
      {"avgpool", F::kAvgPool},
      {"pool", F::kPool},
      {"dense", F::kDense}, {"fully_connected", F::kDense},
      {"concat", F::kConcat}, {"concatenation", F::kConcat},
      {"reshape", F::kReshape}, {"flatten", F::kReshape}, {"squeeze", F::kReshape}, {"expand_dims", F::kReshape},
      {"softmax", F::kSoftmax},
      // Elementwise: arithmetic (broadcasting), activations, (de)quantisation and batch norm.
      {"add", F::kElementwise}, {"sub", F::kElementwise}, {"mul", F::kElementwise}, {"div", F::kElementwise},
      {"maximum", F::kElementwise}, {"minimum", F::kElementwise}, {"squared_difference", F::kElementwise},
      {"relu", F::kElementwise}, {"relu6", F::kElementwise}, {"sigmoid", F::kElementwise},
      {"logistic", F::kElementwise}, {"tanh", F::kElementwise}, {"hard_swish", F::kElementwise},
      {"leaky_relu", F::kElementwise}, {"prelu", F::kElementwise}, {"clamp", F::kElementwise},
      {"abs", F::kElementwise}, {"neg", F::kElementwise}, {"exp", F::kElementwise}, {"sqrt", F::kElementwise},
      {"rsqrt", F::kElementwise}, {"quantize", F::kElementwise}, {"dequantize", F::kElementwise},
      {"batchnorm", F::kElementwise}, {"batch_norm", F::kElementwise}, {"identity", F::kElementwise},
      {"elementwise", F::kElementwise}, {"activation", F::kElementwise},
  };
  return kinds;
}

OpFamily op_family(std::string_view kind) {
  const auto& kinds = op_kinds();
  auto it = std::find_if(kinds.begin(), kinds.end(), [&](const OpKind& k) { return kind == k.name; });
  return it == kinds.end() ? OpFamily::kOther : it->family;
}

bool runs_on_npu(std::string_view kind) { return kind == "ethos-u"; }

const char* op_family_name(OpFamily family) {
  switch (family) {
    case OpFamily::kConv: return "conv";
    case OpFamily::kDepthwiseConv: return "depthwise_conv";
    case OpFamily::kMaxPool: return "max_pool";
    case OpFamily::kAvgPool: return "avg_pool";
    case OpFamily::kPool: return "pool";
    case OpFamily::kDense: return "dense";
    case OpFamily::kConcat: return "concat";
    case OpFamily::kReshape: return "reshape";
    case OpFamily::kElementwise: return "elementwise";
    case OpFamily::kSoftmax: return "softmax";
    case OpFamily::kOther: break;
  }
  return "other";
}

}  // namespace arenaplan
