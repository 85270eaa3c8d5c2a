// The model-kernel registry and what every prepare function shares (KernelContext).
#include <cmath>
#include <cstring>
#include <limits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

struct Registration {
  const char* kind;  // the op kind (TFLite's lowercase builtin name)
  PrepareKernel prepare;
};

// One line per kernel. Kinds are the importer's names (tflite_ops.cpp).
constexpr Registration kModelKernels[] = {
    {"conv_2d", prepare_conv_2d},
    {"depthwise_conv_2d", prepare_depthwise_conv_2d},
    {"pointwise_depthwise_stream", prepare_pointwise_depthwise_stream},
    {"fully_connected", prepare_fully_connected},
    {"average_pool_2d", prepare_average_pool_2d},
    {"max_pool_2d", prepare_max_pool_2d},
    {"mean", prepare_mean},
    {"add", prepare_add},
    {"sub", prepare_sub},
    {"mul", prepare_mul},
    {"relu", prepare_relu},
    {"relu6", prepare_relu6},
    {"logistic", prepare_logistic},
    {"tanh", prepare_tanh},
    {"hard_swish", prepare_hard_swish},
    {"softmax", prepare_softmax},
    {"svdf", prepare_svdf},
    {"quantize", prepare_quantize},
    {"dequantize", prepare_dequantize},
    {"reshape", prepare_reshape},
    {"squeeze", prepare_reshape},
    {"expand_dims", prepare_reshape},
    {"concatenation", prepare_concatenation},
    {"pad", prepare_pad},
    {"padv2", prepare_pad},
    {"transpose", prepare_transpose},
    {"strided_slice", prepare_strided_slice},
    {"resize_bilinear", prepare_resize_bilinear},
    {"depth_to_space", prepare_depth_to_space},
    {"leaky_relu", prepare_leaky_relu},
    {"maximum", prepare_maximum},
    {"minimum", prepare_minimum},
    {"resize_nearest_neighbor", prepare_resize_nearest_neighbor},
    {"split", prepare_split},
    {"split_v", prepare_split_v},
    {"slice", prepare_slice},
    {"prelu", prepare_prelu},
    {"arg_max", prepare_arg_max},
    {"arg_min", prepare_arg_min},
    {"elu", prepare_elu},
    {"add_n", prepare_add_n},
    {"cumsum", prepare_cumsum},
    {"reverse_v2", prepare_reverse_v2},
    {"gather_nd", prepare_gather_nd},
    {"l2_normalization", prepare_l2_normalization},
    {"log_softmax", prepare_log_softmax},
    {"embedding_lookup", prepare_embedding_lookup},
    {"dynamic_update_slice", prepare_dynamic_update_slice},
    {"l2_pool_2d", prepare_l2_pool_2d},
    {"floor_div", prepare_floor_div},
    {"floor_mod", prepare_floor_mod},
    {"reduce_all", prepare_reduce_all},
    {"broadcast_args", prepare_broadcast_args},
    // Recurrent and int16-activation kernels.
    {"unidirectional_sequence_lstm", prepare_unidirectional_sequence_lstm},
    // Data movement, elementwise math, reductions, matrix products (kernels_data/_math/_pool/_matmul.cpp).
    {"gather", prepare_gather},
    {"cast", prepare_cast},
    {"fill", prepare_fill},
    {"shape", prepare_shape},
    {"pack", prepare_pack},
    {"unpack", prepare_unpack},
    {"zeros_like", prepare_zeros_like},
    {"broadcast_to", prepare_broadcast_to},
    {"select_v2", prepare_select_v2},
    {"mirror_pad", prepare_mirror_pad},
    {"space_to_batch_nd", prepare_space_to_batch_nd},
    {"batch_to_space_nd", prepare_batch_to_space_nd},
    {"space_to_depth", prepare_space_to_depth},
    {"abs", prepare_abs},
    {"neg", prepare_neg},
    {"exp", prepare_exp},
    {"log", prepare_log},
    {"sqrt", prepare_sqrt},
    {"rsqrt", prepare_rsqrt},
    {"square", prepare_square},
    {"sin", prepare_sin},
    {"cos", prepare_cos},
    {"logical_not", prepare_logical_not},
    {"logical_and", prepare_logical_and},
    {"logical_or", prepare_logical_or},
    {"floor", prepare_floor},
    {"ceil", prepare_ceil},
    {"round", prepare_round},
    {"squared_difference", prepare_squared_difference},
    {"div", prepare_div},
    {"equal", prepare_equal},
    {"not_equal", prepare_not_equal},
    {"greater", prepare_greater},
    {"greater_equal", prepare_greater_equal},
    {"less", prepare_less},
    {"less_equal", prepare_less_equal},
    {"sum", prepare_sum},
    {"reduce_max", prepare_reduce_max},
    {"reduce_min", prepare_reduce_min},
    {"batch_matmul", prepare_batch_matmul},
    {"transpose_conv", prepare_transpose_conv},
    {"SignalWindow", prepare_signal_window},  // TFLM's Signal library: custom codes
    {"SignalFftAutoScale", prepare_signal_fft_auto_scale},
    {"SignalDelay", prepare_signal_delay},
    {"SignalOverlapAdd", prepare_signal_overlap_add},
    {"SignalFramer", prepare_signal_framer},
    {"SignalStacker", prepare_signal_stacker},
    {"SignalEnergy", prepare_signal_energy},
    {"SignalFilterBank", prepare_signal_filter_bank},
    {"SignalFilterBankSquareRoot", prepare_signal_filter_bank_square_root},
    {"SignalFilterBankSpectralSubtraction", prepare_signal_filter_bank_spectral_subtraction},
    {"SignalPCAN", prepare_signal_pcan},
    {"SignalFilterBankLog", prepare_signal_filter_bank_log},
    {"SignalRfft", prepare_signal_rfft},
    {"SignalIrfft", prepare_signal_irfft},
};

}  // namespace

