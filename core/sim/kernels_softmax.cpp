// Model kernels with TFLM's fixed-point nonlinearities: SOFTMAX (int8 in; int8 out at scale
// 1/256, zero point -128, or int16 out at 1/65536, zero point -32768, as TFLM requires; int16 in
// and out through TFLM's exp and reciprocal tables; float32)
// HARD_SWISH (int8 in 16-bit fixed point, float32), L2_NORMALIZATION (int8, float32) and
// LOG_SOFTMAX (int8, float32).
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// gemmlowp's 16-bit SaturatingRoundingDoublingHighMul and RoundingDivideByPOT.
int16_t srdhm16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

int16_t rounding_divide16(int16_t x, int exponent) {
  const int16_t mask = static_cast<int16_t>((1 << exponent) - 1);
  const int16_t remainder = static_cast<int16_t>(x & mask);
  const int16_t threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// TFLM's hard_swish: a*b/2^15 truncating (not rounding), saturating at INT16_MIN^2.
int16_t doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

int16_t saturating_left_shift16(int16_t v, int amount) {
  const int64_t r = static_cast<int64_t>(v) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(r, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()));
}

int16_t to_int16_multiplier(int32_t m) {
  if (m >= std::numeric_limits<int32_t>::max() - (1 << 15)) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + (1 << 15)) >> 16);
}

// TFLM's reference Softmax for an int8 input (gemmlowp fixed point: Q5.26 differences, Q12.19 sum
// of exps, a Q0.31 reciprocal) onto an int8 or int16 output: the same path, the output's width
// only changes the final shift and the offset (its type's minimum).
// TFLM's PreprocessSoftmaxScaling: beta x input scale onto Q5.26 differences, and the smallest
// difference whose exp still counts (CalculateInputRadius).
constexpr int kScaledDiffIntegerBits = 5, kAccumulationIntegerBits = 12;
struct SoftmaxScaling {
  tflm::Multiplier m;
  int32_t diff_min = 0;
};
SoftmaxScaling softmax_scaling(float beta, float input_scale) {
  SoftmaxScaling r;
  const double real = std::min(static_cast<double>(beta) * static_cast<double>(input_scale) *
                                   static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits)),
                               static_cast<double>((int64_t{1} << 31) - 1));
  r.m = tflm::quantize_multiplier(real);
  const double max_rescaled = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                              static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits)) /
                              static_cast<double>(int64_t{1} << r.m.shift);
  r.diff_min = -static_cast<int32_t>(std::floor(max_rescaled));
  return r;
}

template <class Out>
std::function<void(const Operand*, const Operand*)> softmax_int8_to(float input_scale, float beta, int64_t rows, int64_t depth) {
  const SoftmaxScaling scaling = softmax_scaling(beta, input_scale);
  const tflm::Multiplier m = scaling.m;
  const int32_t diff_min = scaling.diff_min;
  constexpr int32_t lo = std::numeric_limits<Out>::min(), hi = std::numeric_limits<Out>::max();
  return [=](const Operand* in, const Operand* out) {
    const int8_t* x = as<int8_t>(in[0]);
    Out* y = as_mut<Out>(out[0]);
    for (int64_t r = 0; r < rows; ++r) {
      const int8_t* xr = x + r * depth;
      Out* yr = y + r * depth;
      int32_t max_in_row = -128;
      for (int64_t i = 0; i < depth; ++i) max_in_row = std::max<int32_t>(max_in_row, xr[i]);
      int32_t sum_of_exps = 0;  // Q12.19
      for (int64_t i = 0; i < depth; ++i) {
        const int32_t diff = xr[i] - max_in_row;
        if (diff < diff_min) continue;
        const int32_t scaled = tflm::multiply_by_quantized_multiplier_greater_than_one(diff, m);
        sum_of_exps += tflm::saturating_rounding_multiply_by_pot(
            tflm::fp_exp_on_negative_values(scaled, kScaledDiffIntegerBits), -kAccumulationIntegerBits);
      }
      int bits_over_unit = 0;
      const int32_t shifted_scale = tflm::get_reciprocal(sum_of_exps, kAccumulationIntegerBits, &bits_over_unit);
      const int exponent = bits_over_unit + 31 - 8 * static_cast<int>(sizeof(Out));
      // Every read of the row happens above, before its first write: y may alias x (int8 only).
      for (int64_t i = 0; i < depth; ++i) {
        const int32_t diff = xr[i] - max_in_row;
        if (diff < diff_min) {
          yr[i] = static_cast<Out>(lo);
          continue;
        }
        const int32_t scaled = tflm::multiply_by_quantized_multiplier_greater_than_one(diff, m);
        const int32_t e = tflm::fp_exp_on_negative_values(scaled, kScaledDiffIntegerBits);
        const int32_t v = tflm::rounding_divide_by_pot(tflm::saturating_rounding_doubling_high_mul(shifted_scale, e), exponent);
        yr[i] = static_cast<Out>(std::clamp(v + lo, lo, hi));
      }
    }
  };
}

}  // namespace

