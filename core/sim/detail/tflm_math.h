// The fixed-point arithmetic of TFLite Micro's reference kernels, written from its documented
// semantics (tensorflow/lite/kernels/internal/common.h, quantization_util.cc, gemmlowp's
// fixedpoint.h): the same multipliers, shifts and rounding, so int8 kernels built on these give
// TFLM's output bytes. Double rounding (TFLITE_SINGLE_ROUNDING off), TFLM's default.
#pragma once

#include <cstdint>
#include <optional>

namespace arenaplan::sim::tflm {

// A real multiplier as a Q31 significand and a power-of-two exponent: m * 2^shift / 2^31.
struct Multiplier {
  int32_t value = 0;
  int shift = 0;  // > 0: left shift
};
// TFLM's QuantizeMultiplier: frexp, round half away from zero to Q31, 2^31 folded into the shift,
// shifts below -31 flushed to zero.
Multiplier quantize_multiplier(double real);

// gemmlowp: (a * b * 2 + 2^31 rounding) >> 32 with saturation of INT32_MIN * INT32_MIN.
int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b);
// gemmlowp: arithmetic right shift rounding half away from zero.
int32_t rounding_divide_by_pot(int32_t x, int exponent);
// TFLM: x * m * 2^shift with the double rounding above (left shift before the multiply).
int32_t multiply_by_quantized_multiplier(int32_t x, Multiplier m);
// TFLM's int64 overload (16-bit activations, int64 accumulators): the multiplier rounded to Q15
// and one rounding shift; the result truncated to int32 as TFLM's is.
int32_t multiply_by_quantized_multiplier(int64_t x, Multiplier m);
// The int64 variant (16-bit inputs), used by nothing int8 today but kept beside its twin.
int32_t multiply_by_quantized_multiplier_smaller_than_one(int32_t x, Multiplier m);  // shift <= 0
int32_t multiply_by_quantized_multiplier_greater_than_one(int32_t x, Multiplier m);  // shift >= 0

// gemmlowp fixed point over int32 raws, `integer_bits` bits before the binary point.
int32_t fp_exp_on_negative_values(int32_t a, int integer_bits);  // result has 0 integer bits
int32_t fp_one_over_one_plus_x_for_x_in_0_1(int32_t a);          // 0 integer bits in and out
int32_t fp_logistic(int32_t a, int integer_bits);                 // result has 0 integer bits
int32_t fp_tanh(int32_t a, int integer_bits);                     // result has 0 integer bits
// TFLM's log_x_for_x_greater_than_or_equal_to_1_impl: log(x) for x >= 1 with `input_integer_bits`,
// the result with `output_integer_bits` (LOG_SOFTMAX: 12 in, 5 out).
int32_t fp_log_x_for_x_greater_than_or_equal_to_1(int32_t x, int input_integer_bits, int output_integer_bits);
// SaturatingRoundingMultiplyByPOT: saturating left shift (exponent > 0) or rounding right shift.
int32_t saturating_rounding_multiply_by_pot(int32_t x, int exponent);
// TFLM's GetReciprocal: 1 / x for x with `integer_bits`, as a Q0.31 and the bits above one.
int32_t get_reciprocal(int32_t x, int integer_bits, int* num_bits_over_unit);

// TFLM's GetInvSqrtQuantizedMultiplierExp with reverse shift -1: 1/sqrt(x) by five Newton-Raphson
// steps in gemmlowp's Q3.28 fixed point, as a multiplier and a left shift (x <= 1: INT32_MAX, 0).
Multiplier inv_sqrt_multiplier(int32_t x);

// TfLiteRound: round half away from zero.
float round_half_away(float x);

// TFLM's CheckedLog2: the nearest integer to log2(x) (in float, as TFLM computes it) and whether x
// is a power of two within 1e-3 of an octave.
bool checked_log2(float x, int* log2_rounded);

// int16 LOGISTIC and TANH (and the integer LSTM's gates): TFLM looks |x| up in a 256-entry table
// of sigmoid(i/24) and interpolates, after scaling the input onto the table's 1/(3*4096) steps.
// The scaling is Prepare's: `multiplier` 0 means the power-of-two case (the shift alone).
struct Int16SigmoidInput {
  int32_t multiplier = 0;
  int left_shift = 0;
};
// For an int16 input of `input_scale` (zero point 0); `tanh` allows the left shifts {0, 1} of
// TFLM's TanhPrepare, logistic only 0. Empty for a scale whose multiplier leaves 1..32767 (TFLM
// only DCHECKs it; the shifts would overflow).
std::optional<Int16SigmoidInput> int16_sigmoid_input(float input_scale, bool tanh);
int16_t logistic_int16(int16_t x, Int16SigmoidInput in);  // output scale 2^-15
int16_t tanh_int16(int16_t x, Int16SigmoidInput in);      // output scale 2^-15

}  // namespace arenaplan::sim::tflm