PrepareKernel find_model_kernel(const std::string& kind) {
  for (const Registration& r : kModelKernels)
    if (kind == r.kind) return r.prepare;
  return nullptr;
}

bool uses_model_kernels(const Graph& g, const Op& op) {
  // Hand-written graphs are int8 activations with (int8, int32) constants and no quantization.
  auto numeric = [&](TensorId id) {
    const Tensor& t = g.tensors[id];
    return t.quant.has_value() || t.data != nullptr ||
           (!t.constant && !t.shape.empty() && t.dtype && *t.dtype != DType::kInt8);
  };
  for (TensorId t : op.inputs)
    if (numeric(t)) return true;
  for (TensorId t : op.outputs)
    if (numeric(t)) return true;
  return false;
}

const Tensor& KernelContext::in(size_t i) const {
  if (i >= op.inputs.size()) unsupported("expects input " + std::to_string(i) + ", has " + std::to_string(op.inputs.size()));
  return g.tensors[op.inputs[i]];
}

const Tensor& KernelContext::out(size_t i) const {
  if (i >= op.outputs.size()) unsupported("expects output " + std::to_string(i));
  return g.tensors[op.outputs[i]];
}

std::vector<int64_t> KernelContext::dims(const Tensor& t) const {
  if (t.shape.empty() || !t.dtype) unsupported("tensor " + t.name + " has no shape or type");
  std::vector<int64_t> d;
  for (const ShapeDim& s : t.shape) d.push_back(s.value);
  return d;
}

int64_t KernelContext::count(const Tensor& t) const {
  int64_t n = 1;
  for (int64_t d : dims(t)) n *= d;
  return n;
}

int64_t KernelContext::attr(const char* name, int64_t fallback) const {
  auto it = op.attrs.find(name);
  return it == op.attrs.end() ? fallback : it->second;
}

