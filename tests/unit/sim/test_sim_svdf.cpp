// The kernels of TFLM's keyword-spotting test models (keyword_scrambled*.tflite): QUANTIZE to
// int32, SOFTMAX int8 -> int16, SVDF. Each runs in a one-op model against a plain computation of
// TFLM's reference arithmetic written here (QuantizeMultiplier, MultiplyByQuantizedMultiplier with
// its double rounding, gemmlowp's fixed-point exp and reciprocal), exact bytes; each refuses one
// variant TFLM does not run, by name.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/sim_run.h"
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

// gemmlowp's fixed point on int32 raws, plainly (fixedpoint.h), for TFLM's softmax: the doubling
// high multiply, the rounding shifts, exp on negative values and 1 / (1 + x).
int32_t fp_mul(int32_t a, int32_t b) {  // SaturatingRoundingDoublingHighMul
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = int64_t{a} * b;
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}
int32_t rounding_shift_right(int32_t x, int e) {  // RoundingDivideByPOT
  const int32_t mask = static_cast<int32_t>((int64_t{1} << e) - 1), rem = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > threshold ? 1 : 0);
}
int32_t saturating_shift_left(int32_t x, int e) {  // SaturatingRoundingMultiplyByPOT, e > 0
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{x} * (int64_t{1} << e), std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}
// exp(a) for a in [-1/4, 0), Q0.31: the Taylor polynomial around -1/8.
int32_t exp_quarter(int32_t a) {
  const int32_t c = 1895147668, one_third = 715827883;  // exp(-1/8), 1/3
  const int32_t x = a + (1 << 28), x2 = fp_mul(x, x), x3 = fp_mul(x2, x), x4 = fp_mul(x2, x2);
  const int32_t poly = rounding_shift_right(fp_mul(rounding_shift_right(x4, 2) + x3, one_third) + x2, 1);
  return c + fp_mul(c, x + poly);
}
// exp(a) for a Q5.26 a <= 0, Q0.31: exp of a mod 1/4, times exp(-2^k) for each set bit above.
int32_t exp_negative_q5(int32_t a) {
  constexpr int kFrac = 26;
  const int32_t quarter = 1 << (kFrac - 2), mod_minus_quarter = (a & (quarter - 1)) - quarter;
  int32_t r = exp_quarter(saturating_shift_left(mod_minus_quarter, 5));
  const int32_t remainder = mod_minus_quarter - a;
  const int32_t multipliers[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};  // exp(-2^k), k = -2..4
  for (int k = -2; k <= 4; ++k)
    if (remainder & (1 << (kFrac + k))) r = fp_mul(r, multipliers[k + 2]);
  return a == 0 ? std::numeric_limits<int32_t>::max() : r;
}
// 1 / (1 + x) for x in [0, 1), Q0.31 in; Q0.31 out: three Newton steps on the half denominator.
int32_t one_over_one_plus(int32_t a) {
  const int64_t sum = int64_t{a} + std::numeric_limits<int32_t>::max();
  const int32_t half_den = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = 1515870810 + fp_mul(half_den, -1010580540);  // Q2.29: 48/17 - 32/17 d
  for (int i = 0; i < 3; ++i) x = x + saturating_shift_left(fp_mul(x, (1 << 29) - fp_mul(half_den, x)), 2);
  return saturating_shift_left(x, 1);
}

