// Model kernels with TFLM's fixed-point nonlinearities: SOFTMAX (int8 in; int8 out at scale
// 1/256, zero point -128, or int16 out at 1/65536, zero point -32768, as TFLM requires; int16 in
// and out through TFLM's exp and reciprocal tables; float32)
// and HARD_SWISH (int8 in 16-bit fixed point, float32).
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
template <class Out>
std::function<void(const Operand*, const Operand*)> softmax_int8_to(float input_scale, float beta, int64_t rows, int64_t depth) {
  // TFLM's PreprocessSoftmaxScaling: beta x input scale onto Q5.26 differences.
  constexpr int kScaledDiffIntegerBits = 5, kAccumulationIntegerBits = 12;
  const double real = std::min(static_cast<double>(beta) * static_cast<double>(input_scale) *
                                   static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits)),
                               static_cast<double>((int64_t{1} << 31) - 1));
  const tflm::Multiplier m = tflm::quantize_multiplier(real);
  const double max_rescaled = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                              static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits)) /
                              static_cast<double>(int64_t{1} << m.shift);
  const int32_t diff_min = -static_cast<int32_t>(std::floor(max_rescaled));
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

}  // namespace arenaplan::sim