// The 513-entry int16 tables of TFLM's LUTPopulate<int16_t>: f sampled at 512 steps over the
// input range, each sample biased by half the interpolation error at the step's midpoint, all in
// float as TFLM computes them.
using Int16Lut = std::vector<int16_t>;
template <class F>
Int16Lut int16_lut(float input_scale, int32_t input_zero_point, float output_scale, F f) {
  const float input_min = input_scale * static_cast<float>(-32768 - input_zero_point);
  const float input_max = input_scale * static_cast<float>(32767 - input_zero_point);
  const float output_min = output_scale * -32768.0f, output_max = output_scale * 32767.0f;
  constexpr int kSteps = 512;
  const float step = (input_max - input_min) / kSteps, half_step = step / 2;
  const float inv = 65536.0f / (output_max - output_min);
  auto round = [](float v) { return tflm::round_half_away(v); };
  auto bound = [](float v) { return static_cast<int16_t>(std::min(std::max(v, -32768.0f), 32767.0f)); };
  Int16Lut lut(kSteps + 1);
  for (int i = 0; i < kSteps; ++i) {
    const float val = f(input_min + static_cast<float>(i) * step);
    const float mid = f(input_min + static_cast<float>(i) * step + half_step);
    const float next = f(input_min + static_cast<float>(i + 1) * step);
    const float sample = round(val * inv);
    const float interpolated = round((next * inv + round(val * inv)) / 2);
    const float bias = round((interpolated - round(mid * inv)) / 2);
    lut[static_cast<size_t>(i)] = bound(sample - bias);
  }
  lut[kSteps] = bound(round(f(input_max) * inv));
  return lut;
}

