// Model kernels (TFLM reference arithmetic, float32) against independent naive loops written from
// TFLite's documented semantics: real-valued arithmetic (real = scale x (q - zero point)) for the
// int8 kernels, which may differ from TFLM's fixed point by one step where it rounds twice; exact
// loops for the kernels that only move or compare values. TFLM's bit-exactness is checked end to
// end on person_detect against the bytes the real TFLM produced (test_sim_models.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/sim/detail/model_kernels.h"
#include "core/sim/detail/tflm_math.h"
#include "core/sim/sim.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

using test::bytes_of;
using test::quant;

// Ops named after their kind and index (the kernel tests build one op at a time).
struct ModelGraph : test::ModelBuilder {
  OpId op(const std::string& kind, std::vector<TensorId> in, std::vector<TensorId> out,
          std::map<std::string, int64_t> attrs = {}) {
    return ModelBuilder::op(kind + "_" + std::to_string(g.ops.size()), kind, std::move(in), std::move(out),
                            std::move(attrs));
  }
};

template <class T>
std::vector<T> values_of(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Runs one op: non-constant inputs from `fed` in order, constants from their data.
std::vector<uint8_t> run_one(const Graph& g, OpId o, const std::vector<std::vector<uint8_t>>& fed, sim::KernelPlan* plan_out = nullptr) {
  sim::KernelPlan plan = sim::plan_kernel(g, o);
  if (plan_out) *plan_out = plan;
  const Op& op = g.ops[o];
  std::vector<std::vector<uint8_t>> store;
  size_t next = 0;
  for (TensorId t : op.inputs) {
    const Tensor& x = g.tensors[t];
    if (x.constant) store.push_back(*x.data);
    else store.push_back(fed.at(next++));
  }
  store.emplace_back(static_cast<size_t>(g.tensors[op.outputs[0]].bytes), 0xEE);
  std::vector<sim::Operand> in, out;
  for (size_t i = 0; i + 1 < store.size(); ++i) in.push_back({store[i].data(), static_cast<int64_t>(store[i].size())});
  out.push_back({store.back().data(), static_cast<int64_t>(store.back().size())});
  sim::run_kernel(plan, in.data(), in.size(), out.data(), 1, sim::Operand{});
  return store.back();
}

std::vector<int8_t> random_i8(size_t n, std::mt19937& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

int8_t real_to_q(double real, float scale, int64_t zp, int lo = -128, int hi = 127) {
  return static_cast<int8_t>(std::clamp<double>(std::round(real / scale) + static_cast<double>(zp), lo, hi));
}

// Every byte within one quantization step of the naive result, and most of them equal.
void check_close(const std::vector<int8_t>& got, const std::vector<int8_t>& want) {
  REQUIRE(got.size() == want.size());
  size_t equal = 0, max_diff = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const size_t d = static_cast<size_t>(std::abs(int(got[i]) - int(want[i])));
    max_diff = std::max(max_diff, d);
    equal += d == 0;
  }
  CHECK(max_diff <= 1);
  CHECK(equal * 10 >= got.size() * 9);
}

}  // namespace

