// Model kernels of TFLM's elementwise math: ABS, NEG, EXP, LOG, SQRT, RSQRT, SQUARE, SIN, COS,
// FLOOR, CEIL, ROUND, LOGICAL_NOT (unary), SQUARED_DIFFERENCE, DIV, LOGICAL_AND, LOGICAL_OR and
// the six comparisons (binary, broadcast);
// float32 everywhere TFLM has it, the integer paths with TFLM's multipliers and rounding, every
// other type refused.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

template <class T>
T clamp_to(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

int64_t same_count(const KernelContext& c) {
  const int64_t n = unary_count(c);
  c.require(c.in(0).dtype == c.out(0).dtype, "input and output types differ (TFLM)");
  return n;
}

// SIN, COS, LOG, SQRT, SQUARE, EXP, NEG: float32 only in TFLM.
template <class F>
ModelKernel float_only(const KernelContext& c, const char* name, const char* refusal, F f) {
  const int64_t n = same_count(c);
  c.require(c.is(c.in(0), DType::kFloat32), refusal);
  return map_each<float>(name, n, f);
}

// The per-tensor quantization of an int16 tensor TFLM requires to have zero point 0.
void require_symmetric(const KernelContext& c, const Tensor& t, const char* op) {
  c.require(c.zero_point(t) == 0, std::string(op) + " int16 needs zero points 0 (TFLM)");
}

}  // namespace

ModelKernel prepare_neg(const KernelContext& c) {
  return float_only(c, "neg float32", "neg runs float32 only (TFLM)", [](float x) { return -x; });
}
ModelKernel prepare_exp(const KernelContext& c) {
  return float_only(c, "exp float32", "exp runs float32 only (TFLM)", [](float x) { return std::exp(x); });
}
ModelKernel prepare_log(const KernelContext& c) {
  return float_only(c, "log float32", "log runs float32 only (TFLM)", [](float x) { return std::log(x); });
}
ModelKernel prepare_sqrt(const KernelContext& c) {
  return float_only(c, "sqrt float32", "sqrt runs float32 only (TFLM)", [](float x) { return std::sqrt(x); });
}
ModelKernel prepare_square(const KernelContext& c) {
  return float_only(c, "square float32", "square runs float32 only (TFLM)", [](float x) { return x * x; });
}
ModelKernel prepare_sin(const KernelContext& c) {
  return float_only(c, "sin float32", "sin runs float32 only (TFLM)", [](float x) { return std::sin(x); });
}
ModelKernel prepare_cos(const KernelContext& c) {
  return float_only(c, "cos float32", "cos runs float32 only (TFLM)", [](float x) { return std::cos(x); });
}

ModelKernel prepare_floor(const KernelContext& c) {
  return float_only(c, "floor float32", "floor runs float32 only (TFLM)", [](float x) { return std::floor(x); });
}
ModelKernel prepare_ceil(const KernelContext& c) {
  return float_only(c, "ceil float32", "ceil runs float32 only (TFLM)", [](float x) { return std::ceil(x); });
}
// TFLM's RoundToNearest: halves to the even neighbour.
ModelKernel prepare_round(const KernelContext& c) {
  return float_only(c, "round float32", "round runs float32 only (TFLM)", [](float x) {
    const float lo = std::floor(x), diff = x - lo;
    if (diff < 0.5f || (diff == 0.5f && static_cast<int64_t>(lo) % 2 == 0)) return lo;
    return lo + 1.0f;
  });
}

ModelKernel prepare_logical_not(const KernelContext& c) {
  const int64_t n = same_count(c);
  c.require(c.is(c.in(0), DType::kBool), "logical_not runs bool only (TFLM)");
  return map_each<uint8_t>("logical_not bool", n, [](uint8_t x) { return static_cast<uint8_t>(x == 0); });
}

