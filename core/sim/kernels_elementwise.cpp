// Model kernels that map elements: ADD, SUB, MUL (with broadcasting), RELU, RELU6, LEAKY_RELU,
// LOGISTIC, TANH, HARD_SWISH, QUANTIZE, DEQUANTIZE, ELU; int8 with TFLM's reference arithmetic, and float32.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

inline int8_t clamp8(int32_t v, int32_t lo = -128, int32_t hi = 127) { return static_cast<int8_t>(std::clamp(v, lo, hi)); }

// Input 1 of a binary op; an op reading one tensor twice (x * x) lists it once.
const Tensor& second(const KernelContext& c) { return c.inputs() > 1 ? c.in(1) : c.in(0); }
inline const Operand& second(const Operand* in, bool same) { return same ? in[0] : in[1]; }

enum class Binary { kAdd, kSub, kMul };

// TFLM's quantized ADD, SUB and MUL over T (int8 or int16): mul requantizes the product of the
// offset inputs; add and sub bring both inputs onto twice the larger scale with 20 bits of
// headroom for int8, 15 for int16, then onto the output.
template <class T>
std::function<void(const Operand*, const Operand*)> quantized_binary(const KernelContext& c, Binary op, const Tensor& at,
                                                                     const Tensor& bt, const Tensor& yt,
                                                                     const Broadcast2& bc, bool same) {
  int32_t lo, hi;
  c.activation_range(yt, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), lo, hi);
  const int32_t a_off = -c.zero_point(at), b_off = -c.zero_point(bt), y_off = c.zero_point(yt);
  if (op == Binary::kMul) {
    const tflm::Multiplier m = tflm::quantize_multiplier(static_cast<double>(c.scale(at)) *
                                                         static_cast<double>(c.scale(bt)) /
                                                         static_cast<double>(c.scale(yt)));
    return [=](const Operand* in, const Operand* out) {
      const T *a = as<T>(in[0]), *b = as<T>(second(in, same));
      T* y = as_mut<T>(out[0]);
      bc.each([&](int64_t i, int64_t ia, int64_t ib) {
        const int32_t v = wrapping_add(y_off, tflm::multiply_by_quantized_multiplier((a[ia] + a_off) * (b[ib] + b_off), m));
        y[i] = static_cast<T>(std::clamp(v, lo, hi));
      });
    };
  }
  const int left_shift = sizeof(T) == 1 ? 20 : 15;
  const double twice_max = 2 * static_cast<double>(std::max(c.scale(at), c.scale(bt)));
  const tflm::Multiplier ma = tflm::quantize_multiplier(static_cast<double>(c.scale(at)) / twice_max);
  const tflm::Multiplier mb = tflm::quantize_multiplier(static_cast<double>(c.scale(bt)) / twice_max);
  const tflm::Multiplier my =
      tflm::quantize_multiplier(twice_max / ((1 << left_shift) * static_cast<double>(c.scale(yt))));
  const bool subtract = op == Binary::kSub;
  return [=](const Operand* in, const Operand* out) {
    const T *a = as<T>(in[0]), *b = as<T>(second(in, same));
    T* y = as_mut<T>(out[0]);
    bc.each([&](int64_t i, int64_t ia, int64_t ib) {
      // int32 throughout, wrapping where TFLM's int32 would (an int16 zero point far from 0).
      auto shifted = [&](int32_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v) << left_shift); };
      const int32_t sa = tflm::multiply_by_quantized_multiplier_smaller_than_one(shifted(a[ia] + a_off), ma);
      const int32_t sb = tflm::multiply_by_quantized_multiplier_smaller_than_one(shifted(b[ib] + b_off), mb);
      const int32_t raw = wrapping_add(sa, subtract ? static_cast<int32_t>(0u - static_cast<uint32_t>(sb)) : sb);
      y[i] = static_cast<T>(std::clamp(wrapping_add(tflm::multiply_by_quantized_multiplier_smaller_than_one(raw, my), y_off), lo, hi));
    });
  };
}