// TFLM's reference softmax of one int8 row onto `out_bits` (8 or 16) bits.
std::vector<int32_t> softmax_row(const int8_t* row, int depth, float input_scale, int out_bits) {
  const Q31 m = q31(std::min(double(input_scale) * (int64_t{1} << 26), double((int64_t{1} << 31) - 1)));
  const int32_t diff_min = -static_cast<int32_t>(std::floor(31.0 * (int64_t{1} << 26) / double(int64_t{1} << m.shift)));
  const int mx = *std::max_element(row, row + depth);
  auto exp_of = [&](int i) {
    const int64_t scaled = fp_mul(static_cast<int32_t>((row[i] - mx) * (int64_t{1} << m.shift)), static_cast<int32_t>(m.m));
    return exp_negative_q5(static_cast<int32_t>(scaled));
  };
  int32_t sum = 0;  // Q12.19
  for (int i = 0; i < depth; ++i)
    if (row[i] - mx >= diff_min) sum += rounding_shift_right(exp_of(i), 12);
  const int headroom = __builtin_clz(static_cast<uint32_t>(sum));
  const int32_t scale = one_over_one_plus(static_cast<int32_t>((static_cast<uint32_t>(sum) << headroom) - (uint32_t{1} << 31)));
  const int exponent = (12 - headroom) + 31 - out_bits;
  const int32_t lo = -(1 << (out_bits - 1)), hi = (1 << (out_bits - 1)) - 1;
  std::vector<int32_t> y(depth);
  for (int i = 0; i < depth; ++i)
    y[i] = row[i] - mx < diff_min ? lo : std::clamp(rounding_shift_right(fp_mul(scale, exp_of(i)), exponent) + lo, lo, hi);
  return y;
}

// n values spread over T's whole range, from `seed`.
template <class T>
std::vector<T> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

// An SVDF's sizes and numbers, and TFLM's reference SVDF written plainly (svdf_common.cc):
// shift the state one element left, write each filter's feature projection into its newest slot,
// then per unit: bias + the sum over its `rank` filters of weights_time . (state - zero point).
struct SvdfCase {
  int batch = 2, input = 5, filters = 6, rank = 2, memory = 4;
  int units() const { return filters / rank; }
  std::vector<int8_t> x, wf;
  std::vector<int32_t> bias;
  float sx = 0.05f, swf = 0.02f, ss = 0.01f, swt = 0.003f, sy = 0.04f;
  int32_t zx = -3, zs = 0, zy = 2;