// TFLM's LUTLookup: the table at the value's top 9 bits, interpolated over its low 7.
int16_t lut_lookup(int16_t v, const Int16Lut& lut) {
  const size_t index = static_cast<size_t>(256 + (v >> 7));
  const int32_t offset = v & 0x7f, base = lut[index], slope = lut[index + 1] - base;
  return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

// TFLM's SoftmaxInt16: exp of (x - max) from a table over [-10, 0], the sum's reciprocal from a
// 1/(1+x) table after normalising the sum, output Q0.15.
std::function<void(const Operand*, const Operand*)> softmax_int16(float input_scale, float beta, int64_t rows,
                                                                  int64_t depth) {
  const tflm::Multiplier m = tflm::quantize_multiplier(static_cast<double>(input_scale) * static_cast<double>(beta) /
                                                       (10.0 / 65535.0));
  constexpr float kRange = 65535.0f;
  auto exp_lut = std::make_shared<Int16Lut>(
      int16_lut(10.0f / kRange, 32767, 2.0f / kRange, [](float v) { return std::exp(v); }));
  auto reciprocal_lut = std::make_shared<Int16Lut>(
      int16_lut(1.0f / kRange, -32768, 2.0f / kRange, [](float v) { return 1.0f / (1.0f + v); }));
  return [=](const Operand* in, const Operand* out) {
    const int16_t* x = as<int16_t>(in[0]);
    int16_t* y = as_mut<int16_t>(out[0]);
    for (int64_t r = 0; r < rows; ++r) {
      const int16_t* xr = x + r * depth;
      int16_t* yr = y + r * depth;
      const int16_t mx = *std::max_element(xr, xr + depth);
      int32_t sum = 0;
      for (int64_t i = 0; i < depth; ++i) {
        const int32_t scaled = tflm::multiply_by_quantized_multiplier(int32_t{xr[i]} - mx, m) + 32767;
        yr[i] = lut_lookup(static_cast<int16_t>(std::clamp(scaled, -32768, 32767)), *exp_lut);
        sum += yr[i];
      }
      const int headroom_plus_one = std::countl_zero(static_cast<uint32_t>(sum));
      const int32_t shifted = static_cast<int32_t>(((int64_t{sum} << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
      const int16_t reciprocal =
          lut_lookup(static_cast<int16_t>(std::clamp(shifted - ((1 << 15) + (1 << 16)), -32768, 32767)), *reciprocal_lut);
      const int right_shift = 31 - headroom_plus_one;
      for (int64_t i = 0; i < depth; ++i) {
        const int64_t v = (int64_t{yr[i]} * reciprocal + (int64_t{1} << (right_shift - 1))) >> right_shift;
        yr[i] = static_cast<int16_t>(std::clamp<int64_t>(v, 0, 32767));
      }
    }
  };
}

ModelKernel prepare_softmax(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto d = c.dims(xt);
  c.require(c.dims(yt) == d, "input and output shapes differ");
  const int64_t depth = d.back(), rows = c.count(xt) / std::max<int64_t>(1, depth);
  const float beta = c.attr_float("beta_f32", 1.0f);
  ModelKernel k;
  k.work.alu_ops = 3 * rows * depth;
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    c.require(c.zero_point(yt) == -128 && c.scale(yt) == 1.f / 256, "int8 softmax needs output scale 1/256, zero point -128");
    k.name = "softmax int8";
    k.run = softmax_int8_to<int8_t>(c.scale(xt), beta, rows, depth);
    return k;
  }
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt16)) {
    // TFLM's CalculateSoftmaxParams: zero point -32768, scale 1/65536 to within 0.1 %.
    c.require(c.zero_point(yt) == -32768 && std::fabs(c.scale(yt) - 1.f / 65536) <= 0.001f / 65536,
              "int8->int16 softmax needs output scale 1/65536, zero point -32768");
    k.name = "softmax int8->int16";
    k.run = softmax_int8_to<int16_t>(c.scale(xt), beta, rows, depth);
    return k;
  }
  if (c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16)) {
    // The int32 sum of up to 65,536 exponentials of at most 32,767 cannot overflow.
    c.require(depth <= 65536 && std::isfinite(beta) && beta > 0, "int16 softmax needs beta > 0 and rows of at most 65,536");
    // TFLM's CalculateSoftmaxParams: zero points 0, output scale 1/32768 to within 0.1 %.
    c.require(c.zero_point(xt) == 0 && c.zero_point(yt) == 0 && std::fabs(c.scale(yt) - 1.f / 32768) <= 0.001f / 32768,
              "int16 softmax needs zero points 0 and output scale 1/32768");
    k.name = "softmax int16";
    k.run = softmax_int16(c.scale(xt), beta, rows, depth);
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "softmax runs int8 (int8 or int16 out), int16 or float32");
  k.name = "softmax float32";
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * depth;
      float* yr = y + r * depth;
      float mx = std::numeric_limits<float>::lowest();
      for (int64_t i = 0; i < depth; ++i) mx = std::max(mx, xr[i]);
      float sum = 0.f;
      for (int64_t i = 0; i < depth; ++i) {
        const float e = std::exp((xr[i] - mx) * beta);
        yr[i] = e;
        sum += e;
      }
      for (int64_t i = 0; i < depth; ++i) yr[i] = yr[i] / sum;
    }
  };
  return k;
}

ModelKernel prepare_hard_swish(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const int64_t n = c.count(yt);
  c.require(c.count(xt) == n, "input and output element counts differ");
  ModelKernel k;
  k.work.alu_ops = 4 * n;
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = "hard_swish int8";
    const int32_t in_zp = c.zero_point(xt), out_zp = c.zero_point(yt);
    const float hires_scale = (1.0f / 128.0f) * c.scale(xt);
    const float reluish_scale = 3.0f / 32768.0f;
    const tflm::Multiplier om = tflm::quantize_multiplier(static_cast<double>(hires_scale / c.scale(yt)));
    const tflm::Multiplier rm = tflm::quantize_multiplier(static_cast<double>(hires_scale / reluish_scale));
    c.require(om.shift <= 0, "hard_swish output multiplier above one");
    const int16_t om16 = to_int16_multiplier(om.value), rm16 = to_int16_multiplier(rm.value);
    const int out_exp = om.shift, relu_exp = rm.shift;
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t* x = as<int8_t>(in[0]);
      int8_t* y = as_mut<int8_t>(out[0]);
      for (int64_t i = 0; i < n; ++i) {
        const int16_t v = static_cast<int16_t>(x[i] - in_zp);
        const int16_t hires = static_cast<int16_t>(v * (1 << 7));
        const int16_t preshift = srdhm16(hires, om16);
        int16_t reluish = hires;
        if (relu_exp > 0) reluish = saturating_left_shift16(reluish, relu_exp - 1);
        reluish = srdhm16(reluish, rm16);
        if (relu_exp > 0) reluish = saturating_left_shift16(reluish, 1);
        if (relu_exp < 0) reluish = rounding_divide16(reluish, -relu_exp);
        reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);
        const int16_t pre_out = doubling_high_mul16(reluish, preshift);
        int16_t o = rounding_divide16(pre_out, -out_exp);
        o = static_cast<int16_t>(o + out_zp);
        y[i] = static_cast<int8_t>(std::clamp<int16_t>(o, -128, 127));
      }
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32), "hard_swish runs int8 or float32");
  k.name = "hard_swish float32";
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * std::min(6.f, std::max(0.f, x[i] + 3.f)) / 6.f;
  };
  return k;
}