ModelKernel prepare_binary(const KernelContext& c, Binary op) {
  const Tensor &at = c.in(0), &bt = second(c), &yt = c.out(0);
  const bool same = c.inputs() == 1;
  const Broadcast2 bc = make_broadcast(c, c.dims(at), c.dims(bt), c.dims(yt));
  const char* base = op == Binary::kAdd ? "add" : op == Binary::kSub ? "sub" : "mul";
  ModelKernel k;
  k.work.alu_ops = c.count(yt);
  if (c.is(at, DType::kInt8) && c.is(bt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = op == Binary::kAdd ? "add int8" : op == Binary::kSub ? "sub int8" : "mul int8";
    k.run = quantized_binary<int8_t>(c, op, at, bt, yt, bc, same);
    return k;
  }
  if (c.is(at, DType::kInt16) && c.is(bt, DType::kInt16) && c.is(yt, DType::kInt16)) {
    k.name = op == Binary::kAdd ? "add int16" : op == Binary::kSub ? "sub int16" : "mul int16";
    if (op == Binary::kMul)
      c.require(c.zero_point(at) == 0 && c.zero_point(bt) == 0 && c.zero_point(yt) == 0,
                "int16 mul needs zero points 0 (TFLM)");
    k.run = quantized_binary<int16_t>(c, op, at, bt, yt, bc, same);
    return k;
  }
  if (c.is(at, DType::kInt32) && c.is(bt, DType::kInt32) && c.is(yt, DType::kInt32)) {
    // TFLM's reference int32 arithmetic (an audio front end's counters): no quantization, the
    // result wrapping as the MCU's 32-bit ALU wraps it, clamped to the fused activation's range.
    k.name = op == Binary::kAdd ? "add int32" : op == Binary::kSub ? "sub int32" : "mul int32";
    float flo, fhi;
    c.activation_range_float(flo, fhi);
    const int32_t lo = flo <= -2147483648.0f ? std::numeric_limits<int32_t>::min() : static_cast<int32_t>(flo);
    const int32_t hi = fhi >= 2147483647.0f ? std::numeric_limits<int32_t>::max() : static_cast<int32_t>(fhi);
    k.run = [=](const Operand* in, const Operand* out) {
      const int32_t *a = as<int32_t>(in[0]), *b = as<int32_t>(second(in, same));
      int32_t* y = as_mut<int32_t>(out[0]);
      bc.each([&](int64_t i, int64_t ia, int64_t ib) {
        const uint32_t ua = static_cast<uint32_t>(a[ia]), ub = static_cast<uint32_t>(b[ib]);
        const uint32_t r = op == Binary::kAdd ? ua + ub : op == Binary::kSub ? ua - ub : ua * ub;
        y[i] = std::clamp(static_cast<int32_t>(r), lo, hi);
      });
    };
    return k;
  }
  c.require(c.is(at, DType::kFloat32) && c.is(bt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            std::string(base) + " runs int8, int16, int32 or float32");
  k.name = op == Binary::kAdd ? "add float32" : op == Binary::kSub ? "sub float32" : "mul float32";
  float lo, hi;
  c.activation_range_float(lo, hi);
  k.run = [=](const Operand* in, const Operand* out) {
    const float *a = as<float>(in[0]), *b = as<float>(second(in, same));
    float* y = as_mut<float>(out[0]);
    bc.each([&](int64_t i, int64_t ia, int64_t ib) {
      const float v = op == Binary::kAdd ? a[ia] + b[ib] : op == Binary::kSub ? a[ia] - b[ib] : a[ia] * b[ib];
      y[i] = std::min(std::max(v, lo), hi);
    });
  };
  return k;
}

bool int8_io(const KernelContext& c) { return c.is(c.in(0), DType::kInt8) && c.is(c.out(0), DType::kInt8); }
bool float_io(const KernelContext& c) { return c.is(c.in(0), DType::kFloat32) && c.is(c.out(0), DType::kFloat32); }

// TFLM's QuantizeMultiplier of a possibly negative real: the sign rides on the Q31 value
// (frexp and round-half-away are symmetric, so this is the magnitude's multiplier negated).
tflm::Multiplier signed_multiplier(double real) {
  tflm::Multiplier m = tflm::quantize_multiplier(std::fabs(real));
  if (real < 0) m.value = -m.value;
  return m;
}

// x * m for a multiplier whose value may be negative: TFLM's leaky_relu multiplies by |m| and
// negates the product (MultiplyByQuantizedMultiplier rounds asymmetrically, so the order matters).
int32_t multiply_signed(int32_t x, tflm::Multiplier m) {
  if (m.value >= 0) return tflm::multiply_by_quantized_multiplier(x, m);
  return -tflm::multiply_by_quantized_multiplier(x, tflm::Multiplier{-m.value, m.shift});
}

// LOGISTIC / TANH int8: the input onto Q4.27 (TFLM: frexp of scale x 2^27, no 2^31 folding),
// inputs beyond the radius saturate.
struct Q4Input {
  int32_t zero_point = 0, radius = 0;
  tflm::Multiplier m;
};
Q4Input q4_input(const KernelContext& c) {
  Q4Input q;
  q.zero_point = c.zero_point(c.in(0));
  const double real = static_cast<double>(c.scale(c.in(0))) * static_cast<double>(1 << (31 - 4));
  const double f = std::frexp(real, &q.m.shift);
  q.m.value = static_cast<int32_t>(static_cast<int64_t>(std::round(f * static_cast<double>(int64_t{1} << 31))));
  const double radius = 1.0 * ((1 << 4) - 1) * static_cast<double>(int64_t{1} << (31 - 4)) /
                        static_cast<double>(int64_t{1} << q.m.shift);
  q.radius = static_cast<int32_t>(std::floor(radius));
  return q;
}

// int16 LOGISTIC and TANH as TFLM prepares them: zero points 0, an output scale of 2^-15.
tflm::Int16SigmoidInput int16_sigmoid_prepare(const KernelContext& c, bool tanh) {
  const Tensor &x = c.in(0), &y = c.out(0);
  c.require(c.zero_point(x) == 0 && c.zero_point(y) == 0, "int16 logistic and tanh need zero points 0 (TFLM)");
  int log2_out = 0;
  c.require(tflm::checked_log2(c.scale(y), &log2_out) && log2_out == -15, "int16 logistic and tanh need output scale 2^-15 (TFLM)");
  const std::optional<tflm::Int16SigmoidInput> in = tflm::int16_sigmoid_input(c.scale(x), tanh);
  if (!in) c.unsupported("int16 logistic and tanh: input scale " + std::to_string(c.scale(x)) + " is out of TFLM's range");
  return *in;
}

bool int16_io(const KernelContext& c) { return c.is(c.in(0), DType::kInt16) && c.is(c.out(0), DType::kInt16); }

}  // namespace

ModelKernel prepare_add(const KernelContext& c) { return prepare_binary(c, Binary::kAdd); }
ModelKernel prepare_sub(const KernelContext& c) { return prepare_binary(c, Binary::kSub); }
ModelKernel prepare_mul(const KernelContext& c) { return prepare_binary(c, Binary::kMul); }

namespace {

// TFLM's ReluQuantized over T: output offset + multiplier x (x - input zero point), clamped at real 0.
template <class T>
ModelKernel relu_quantized(const KernelContext& c, const char* name, int64_t n) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const tflm::Multiplier m = tflm::quantize_multiplier(static_cast<double>(c.scale(xt) / c.scale(yt)));
  const int32_t in_zp = c.zero_point(xt), out_zp = c.zero_point(yt);
  constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  const int32_t lo = std::max(kMin, out_zp + static_cast<int32_t>(std::round(0.0f / c.scale(yt))));
  return map_each<T>(name, n, [=](T x) {
    return static_cast<T>(std::clamp(wrapping_add(out_zp, tflm::multiply_by_quantized_multiplier(x - in_zp, m)), lo, kMax));
  });
}

// TFLM's Relu6Quantized over T: a clamp in the input's quantization to [zero point, quantized 6.0].
template <class T>
ModelKernel relu6_quantized(const KernelContext& c, const char* name, int64_t n) {
  const Tensor& xt = c.in(0);
  const int32_t zero = c.zero_point(xt);
  constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  const int32_t six = std::clamp(static_cast<int32_t>(std::round(6.0f / c.scale(xt))) + zero, kMin, kMax);
  return map_each<T>(name, n, [=](T x) { return static_cast<T>(std::clamp<int32_t>(x, zero, six)); });
}

}  // namespace

