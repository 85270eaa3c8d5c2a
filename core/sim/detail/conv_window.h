// The window arithmetic every conv-like model kernel shares (kernels_conv.cpp: conv, depthwise
// and their in-place variants; kernels_stream.cpp: the channel-streamed pointwise -> depthwise
// pair). Internal to core/sim.
//
// One window walk (for_each_tap) serves both window sums, and the sums are templated on the
// arithmetic (Int8Math: TFLM's int8 reference; FloatMath: float32 in TFLM's order), so every
// kernel that computes a conv output element computes it with the same loop and the same
// rounding: the rewrites that reorganise the loops (in place, streamed) stay bit-exact.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/sim/detail/model_kernels.h"
#include "core/sim/sim_kernels.h"

namespace arenaplan::sim::conv {

// NHWC window geometry from the imported attrs (stride, dilation, TFLM's explicit padding).
struct ConvGeom {
  int64_t n = 1, h = 1, w = 1, c = 1;  // input
  int64_t kh = 1, kw = 1;               // filter
  int64_t oh = 1, ow = 1, oc = 1;       // output
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, pad_h = 0, pad_w = 0, pad_b = 0, pad_r = 0;
};

// The geometry of c.op's window (attrs stride_h/_w, dilation_h/_w, pad_h/_w, pad_bottom/_right);
// unsupported() unless the output shape follows from the input, window, stride and padding.
ConvGeom conv_geometry(const KernelContext& c, const std::vector<int64_t>& x, int64_t kh, int64_t kw,
                       const std::vector<int64_t>& y);

// Per-output-channel TFLM multipliers: input scale * filter scale / output scale, in double.
std::vector<tflm::Multiplier> channel_multipliers(const KernelContext& c, const Tensor& x, const Tensor& w,
                                                  const Tensor& y, int64_t channels);

// The op's bias operand at `index` (nullptr when the op has none); unsupported() when malformed.
const Tensor* bias_of(const KernelContext& c, size_t index, DType type, int64_t channels);
void require_constant_weights(const KernelContext& c, const Tensor& w);

// ---- Arithmetic: what one multiply-accumulate and one output element are ----------------------

// TFLM's int8 reference: (x + input offset) * w summed in int32, bias added, per-channel
// requantization, output offset, activation clamp.
struct Int8Math {
  using T = int8_t;
  using W = int8_t;
  using Acc = int32_t;
  using Bias = int32_t;
  static constexpr DType kType = DType::kInt8;
  int32_t in_off = 0, out_off = 0, lo = -128, hi = 127;
  std::vector<tflm::Multiplier> mult;

  Acc mac(Acc acc, T x, T w) const { return wrapping_add(acc, (int32_t{x} + in_off) * int32_t{w}); }
  T finish(Acc acc, const Bias* bias, int64_t o) const {
    if (bias) acc = wrapping_add(acc, bias[o]);
    acc = wrapping_add(tflm::multiply_by_quantized_multiplier(acc, mult[static_cast<size_t>(o)]), out_off);
    return static_cast<T>(std::clamp(acc, lo, hi));
  }
};

// TFLM's int16x8 reference (16-bit activations, 8-bit weights): x * w with no offsets (both zero
// points are 0), summed in the bias's width (int64, or int32 with an int32 bias, wrapping), then
// per-channel requantization (the int64 path rounds the multiplier to Q15) and the clamp.
template <class BiasType>
struct Int16Math {
  using T = int16_t;
  using W = int8_t;
  using Acc = BiasType;
  using Bias = BiasType;
  static constexpr DType kType = DType::kInt16;
  int32_t lo = -32768, hi = 32767;
  std::vector<tflm::Multiplier> mult;

  Acc mac(Acc acc, T x, W w) const {
    return wrapping_add(acc, static_cast<Acc>(int32_t{w} * int32_t{x}));
  }
  T finish(Acc acc, const Bias* bias, int64_t o) const {
    const tflm::Multiplier& m = mult[static_cast<size_t>(o)];
    if (bias) acc = wrapping_add(acc, bias[o]);
    return static_cast<T>(std::clamp(tflm::multiply_by_quantized_multiplier(acc, m), lo, hi));
  }
};

// float32 in TFLM's order: the window sum first, then the bias, then the activation clamp. A NaN
// result is written as the canonical quiet NaN: which NaN payload a sum of two NaNs keeps depends
// on the operand order the compiler picked for each loop, and the in-place and streamed loops must
// agree with the ordinary ones bit for bit (the simulator fills float inputs and weights with raw
// bytes).
struct FloatMath {
  using T = float;
  using W = float;
  using Acc = float;
  using Bias = float;
  static constexpr DType kType = DType::kFloat32;
  float lo = 0, hi = 0;