TEST_CASE("tflm math: multipliers, shifts and rounding as TFLM documents them") {
  using namespace sim::tflm;
  CHECK(quantize_multiplier(0.5).value == (1 << 30));
  CHECK(quantize_multiplier(0.5).shift == 0);
  CHECK(quantize_multiplier(1.0).value == (1 << 30));
  CHECK(quantize_multiplier(1.0).shift == 1);
  CHECK(quantize_multiplier(0.75).value == 1610612736);
  CHECK(quantize_multiplier(1e-12).value == 0);  // below 2^-31: flushed to zero
  // frexp(0.9999999999) rounds up to 2^31: folded into the shift.
  CHECK(quantize_multiplier(0.9999999999).value == (1 << 30));
  CHECK(quantize_multiplier(0.9999999999).shift == 1);
  CHECK(rounding_divide_by_pot(5, 1) == 3);
  CHECK(rounding_divide_by_pot(-5, 1) == -3);
  CHECK(rounding_divide_by_pot(-6, 2) == -2);  // -1.5 rounds away from zero
  CHECK(saturating_rounding_doubling_high_mul(INT32_MIN, INT32_MIN) == INT32_MAX);
  CHECK(multiply_by_quantized_multiplier(1000, quantize_multiplier(0.25)) == 250);
  // gemmlowp's doubling high multiply nudges negative products by 1 - 2^30: -1.5 becomes -1.
  CHECK(multiply_by_quantized_multiplier(-3, quantize_multiplier(0.5)) == -1);
  CHECK(multiply_by_quantized_multiplier(3, quantize_multiplier(0.5)) == 2);
  CHECK(multiply_by_quantized_multiplier(7, quantize_multiplier(3.0)) == 21);
  // Fixed-point transcendental functions against their real values.
  const double q31 = 2147483648.0;
  CHECK(fp_exp_on_negative_values(0, 5) == INT32_MAX);
  for (double x : {-0.1, -0.25, -1.0, -2.5, -7.0, -15.0})
    CHECK(std::abs(fp_exp_on_negative_values(static_cast<int32_t>(x * (1 << 26)), 5) / q31 - std::exp(x)) < 1e-6);
  for (double x : {0.0, 0.25, 0.5, 0.99})
    CHECK(std::abs(fp_one_over_one_plus_x_for_x_in_0_1(static_cast<int32_t>(x * q31)) / q31 - 1 / (1 + x)) < 1e-6);
  for (double x : {-6.0, -1.0, -0.3, 0.0, 0.3, 2.0, 7.5}) {
    CHECK(std::abs(fp_logistic(static_cast<int32_t>(x * (1 << 27)), 4) / q31 - 1 / (1 + std::exp(-x))) < 1e-6);
    CHECK(std::abs(fp_tanh(static_cast<int32_t>(x * (1 << 27)), 4) / q31 - std::tanh(x)) < 1e-6);
  }
}

TEST_CASE("conv_2d int8: stride, TFLM padding, dilation, per-channel scales, bias, relu6 against real arithmetic") {
  std::mt19937 rng(11);
  struct Case {
    int64_t h, w, c, oc, k, stride, dil, pad_h, pad_w, pad_b, pad_r;
    int act;
  };
  for (const Case& k : {Case{7, 6, 3, 4, 3, 2, 1, 1, 1, 1, 1, 0}, Case{9, 9, 2, 3, 3, 1, 2, 2, 2, 2, 2, 3},
                        Case{5, 8, 4, 2, 2, 1, 1, 0, 0, 1, 1, 1}, Case{6, 6, 3, 5, 1, 1, 1, 0, 0, 0, 0, 0}}) {
    CAPTURE(k.h);
    const int64_t eff = (k.k - 1) * k.dil + 1;
    const int64_t oh = (k.h + k.pad_h + k.pad_b - eff) / k.stride + 1, ow = (k.w + k.pad_w + k.pad_r - eff) / k.stride + 1;
    ModelGraph m;
    const float sx = 0.05f, sy = 0.11f;
    const int64_t zx = -3, zy = 5;
    std::vector<float> sw;
    for (int64_t o = 0; o < k.oc; ++o) sw.push_back(0.002f + 0.001f * static_cast<float>(o));
    auto w = random_i8(static_cast<size_t>(k.oc * k.k * k.k * k.c), rng, -127, 127);
    std::vector<int32_t> bias;
    for (int64_t o = 0; o < k.oc; ++o) bias.push_back(static_cast<int32_t>(rng() % 2001) - 1000);
    TensorId x = m.tensor("x", {1, k.h, k.w, k.c}, DType::kInt8, quant(sx, zx));
    TensorId wt = m.tensor("w", {k.oc, k.k, k.k, k.c}, DType::kInt8, Quantization{sw, std::vector<int64_t>(sw.size(), 0), 0},
                           bytes_of(w));
    std::vector<double> bias_scale;
    TensorId bt = m.tensor("b", {k.oc}, DType::kInt32, {}, bytes_of(bias));
    TensorId y = m.tensor("y", {1, oh, ow, k.oc}, DType::kInt8, quant(sy, zy));
    OpId op = m.op("conv_2d", {x, wt, bt}, {y},
                   {{"stride_h", k.stride}, {"stride_w", k.stride}, {"dilation_h", k.dil}, {"dilation_w", k.dil},
                    {"pad_h", k.pad_h}, {"pad_w", k.pad_w}, {"pad_bottom", k.pad_b}, {"pad_right", k.pad_r},
                    {"activation", k.act}});
    auto xv = random_i8(static_cast<size_t>(k.h * k.w * k.c), rng);
    sim::KernelPlan plan;
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}, &plan));
    CHECK(plan.kind == sim::KernelKind::kModel);
    CHECK(std::string(sim::plan_kernel_name(plan)) == "conv_2d int8");
    // Naive: the real-valued convolution, zero (the input's zero point) outside the image.
    const int lo = k.act == 0 ? -128 : static_cast<int>(zy), hi = k.act == 3 ? static_cast<int>(std::min<double>(127, std::round(6 / sy) + zy)) : 127;
    std::vector<int8_t> want;
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < k.oc; ++o) {
          double acc = 0;
          for (int64_t fy = 0; fy < k.k; ++fy)
            for (int64_t fx = 0; fx < k.k; ++fx)
              for (int64_t ic = 0; ic < k.c; ++ic) {
                const int64_t iy = oy * k.stride - k.pad_h + fy * k.dil, ix = ox * k.stride - k.pad_w + fx * k.dil;
                if (iy < 0 || ix < 0 || iy >= k.h || ix >= k.w) continue;
                acc += (xv[(iy * k.w + ix) * k.c + ic] - zx) * double(w[((o * k.k + fy) * k.k + fx) * k.c + ic]);
              }
          const double real = (acc + bias[o]) * double(sx) * double(sw[o]);
          want.push_back(real_to_q(real, sy, zy, lo, hi));
        }
    check_close(got, want);
  }
}