  explicit SvdfCase(uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d8(-128, 127), db(-3000, 3000);
    x.resize(batch * input);
    wf.resize(filters * input);
    bias.resize(units());
    for (auto& v : x) v = static_cast<int8_t>(d8(rng));
    for (auto& v : wf) v = static_cast<int8_t>(d8(rng));
    for (auto& v : bias) v = db(rng);
  }
  // One invocation of TFLM's integer SVDF, T the state's and weights_time's type.
  template <class T>
  std::vector<int8_t> invoke(std::vector<T>& state, const std::vector<T>& wt) const {
    std::rotate(state.begin(), state.begin() + 1, state.end());  // the last element is overwritten below
    const Q31 m1 = q31(double(sx * swf / ss)), m2 = q31(double(ss * swt / sy));
    for (int b = 0; b < batch; ++b)
      for (int f = 0; f < filters; ++f) {
        int64_t dot = 0;
        for (int i = 0; i < input; ++i) dot += wf[f * input + i] * (x[b * input + i] - zx);
        const int64_t v = std::clamp<int64_t>(mbqm(dot, m1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
        state[(b * filters + f) * memory + memory - 1] = static_cast<T>(zs + v);
      }
    std::vector<int8_t> y(batch * units());
    for (int b = 0; b < batch; ++b)
      for (int u = 0; u < units(); ++u) {
        int64_t sum = bias[u];
        for (int f = u * rank; f < (u + 1) * rank; ++f)
          for (int j = 0; j < memory; ++j) sum += int64_t{wt[f * memory + j]} * (state[(b * filters + f) * memory + j] - zs);
        y[b * units() + u] = static_cast<int8_t>(std::clamp<int64_t>(mbqm(sum, m2) + zy, -128, 127));
      }
    return y;
  }
};

// Each run's graph outputs from the reference simulator (the planned run must match it: CHECKed),
// the same fed inputs every run.
std::vector<std::vector<uint8_t>> outputs_per_run(const Graph& g, const std::map<std::string, std::vector<uint8_t>>& fed, int runs) {
  sim::SimRequest req;
  req.input_bytes = fed;
  req.runs = runs;
  const test::SimRun simulated = test::simulate_keeping_reference(g, req);
  const sim::SimReport& r = simulated.report;
  const auto& reference = simulated.reference;
  CHECK(r.ok());
  CHECK(r.stand_ins.empty());
  Bytes out_bytes = 0;
  for (TensorId y : g.outputs) out_bytes += g.tensors[y].bytes;
  std::vector<std::vector<uint8_t>> per_run;
  for (int run = 0; run < runs; ++run) {
    const uint8_t* cap = reference->captured(run, 0);
    per_run.emplace_back(cap, cap + out_bytes);
  }
  return per_run;
}

// A one-op SVDF graph of `c` with weights_time `wt` of type T (int8 or int16), state of type T.
template <class T>
OneOpModel svdf_model(const SvdfCase& c, const std::vector<T>& wt, DType type) {
  OneOpModel m;
  TensorId x = m.input("x", {c.batch, c.input}, DType::kInt8, bytes_of(c.x), quant(c.sx, c.zx));
  TensorId wf = m.tensor("wf", {c.filters, c.input}, DType::kInt8, quant(c.swf, 0), bytes_of(c.wf));
  TensorId wtt = m.tensor("wt", {c.filters, c.memory}, type, quant(c.swt, 0), bytes_of(wt));
  TensorId b = m.tensor("bias", {c.units()}, DType::kInt32, quant(c.ss * c.swt, 0), bytes_of(c.bias));
  TensorId s = m.tensor("state", {c.batch, c.filters * c.memory}, type, quant(c.ss, c.zs));
  m.g.tensors[s].persistent = true;
  TensorId y = m.tensor("y", {c.batch, c.units()}, DType::kInt8, quant(c.sy, c.zy));
  m.op("svdf", "svdf", {x, wf, wtt, b, s}, {y}, {{"rank", c.rank}});
  m.g.inputs = m.ins;
  m.g.outputs = {y};
  link_tensors(m.g);
  validate_graph(m.g);
  return m;
}

}  // namespace

TEST_CASE("quantize int16->int32, int8->int32 and int32->int16: TFLM's Requantize; float32->int32 and int32->int32 are refused") {
  auto xs = random_values<int16_t>(64, 11);
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

  // int32 -> int16, TFLM's other direction: clamped to the output type.
  const auto x32 = random_values<int16_t>(64, 12);
  std::vector<int32_t> wide(x32.begin(), x32.end());
  for (auto& v : wide) v *= 1000;
  OneOpModel m32;
  TensorId xw = m32.input("x", {64}, DType::kInt32, bytes_of(wide), quant(0.001f, 9));
  TensorId yn = m32.tensor("y", {64}, DType::kInt16, quant(0.5f, -4));
  m32.op("q", "quantize", {xw}, {yn});
  const auto got16 = values_of<int16_t>(m32.run({yn})[0]);
  const Q31 q32 = q31(double(0.001f) / double(0.5f));
  for (size_t i = 0; i < wide.size(); ++i) CHECK(got16[i] == std::clamp<int64_t>(mbqm(wide[i] - 9, q32) - 4, -32768, 32767));

  OneOpModel same;
  TensorId sx = same.tensor("x", {4}, DType::kInt32, quant(0.1f, 0));
  TensorId sy = same.tensor("y", {4}, DType::kInt32, quant(0.2f, 0));
  same.op("q", "quantize", {sx}, {sy});
  CHECK(same.refusal().find("quantize int32->int32 is not a TFLM quantize") != std::string::npos);
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kFloat32);
  TensorId by = bad.tensor("y", {4}, DType::kInt32, quant(0.1f, 0));
  bad.op("q", "quantize", {bx}, {by});
  CHECK(bad.refusal().find("quantize float32->int32 is not a TFLM quantize") != std::string::npos);
}