ModelKernel prepare_abs(const KernelContext& c) {
  const int64_t n = same_count(c);
  const Tensor &xt = c.in(0), &yt = c.out(0);
  if (c.is(xt, DType::kFloat32)) return map_each<float>("abs float32", n, [](float x) { return std::fabs(x); });
  c.require(c.is(xt, DType::kInt8) || c.is(xt, DType::kInt16), "abs runs float32, int8 or int16 (TFLM)");
  const bool int8 = c.is(xt, DType::kInt8);
  if (!int8 && !xt.quant)  // TFLM's plain integer abs of an unquantized int16 tensor
    return map_each<int16_t>("abs int16", n, [](int16_t x) { return static_cast<int16_t>(std::abs(int32_t{x})); });
  if (!int8) require_symmetric(c, xt, "abs"), require_symmetric(c, yt, "abs");
  const int32_t in_zp = c.zero_point(xt), out_zp = c.zero_point(yt);
  const bool rescale = c.scale(xt) != c.scale(yt);
  const tflm::Multiplier m = tflm::quantize_multiplier(static_cast<double>(c.scale(xt) / c.scale(yt)));
  auto f = [=](int32_t x) -> int64_t {
    const int32_t v = std::abs(x - in_zp);
    return int64_t{rescale ? tflm::multiply_by_quantized_multiplier(v, m) : v} + out_zp;
  };
  if (int8) return map_each<int8_t>("abs int8", n, [=](int8_t x) { return clamp_to<int8_t>(f(x)); });
  return map_each<int16_t>("abs int16", n, [=](int16_t x) { return clamp_to<int16_t>(f(x)); });
}

ModelKernel prepare_rsqrt(const KernelContext& c) {
  const int64_t n = same_count(c);
  const Tensor &xt = c.in(0), &yt = c.out(0);
  if (c.is(xt, DType::kFloat32)) return map_each<float>("rsqrt float32", n, [](float x) { return 1.f / std::sqrt(x); });
  c.require(c.is(xt, DType::kInt8), "rsqrt runs float32 or int8 (TFLM)");
  const int32_t in_zp = c.zero_point(xt), out_zp = c.zero_point(yt);
  const tflm::Multiplier m =
      tflm::quantize_multiplier(1. / static_cast<double>(std::sqrt(c.scale(xt)) * c.scale(yt)));
  constexpr int kShift = 20;
  // An input below the zero point fails TFLM's Invoke; it runs here as if it were zero.
  return map_each<int8_t>("rsqrt int8", n, [=](int8_t x) -> int8_t {
    const int32_t v = x - in_zp;
    if (v <= 0) return 127;
    const tflm::Multiplier inv = tflm::inv_sqrt_multiplier(v);
    const int32_t data = tflm::multiply_by_quantized_multiplier(1, {inv.value, inv.shift + kShift});
    return clamp_to<int8_t>(int64_t{tflm::multiply_by_quantized_multiplier(data, {m.value, m.shift - kShift})} + out_zp);
  });
}

namespace {

// A binary op's two inputs (one listed once when it reads a tensor twice) and broadcast.
struct BinaryShapes {
  const Tensor *a, *b, *y;
  bool same_input;
  Broadcast2 bc;
};
BinaryShapes binary_shapes(const KernelContext& c, size_t max_broadcast_rank, const char* op) {
  BinaryShapes s{&c.in(0), c.inputs() > 1 ? &c.in(1) : &c.in(0), &c.out(0), c.inputs() == 1, {}};
  s.bc = make_broadcast(c, c.dims(*s.a), c.dims(*s.b), c.dims(*s.y));
  c.require(s.bc.same || s.bc.out_dims.size() <= max_broadcast_rank,
            std::string(op) + " broadcasts up to " + std::to_string(max_broadcast_rank) + " dims (TFLM)");
  c.require(s.a->dtype == s.b->dtype && s.a->dtype == s.y->dtype, std::string(op) + " inputs and output types differ");
  return s;
}

template <class T, class F>
ModelKernel each_pair(const char* name, const BinaryShapes& s, F f) {
  ModelKernel k{name};
  const Broadcast2 bc = s.bc;
  const bool same = s.same_input;
  k.work.alu_ops = 1;
  for (int64_t d : bc.out_dims) k.work.alu_ops *= d;
  k.run = [=](const Operand* in, const Operand* out) {
    const T* a = as<T>(in[0]);
    const T* b = as<T>(same ? in[0] : in[1]);
    T* y = as_mut<T>(out[0]);
    bc.each([&](int64_t i, int64_t ia, int64_t ib) { y[i] = f(a[ia], b[ib]); });
  };
  return k;
}

}  // namespace