TEST_CASE("depthwise_conv_2d int8 with depth multipliers 1, 2 and 3 against real arithmetic") {
  std::mt19937 rng(12);
  for (int64_t mult : {1, 2, 3}) {
    CAPTURE(mult);
    const int64_t h = 6, w = 5, c = 3, oc = c * mult, k = 3;
    ModelGraph m;
    const float sx = 0.02f, sy = 0.03f;
    std::vector<float> sw;
    for (int64_t o = 0; o < oc; ++o) sw.push_back(0.01f + 0.002f * static_cast<float>(o));
    auto wv = random_i8(static_cast<size_t>(k * k * oc), rng, -127, 127);
    TensorId x = m.tensor("x", {1, h, w, c}, DType::kInt8, quant(sx, 7));
    TensorId wt = m.tensor("w", {1, k, k, oc}, DType::kInt8, Quantization{sw, std::vector<int64_t>(sw.size(), 0), 3}, bytes_of(wv));
    TensorId y = m.tensor("y", {1, h, w, oc}, DType::kInt8, quant(sy, -2));
    OpId op = m.op("depthwise_conv_2d", {x, wt}, {y}, {{"pad_h", 1}, {"pad_w", 1}, {"depth_multiplier", mult}});
    auto xv = random_i8(static_cast<size_t>(h * w * c), rng);
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}));
    std::vector<int8_t> want;
    for (int64_t oy = 0; oy < h; ++oy)
      for (int64_t ox = 0; ox < w; ++ox)
        for (int64_t o = 0; o < oc; ++o) {
          double acc = 0;
          for (int64_t fy = 0; fy < k; ++fy)
            for (int64_t fx = 0; fx < k; ++fx) {
              const int64_t iy = oy - 1 + fy, ix = ox - 1 + fx;
              if (iy < 0 || ix < 0 || iy >= h || ix >= w) continue;
              acc += (xv[(iy * w + ix) * c + o / mult] - 7) * double(wv[(fy * k + fx) * oc + o]);
            }
          want.push_back(real_to_q(acc * double(sx) * double(sw[o]), sy, -2));
        }
    check_close(got, want);
  }
}