TEST_CASE("softmax int8->int16: TFLM's fixed-point path onto scale 1/65536, zero point -32768; a wrong output scale is refused") {
  constexpr int kRows = 6, kDepth = 8;
  auto xs = random_values<int8_t>(kRows * kDepth, 3);
  for (int i = 0; i < kDepth; ++i) xs[i] = 5;  // a row of ties: every probability exactly 1/8
  for (float scale : {0.1f, 0.5f}) {  // at 0.5 differences beyond TFLM's diff_min (-31 real) occur
    CAPTURE(scale);
    OneOpModel m;
    TensorId x = m.input("x", {kRows, kDepth}, DType::kInt8, bytes_of(xs), quant(scale, 4));
    TensorId y = m.tensor("y", {kRows, kDepth}, DType::kInt16, quant(1.f / 65536, -32768));
    m.op("softmax", "softmax", {x}, {y});
    const auto got = values_of<int16_t>(m.run({y})[0]);
    for (int r = 0; r < kRows; ++r) {
      CAPTURE(r);
      const int8_t* row = xs.data() + r * kDepth;
      const auto want = softmax_row(row, kDepth, scale, 16);
      const int mx = *std::max_element(row, row + kDepth);
      double sum = 0;
      for (int i = 0; i < kDepth; ++i) sum += std::exp(double(scale) * (row[i] - mx));
      for (int i = 0; i < kDepth; ++i) {
        CAPTURE(i);
        CHECK(int{got[r * kDepth + i]} == want[i]);  // TFLM's bytes
        // ... and the real softmax to within two steps (the Q12.19 sum and two roundings).
        const double real = std::min(32767.0, std::round(std::exp(double(scale) * (row[i] - mx)) / sum * 65536) - 32768);
        CHECK(std::fabs(got[r * kDepth + i] - real) <= 2);
      }
    }
    for (int i = 0; i < kDepth; ++i) CHECK(got[i] == 8192 - 32768);  // 1/8 at 2^-16, exactly
    // The same plain computation onto 8 bits gives the int8 kernel's bytes (the path both share).
    OneOpModel m8;
    TensorId x8 = m8.input("x", {kRows, kDepth}, DType::kInt8, bytes_of(xs), quant(scale, 4));
    TensorId y8 = m8.tensor("y", {kRows, kDepth}, DType::kInt8, quant(1.f / 256, -128));
    m8.op("softmax", "softmax", {x8}, {y8});
    const auto got8 = values_of<int8_t>(m8.run({y8})[0]);
    for (int r = 0; r < kRows; ++r) {
      const auto want8 = softmax_row(xs.data() + r * kDepth, kDepth, scale, 8);
      for (int i = 0; i < kDepth; ++i) CHECK(int{got8[r * kDepth + i]} == want8[i]);
    }
  }
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
  TensorId by = bad.tensor("y", {4}, DType::kInt16, quant(1.f / 32768, 0));
  bad.op("softmax", "softmax", {bx}, {by});
  CHECK(bad.refusal().find("int8->int16 softmax needs output scale 1/65536, zero point -32768") != std::string::npos);
}

TEST_CASE("svdf int8 with int16 state: TFLM's reference bytes over three runs, the state carrying over") {
  SvdfCase c(21);
  const auto wt = random_values<int16_t>(c.filters * c.memory, 8);
  OneOpModel m = svdf_model(c, wt, DType::kInt16);
  const auto got = outputs_per_run(m.g, m.fed, 3);
  std::vector<int16_t> state(c.batch * c.filters * c.memory, 0);  // TFLM starts variables at zero
  std::vector<std::vector<int8_t>> want;
  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    want.push_back(c.invoke(state, wt));
    CHECK(values_of<int8_t>(got[run]) == want.back());
  }
  CHECK(want[0] != want[2]);  // the memory matters: a state reset every run would repeat run 0
}

TEST_CASE("svdf int8 with int8 state and a state zero point; mixed int8/int16 time weights and state are refused") {
  SvdfCase c(4);
  c.ss = 0.05f, c.zs = 7, c.swt = 0.01f, c.sy = 0.2f, c.zy = -5;
  const auto wt = random_values<int8_t>(c.filters * c.memory, 9);
  OneOpModel m = svdf_model(c, wt, DType::kInt8);
  const auto got = outputs_per_run(m.g, m.fed, 2);
  std::vector<int8_t> state(c.batch * c.filters * c.memory, static_cast<int8_t>(c.zs));  // real zero
  for (int run = 0; run < 2; ++run) CHECK(values_of<int8_t>(got[run]) == c.invoke(state, wt));

  OneOpModel bad = svdf_model(c, wt, DType::kInt8);
  bad.g.tensors[bad.g.ops[0].inputs[4]].dtype = DType::kInt16;
  bad.g.tensors[bad.g.ops[0].inputs[4]].bytes *= 2;
  CHECK(bad.refusal().find("int8 svdf needs weights_time and state both int8 or both int16") != std::string::npos);
  OneOpModel stateless = svdf_model(c, wt, DType::kInt8);
  stateless.g.tensors[stateless.g.ops[0].inputs[4]].persistent = false;
  CHECK(stateless.refusal().find("must be a variable tensor") != std::string::npos);
}