ModelKernel prepare_squared_difference(const KernelContext& c) {
  const BinaryShapes s = binary_shapes(c, 4, "squared_difference");
  if (c.is(*s.y, DType::kFloat32))
    return each_pair<float>("squared_difference float32", s, [](float a, float b) { return (a - b) * (a - b); });
  if (c.is(*s.y, DType::kInt32))
    return each_pair<int32_t>("squared_difference int32", s, [](int32_t a, int32_t b) {
      const uint32_t d = static_cast<uint32_t>(a) - static_cast<uint32_t>(b);  // wraps as the device does
      return static_cast<int32_t>(d * d);
    });
  const bool int8 = c.is(*s.y, DType::kInt8);
  c.require(int8 || c.is(*s.y, DType::kInt16), "squared_difference runs float32, int32, int8 or int16 (TFLM)");
  if (!int8) {
    for (const Tensor* t : {s.a, s.b, s.y}) require_symmetric(c, *t, "squared_difference");
  }
  // TFLM's PrepareQuantized: both inputs onto twice the larger scale, left_shift 7 (int8) or 0.
  const int left_shift = int8 ? 7 : 0;
  const double twice_max = 2.0 * static_cast<double>(std::max(c.scale(*s.a), c.scale(*s.b)));
  const tflm::Multiplier ma = tflm::quantize_multiplier(static_cast<double>(c.scale(*s.a)) / twice_max);
  const tflm::Multiplier mb = tflm::quantize_multiplier(static_cast<double>(c.scale(*s.b)) / twice_max);
  const tflm::Multiplier my = tflm::quantize_multiplier(
      twice_max * twice_max / static_cast<double>(static_cast<float>(1 << (left_shift * 2)) * c.scale(*s.y)));
  const int32_t a_off = -c.zero_point(*s.a), b_off = -c.zero_point(*s.b), y_off = c.zero_point(*s.y);
  auto f = [=](int32_t a, int32_t b) -> int64_t {
    const int32_t sa = tflm::multiply_by_quantized_multiplier_smaller_than_one((a + a_off) * (1 << left_shift), ma);
    const int32_t sb = tflm::multiply_by_quantized_multiplier_smaller_than_one((b + b_off) * (1 << left_shift), mb);
    const uint32_t d = static_cast<uint32_t>(sa) - static_cast<uint32_t>(sb);
    return int64_t{tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(d * d), my)} + y_off;
  };
  if (int8) return each_pair<int8_t>("squared_difference int8", s, [=](int8_t a, int8_t b) { return clamp_to<int8_t>(f(a, b)); });
  return each_pair<int16_t>("squared_difference int16", s, [=](int16_t a, int16_t b) { return clamp_to<int16_t>(f(a, b)); });
}

namespace {

int count_leading_sign_bits(int32_t x) { return x == 0 ? 31 : __builtin_clrsb(x); }

}  // namespace