TEST_CASE("fully_connected, add, mul (broadcast) and mean int8 against real arithmetic") {
  std::mt19937 rng(13);
  {
    ModelGraph m;
    auto wv = random_i8(6 * 10, rng, -127, 127);
    TensorId x = m.tensor("x", {2, 10}, DType::kInt8, quant(0.1f, 4));
    TensorId wt = m.tensor("w", {6, 10}, DType::kInt8, quant(0.01f, 0), bytes_of(wv));
    TensorId y = m.tensor("y", {2, 6}, DType::kInt8, quant(0.2f, -9));
    OpId op = m.op("fully_connected", {x, wt}, {y});
    auto xv = random_i8(20, rng);
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}));
    std::vector<int8_t> want;
    for (int b = 0; b < 2; ++b)
      for (int o = 0; o < 6; ++o) {
        double acc = 0;
        for (int d = 0; d < 10; ++d) acc += (xv[b * 10 + d] - 4) * double(wv[o * 10 + d]);
        want.push_back(real_to_q(acc * 0.1 * 0.01, 0.2f, -9));
      }
    check_close(got, want);
  }
  for (const std::string kind : {"add", "mul"}) {
    CAPTURE(kind);
    ModelGraph m;
    // Scales with no simple ratio: exact ties (where the naive and TFLM round differently) are rare.
    TensorId a = m.tensor("a", {1, 3, 4, 5}, DType::kInt8, quant(0.0517f, 3));
    TensorId b = m.tensor("b", {1, 1, 4, 1}, DType::kInt8, quant(0.0793f, -6));
    TensorId y = m.tensor("y", {1, 3, 4, 5}, DType::kInt8, quant(0.1093f, 2));
    OpId op = m.op(kind, {a, b}, {y});
    auto av = random_i8(60, rng), bv = random_i8(4, rng);
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(av), bytes_of(bv)}));
    std::vector<int8_t> want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k) {
          const double ra = double(0.0517f) * (av[(i * 4 + j) * 5 + k] - 3), rb = double(0.0793f) * (bv[j] + 6);
          want.push_back(real_to_q(kind == "add" ? ra + rb : ra * rb, 0.1093f, 2));
        }
    check_close(got, want);
  }
  {
    ModelGraph m;
    TensorId x = m.tensor("x", {1, 4, 5, 3}, DType::kInt8, quant(0.07f, -1));
    TensorId axes = m.tensor("axes", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, 2}));
    TensorId y = m.tensor("y", {1, 1, 1, 3}, DType::kInt8, quant(0.03f, 1));
    OpId op = m.op("mean", {x, axes}, {y}, {{"keep_dims", 1}});
    auto xv = random_i8(60, rng);
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}));
    std::vector<int8_t> want;
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (int i = 0; i < 20; ++i) s += 0.07 * (xv[i * 3 + c] + 1);
      want.push_back(real_to_q(s / 20, 0.03f, 1));
    }
    check_close(got, want);
  }
}

TEST_CASE("pools int8: TFLM's rounded average and max over the clipped window, exactly") {
  std::mt19937 rng(14);
  for (const char* kind : {"average_pool_2d", "max_pool_2d"}) {
    CAPTURE(kind);
    ModelGraph m;
    TensorId x = m.tensor("x", {1, 5, 5, 2}, DType::kInt8, quant(0.1f, 0));
    TensorId y = m.tensor("y", {1, 3, 3, 2}, DType::kInt8, quant(0.1f, 0));
    // SAME padding of a 3x3 window, stride 2 over 5: one pixel before and after.
    OpId op = m.op(kind, {x}, {y}, {{"kernel_h", 3}, {"kernel_w", 3}, {"stride_h", 2}, {"stride_w", 2}, {"pad_h", 1}, {"pad_w", 1},
                                    {"pad_bottom", 1}, {"pad_right", 1}});
    auto xv = random_i8(50, rng);
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}));
    std::vector<int8_t> want;
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 3; ++ox)
        for (int c = 0; c < 2; ++c) {
          int sum = 0, n = 0, mx = -128;
          for (int iy = oy * 2 - 1; iy <= oy * 2 + 1; ++iy)
            for (int ix = ox * 2 - 1; ix <= ox * 2 + 1; ++ix)
              if (iy >= 0 && ix >= 0 && iy < 5 && ix < 5) sum += xv[(iy * 5 + ix) * 2 + c], ++n, mx = std::max<int>(mx, xv[(iy * 5 + ix) * 2 + c]);
          // Round half away from zero: the documented TFLite average.
          const int avg = static_cast<int>(std::lround(static_cast<double>(sum) / n));
          want.push_back(static_cast<int8_t>(std::string(kind) == "max_pool_2d" ? mx : avg));
        }
    CHECK(got == want);
  }
}

