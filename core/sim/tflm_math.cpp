#include "core/sim/detail/tflm_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace arenaplan::sim::tflm {

Multiplier quantize_multiplier(double real) {
  Multiplier m;
  if (real == 0.0) return m;
  if (!std::isfinite(real)) {  // a ratio of extreme scales: saturate (TFLM's arithmetic is undefined there)
    m.value = std::numeric_limits<int32_t>::max();
    m.shift = 31;
    return m;
  }
  int shift = 0;
  const double q = std::frexp(real, &shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    fixed = 0;
  }
  m.value = static_cast<int32_t>(fixed);
  m.shift = shift;
  return m;
}

int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));  // division truncates toward zero
}

int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiply_by_quantized_multiplier(int32_t x, Multiplier m) {
  const int left = std::min(m.shift > 0 ? m.shift : 0, 31);  // beyond 31 every bit is shifted out
  const int right = m.shift > 0 ? 0 : -m.shift;
  // x * 2^left wraps in int32 in TFLM too (only reachable with absurd scales).
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, m.value), right);
}

int32_t multiply_by_quantized_multiplier_smaller_than_one(int32_t x, Multiplier m) {
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, m.value), -m.shift);
}

int32_t multiply_by_quantized_multiplier_greater_than_one(int32_t x, Multiplier m) {
  return saturating_rounding_doubling_high_mul(static_cast<int32_t>(static_cast<uint32_t>(x) << std::clamp(m.shift, 0, 31)),
                                               m.value);
}

int32_t saturating_rounding_multiply_by_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

namespace {

inline int32_t mul(int32_t a, int32_t b) { return saturating_rounding_doubling_high_mul(a, b); }

// exp(a) for a in [-1/4, 0), Q0.31 in and out: Taylor series around -1/8 (gemmlowp's constants).
int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  const int32_t constant_term = 1895147668;  // exp(-1/8)
  const int32_t constant_1_over_3 = 715827883;
  const int32_t x = a + (1 << 28);  // + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
  const int32_t poly = saturating_rounding_multiply_by_pot(mul(x4_over_4 + x3, constant_1_over_3) + x2, -1);
  return constant_term + mul(constant_term, x + poly);
}

// Q2.29 arithmetic of one_over_one_plus_x: Newton-Raphson on 1 / (half the denominator).
int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = static_cast<int64_t>(a) + b;
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

// Newton-Raphson reciprocal of half_denominator (Q0.31 in [1/2, 1)): x ~ 1 / d, Q2.29.
int32_t reciprocal_q2(int32_t half_denominator) {
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  const int32_t one_q2 = 1 << 29;
  int32_t x = constant_48_over_17 + mul(half_denominator, constant_neg_32_over_17);
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = mul(half_denominator, x);  // Q0 * Q2 = Q2
    const int32_t one_minus = one_q2 - half_denominator_times_x;
    x = x + saturating_rounding_multiply_by_pot(mul(x, one_minus), 2);  // Q4 -> Q2
  }
  return x;
}

}  // namespace

int32_t fp_exp_on_negative_values(int32_t a, int integer_bits) {
  const int fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = int32_t{1} << (fractional_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = (a & mask) - one_quarter;
  int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      saturating_rounding_multiply_by_pot(a_mod_quarter_minus_one_quarter, integer_bits));
  const int32_t remainder = a_mod_quarter_minus_one_quarter - a;
  // Barrel shifter: multiply by exp(-2^k) for each bit k of the remainder.
  struct Step {
    int exponent;
    int32_t multiplier;
  };
  constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                             {2, 39332535},    {3, 720401},      {4, 242}};
  for (const Step& s : kSteps) {
    if (integer_bits <= s.exponent) continue;
    const int shift = fractional_bits + s.exponent;
    if (remainder & (int32_t{1} << shift)) result = mul(result, s.multiplier);
  }
  if (integer_bits > 5) {
    const int32_t clamp = -(int32_t{1} << (36 - integer_bits));  // -32.0
    if (a < clamp) result = 0;
  }
  if (a == 0) result = std::numeric_limits<int32_t>::max();  // One()
  return result;
}

int32_t fp_one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t half_denominator = rounding_half_sum(a, std::numeric_limits<int32_t>::max());
  const int32_t x = reciprocal_q2(half_denominator);
  // ExactMulByPot<-1> reinterprets Q2 as Q1; Rescale<0> then shifts left by one, saturating.
  return saturating_rounding_multiply_by_pot(x, 1);
}

int32_t fp_logistic(int32_t a, int integer_bits) {
  if (a == 0) return int32_t{1} << 30;  // one half
  const int32_t abs_a = a > 0 ? a : -a;
  const int32_t positive = fp_one_over_one_plus_x_for_x_in_0_1(fp_exp_on_negative_values(-abs_a, integer_bits));
  return a > 0 ? positive : std::numeric_limits<int32_t>::max() - positive;
}

int32_t fp_tanh(int32_t a, int integer_bits) {
  if (a == 0) return 0;
  const int32_t n = a < 0 ? a : -a;
  // exp(2n) via ExactMulByPot<1>: the same raw read with one more integer bit.
  const int32_t e = fp_exp_on_negative_values(n, integer_bits + 1);
  const int32_t half_denominator = rounding_half_sum(e, std::numeric_limits<int32_t>::max());
  const int32_t x = reciprocal_q2(half_denominator);
  const int32_t t = saturating_rounding_multiply_by_pot(x - (1 << 29), 2);  // (1 - e) / (1 + e), Q0
  return a < 0 ? -t : t;
}

int32_t get_reciprocal(int32_t x, int integer_bits, int* num_bits_over_unit) {
  const int headroom_plus_one = x == 0 ? 32 : __builtin_clz(static_cast<uint32_t>(x));
  *num_bits_over_unit = integer_bits - headroom_plus_one;
  const int32_t shifted_sum_minus_one =
      static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (static_cast<uint32_t>(1) << 31));
  return fp_one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
}

float round_half_away(float x) { return std::round(x); }

}  // namespace arenaplan::sim::tflm
