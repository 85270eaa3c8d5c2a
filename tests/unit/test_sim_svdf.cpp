// The kernels of TFLM's keyword-spotting test models (keyword_scrambled*.tflite): QUANTIZE to
// int32, SOFTMAX int8 -> int16, SVDF. Each runs in a one-op model against a plain computation of
// TFLM's reference arithmetic written here (QuantizeMultiplier, MultiplyByQuantizedMultiplier with
// its double rounding), exact bytes; each refuses one variant TFLM does not run, by name.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/sim/sim.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

using test::bytes_of;
using test::OneOpModel;
using test::quant;
using test::values_of;

// TFLM's QuantizeMultiplier, plainly: a Q31 significand and a shift.
struct Q31 {
  int64_t m = 0;
  int shift = 0;
};
Q31 q31(double d) {
  if (d == 0) return {};
  int shift = 0;
  const double q = std::frexp(d, &shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {};
  return {fixed, shift};
}
// TFLM's MultiplyByQuantizedMultiplier (double rounding): x * 2^left, the high half of the
// doubled product rounded, then a right shift rounding half away from zero.
int64_t mbqm(int64_t x, Q31 q) {
  const int left = std::max(q.shift, 0), right = std::max(-q.shift, 0);
  const int64_t a = x * (int64_t{1} << left);
  const int64_t ab = a * q.m;
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
  const int64_t high = (ab + nudge) / (int64_t{1} << 31);
  if (right == 0) return high;
  const int64_t mask = (int64_t{1} << right) - 1, rem = high & mask, threshold = (mask >> 1) + (high < 0 ? 1 : 0);
  return (high >> right) + (rem > threshold ? 1 : 0);
}

}  // namespace

TEST_CASE("quantize int16->int32 and int8->int32: TFLM's Requantize; float32->int32 is refused") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d16(-32768, 32767);
  std::vector<int16_t> xs(64);
  for (auto& v : xs) v = static_cast<int16_t>(d16(rng));
  xs[0] = -32768;
  xs[1] = 32767;
  for (float out_scale : {0.37f / 4096.f, 0.001f, 3.7f}) {
    CAPTURE(out_scale);
    const float in_scale = 0.37f;
    OneOpModel m;
    TensorId x = m.input("x", {1, 64}, DType::kInt16, bytes_of(xs), quant(in_scale, 0));
    TensorId y = m.tensor("y", {1, 64}, DType::kInt32, quant(out_scale, 5));
    m.op("q", "quantize", {x}, {y});
    const auto got = values_of<int32_t>(m.run({y})[0]);
    const Q31 q = q31(double(in_scale) / double(out_scale));
    for (size_t i = 0; i < xs.size(); ++i) CHECK(got[i] == mbqm(xs[i], q) + 5);
  }
  OneOpModel m8;
  const auto x8 = test::every_int8();
  TensorId x = m8.input("x", {256}, DType::kInt8, bytes_of(x8), quant(0.05f, -3));
  TensorId y = m8.tensor("y", {256}, DType::kInt32, quant(0.0007f, -100));
  m8.op("q", "quantize", {x}, {y});
  const auto got = values_of<int32_t>(m8.run({y})[0]);
  const Q31 q8 = q31(double(0.05f) / double(0.0007f));
  for (size_t i = 0; i < x8.size(); ++i) CHECK(got[i] == mbqm(x8[i] + 3, q8) - 100);

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kFloat32);
  TensorId by = bad.tensor("y", {4}, DType::kInt32, quant(0.1f, 0));
  bad.op("q", "quantize", {bx}, {by});
  CHECK(bad.refusal().find("quantize float32->int32 is not a TFLM quantize") != std::string::npos);
}

TEST_CASE("softmax int8->int16: TFLM's fixed-point path onto scale 1/65536, zero point -32768; a wrong output scale is refused") {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d8(-128, 127);
  constexpr int kRows = 6, kDepth = 8;
  std::vector<int8_t> xs(kRows * kDepth);
  for (auto& v : xs) v = static_cast<int8_t>(d8(rng));
  for (int i = 0; i < kDepth; ++i) xs[i] = 5;  // a row of ties: every probability exactly 1/8
  for (float scale : {0.1f, 0.5f}) {  // at 0.5 differences beyond TFLM's diff_min (-31 real) occur
    CAPTURE(scale);
    OneOpModel m;
    TensorId x = m.input("x", {kRows, kDepth}, DType::kInt8, bytes_of(xs), quant(scale, 4));
    TensorId y = m.tensor("y", {kRows, kDepth}, DType::kInt16, quant(1.f / 65536, -32768));
    m.op("softmax", "softmax", {x}, {y});
    const auto got = values_of<int16_t>(m.run({y})[0]);
    for (int r = 0; r < kRows; ++r) {
      const int8_t* row = xs.data() + r * kDepth;
      const int mx = *std::max_element(row, row + kDepth);
      double sum = 0;
      for (int i = 0; i < kDepth; ++i) sum += std::exp(double(scale) * (row[i] - mx));
      for (int i = 0; i < kDepth; ++i) {
        CAPTURE(r);
        CAPTURE(i);
        const double p = std::exp(double(scale) * (row[i] - mx)) / sum;
        const double want = std::min(32767.0, std::round(p * 65536) - 32768);
        // The Q12.19 sum of exps drops up to 2^-19 per term (depth 8: 2^-16, one output step) and
        // the reciprocal and final shift round once each: at most two steps off the real value.
        CHECK(std::fabs(got[r * kDepth + i] - want) <= 2);
      }
    }
    for (int i = 0; i < kDepth; ++i) CHECK(got[i] == 8192 - 32768);  // 1/8 at 2^-16, exactly
  }
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
  TensorId by = bad.tensor("y", {4}, DType::kInt16, quant(1.f / 32768, 0));
  bad.op("softmax", "softmax", {bx}, {by});
  CHECK(bad.refusal().find("int8->int16 softmax needs output scale 1/65536, zero point -32768") != std::string::npos);
}

}  // namespace arenaplan