TEST_CASE("softmax, logistic, tanh, hard_swish int8 against real arithmetic") {
  std::mt19937 rng(15);
  auto xv = random_i8(40, rng);
  {
    ModelGraph m;
    TensorId x = m.tensor("x", {4, 10}, DType::kInt8, quant(0.1f, 2));
    TensorId y = m.tensor("y", {4, 10}, DType::kInt8, quant(1.f / 256, -128));
    OpId op = m.op("softmax", {x}, {y});
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}));
    std::vector<int8_t> want;
    for (int r = 0; r < 4; ++r) {
      double sum = 0;
      for (int i = 0; i < 10; ++i) sum += std::exp(0.1 * (xv[r * 10 + i] - 2));
      for (int i = 0; i < 10; ++i) want.push_back(real_to_q(std::exp(0.1 * (xv[r * 10 + i] - 2)) / sum, 1.f / 256, -128));
    }
    check_close(got, want);
  }
  struct Fn {
    const char* kind;
    float out_scale;
    int64_t out_zp;
    double (*f)(double);
  };
  for (const Fn& fn : {Fn{"logistic", 1.f / 256, -128, [](double v) { return 1 / (1 + std::exp(-v)); }},
                       Fn{"tanh", 1.f / 128, 0, [](double v) { return std::tanh(v); }},
                       Fn{"hard_swish", 0.03f, -20, [](double v) { return v * std::min(6.0, std::max(0.0, v + 3)) / 6; }}}) {
    CAPTURE(fn.kind);
    ModelGraph m;
    TensorId x = m.tensor("x", {40}, DType::kInt8, quant(0.05f, 3));
    TensorId y = m.tensor("y", {40}, DType::kInt8, quant(fn.out_scale, fn.out_zp));
    OpId op = m.op(fn.kind, {x}, {y});
    auto got = values_of<int8_t>(run_one(m.g, op, {bytes_of(xv)}));
    std::vector<int8_t> want;
    for (int8_t v : xv) want.push_back(real_to_q(fn.f(0.05 * (v - 3)), fn.out_scale, fn.out_zp));
    check_close(got, want);
  }
}

TEST_CASE("quantize, dequantize, relu, relu6 int8 exactly as TFLM defines them") {
  ModelGraph m;
  std::vector<float> fv = {-3.0f, -0.26f, -0.25f, 0.0f, 0.24f, 0.25f, 1.7f, 100.0f};
  TensorId f = m.tensor("f", {8}, DType::kFloat32);
  TensorId qy = m.tensor("q", {8}, DType::kInt8, quant(0.5f, -3));
  OpId quantize = m.op("quantize", {f}, {qy});
  // round(x / 0.5) - 3, half away from zero, clamped.
  CHECK(values_of<int8_t>(run_one(m.g, quantize, {bytes_of(fv)})) == std::vector<int8_t>{-9, -4, -4, -3, -3, -2, 0, 127});
  TensorId d = m.tensor("d", {8}, DType::kFloat32);
  OpId deq = m.op("dequantize", {qy}, {d});
  std::vector<int8_t> qv = {-128, -3, 0, 5, 127, 1, 2, 3};
  auto dv = values_of<float>(run_one(m.g, deq, {bytes_of(qv)}));
  for (size_t i = 0; i < qv.size(); ++i) CHECK(dv[i] == 0.5f * static_cast<float>(qv[i] + 3));
  TensorId r = m.tensor("r", {8}, DType::kInt8, quant(0.5f, -3));
  OpId relu6 = m.op("relu6", {qy}, {r});
  // [zero point, zero point + 6 / 0.5] = [-3, 9]
  CHECK(values_of<int8_t>(run_one(m.g, relu6, {bytes_of(std::vector<int8_t>{-128, -4, -3, 0, 9, 10, 127, 5})})) ==
        std::vector<int8_t>{-3, -3, -3, 0, 9, 9, 9, 5});
  TensorId r2 = m.tensor("r2", {8}, DType::kInt8, quant(0.25f, 10));
  OpId relu = m.op("relu", {qy}, {r2});
  // Requantised to scale 0.25, zero point 10: 10 + 2 (x + 3), at least 10.
  CHECK(values_of<int8_t>(run_one(m.g, relu, {bytes_of(std::vector<int8_t>{-128, -4, -3, 0, 9, 50, 127, 5})})) ==
        std::vector<int8_t>{10, 10, 10, 16, 34, 116, 127, 26});
}

