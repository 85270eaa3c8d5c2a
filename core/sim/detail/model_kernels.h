// The registry of "model" kernels: ops of imported networks run with TFLite Micro's reference
// arithmetic (int8, from the tensors' quantization) or in float32. Internal to core/sim.
//
// Adding a kernel = one prepare function + one registration line (model_kernels.cpp):
//   ModelKernel prepare_my_op(const KernelContext& c) {
//     ...check shapes and types with c.require / c.unsupported, compute parameters once...
//     ModelKernel k{"my_op int8"};
//     k.work.alu_ops = n;
//     k.run = [=](const Operand* in, const Operand* out) { /* read in[i].data, write out[0].data */ };
//     return k;
//   }
//   {"my_op", prepare_my_op},   // in kModelKernels, under the op kind (TFLite's lowercase name)
// A prepare function that cannot run the op (a type, option or shape it does not handle) calls
// c.unsupported(why): the op then runs as a byte-level stand-in and the report names it.
#pragma once

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/sim/detail/tflm_math.h"
#include "core/sim/sim_kernels.h"

namespace arenaplan::sim {

// Why a model kernel cannot run an op (becomes the stand-in's note).
struct Unsupported {
  std::string why;
};

struct ModelKernel {
  explicit ModelKernel(const char* kernel_name = "") : name(kernel_name) {}
  const char* name;  // "conv_2d int8": a string literal (reports keep the pointer)
  KernelWork work;
  std::function<void(const Operand* in, const Operand* out)> run;  // operands as op.inputs / op.outputs
  // Set instead of `run` by kernels that use the op's scratch (the in-place conv temporaries).
  std::function<void(const Operand* in, const Operand* out, const Operand& scratch)> run_with_scratch;
  // Set instead of `run` by kernels that keep state across runs (TFLM's stateful Signal ops): the
  // simulator gives each session `state_bytes` of zeros before the first run and keeps them.
  std::function<void(const Operand* in, const Operand* out, const Operand& state)> run_with_state;
  int64_t state_bytes = 0;
};

// What a prepare function reads: the op, its tensors, attrs and quantization.
struct KernelContext {
  const Graph& g;
  const Op& op;