ModelKernel prepare_relu(const KernelContext& c) {
  const int64_t n = unary_count(c);
  if (int8_io(c)) return relu_quantized<int8_t>(c, "relu int8", n);
  if (int16_io(c)) {
    // TFLM's ReluPrepare checks the int16 zero points.
    c.require(c.zero_point(c.in(0)) == 0 && c.zero_point(c.out(0)) == 0, "int16 relu needs zero points 0 (TFLM)");
    return relu_quantized<int16_t>(c, "relu int16", n);
  }
  c.require(float_io(c), "relu runs int8, int16 or float32");
  return map_each<float>("relu float32", n, [](float x) { return x < 0.f ? 0.f : x; });
}

ModelKernel prepare_relu6(const KernelContext& c) {
  const int64_t n = unary_count(c);
  if (int8_io(c)) return relu6_quantized<int8_t>(c, "relu6 int8", n);
  if (int16_io(c)) return relu6_quantized<int16_t>(c, "relu6 int16", n);
  c.require(float_io(c), "relu6 runs int8, int16 or float32");
  return map_each<float>("relu6 float32", n, [](float x) { return x > 6.f ? 6.f : x < 0.f ? 0.f : x; });
}

namespace {

// TFLM's QuantizeLeakyRelu over T (int8, int16): both multipliers from float products, widened to
// double; the result clamped to T.
template <class T>
ModelKernel leaky_relu_quantized(const KernelContext& c, const char* name, int64_t n, float alpha) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const float sx = c.scale(xt), sy = c.scale(yt);
  const tflm::Multiplier identity = tflm::quantize_multiplier(static_cast<double>(sx / sy));
  const tflm::Multiplier slope = signed_multiplier(static_cast<double>(sx * alpha / sy));
  const int32_t in_zp = c.zero_point(xt), out_zp = c.zero_point(yt);
  constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  return map_each<T>(name, n, [=](T x) {
    const int32_t v = x - in_zp;
    const int32_t r = out_zp + (v >= 0 ? tflm::multiply_by_quantized_multiplier(v, identity) : multiply_signed(v, slope));
    return static_cast<T>(std::clamp(r, kMin, kMax));
  });
}

}  // namespace