TEST_CASE("pad, transpose, strided_slice, concatenation move elements exactly") {
  std::vector<float> xv(24);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i);
  ModelGraph m;
  TensorId x = m.tensor("x", {2, 3, 4}, DType::kFloat32);
  TensorId pads = m.tensor("pads", {3, 2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0, 0, 1, 0, 0, 2}));
  TensorId py = m.tensor("py", {2, 4, 6}, DType::kFloat32);
  auto padded = values_of<float>(run_one(m.g, m.op("pad", {x, pads}, {py}), {bytes_of(xv)}));
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 6; ++c)
        CHECK(padded[(a * 4 + b) * 6 + c] == (b >= 1 && c < 4 ? xv[(a * 3 + b - 1) * 4 + c] : 0.f));

  TensorId perm = m.tensor("perm", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{2, 0, 1}));
  TensorId ty = m.tensor("ty", {4, 2, 3}, DType::kFloat32);
  auto tr = values_of<float>(run_one(m.g, m.op("transpose", {x, perm}, {ty}), {bytes_of(xv)}));
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) CHECK(tr[(c * 2 + a) * 3 + b] == xv[(a * 3 + b) * 4 + c]);

  // x[1, ::-2, 1:] with shrink on axis 0: begin (1, -1, 1), end (2, ?, 4) with end_mask on axis 1.
  TensorId begin = m.tensor("begin", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, -1, 1}));
  TensorId end = m.tensor("end", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{2, 0, 4}));
  TensorId strides = m.tensor("strides", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, -2, 1}));
  TensorId sy = m.tensor("sy", {2, 3}, DType::kFloat32);
  auto sl = values_of<float>(run_one(m.g, m.op("strided_slice", {x, begin, end, strides}, {sy},
                                                {{"end_mask", 2}, {"shrink_axis_mask", 1}}),
                                     {bytes_of(xv)}));
  CHECK(sl == std::vector<float>{21, 22, 23, 13, 14, 15});

  TensorId z = m.tensor("z", {2, 1, 4}, DType::kFloat32);
  TensorId cy = m.tensor("cy", {2, 4, 4}, DType::kFloat32);
  std::vector<float> zv(8, -1.f);
  auto cat = values_of<float>(run_one(m.g, m.op("concatenation", {x, z}, {cy}, {{"axis", -2}}), {bytes_of(xv), bytes_of(zv)}));
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 4; ++c) CHECK(cat[(a * 4 + b) * 4 + c] == (b < 3 ? xv[(a * 3 + b) * 4 + c] : -1.f));
}

TEST_CASE("resize_bilinear (half-pixel centers, align corners) and depth_to_space against their definitions") {
  std::vector<float> xv(2 * 3 * 2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i * i % 7) - 2.f;
  for (int mode = 0; mode < 2; ++mode) {
    CAPTURE(mode);
    ModelGraph m;
    TensorId x = m.tensor("x", {1, 2, 3, 2}, DType::kFloat32);
    TensorId size = m.tensor("size", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{4, 5}));
    TensorId y = m.tensor("y", {1, 4, 5, 2}, DType::kFloat32);
    OpId op = m.op("resize_bilinear", {x, size}, {y}, {{"half_pixel_centers", mode == 0}, {"align_corners", mode == 1}});
    auto got = values_of<float>(run_one(m.g, op, {bytes_of(xv)}));
    // The source coordinate of output o: (o + 0.5) * in/out - 0.5 (half-pixel) or o * (in-1)/(out-1)
    // (corners aligned); weights of the two neighbours clamped into the image.
    auto source = [&](int o, int in, int out) {
      return mode == 0 ? (o + 0.5) * in / out - 0.5 : o * double(in - 1) / (out - 1);
    };
    for (int oy = 0; oy < 4; ++oy)
      for (int ox = 0; ox < 5; ++ox)
        for (int c = 0; c < 2; ++c) {
          const double sy = source(oy, 2, 4), sx = source(ox, 3, 5);
          const int y0 = std::max(0, int(std::floor(sy))), y1 = std::min(1, int(std::ceil(sy)));
          const int x0 = std::max(0, int(std::floor(sx))), x1 = std::min(2, int(std::ceil(sx)));
          auto at = [&](int yy, int xx) { return double(xv[(yy * 3 + xx) * 2 + c]); };
          const double dy = sy - y0, dx = sx - x0;
          const double want = at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx) + at(y0, x1) * (1 - dy) * dx +
                              at(y1, x1) * dy * dx;
          CHECK(got[(oy * 5 + ox) * 2 + c] == doctest::Approx(want).epsilon(1e-6));
        }
  }
  ModelGraph m;
  std::vector<int8_t> dv(2 * 2 * 8);
  for (size_t i = 0; i < dv.size(); ++i) dv[i] = static_cast<int8_t>(i);
  TensorId x = m.tensor("x", {1, 2, 2, 8}, DType::kInt8, quant(1.f, 0));
  TensorId y = m.tensor("y", {1, 4, 4, 2}, DType::kInt8, quant(1.f, 0));
  auto got = values_of<int8_t>(run_one(m.g, m.op("depth_to_space", {x}, {y}, {{"block_size", 2}}), {bytes_of(dv)}));
  // Output (h, w, c) comes from input (h/2, w/2) channel ((h%2)*2 + w%2) * 2 + c.
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 4; ++w)
      for (int c = 0; c < 2; ++c) CHECK(got[(h * 4 + w) * 2 + c] == dv[((h / 2) * 2 + w / 2) * 8 + ((h % 2) * 2 + w % 2) * 2 + c]);
}