namespace {

// Rows along the last dim (TFLM's outer size and depth); input and output of one shape.
struct Rows {
  int64_t rows = 1, depth = 1;
};
Rows last_dim_rows(const KernelContext& c, const char* kind) {
  c.require(c.inputs() == 1 && c.outputs() == 1, std::string(kind) + " expects one input and one output");
  const auto x = c.dims(c.in(0));
  c.require(c.dims(c.out(0)) == x && c.in(0).dtype == c.out(0).dtype, std::string(kind) + "'s output must have the input's shape and type");
  Rows r;
  r.depth = x.back();
  r.rows = c.count(c.in(0)) / std::max<int64_t>(r.depth, 1);
  return r;
}

}  // namespace

// L2_NORMALIZATION along the last dim. int8 as TFLM's reference: the squares of (q - zero point)
// summed in int32, their inverse square root as a multiplier, the output in steps of 1/128
// whatever the output's quantization says; float32 divides by max(norm, 1e-6).
ModelKernel prepare_l2_normalization(const KernelContext& c) {
  const Rows r = last_dim_rows(c, "l2_normalization");
  c.require(c.dims(c.in(0)).size() <= 4, "l2_normalization runs up to 4 dims (TFLM)");
  c.require(c.attr("activation", 0) == 0, "l2_normalization with a fused activation (TFLM refuses it)");
  ModelKernel k;
  k.work.alu_ops = 3 * r.rows * r.depth;  // square, sum, scale
  if (c.is(c.in(0), DType::kInt8)) {
    const int32_t zero = c.zero_point(c.in(0));
    constexpr int kOutputScaleShift = 7;
    k.name = "l2_normalization int8";
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t* x = as<int8_t>(in[0]);
      int8_t* y = as_mut<int8_t>(out[0]);
      for (int64_t row = 0; row < r.rows; ++row) {
        const int8_t* xr = x + row * r.depth;
        int32_t squares = 0;
        for (int64_t i = 0; i < r.depth; ++i) squares = wrapping_add(squares, (xr[i] - zero) * (xr[i] - zero));
        const tflm::Multiplier inv = tflm::inv_sqrt_multiplier(squares);
        const tflm::Multiplier m{inv.value, inv.shift + kOutputScaleShift};
        for (int64_t i = 0; i < r.depth; ++i)
          y[row * r.depth + i] = static_cast<int8_t>(std::clamp(tflm::multiply_by_quantized_multiplier(xr[i] - zero, m), -128, 127));
      }
    };
    return k;
  }
  c.require(c.is(c.in(0), DType::kFloat32), "l2_normalization runs int8 or float32 (TFLM)");
  k.name = "l2_normalization float32";
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    for (int64_t row = 0; row < r.rows; ++row) {
      const float* xr = x + row * r.depth;
      float squares = 0;
      for (int64_t i = 0; i < r.depth; ++i) squares += xr[i] * xr[i];
      const float norm = std::max(std::sqrt(squares), 1e-6f);
      for (int64_t i = 0; i < r.depth; ++i) y[row * r.depth + i] = xr[i] / norm;
    }
  };
  return k;
}