ModelKernel prepare_leaky_relu(const KernelContext& c) {
  const int64_t n = unary_count(c);
  const float alpha = c.attr_float("alpha_f32", 0.0f);  // a model without options: TFLite parses alpha 0
  if (int8_io(c)) return leaky_relu_quantized<int8_t>(c, "leaky_relu int8", n, alpha);
  if (int16_io(c)) return leaky_relu_quantized<int16_t>(c, "leaky_relu int16", n, alpha);
  c.require(float_io(c), "leaky_relu runs int8, int16 or float32");
  return map_each<float>("leaky_relu float32", n, [=](float x) { return x > 0 ? x : x * alpha; });
}

ModelKernel prepare_logistic(const KernelContext& c) {
  const int64_t n = unary_count(c);
  if (int8_io(c)) {
    c.require(c.zero_point(c.out(0)) == -128, "int8 logistic needs output zero point -128 (TFLM)");
    const Q4Input q = q4_input(c);
    return map_each<int8_t>("logistic int8", n, [=](int8_t x) -> int8_t {
      const int32_t v = x - q.zero_point;
      if (v <= -q.radius) return -128;
      if (v >= q.radius) return 127;
      const int32_t q0 = tflm::fp_logistic(tflm::multiply_by_quantized_multiplier(v, q.m), 4);
      return clamp8(tflm::rounding_divide_by_pot(q0, 31 - 8) - 128);
    });
  }
  if (int16_io(c)) {
    const tflm::Int16SigmoidInput in = int16_sigmoid_prepare(c, false);
    return map_each<int16_t>("logistic int16", n, [=](int16_t x) { return tflm::logistic_int16(x, in); });
  }
  c.require(float_io(c), "logistic runs int8, int16 or float32");
  return map_each<float>("logistic float32", n, [](float x) {
    if (x > 16.619047164916992188f) return 1.0f;
    if (x < -9.f) return std::exp(x);
    return 1.f / (1.f + std::exp(-x));
  });
}

ModelKernel prepare_tanh(const KernelContext& c) {
  const int64_t n = unary_count(c);
  if (int8_io(c)) {
    const Q4Input q = q4_input(c);
    return map_each<int8_t>("tanh int8", n, [=](int8_t x) -> int8_t {
      const int32_t v = x - q.zero_point;
      if (v <= -q.radius) return -128;
      if (v >= q.radius) return 127;
      const int32_t q0 = tflm::fp_tanh(tflm::multiply_by_quantized_multiplier(v, q.m), 4);
      return clamp8(tflm::rounding_divide_by_pot(q0, 31 - 7));
    });
  }
  if (int16_io(c)) {
    const tflm::Int16SigmoidInput in = int16_sigmoid_prepare(c, true);
    return map_each<int16_t>("tanh int16", n, [=](int16_t x) { return tflm::tanh_int16(x, in); });
  }
  c.require(float_io(c), "tanh runs int8, int16 or float32");
  return map_each<float>("tanh float32", n, [](float x) { return std::tanh(x); });
}