  Acc mac(Acc acc, T x, T w) const { return acc + x * w; }
  T finish(Acc acc, const Bias* bias, int64_t o) const {
    const float v = acc + (bias ? bias[o] : 0.f);
    if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
    return std::min(std::max(v, lo), hi);
  }
};

// The arithmetic of a conv-like op: multipliers and offsets from x, w, y's quantization and the
// clamp of c.op's fused activation (int8), or the float clamp.
Int8Math int8_math(const KernelContext& c, const Tensor& x, const Tensor& w, const Tensor& y, int64_t channels);
FloatMath float_math(const KernelContext& c);
// int16x8: TFLM's reference ignores the activations' zero points (the quantization spec makes them
// 0); only the activation clamp reads the output's.
template <class BiasType>
Int16Math<BiasType> int16_math(const KernelContext& c, const Tensor& x, const Tensor& w, const Tensor& y,
                               int64_t channels) {
  Int16Math<BiasType> m;
  m.mult = channel_multipliers(c, x, w, y, channels);
  c.activation_range_int16(y, m.lo, m.hi);
  return m;
}

// ---- The window walk and the two window sums ---------------------------------------------------

// Visits the taps of output pixel (oy, ox) that fall inside the input, in TFLM's order (filter
// row, then column): tap(pixel index of (iy, ix) within the image, filter tap index fy * kw + fx).
// Taps on the border (padding) are skipped, i.e. read as the zero point.
template <class Tap>
inline void for_each_tap(const ConvGeom& g, int64_t oy, int64_t ox, Tap&& tap) {
  for (int64_t fy = 0; fy < g.kh; ++fy) {
    const int64_t iy = oy * g.stride_h - g.pad_h + fy * g.dil_h;
    if (iy < 0 || iy >= g.h) continue;
    for (int64_t fx = 0; fx < g.kw; ++fx) {
      const int64_t ix = ox * g.stride_w - g.pad_w + fx * g.dil_w;
      if (ix < 0 || ix >= g.w) continue;
      tap(iy * g.w + ix, fy * g.kw + fx);
    }
  }
}

// Conv: output (b, oy, ox, o) from the fic input channels starting at ic0 (wo: output channel o's
// filter, [KH, KW, fic]).
template <class M>
typename M::Acc conv_sum(const M& m, const ConvGeom& g, int64_t fic, const typename M::T* x, const typename M::W* wo,
                         int64_t b, int64_t oy, int64_t ox, int64_t ic0) {
  typename M::Acc acc = 0;
  const typename M::T* image = x + b * g.h * g.w * g.c + ic0;
  for_each_tap(g, oy, ox, [&](int64_t pixel, int64_t tap) {
    const typename M::T* xp = image + pixel * g.c;
    const typename M::W* wp = wo + tap * fic;
    for (int64_t i = 0; i < fic; ++i) acc = m.mac(acc, xp[i], wp[i]);
  });
  return acc;
}

// Depthwise: output channel o of (b, oy, ox) from input channel ic alone (w: [1, KH, KW, oc]).
// x's pixels are g.c channels apart: the streamed kernel passes one plane with g.c = 1.
template <class M>
typename M::Acc depthwise_sum(const M& m, const ConvGeom& g, const typename M::T* x, const typename M::W* w, int64_t b,
                              int64_t oy, int64_t ox, int64_t ic, int64_t o) {
  typename M::Acc acc = 0;
  const typename M::T* image = x + b * g.h * g.w * g.c + ic;
  for_each_tap(g, oy, ox, [&](int64_t pixel, int64_t tap) { acc = m.mac(acc, image[pixel * g.c], w[tap * g.oc + o]); });
  return acc;
}

}  // namespace arenaplan::sim::conv