TEST_CASE("float32 conv_2d and depthwise: TFLM's loops, bias and activation") {
  ModelGraph m;
  std::vector<float> xv(2 * 3 * 2), wv(2 * 2 * 2 * 2), bv = {0.5f, -100.f};
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.25f * static_cast<float>(i) - 1.f;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = 0.125f * static_cast<float>(i % 5) - 0.25f;
  TensorId x = m.tensor("x", {1, 2, 3, 2}, DType::kFloat32);
  TensorId w = m.tensor("w", {2, 2, 2, 2}, DType::kFloat32, {}, bytes_of(wv));
  TensorId b = m.tensor("b", {2}, DType::kFloat32, {}, bytes_of(bv));
  TensorId y = m.tensor("y", {1, 1, 2, 2}, DType::kFloat32);
  auto got = values_of<float>(run_one(m.g, m.op("conv_2d", {x, w, b}, {y}, {{"activation", 1}}), {bytes_of(xv)}));
  for (int ox = 0; ox < 2; ++ox)
    for (int o = 0; o < 2; ++o) {
      float t = 0;
      for (int fy = 0; fy < 2; ++fy)
        for (int fx = 0; fx < 2; ++fx)
          for (int c = 0; c < 2; ++c) t += xv[(fy * 3 + ox + fx) * 2 + c] * wv[((o * 2 + fy) * 2 + fx) * 2 + c];
      CHECK(got[ox * 2 + o] == std::max(0.f, t + bv[o]));
    }
}

TEST_CASE("an op no kernel runs is a stand-in: named, every input byte read, every output byte written") {
  ModelGraph m;
  TensorId x = m.tensor("x", {1, 4, 4, 2}, DType::kInt8, quant(0.1f, 0));
  TensorId y = m.tensor("y", {1, 8, 8, 2}, DType::kInt8, quant(0.1f, 0));
  TensorId z = m.tensor("z", {1, 8, 8, 2}, DType::kInt8, quant(0.1f, 0));
  m.op("resize_nearest_neighbor", {x}, {y});
  // A known kind with an option the kernel does not handle is a stand-in too.
  m.op("conv_2d_unknown_layout", {y}, {z});
  m.g.inputs = {x};
  m.g.outputs = {z};
  link_tensors(m.g);
  validate_graph(m.g);
  sim::KernelPlan p0 = sim::plan_kernel(m.g, 0);
  CHECK(p0.stand_in);
  CHECK(std::string(sim::plan_kernel_name(p0)) == "stand-in");
  CHECK(p0.note.find("resize_nearest_neighbor") != std::string::npos);
  // Deterministic, and every input byte matters.
  std::vector<uint8_t> in(32, 1);
  auto a = run_one(m.g, 0, {in}), b = run_one(m.g, 0, {in});
  CHECK(a == b);
  CHECK(std::count(a.begin(), a.end(), 0xEE) < 4);  // every output byte written (0xEE: the unwritten fill)
  in[31] ^= 1;
  CHECK(run_one(m.g, 0, {in}) != a);
  sim::SimReport r = sim::simulate(m.g, {});
  CHECK(r.ok());
  CHECK(r.stand_ins.size() == 2);
  // int32 elements count as 4 bytes: a softmax over int32 [1,2] is a stand-in, not a size mismatch.
  ModelGraph k;
  TensorId i = k.tensor("i", {1, 2}, DType::kInt32);
  TensorId o = k.tensor("o", {1, 2}, DType::kInt32);
  k.op("softmax", {i}, {o});
  sim::KernelPlan ps = sim::plan_kernel(k.g, 0);
  CHECK(ps.stand_in);
  CHECK(ps.note.find("int16 or float32") != std::string::npos);
}

}  // namespace arenaplan