float KernelContext::attr_float(const char* name, float fallback) const {
  auto it = op.attrs.find(name);
  if (it == op.attrs.end()) return fallback;
  const uint32_t bits = static_cast<uint32_t>(it->second);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void KernelContext::unsupported(const std::string& why) const { throw Unsupported{why}; }

float KernelContext::scale(const Tensor& t) const {
  require(t.quant && !t.quant->scale.empty(), "tensor " + t.name + " has no quantization");
  require(!t.quant->per_channel(), "tensor " + t.name + " is quantized per channel");
  // TFLM computes multipliers from it: a zero, negative or non-finite scale has no meaning.
  require(std::isfinite(t.quant->scale[0]) && t.quant->scale[0] > 0,
          "tensor " + t.name + " has a scale that is not a positive number");
  return t.quant->scale[0];
}

int32_t KernelContext::zero_point(const Tensor& t) const {
  scale(t);
  const int64_t z = t.quant->zero_point.empty() ? 0 : t.quant->zero_point[0];
  // A zero point outside the element type's range makes every offset sum overflow.
  int64_t lo = INT32_MIN, hi = INT32_MAX;
  if (t.dtype == DType::kInt8) lo = -128, hi = 127;
  else if (t.dtype == DType::kUInt8) lo = 0, hi = 255;
  else if (t.dtype == DType::kInt16) lo = -32768, hi = 32767;
  require(z >= lo && z <= hi, "tensor " + t.name + " has zero point " + std::to_string(z) + ", outside its type's range");
  return static_cast<int32_t>(z);
}

std::vector<double> KernelContext::channel_scales(const Tensor& t, int64_t channels) const {
  require(t.quant && !t.quant->scale.empty(), "weights " + t.name + " have no quantization");
  const auto& s = t.quant->scale;
  require(s.size() == 1 || static_cast<int64_t>(s.size()) == channels,
          "weights " + t.name + " have " + std::to_string(s.size()) + " scales for " + std::to_string(channels) +
              " channels");
  for (int64_t z : t.quant->zero_point) require(z == 0, "weights " + t.name + " have a non-zero zero point");
  for (float x : s) require(std::isfinite(x) && x > 0, "weights " + t.name + " have a scale that is not a positive number");
  std::vector<double> out(static_cast<size_t>(channels));
  for (int64_t i = 0; i < channels; ++i) out[i] = static_cast<double>(s.size() == 1 ? s[0] : s[i]);
  return out;
}

std::vector<int64_t> KernelContext::const_ints(const Tensor& t) const {
  require(t.constant && t.data, "operand " + t.name + " is not constant data from the model");
  std::vector<int64_t> v;
  const size_t n = static_cast<size_t>(count(t));
  if (t.dtype == DType::kInt32 && t.data->size() >= n * 4) {
    for (size_t i = 0; i < n; ++i) {
      int32_t x;
      std::memcpy(&x, t.data->data() + i * 4, 4);
      v.push_back(x);
    }
  } else if (t.dtype == DType::kInt16 && t.data->size() >= n * 2) {
    for (size_t i = 0; i < n; ++i) {
      int16_t x;
      std::memcpy(&x, t.data->data() + i * 2, 2);
      v.push_back(x);
    }
  } else if (t.dtype == DType::kInt64 && t.data->size() >= n * 8) {
    for (size_t i = 0; i < n; ++i) {
      int64_t x;
      std::memcpy(&x, t.data->data() + i * 8, 8);
      v.push_back(x);
    }
  } else {
    unsupported("operand " + t.name + " must be int16, int32 or int64");
  }
  return v;
}

void KernelContext::activation_range_int8(const Tensor& o, int32_t& lo, int32_t& hi) const {
  activation_range(o, -128, 127, lo, hi);
}

void KernelContext::activation_range_int16(const Tensor& o, int32_t& lo, int32_t& hi) const {
  activation_range(o, -32768, 32767, lo, hi);
}

void KernelContext::activation_range(const Tensor& o, int32_t type_lo, int32_t type_hi, int32_t& lo, int32_t& hi) const {
  const float s = scale(o);
  const int32_t z = zero_point(o);
  // TFLM's Quantize(): zero point + round(f / scale), the division in float.
  auto q = [&](float f) { return z + static_cast<int32_t>(tflm::round_half_away(f / s)); };
  lo = type_lo, hi = type_hi;
  switch (attr("activation", 0)) {
    case 0: break;
    case 1: lo = std::max(lo, q(0.0f)); break;
    case 2: lo = std::max(lo, q(-1.0f)), hi = std::min(hi, q(1.0f)); break;
    case 3: lo = std::max(lo, q(0.0f)), hi = std::min(hi, q(6.0f)); break;
    default: unsupported("fused activation " + std::to_string(attr("activation", 0)) + " is not supported");
  }
}

void KernelContext::activation_range_float(float& lo, float& hi) const {
  lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
  switch (attr("activation", 0)) {
    case 0: break;
    case 1: lo = 0; break;
    case 2: lo = -1, hi = 1; break;
    case 3: lo = 0, hi = 6; break;
    default: unsupported("fused activation " + std::to_string(attr("activation", 0)) + " is not supported");
  }
}

int64_t unary_count(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "expects one input and one output");
  const int64_t n = c.count(c.out(0));
  c.require(c.count(c.in(0)) == n, "input and output element counts differ");
  return n;
}

Broadcast2 make_broadcast(const KernelContext& c, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                          const std::vector<int64_t>& out) {
  Broadcast2 r;
  r.out_dims = out;
  r.same = a == out && b == out;
  c.require(out.size() <= 8 && a.size() <= out.size() && b.size() <= out.size(), "broadcast of more than 8 dims");
  auto strides = [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> s(out.size(), 0);
    int64_t step = 1;
    for (size_t k = d.size(); k-- > 0;) {
      const size_t o = out.size() - d.size() + k;
      c.require(d[k] == out[o] || d[k] == 1, "shapes do not broadcast onto the output");
      s[o] = d[k] == 1 ? 0 : step;
      step *= d[k];
    }
    return s;
  };
  r.a_strides = strides(a);
  r.b_strides = strides(b);
  return r;
}

}  // namespace arenaplan::sim