ModelKernel prepare_div(const KernelContext& c) {
  const BinaryShapes s = binary_shapes(c, 5, "div");
  if (c.is(*s.y, DType::kFloat32)) {
    float lo, hi;
    c.activation_range_float(lo, hi);
    return each_pair<float>("div float32", s, [=](float a, float b) { return std::min(std::max(a / b, lo), hi); });
  }
  if (c.is(*s.y, DType::kInt32)) {
    c.require(!s.a->quant && !s.b->quant, "div int32 runs unquantized tensors only (TFLM)");
    int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    switch (c.attr("activation", 0)) {
      case 0: break;
      case 1: lo = 0; break;
      case 2: lo = -1, hi = 1; break;
      case 3: lo = 0, hi = 6; break;
      default: c.unsupported("fused activation " + std::to_string(c.attr("activation", 0)) + " is not supported");
    }
    // Cortex-M's SDIV: a zero divisor gives 0, INT32_MIN / -1 gives INT32_MIN (C++ leaves both undefined).
    return each_pair<int32_t>("div int32", s, [=](int32_t a, int32_t b) {
      int32_t q = b == 0 ? 0 : (b == -1 ? static_cast<int32_t>(0u - static_cast<uint32_t>(a)) : a / b);
      return std::clamp(q, lo, hi);
    });
  }
  c.require(c.is(*s.y, DType::kInt8), "div runs float32, int32 or int8 (TFLM)");
  int32_t lo, hi;
  c.activation_range_int8(*s.y, lo, hi);
  const tflm::Multiplier m =
      tflm::quantize_multiplier(static_cast<double>(c.scale(*s.a) / (c.scale(*s.b) * c.scale(*s.y))));
  const int32_t a_off = -c.zero_point(*s.a), b_off = -c.zero_point(*s.b), y_off = c.zero_point(*s.y);
  // TFLM's DivElementwise: the quotient through the divisor's Q0.31 reciprocal.
  return each_pair<int8_t>("div int8", s, [=](int8_t a8, int8_t b8) -> int8_t {
    int32_t a = a8 + a_off, b = b8 + b_off;
    if (b == 0) return static_cast<int8_t>(std::clamp(y_off, lo, hi));  // TFLM only DCHECKs a zero divisor
    if (b < 0) a = -a, b = -b;
    int recip_shift;
    const int32_t inv = tflm::get_reciprocal(b, 31, &recip_shift);
    const int headroom = count_leading_sign_bits(a);
    const int32_t quotient =
        tflm::saturating_rounding_doubling_high_mul(static_cast<int32_t>(static_cast<uint32_t>(a) << headroom), inv);
    // A tiny quotient can ask for a right shift beyond 31, where gemmlowp asserts (and is
    // undefined without asserts); 31 gives the rounded value, 0.
    const int total_shift = m.shift - recip_shift - headroom;
    const int32_t v = y_off + tflm::rounding_divide_by_pot(tflm::saturating_rounding_doubling_high_mul(quotient, m.value),
                                                           std::min(-total_shift, 31));
    return static_cast<int8_t>(std::clamp(v, lo, hi));
  });
}

namespace {

enum class Compare { kEqual, kNotEqual, kGreater, kGreaterEqual, kLess, kLessEqual };

template <class T>
bool compare(Compare op, T a, T b) {
  switch (op) {
    case Compare::kEqual: return a == b;
    case Compare::kNotEqual: return a != b;
    case Compare::kGreater: return a > b;
    case Compare::kGreaterEqual: return a >= b;
    case Compare::kLess: return a < b;
    default: return a <= b;
  }
}

template <class T, class F>
ModelKernel compare_each(const char* name, const Broadcast2& bc, bool same, F f) {
  ModelKernel k{name};
  k.work.alu_ops = 1;
  for (int64_t d : bc.out_dims) k.work.alu_ops *= d;
  k.run = [=](const Operand* in, const Operand* out) {
    const T* a = as<T>(in[0]);
    const T* b = as<T>(same ? in[0] : in[1]);
    uint8_t* y = out[0].data;
    bc.each([&](int64_t i, int64_t ia, int64_t ib) { y[i] = f(a[ia], b[ib]) ? 1 : 0; });
  };
  return k;
}

// One scale's TFLM multiplier for a comparison: QuantizeMultiplierSmallerThanOneExp of the scale
// itself, which TFLM aborts on for a scale of 1 or more.
tflm::Multiplier comparison_multiplier(const KernelContext& c, const Tensor& t) {
  c.require(c.scale(t) < 1.0f, "int8 comparisons need scales below 1 (TFLM aborts otherwise)");
  return tflm::quantize_multiplier(static_cast<double>(c.scale(t)));
}

ModelKernel prepare_comparison(const KernelContext& c, Compare op, const char* kind) {
  c.require(c.outputs() == 1 && c.is(c.out(0), DType::kBool), std::string(kind) + " writes a bool tensor");
  const Tensor &at = c.in(0), &bt = c.inputs() > 1 ? c.in(1) : c.in(0);
  const bool same = c.inputs() == 1;
  c.require(at.dtype == bt.dtype, std::string(kind) + " inputs differ in type");
  const Broadcast2 bc = make_broadcast(c, c.dims(at), c.dims(bt), c.dims(c.out(0)));
  c.require(bc.same || bc.out_dims.size() <= 4, std::string(kind) + " broadcasts up to 4 dims (TFLM)");
  const bool equality = op == Compare::kEqual || op == Compare::kNotEqual;
  auto plain = [op](auto a, auto b) { return compare(op, a, b); };
  switch (at.dtype.value_or(DType::kUInt8)) {
    case DType::kFloat32: return compare_each<float>(kind, bc, same, plain);
    case DType::kInt32: return compare_each<int32_t>(kind, bc, same, plain);
    case DType::kInt64: return compare_each<int64_t>(kind, bc, same, plain);
    case DType::kBool:
      c.require(equality, std::string(kind) + " does not run bool (TFLM)");
      return compare_each<uint8_t>(kind, bc, same, [op](uint8_t a, uint8_t b) { return compare(op, a != 0, b != 0); });
    case DType::kInt8: {
      // TFLM's ComparisonWithScaling: both sides shifted left by 8, then scaled by their own scale.
      const int32_t a_off = -c.zero_point(at), b_off = -c.zero_point(bt);
      const tflm::Multiplier ma = comparison_multiplier(c, at), mb = comparison_multiplier(c, bt);
      return compare_each<int8_t>(kind, bc, same, [=](int8_t a, int8_t b) {
        const int32_t sa = tflm::multiply_by_quantized_multiplier_smaller_than_one((a + a_off) * (1 << 8), ma);
        const int32_t sb = tflm::multiply_by_quantized_multiplier_smaller_than_one((b + b_off) * (1 << 8), mb);
        return compare(op, sa, sb);
      });
    }
    case DType::kInt16:
      c.unsupported(std::string(kind) + " int16: TFLM's Prepare leaves the scaling it uses unset");
    default:
      c.unsupported(std::string(kind) + " runs float32, int32, int64, int8" + (equality ? " or bool" : "") + " (TFLM)");
  }
}

}  // namespace