  size_t inputs() const { return op.inputs.size(); }
  size_t outputs() const { return op.outputs.size(); }
  const Tensor& in(size_t i) const;  // unsupported() when the op has fewer inputs
  const Tensor& out(size_t i) const;
  std::vector<int64_t> dims(const Tensor& t) const;
  int64_t count(const Tensor& t) const;  // elements
  int64_t attr(const char* name, int64_t fallback) const;
  float attr_float(const char* name, float fallback) const;  // attrs holding a float's bit pattern
  [[noreturn]] void unsupported(const std::string& why) const;
  void require(bool ok, const std::string& why) const {
    if (!ok) unsupported(why);
  }
  bool is(const Tensor& t, DType d) const { return t.dtype == d; }
  // Per-tensor quantization (scale, zero point); unsupported() when absent or per-channel.
  float scale(const Tensor& t) const;
  int32_t zero_point(const Tensor& t) const;
  // Scales of a weight tensor, one per output channel (a per-tensor scale repeated).
  std::vector<double> channel_scales(const Tensor& t, int64_t channels) const;
  // The constant int16/int32/int64 values of an operand (axes, paddings, permutations).
  std::vector<int64_t> const_ints(const Tensor& t) const;
  // The fused activation's clamp range for an int8 output (TFLM's CalculateActivationRangeQuantized).
  void activation_range_int8(const Tensor& out, int32_t& lo, int32_t& hi) const;
  void activation_range_int16(const Tensor& out, int32_t& lo, int32_t& hi) const;
  void activation_range_float(float& lo, float& hi) const;
  // CalculateActivationRangeQuantized for an output type of range [type_lo, type_hi].
  void activation_range(const Tensor& out, int32_t type_lo, int32_t type_hi, int32_t& lo, int32_t& hi) const;
};

using PrepareKernel = ModelKernel (*)(const KernelContext&);

// The kernel of an op kind, or nullptr.
PrepareKernel find_model_kernel(const std::string& kind);

// Kernel families (kernels_*.cpp).
ModelKernel prepare_conv_2d(const KernelContext& c);
ModelKernel prepare_depthwise_conv_2d(const KernelContext& c);
ModelKernel prepare_pointwise_depthwise_stream(const KernelContext& c);  // kernels_stream.cpp
ModelKernel prepare_fully_connected(const KernelContext& c);
ModelKernel prepare_average_pool_2d(const KernelContext& c);
ModelKernel prepare_max_pool_2d(const KernelContext& c);
ModelKernel prepare_mean(const KernelContext& c);
ModelKernel prepare_sum(const KernelContext& c);
ModelKernel prepare_reduce_max(const KernelContext& c);
ModelKernel prepare_reduce_min(const KernelContext& c);
ModelKernel prepare_add(const KernelContext& c);
ModelKernel prepare_sub(const KernelContext& c);
ModelKernel prepare_mul(const KernelContext& c);
ModelKernel prepare_relu(const KernelContext& c);
ModelKernel prepare_relu6(const KernelContext& c);
ModelKernel prepare_logistic(const KernelContext& c);
ModelKernel prepare_tanh(const KernelContext& c);
ModelKernel prepare_hard_swish(const KernelContext& c);
ModelKernel prepare_softmax(const KernelContext& c);
ModelKernel prepare_svdf(const KernelContext& c);  // kernels_svdf.cpp
ModelKernel prepare_quantize(const KernelContext& c);
ModelKernel prepare_dequantize(const KernelContext& c);
ModelKernel prepare_reshape(const KernelContext& c);
ModelKernel prepare_concatenation(const KernelContext& c);
ModelKernel prepare_pad(const KernelContext& c);
ModelKernel prepare_transpose(const KernelContext& c);
ModelKernel prepare_strided_slice(const KernelContext& c);
ModelKernel prepare_resize_bilinear(const KernelContext& c);
ModelKernel prepare_depth_to_space(const KernelContext& c);
ModelKernel prepare_resize_nearest_neighbor(const KernelContext& c);
ModelKernel prepare_leaky_relu(const KernelContext& c);
ModelKernel prepare_prelu(const KernelContext& c);  // kernels_select.cpp
ModelKernel prepare_maximum(const KernelContext& c);
ModelKernel prepare_minimum(const KernelContext& c);
ModelKernel prepare_arg_max(const KernelContext& c);
ModelKernel prepare_arg_min(const KernelContext& c);
ModelKernel prepare_elu(const KernelContext& c);                // kernels_elementwise.cpp
ModelKernel prepare_add_n(const KernelContext& c);              // kernels_accumulate.cpp
ModelKernel prepare_cumsum(const KernelContext& c);
ModelKernel prepare_reverse_v2(const KernelContext& c);         // kernels_shape.cpp
ModelKernel prepare_gather_nd(const KernelContext& c);          // kernels_data.cpp
ModelKernel prepare_embedding_lookup(const KernelContext& c);
ModelKernel prepare_dynamic_update_slice(const KernelContext& c);
ModelKernel prepare_l2_pool_2d(const KernelContext& c);         // kernels_pool.cpp
ModelKernel prepare_reduce_all(const KernelContext& c);
ModelKernel prepare_broadcast_args(const KernelContext& c);     // kernels_shape.cpp
ModelKernel prepare_floor_div(const KernelContext& c);          // kernels_math.cpp
ModelKernel prepare_floor_mod(const KernelContext& c);
ModelKernel prepare_l2_normalization(const KernelContext& c);   // kernels_softmax.cpp
ModelKernel prepare_log_softmax(const KernelContext& c);
ModelKernel prepare_split(const KernelContext& c);
ModelKernel prepare_split_v(const KernelContext& c);
ModelKernel prepare_slice(const KernelContext& c);
// Recurrent and int16-activation kernels.
ModelKernel prepare_unidirectional_sequence_lstm(const KernelContext& c);  // kernels_lstm.cpp
// kernels_data.cpp
ModelKernel prepare_gather(const KernelContext& c);
ModelKernel prepare_cast(const KernelContext& c);
ModelKernel prepare_fill(const KernelContext& c);
ModelKernel prepare_shape(const KernelContext& c);
ModelKernel prepare_pack(const KernelContext& c);
ModelKernel prepare_unpack(const KernelContext& c);
ModelKernel prepare_zeros_like(const KernelContext& c);
ModelKernel prepare_broadcast_to(const KernelContext& c);
ModelKernel prepare_select_v2(const KernelContext& c);
ModelKernel prepare_mirror_pad(const KernelContext& c);
ModelKernel prepare_space_to_batch_nd(const KernelContext& c);
ModelKernel prepare_batch_to_space_nd(const KernelContext& c);
ModelKernel prepare_space_to_depth(const KernelContext& c);
// kernels_math.cpp
ModelKernel prepare_abs(const KernelContext& c);
ModelKernel prepare_neg(const KernelContext& c);
ModelKernel prepare_exp(const KernelContext& c);
ModelKernel prepare_log(const KernelContext& c);
ModelKernel prepare_sqrt(const KernelContext& c);
ModelKernel prepare_rsqrt(const KernelContext& c);
ModelKernel prepare_square(const KernelContext& c);
ModelKernel prepare_sin(const KernelContext& c);
ModelKernel prepare_cos(const KernelContext& c);
ModelKernel prepare_logical_not(const KernelContext& c);
ModelKernel prepare_logical_and(const KernelContext& c);
ModelKernel prepare_logical_or(const KernelContext& c);
ModelKernel prepare_floor(const KernelContext& c);
ModelKernel prepare_ceil(const KernelContext& c);
ModelKernel prepare_round(const KernelContext& c);
ModelKernel prepare_squared_difference(const KernelContext& c);
ModelKernel prepare_div(const KernelContext& c);
ModelKernel prepare_equal(const KernelContext& c);
ModelKernel prepare_not_equal(const KernelContext& c);
ModelKernel prepare_greater(const KernelContext& c);
ModelKernel prepare_greater_equal(const KernelContext& c);
ModelKernel prepare_less(const KernelContext& c);
ModelKernel prepare_less_equal(const KernelContext& c);
// kernels_signal.cpp
ModelKernel prepare_signal_window(const KernelContext& c);
ModelKernel prepare_signal_fft_auto_scale(const KernelContext& c);
ModelKernel prepare_signal_delay(const KernelContext& c);
ModelKernel prepare_signal_overlap_add(const KernelContext& c);
ModelKernel prepare_signal_framer(const KernelContext& c);
ModelKernel prepare_signal_stacker(const KernelContext& c);
ModelKernel prepare_signal_energy(const KernelContext& c);  // kernels_signal_frontend.cpp
ModelKernel prepare_signal_filter_bank(const KernelContext& c);
ModelKernel prepare_signal_filter_bank_square_root(const KernelContext& c);
ModelKernel prepare_signal_filter_bank_spectral_subtraction(const KernelContext& c);
ModelKernel prepare_signal_pcan(const KernelContext& c);
ModelKernel prepare_signal_filter_bank_log(const KernelContext& c);
ModelKernel prepare_signal_rfft(const KernelContext& c);  // kernels_signal_fft.cpp
ModelKernel prepare_signal_irfft(const KernelContext& c);
// The library's integer helpers (tflm_signal's Sqrt32/64, Log32, PCAN's gain and shrink), for tests.
uint16_t signal_sqrt32(uint32_t num);
uint32_t signal_sqrt64(uint64_t num);
uint32_t signal_log32(uint32_t x, uint32_t out_scale);
int16_t signal_wide_dynamic_function(uint32_t x, const int16_t* lut);
uint32_t signal_pcan_shrink(uint32_t x);
// kernels_matmul.cpp
ModelKernel prepare_batch_matmul(const KernelContext& c);
ModelKernel prepare_transpose_conv(const KernelContext& c);

// Element access helpers for kernels.
template <class T>
inline const T* as(const Operand& o) {
  return reinterpret_cast<const T*>(o.data);
}
template <class T>
inline T* as_mut(const Operand& o) {
  return reinterpret_cast<T*>(o.data);
}

// One input and one output of the same element count: that count (unsupported() otherwise).
int64_t unary_count(const KernelContext& c);

// y[i] = f(x[i]) over n elements of type T.
template <class T, class F>
ModelKernel map_each(const char* name, int64_t n, F f) {
  ModelKernel k{name};
  k.work.alu_ops = n;
  k.run = [=](const Operand* in, const Operand* out) {
    const T* x = as<T>(in[0]);
    T* y = as_mut<T>(out[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  };
  return k;
}

// Broadcast of two shapes (numpy rules) onto an output shape: per output element, the index of
// each input. Precomputed strides; `visit(i_out, i_a, i_b)` in output order.
struct Broadcast2 {
  std::vector<int64_t> out_dims, a_strides, b_strides;  // right-aligned to out_dims
  bool same = false;                                     // no broadcast: every index equal
  template <class F>
  void each(F&& visit) const;
};
// unsupported() unless a and b broadcast onto `out`.
Broadcast2 make_broadcast(const KernelContext& c, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                          const std::vector<int64_t>& out);

template <class F>
void Broadcast2::each(F&& visit) const {
  int64_t n = 1;
  for (int64_t d : out_dims) n *= d;
  if (same) {
    for (int64_t i = 0; i < n; ++i) visit(i, i, i);
    return;
  }
  const size_t rank = out_dims.size();
  int64_t idx[8] = {0};
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    visit(i, ia, ib);
    for (size_t d = rank; d-- > 0;) {  // odometer step
      ++idx[d];
      ia += a_strides[d];
      ib += b_strides[d];
      if (idx[d] < out_dims[d]) break;
      ia -= a_strides[d] * idx[d];
      ib -= b_strides[d] * idx[d];
      idx[d] = 0;
    }
  }
}

}  // namespace arenaplan::sim