namespace {

// The kernel name of a QUANTIZE from `in` to `out` (a string literal, as reports keep the pointer).
const char* quantize_name(DType in, DType out) {
  static const char* const names[5][4] = {
      {"quantize float32->int8", "quantize float32->int16", "quantize float32->int32", "quantize float32->uint8"},
      {"quantize int8->int8", "quantize int8->int16", "quantize int8->int32", "quantize int8->uint8"},
      {"quantize int16->int8", "quantize int16->int16", "quantize int16->int32", "quantize int16->uint8"},
      {"quantize int32->int8", "quantize int32->int16", "quantize int32->int32", "quantize int32->uint8"},
      {"quantize uint8->int8", "quantize uint8->int16", "quantize uint8->int32", "quantize uint8->uint8"}};
  const int row = in == DType::kFloat32 ? 0 : in == DType::kInt8 ? 1 : in == DType::kInt16 ? 2 : in == DType::kUInt8 ? 4 : 3;
  const int col = out == DType::kInt8 ? 0 : out == DType::kInt16 ? 1 : out == DType::kInt32 ? 2 : 3;
  return names[row][col];
}

// QUANTIZE to an integer type: from float32 (round(x / scale) + zero point) or requantising an
// integer input (TFLM's Requantize: multiplier in_scale / out_scale on x - input zero point).
// The pairs are TFLM's: float32 to int8/int16; int8 to int8, uint8, int16 or int32; int16 to
// int8, int16 or int32; int32 to int8 or int16; uint8 to int8 (a camera's or microphone's uint8
// input; TFLM's fast path for a pure 128 shift XORs the sign bit, which is what this gives too).
template <class Out>
ModelKernel quantize_to(const KernelContext& c, int64_t n) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const float out_scale = c.scale(yt);
  const int32_t out_zp = c.zero_point(yt);
  constexpr int32_t lo = std::numeric_limits<Out>::min(), hi = std::numeric_limits<Out>::max();
  constexpr bool out32 = sizeof(Out) == 4;
  constexpr bool out_uint8 = std::is_same_v<Out, uint8_t>;
  ModelKernel k(quantize_name(xt.dtype.value_or(DType::kInt32), *yt.dtype));
  k.work.alu_ops = n;
  if (c.is(xt, DType::kFloat32)) {
    c.require(!out32 && !out_uint8, out32 ? "quantize float32->int32 is not a TFLM quantize (float32 runs to int8 or int16)" : "quantize float32->uint8 is not a TFLM quantize (float32 runs to int8 or int16)");
    k.run = [=](const Operand* in, const Operand* out) {
      const float* x = as<float>(in[0]);
      Out* y = as_mut<Out>(out[0]);
      // Clamped in float before the cast: TFLM casts first, which is undefined for a float beyond
      // int32 (a random or corrupt input); in range both give the same value. NaN gives the zero point.
      const float below = static_cast<float>(lo - out_zp), above = static_cast<float>(hi - out_zp);
      for (int64_t i = 0; i < n; ++i) {
        const float r = tflm::round_half_away(x[i] / out_scale);
        y[i] = static_cast<Out>(static_cast<int32_t>(std::isnan(r) ? 0.0f : std::clamp(r, below, above)) + out_zp);
      }
    };
    return k;
  }
  const tflm::Multiplier m = tflm::quantize_multiplier(static_cast<double>(c.scale(xt)) / static_cast<double>(out_scale));
  const int32_t in_zp = c.zero_point(xt);
  // Sums in int64: an int32 output's zero point could overflow int32 where TFLM's sum is undefined.
  auto requantize = [=](auto* x, Out* y) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = int64_t{tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(x[i] - int64_t{in_zp}), m)} + out_zp;
      y[i] = static_cast<Out>(std::clamp<int64_t>(v, lo, hi));
    }
  };
  if (c.is(xt, DType::kInt8)) {
    k.run = [=](const Operand* in, const Operand* out) { requantize(as<int8_t>(in[0]), as_mut<Out>(out[0])); };
    return k;
  }
  c.require(!out_uint8, "quantize to uint8 runs from int8 only (TFLM)");
  if (c.is(xt, DType::kUInt8)) {
    c.require(std::is_same_v<Out, int8_t>, "quantize from uint8 runs to int8 only (TFLM)");
    k.run = [=](const Operand* in, const Operand* out) { requantize(as<uint8_t>(in[0]), as_mut<Out>(out[0])); };
    return k;
  }
  if (c.is(xt, DType::kInt16)) {
    k.run = [=](const Operand* in, const Operand* out) { requantize(as<int16_t>(in[0]), as_mut<Out>(out[0])); };
    return k;
  }
  c.require(c.is(xt, DType::kInt32), "quantize runs from float32, int8, uint8, int16 or int32");
  c.require(!out32, "quantize int32->int32 is not a TFLM quantize (int32 runs to int8 or int16)");
  k.run = [=](const Operand* in, const Operand* out) { requantize(as<int32_t>(in[0]), as_mut<Out>(out[0])); };
  return k;
}

}  // namespace