TEST_CASE("svdf float32 with RELU: TFLM's reference over two runs; an odd rank is refused") {
  const int batch = 1, input = 3, filters = 4, rank = 2, memory = 3, units = 2;
  const std::vector<float> xv = {0.5f, -1.25f, 2.f};
  const std::vector<float> wfv = {0.1f, 0.2f, -0.3f, 1.f, -1.f, 0.5f, 0.25f, 0.75f, -0.5f, 2.f, 0.f, 1.5f};
  const std::vector<float> wtv = {1.f, -2.f, 0.5f, 0.25f, 3.f, -1.f, 2.f, 2.f, -0.75f, 1.f, 0.5f, -3.f};
  const std::vector<float> bv = {0.1f, -4.f};
  OneOpModel m;
  TensorId x = m.input("x", {batch, input}, DType::kFloat32, bytes_of(xv));
  TensorId wf = m.tensor("wf", {filters, input}, DType::kFloat32, {}, bytes_of(wfv));
  TensorId wt = m.tensor("wt", {filters, memory}, DType::kFloat32, {}, bytes_of(wtv));
  TensorId b = m.tensor("bias", {units}, DType::kFloat32, {}, bytes_of(bv));
  TensorId s = m.tensor("state", {batch, filters * memory}, DType::kFloat32);
  m.g.tensors[s].persistent = true;
  TensorId y = m.tensor("y", {batch, units}, DType::kFloat32);
  m.op("svdf", "svdf", {x, wf, wt, b, s}, {y}, {{"rank", rank}, {"activation", 1}});
  m.g.inputs = m.ins;
  m.g.outputs = {y};
  link_tensors(m.g);
  validate_graph(m.g);
  const auto got = outputs_per_run(m.g, m.fed, 2);
  std::vector<float> state(filters * memory, 0.f);
  for (int run = 0; run < 2; ++run) {
    CAPTURE(run);
    std::rotate(state.begin(), state.begin() + 1, state.end());
    for (int f = 0; f < filters; ++f) {
      float dot = 0.f;
      for (int i = 0; i < input; ++i) dot += wfv[f * input + i] * xv[i];
      state[f * memory + memory - 1] = dot;
    }
    std::vector<float> want(units);
    for (int u = 0; u < units; ++u) {
      float v = bv[u];
      for (int f = u * rank; f < (u + 1) * rank; ++f) {
        float acc = 0.f;
        for (int j = 0; j < memory; ++j) acc += wtv[f * memory + j] * state[f * memory + j];
        v += acc;
      }
      want[u] = std::max(0.f, v);
    }
    CHECK(values_of<float>(got[run]) == want);
  }
  m.g.ops[0].attrs["rank"] = 3;
  CHECK(m.refusal().find("svdf rank 3 must divide the 4 filters") != std::string::npos);
}

TEST_CASE("SVDF stacks written as .tflite simulate with the model's own numbers: no stand-ins, state kept over runs") {
  for (const char* file : {"svdf_int8.tflite", "svdf_float.tflite"}) {
    CAPTURE(file);
    Graph g = import_tflite(test::read_tflm_fixture(file)).graph;
    sim::SimRequest req;
    req.runs = 3;
    const sim::SimReport r = sim::simulate(g, req);
    CHECK(r.ok());
    CHECK(r.stand_ins.empty());
    CHECK(r.foreign_write_count == 0);
    CHECK(sim::simulation_json(g, r)["outputs_are_the_model"].get<bool>());
  }
}

}  // namespace arenaplan