namespace {

// LOG_SOFTMAX int8 as TFLM's LogSoftmaxQuantized: the exps of the scaled differences from the
// row's maximum summed in Q12, their fixed-point log in Q5, each output (difference - log sum) in
// steps of 1/16 from 127; differences below the log sum's reach give -128.
ModelKernel log_softmax_int8(const KernelContext& c, Rows r) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(c.scale(yt) == 16.0f / 256 && c.zero_point(yt) == 127, "int8 log_softmax needs output scale 1/16 and zero point 127 (TFLM)");
  const SoftmaxScaling scaling = softmax_scaling(1.0f, c.scale(xt));
  c.require(scaling.m.shift >= 1, "int8 log_softmax: the input scale is too large for TFLM's reverse scaling");
  // PreprocessLogSoftmaxScalingExp's reverse scaling: 2^(31 - shift) / multiplier, below one.
  const tflm::Multiplier reverse = tflm::quantize_multiplier(
      static_cast<double>(1 << (31 - scaling.m.shift)) / static_cast<double>(scaling.m.value));
  constexpr int kOutputIntegerBits = 4;
  ModelKernel k{"log_softmax int8"};
  k.work.alu_ops = 4 * r.rows * r.depth;
  k.run = [=](const Operand* in, const Operand* out) {
    const int8_t* x = as<int8_t>(in[0]);
    int8_t* y = as_mut<int8_t>(out[0]);
    for (int64_t row = 0; row < r.rows; ++row) {
      const int8_t* xr = x + row * r.depth;
      int32_t max_in_row = -128;
      for (int64_t i = 0; i < r.depth; ++i) max_in_row = std::max<int32_t>(max_in_row, xr[i]);
      int32_t sum_of_exps = 0;  // Q12
      for (int64_t i = 0; i < r.depth; ++i) {
        const int32_t diff = xr[i] - max_in_row;
        if (diff < scaling.diff_min) continue;
        const int32_t scaled = tflm::multiply_by_quantized_multiplier(diff, scaling.m);
        sum_of_exps = wrapping_add(sum_of_exps, tflm::saturating_rounding_multiply_by_pot(
                                                    tflm::fp_exp_on_negative_values(scaled, kScaledDiffIntegerBits),
                                                    -kAccumulationIntegerBits));
      }
      const int32_t log_sum = tflm::fp_log_x_for_x_greater_than_or_equal_to_1(sum_of_exps, kAccumulationIntegerBits,
                                                                               kScaledDiffIntegerBits);
      const int32_t shifted_log_sum = static_cast<int32_t>(static_cast<uint32_t>(log_sum) + 0x80000000u);
      const int32_t adjusted_diff_min =
          std::max(scaling.diff_min - 1, tflm::multiply_by_quantized_multiplier(shifted_log_sum, reverse));
      for (int64_t i = 0; i < r.depth; ++i) {
        const int32_t diff = xr[i] - max_in_row;
        int32_t v = -128;
        if (diff > adjusted_diff_min) {
          const int32_t scaled = tflm::multiply_by_quantized_multiplier(diff, scaling.m);
          v = std::clamp(tflm::rounding_divide_by_pot(scaled - log_sum, 31 - kScaledDiffIntegerBits - kOutputIntegerBits) + 127,
                         -128, 127);
        }
        y[row * r.depth + i] = static_cast<int8_t>(v);
      }
    }
  };
  return k;
}

}  // namespace

// LOG_SOFTMAX along the last dim: int8 as above; float32 in TFLM's order, x - max - log(sum of
// e^(x - max)).
ModelKernel prepare_log_softmax(const KernelContext& c) {
  const Rows r = last_dim_rows(c, "log_softmax");
  if (c.is(c.in(0), DType::kInt8)) return log_softmax_int8(c, r);
  c.require(c.is(c.in(0), DType::kFloat32), "log_softmax runs int8 or float32 (TFLM)");
  ModelKernel k{"log_softmax float32"};
  k.work.alu_ops = 4 * r.rows * r.depth;
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    for (int64_t row = 0; row < r.rows; ++row) {
      const float* xr = x + row * r.depth;
      float max = std::numeric_limits<float>::lowest();
      for (int64_t i = 0; i < r.depth; ++i) max = std::max(max, xr[i]);
      float sum = 0;
      for (int64_t i = 0; i < r.depth; ++i) sum += std::exp(xr[i] - max);
      const float log_sum = std::log(sum);
      for (int64_t i = 0; i < r.depth; ++i) y[row * r.depth + i] = xr[i] - max - log_sum;
    }
  };
  return k;
}

}  // namespace arenaplan::sim