namespace {

ModelKernel prepare_logical(const KernelContext& c, bool conjunction) {
  const char* kind = conjunction ? "logical_and" : "logical_or";
  const BinaryShapes s = binary_shapes(c, 4, kind);
  c.require(c.is(*s.y, DType::kBool), std::string(kind) + " runs bool only (TFLM)");
  return each_pair<uint8_t>(conjunction ? "logical_and bool" : "logical_or bool", s, [conjunction](uint8_t a, uint8_t b) {
    return static_cast<uint8_t>(conjunction ? (a != 0 && b != 0) : (a != 0 || b != 0));
  });
}

}  // namespace

ModelKernel prepare_logical_and(const KernelContext& c) { return prepare_logical(c, true); }
ModelKernel prepare_logical_or(const KernelContext& c) { return prepare_logical(c, false); }
ModelKernel prepare_equal(const KernelContext& c) { return prepare_comparison(c, Compare::kEqual, "equal"); }
ModelKernel prepare_not_equal(const KernelContext& c) { return prepare_comparison(c, Compare::kNotEqual, "not_equal"); }
ModelKernel prepare_greater(const KernelContext& c) { return prepare_comparison(c, Compare::kGreater, "greater"); }
ModelKernel prepare_greater_equal(const KernelContext& c) {
  return prepare_comparison(c, Compare::kGreaterEqual, "greater_equal");
}
ModelKernel prepare_less(const KernelContext& c) { return prepare_comparison(c, Compare::kLess, "less"); }
ModelKernel prepare_less_equal(const KernelContext& c) { return prepare_comparison(c, Compare::kLessEqual, "less_equal"); }

// FLOOR_DIV and FLOOR_MOD, float32 only as in TFLM (4-d broadcast): the quotient divided in
// double and floored; the remainder of fmod moved onto the divisor's sign. A zero divisor fails
// FLOOR_DIV's Invoke in TFLM; here it gives the IEEE quotient's floor (an infinity or NaN).
ModelKernel prepare_floor_div(const KernelContext& c) {
  const BinaryShapes s = binary_shapes(c, 4, "floor_div");
  c.require(c.is(*s.y, DType::kFloat32), "floor_div runs float32 only (TFLM)");
  return each_pair<float>("floor_div float32", s, [](float a, float b) {
    return static_cast<float>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
  });
}

ModelKernel prepare_floor_mod(const KernelContext& c) {
  const BinaryShapes s = binary_shapes(c, 4, "floor_mod");
  c.require(c.is(*s.y, DType::kFloat32), "floor_mod runs float32 only (TFLM)");
  return each_pair<float>("floor_mod float32", s, [](float a, float b) {
    const float r = std::fmod(a, b);
    return r != 0 && ((b < 0) != (r < 0)) ? r + b : r;
  });
}

}  // namespace arenaplan::sim