ModelKernel prepare_quantize(const KernelContext& c) {
  const int64_t n = unary_count(c);
  if (c.is(c.out(0), DType::kInt16)) return quantize_to<int16_t>(c, n);
  if (c.is(c.out(0), DType::kInt32)) return quantize_to<int32_t>(c, n);
  if (c.is(c.out(0), DType::kUInt8)) return quantize_to<uint8_t>(c, n);
  c.require(c.is(c.out(0), DType::kInt8), "quantize runs to int8, uint8, int16 or int32");
  return quantize_to<int8_t>(c, n);
}

ModelKernel prepare_dequantize(const KernelContext& c) {
  const int64_t n = unary_count(c);
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(c.is(yt, DType::kFloat32), "dequantize runs to float32 only");
  ModelKernel k;
  k.work.alu_ops = n;
  if (c.is(xt, DType::kFloat16)) {
    k.name = "dequantize float16->float32";
    k.run = [=](const Operand* in, const Operand* out) {
      const uint16_t* x = as<uint16_t>(in[0]);
      float* y = as_mut<float>(out[0]);
      for (int64_t i = 0; i < n; ++i) y[i] = float16_to_float32(x[i]);
    };
    return k;
  }
  // TFLM's Dequantize: (x - zero point) * scale in double, then rounded once to float.
  const double scale = c.scale(xt);
  const int32_t zp = c.zero_point(xt);
  auto dequantize = [=](auto* x, float* y) {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(scale * (int32_t{x[i]} - zp));
  };
  if (c.is(xt, DType::kUInt8)) {
    k.name = "dequantize uint8->float32";
    k.run = [=](const Operand* in, const Operand* out) { dequantize(as<uint8_t>(in[0]), as_mut<float>(out[0])); };
    return k;
  }
  if (c.is(xt, DType::kInt16)) {
    k.name = "dequantize int16->float32";
    k.run = [=](const Operand* in, const Operand* out) { dequantize(as<int16_t>(in[0]), as_mut<float>(out[0])); };
    return k;
  }
  c.require(c.is(xt, DType::kInt8), "dequantize runs from int8, uint8, int16 or float16");
  k.name = "dequantize int8->float32";
  k.run = [=](const Operand* in, const Operand* out) { dequantize(as<int8_t>(in[0]), as_mut<float>(out[0])); };
  return k;
}

// ELU: x for x >= 0, e^x - 1 below. int8 through TFLM's 256-entry table, built in float as its
// Prepare builds it (dequantize, transform, times 1 / output scale, rounded, plus the zero point).
ModelKernel prepare_elu(const KernelContext& c) {
  const int64_t n = unary_count(c);
  if (int8_io(c)) {
    const Tensor &xt = c.in(0), &yt = c.out(0);
    const float sx = c.scale(xt), inverse_sy = 1.0f / c.scale(yt);
    const int32_t zx = c.zero_point(xt), zy = c.zero_point(yt);
    std::array<int8_t, 256> table{};
    for (int32_t v = -128; v <= 127; ++v) {
      const float real = sx * static_cast<float>(v - zx);
      const float elu = real < 0.0f ? std::exp(real) - 1.0f : real;
      const float rescaled = tflm::round_half_away(elu * inverse_sy);
      table[static_cast<uint8_t>(v)] = clamp8(static_cast<int32_t>(rescaled + static_cast<float>(zy)));
    }
    return map_each<int8_t>("elu int8", n, [=](int8_t x) { return table[static_cast<uint8_t>(x)]; });
  }
  c.require(float_io(c), "elu runs int8 or float32 (TFLM)");
  return map_each<float>("elu float32", n, [](float x) { return x < 0.0f ? std::expm1(x) : x; });
}

}  // namespace arenaplan::sim
