#include "core/sim/detail/tflm_math.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

int32_t multiply_by_quantized_multiplier(int64_t x, Multiplier m) {
  const int64_t reduced = m.value < 0x7FFF0000 ? (int64_t{m.value} + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = std::clamp(15 - m.shift, 1, 62);
  // Unsigned arithmetic: the product wraps as TFLM's (unsanitized) int64 multiply does.
  const uint64_t r = static_cast<uint64_t>(x) * static_cast<uint64_t>(reduced) + (uint64_t{1} << (total_shift - 1));
  return static_cast<int32_t>(static_cast<int64_t>(r) >> total_shift);
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

bool checked_log2(float x, int* log2_rounded) {
  const float l = std::log(x) * (1.0f / std::log(2.0f));
  const float r = round_half_away(l);
  *log2_rounded = static_cast<int>(r);
  return std::abs(l - r) < 1e-3f;
}

namespace {

// TFLM's sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h): sigmoid(i/24) in 0.16.
// Kept as data, not computed: 44 of its entries are one above round(65536 * sigmoid(i/24)), and
// the int16 kernels are bit-exact only with these very values.
constexpr uint16_t kSigmoidTable[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// The input on the table's scale (3 * 4096 steps per unit, so +-2^17 is +-10.7), rounded.
int32_t sigmoid_table_input(int16_t x, Int16SigmoidInput in) {
  int32_t m = in.multiplier;
  int shift = in.left_shift;
  if (m == 0) m = 3 << shift, shift = 0;  // the power-of-two scale
  const int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  return (int32_t{x} * m + round) >> shift;
}

// sigmoid(|v| / 2^(fraction_bits + ...)) interpolated between table entries, in 0.16 scaled by 2^bits.
uint32_t sigmoid_table_lookup(uint32_t abs_v, int bits, uint32_t saturated) {
  const uint32_t i = abs_v >> bits;
  if (i >= 255) return saturated;
  const uint32_t a = kSigmoidTable[i], b = kSigmoidTable[i + 1];
  return (a << bits) + (abs_v & ((1u << bits) - 1)) * (b - a);
}

}  // namespace

std::optional<Int16SigmoidInput> int16_sigmoid_input(float input_scale, bool tanh) {
  constexpr int kInputIntegerBits = 3;
  Int16SigmoidInput in;
  int log2_scale = 0;
  bool pot = checked_log2(input_scale, &log2_scale);
  in.left_shift = (15 - kInputIntegerBits) + log2_scale;
  pot = pot && (in.left_shift == 0 || (tanh && in.left_shift == 1));
  if (pot) return in;
  // Otherwise a multiplier onto 1/(3*4096) with as many bits as fit 15 (TFLM's loop, in double).
  double m = static_cast<double>(input_scale) * 4096.0 * 3.0;
  in.left_shift = 0;
  while (m <= 32767.0 / 2.0 && in.left_shift <= 30) {
    ++in.left_shift;
    m *= 2.0;
  }
  if (!(m >= 1.0 && m <= 32767.0)) return std::nullopt;
  in.multiplier = static_cast<int32_t>(m);
  return in;
}

int16_t logistic_int16(int16_t x, Int16SigmoidInput in) {
  const int32_t v = sigmoid_table_input(x, in);
  uint32_t r = sigmoid_table_lookup(static_cast<uint32_t>(std::abs(v)), 9, 0x7FFFu << 10);
  // sigmoid(-x) = 1 - sigmoid(x), rounded half up on the way back to 16 bits.
  r = v >= 0 ? r + (1u << 9) : (1u << (16 + 9)) - r + (1u << 9) - 1;
  return static_cast<int16_t>(r >> 10);
}

int16_t tanh_int16(int16_t x, Int16SigmoidInput in) {
  const int32_t v = sigmoid_table_input(x, in);
  // tanh(x) = 2 sigmoid(2x) - 1: the table read at twice the resolution (8 fraction bits, not 9).
  const int32_t s = static_cast<int32_t>(sigmoid_table_lookup(static_cast<uint32_t>(std::abs(v)), 8, 0xFFFFu << 8));
  const int32_t r = v >= 0 ? s - (1 << (14 + 9)) + (1 << (9 - 2)) : -s + (1 << (14 + 9)) + (1 << (9 - 2)) - 1;
  return static_cast<int16_t>(r >> (9 - 1));
}

Multiplier inv_sqrt_multiplier(int32_t x) {
  if (x <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (x >= (1 << 29)) {
    x /= 4;
    ++shift;
  }
  const int pairs = (__builtin_clz(static_cast<uint32_t>(x)) - 1) / 2 - 1;
  shift -= pairs;
  x <<= 2 * pairs;
  const int32_t input = x >> 1;                                       // Q3.28
  const int32_t half_input = saturating_rounding_multiply_by_pot(input, -1);
  const int32_t half_three = (1 << 28) + (1 << 27);                   // 1.5
  int32_t r = 1 << 28;                                                // 1.0
  // A Q3 x Q3 product is Q6; Rescale<3> multiplies a Q6 by 2^3 and a Q9 by 2^6, saturating.
  for (int i = 0; i < 5; ++i) {
    const int32_t r2 = saturating_rounding_doubling_high_mul(r, r);
    const int32_t r3 = saturating_rounding_multiply_by_pot(saturating_rounding_doubling_high_mul(r2, r), 6);
    const int32_t a = saturating_rounding_doubling_high_mul(half_three, r);
    const int32_t b = saturating_rounding_doubling_high_mul(half_input, r3);
    r = saturating_rounding_multiply_by_pot(static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)), 3);
  }
  r = saturating_rounding_doubling_high_mul(r, 1518500250);  // x sqrt(2)/2
  if (shift < 0) {
    r = static_cast<int32_t>(static_cast<uint32_t>(r) << -shift);
    shift = 0;
  }
  return {r, -shift};
}


namespace {

int count_leading_zeros(int32_t x) { return x == 0 ? 32 : __builtin_clz(static_cast<uint32_t>(x)); }

int32_t saturating_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{a} + b, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

int32_t saturating_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{a} - b, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

int32_t wrapping_add32(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); }

}  // namespace

int32_t fp_log_x_for_x_greater_than_or_equal_to_1(int32_t x, int input_integer_bits, int output_integer_bits) {
  // Every product below is gemmlowp's fixed-point product (the raws' high multiply); Q0 constants
  // from TFLM: log 2, sqrt(sqrt(1/2)), sqrt(1/2), 1/4 and the rational approximation's alphas.
  const int accum_bits = output_integer_bits + 1;  // headroom for z_pow_2_adj x log 2
  const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250, one_quarter = 536870912;
  const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
  const int32_t shifted_quarter = saturating_rounding_multiply_by_pot(one_quarter, -accum_bits);
  // x read as Q0.31; the power of two found from its headroom, with and without a sqrt(1/2) factor.
  const int z_a_headroom_plus_1 = count_leading_zeros(x);
  const int32_t r_a_tmp = saturating_rounding_multiply_by_pot(x, z_a_headroom_plus_1 - 1);
  const int32_t r_a = saturating_rounding_multiply_by_pot(mul(r_a_tmp, sqrt_half), 1);
  const int32_t z_a_pow_2_adj = saturating_add(
      saturating_rounding_multiply_by_pot(input_integer_bits - z_a_headroom_plus_1, 31 - accum_bits), shifted_quarter);
  const int32_t z_b = mul(x, sqrt_half);
  const int z_b_headroom = count_leading_zeros(z_b) - 1;
  const int32_t r_b = saturating_rounding_multiply_by_pot(x, z_b_headroom);
  const int32_t z_b_pow_2_adj = saturating_sub(
      saturating_rounding_multiply_by_pot(input_integer_bits - z_b_headroom, 31 - accum_bits), shifted_quarter);
  const int32_t r = std::min(r_a, r_b);
  const int32_t z_pow_2_adj = std::max(z_a_pow_2_adj, z_b_pow_2_adj);
  // log(r) for r in [sqrt(1/2), 1) by a rational approximation around sqrt(sqrt(1/2)).
  const int32_t p = rounding_half_sum(r, sqrt_sqrt_half);
  int32_t q = wrapping_add32(r, -sqrt_sqrt_half);
  q = wrapping_add32(q, q);
  const int32_t common_sq = mul(q, q);
  const int32_t num = wrapping_add32(mul(q, r), mul(mul(q, common_sq), alpha_n));
  const int32_t denom_minus_one = wrapping_add32(mul(p, wrapping_add32(wrapping_add32(alpha_i, q), mul(alpha_d, common_sq))), mul(alpha_f, q));
  const int32_t recip_denom = fp_one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
  const int32_t num_scaled = saturating_rounding_multiply_by_pot(num, -accum_bits);
  const int32_t sum = wrapping_add32(mul(z_pow_2_adj, log_2), mul(num_scaled, recip_denom));
  return saturating_rounding_multiply_by_pot(sum, accum_bits - output_integer_bits);
}

}  // namespace arenaplan::sim::tflm
