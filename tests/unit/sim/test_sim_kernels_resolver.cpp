// The rest of TFLM's op resolver: ARG_MIN, ELU, ADD_N, CUMSUM, REVERSE_V2, GATHER_ND,
// L2_NORMALIZATION, LOG_SOFTMAX, FLOOR_DIV, FLOOR_MOD, L2_POOL_2D, EMBEDDING_LOOKUP,
// DYNAMIC_UPDATE_SLICE and the int16 variants of AVERAGE_POOL_2D, MAX_POOL_2D, LEAKY_RELU
// and PRELU. Each op in a one-op model, simulated in the arena, its output against a naive loop
// of the op's definition written here (int8: real arithmetic in double, compared as
// check_requantized describes), and each refuses one variant TFLM refuses, by name.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/sim/sim.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

using test::bytes_of;
using test::check_requantized;
using test::every_int8;
using test::OneOpModel;
using test::quant;
using test::right_shift_of;
using test::round_half_away;
using test::values_of;

int64_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::vector<int16_t> draw_int16(size_t n, uint32_t seed, int lo = -32768, int hi = 32767) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int16_t> v(n);
  for (auto& x : v) x = static_cast<int16_t>(d(rng));
  return v;
}

std::vector<int8_t> draw_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

}  // namespace

TEST_CASE("int16 average and max pooling: the window's rounded mean or its maximum, clamped by the fused activation") {
  // 5x5 image, 2 channels, 3x3 window, stride 2, one pixel of padding on every side: border
  // windows see 4 or 6 pixels, the centre 9.
  const auto xv = draw_int16(5 * 5 * 2, 7);
  for (bool average : {true, false}) {
    for (int activation : {0, 3}) {  // none, relu6
      CAPTURE(average);
      CAPTURE(activation);
      OneOpModel m;
      const float scale = 0.01f;
      TensorId x = m.input("x", {1, 5, 5, 2}, DType::kInt16, bytes_of(xv), quant(scale, 0));
      TensorId y = m.tensor("y", {1, 3, 3, 2}, DType::kInt16, quant(scale, 0));
      m.op("pool", average ? "average_pool_2d" : "max_pool_2d", {x}, {y},
           {{"kernel_h", 3}, {"kernel_w", 3}, {"stride_h", 2}, {"stride_w", 2}, {"pad_h", 1}, {"pad_w", 1},
            {"pad_bottom", 1}, {"pad_right", 1}, {"activation", activation}});
      const auto got = values_of<int16_t>(m.run({y})[0]);
      const int hi = activation == 3 ? static_cast<int>(std::lround(6.0 / scale)) : 32767;
      const int lo = activation == 3 ? 0 : -32768;
      for (int oy = 0; oy < 3; ++oy)
        for (int ox = 0; ox < 3; ++ox)
          for (int c = 0; c < 2; ++c) {
            double sum = 0;
            int count = 0, best = -32768;
            for (int iy = 2 * oy - 1; iy <= 2 * oy + 1; ++iy)
              for (int ix = 2 * ox - 1; ix <= 2 * ox + 1; ++ix) {
                if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
                const int v = xv[(iy * 5 + ix) * 2 + c];
                sum += v, ++count, best = std::max(best, v);
              }
            const int want = average ? static_cast<int>(round_half_away(sum / count)) : best;
            CHECK(got[(oy * 3 + ox) * 2 + c] == std::clamp(want, lo, hi));
          }
    }
  }
  OneOpModel bad;
  TensorId x = bad.tensor("x", {1, 2, 2, 1}, DType::kInt32);
  TensorId y = bad.tensor("y", {1, 1, 1, 1}, DType::kInt32);
  bad.op("pool", "max_pool_2d", {x}, {y}, {{"kernel_h", 2}, {"kernel_w", 2}, {"stride_h", 2}, {"stride_w", 2}});
  CHECK(bad.refusal().find("max_pool_2d runs int8, int16 or float32") != std::string::npos);
}

TEST_CASE("int16 leaky_relu and prelu (int8 slopes) against their real values") {
  const auto xv = draw_int16(512, 11);
  const float sx = 0.002f, sy = 0.003f;
  {
    const float alpha = 0.15f;
    OneOpModel m;
    TensorId x = m.input("x", {512}, DType::kInt16, bytes_of(xv), quant(sx, 0));
    TensorId y = m.tensor("y", {512}, DType::kInt16, quant(sy, 0));
    m.op("leaky", "leaky_relu", {x}, {y}, {{"alpha_f32", float_bits(alpha)}});
    const auto got = values_of<int16_t>(m.run({y})[0]);
    for (size_t i = 0; i < xv.size(); ++i) {
      const double real = sx * double(xv[i]);
      const bool positive = real >= 0;
      // TFLM forms both multipliers from float products.
      const double mult = positive ? double(sx / sy) : double(sx * alpha / sy);
      check_requantized(got[i], (positive ? real : real * alpha) / sy, 0, right_shift_of(mult), -32768, 32767);
    }
  }
  {
    const float sa = 0.01f;
    const int32_t za = 3;
    std::vector<int8_t> alpha = {-40, 0, 25, 90};
    OneOpModel m;
    TensorId x = m.input("x", {128, 4}, DType::kInt16, bytes_of(xv), quant(sx, 0));
    TensorId a = m.tensor("alpha", {4}, DType::kInt8, quant(sa, za), bytes_of(alpha));
    TensorId y = m.tensor("y", {128, 4}, DType::kInt16, quant(sy, 0));
    m.op("prelu", "prelu", {x, a}, {y});
    const auto got = values_of<int16_t>(m.run({y})[0]);
    for (size_t i = 0; i < xv.size(); ++i) {
      const double real = sx * double(xv[i]), slope = sa * double(alpha[i % 4] - za);
      const bool positive = real >= 0;
      check_requantized(got[i], (positive ? real : real * slope) / sy, 0,
                        right_shift_of(positive ? double(sx) / sy : double(sx) * sa / sy), -32768, 32767);
    }
  }
  OneOpModel bad;  // int16 input with int16 slopes: TFLM's int16 PRELU reads int8 slopes
  TensorId x = bad.tensor("x", {4}, DType::kInt16, quant(sx, 0));
  TensorId a = bad.tensor("alpha", {4}, DType::kInt16, quant(0.01f, 0), bytes_of(std::vector<int16_t>{1, 2, 3, 4}));
  TensorId y = bad.tensor("y", {4}, DType::kInt16, quant(sy, 0));
  bad.op("prelu", "prelu", {x, a}, {y});
  CHECK(bad.refusal().find("int16 with int8 slopes") != std::string::npos);
}

TEST_CASE("arg_min: the first index of the smallest value along the axis; an int64 output is refused") {
  // [2, 3, 4] along axis 1: ties keep the first index.
  std::vector<int8_t> xv = {5, -3, 7, 7,  5, -3, -9, 7,  5, 2, -9, 7,
                            0, 0, 0, 0,  1, -1, 0, -128, -1, -1, 0, -128};
  OneOpModel m;
  TensorId x = m.input("x", {2, 3, 4}, DType::kInt8, bytes_of(xv), quant(0.1f, 0));
  TensorId axis = m.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
  TensorId y = m.tensor("y", {2, 4}, DType::kInt32);
  m.op("argmin", "arg_min", {x, axis}, {y});
  const auto got = values_of<int32_t>(m.run({y})[0]);
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 4; ++c) {
      int best = 0;
      for (int k = 1; k < 3; ++k)
        if (xv[(a * 3 + k) * 4 + c] < xv[(a * 3 + best) * 4 + c]) best = k;
      CHECK(got[a * 4 + c] == best);
    }
  CHECK(got == std::vector<int32_t>{0, 0, 1, 0, 2, 1, 0, 1});  // worked by hand

  OneOpModel f;
  std::vector<float> fv = {2.f, NAN, -1.f, -1.f, 3.f, 0.5f};
  TensorId fx = f.input("x", {2, 3}, DType::kFloat32, bytes_of(fv));
  TensorId fa = f.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{-1}));
  TensorId fy = f.tensor("y", {2}, DType::kInt32);
  f.op("argmin", "arg_min", {fx, fa}, {fy});
  CHECK(values_of<int32_t>(f.run({fy})[0]) == std::vector<int32_t>{2, 0});

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {2, 4}, DType::kInt8, quant(0.1f, 0));
  TensorId ba = bad.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0}));
  TensorId by = bad.tensor("y", {4}, DType::kInt64);
  bad.op("argmin", "arg_min", {bx, ba}, {by});
  CHECK(bad.refusal().find("arg_min writes int32 indices only") != std::string::npos);
}

TEST_CASE("elu: e^x - 1 below zero, x above; int8 through a table of every input value") {
  const float sx = 0.05f, sy = 0.03f;
  const int32_t zx = 20, zy = 60;
  OneOpModel m;
  TensorId x = m.input("x", {256}, DType::kInt8, bytes_of(every_int8()), quant(sx, zx));
  TensorId y = m.tensor("y", {256}, DType::kInt8, quant(sy, zy));
  m.op("elu", "elu", {x}, {y});
  const auto got = values_of<int8_t>(m.run({y})[0]);
  const auto xs = every_int8();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double real = sx * double(xs[i] - zx);
    const double elu = real < 0 ? std::expm1(real) : real;
    const double steps = elu / sy;
    // The table is built in float: only a result within float's error of a half step may go either way.
    const double frac = steps - std::floor(steps);
    if (std::fabs(frac - 0.5) < 1e-4) continue;
    CHECK(int{got[i]} == std::clamp(static_cast<int>(round_half_away(steps)) + zy, -128, 127));
  }
  CHECK(got[0] == std::clamp(static_cast<int>(round_half_away(std::expm1(sx * (-128 - zx)) / sy)) + zy, -128, 127));

  OneOpModel f;
  std::vector<float> fv = {-3.f, -0.25f, 0.f, 1.5f};
  TensorId fx = f.input("x", {4}, DType::kFloat32, bytes_of(fv));
  TensorId fy = f.tensor("y", {4}, DType::kFloat32);
  f.op("elu", "elu", {fx}, {fy});
  const auto fg = values_of<float>(f.run({fy})[0]);
  CHECK(fg[0] == doctest::Approx(-0.950213));
  CHECK(fg[1] == doctest::Approx(-0.221199));
  CHECK(fg[2] == 0.f);
  CHECK(fg[3] == 1.5f);

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt16, quant(0.1f, 0));
  TensorId by = bad.tensor("y", {4}, DType::kInt16, quant(0.1f, 0));
  bad.op("elu", "elu", {bx}, {by});
  CHECK(bad.refusal().find("elu runs int8 or float32") != std::string::npos);
}

// TFLM's int8 ADD_N and CUMSUM seed their sums with the term of a stored 0, i.e. one extra
// (0 - zero point): the real result is scale x (sum of (q - zero point) - zero point). The
// fixture models measured in TFLM (tests/unit/data/tflm/README.md) hold the same.
TEST_CASE("add_n: the element-wise sum of every input; int8 as TFLM sums it") {
  const float sx = 0.02f, sy = 0.05f;
  const int32_t zx = -5, zy = 9;
  const auto a = draw_int8(60, 1), b = draw_int8(60, 2), c = draw_int8(60, 3);
  OneOpModel m;
  TensorId ta = m.input("a", {3, 20}, DType::kInt8, bytes_of(a), quant(sx, zx));
  TensorId tb = m.input("b", {3, 20}, DType::kInt8, bytes_of(b), quant(sx, zx));
  TensorId tc = m.input("c", {3, 20}, DType::kInt8, bytes_of(c), quant(sx, zx));
  TensorId y = m.tensor("y", {3, 20}, DType::kInt8, quant(sy, zy));
  m.op("sum", "add_n", {ta, tb, tc}, {y});
  const auto got = values_of<int8_t>(m.run({y})[0]);
  const double out_mult = 2.0 * sx / (double(1 << 20) * sy);
  for (size_t i = 0; i < got.size(); ++i) {
    const double real = sx * (double(a[i] - zx) + (b[i] - zx) + (c[i] - zx) - zx);
    check_requantized(got[i], real / sy, zy, right_shift_of(out_mult));
  }

  OneOpModel f;
  std::vector<float> fa = {1.f, -2.f, 0.5f}, fb = {0.25f, 2.f, -4.f};
  TensorId fx = f.input("a", {3}, DType::kFloat32, bytes_of(fa));
  TensorId fz = f.input("b", {3}, DType::kFloat32, bytes_of(fb));
  TensorId fy = f.tensor("y", {3}, DType::kFloat32);
  f.op("sum", "add_n", {fx, fz}, {fy});
  CHECK(values_of<float>(f.run({fy})[0]) == std::vector<float>{1.25f, 0.f, -3.5f});

  OneOpModel bad;  // int8 inputs of different scales
  TensorId b1 = bad.tensor("a", {2}, DType::kInt8, quant(0.1f, 0));
  TensorId b2 = bad.tensor("b", {2}, DType::kInt8, quant(0.2f, 0));
  TensorId b3 = bad.tensor("y", {2}, DType::kInt8, quant(0.3f, 0));
  bad.op("sum", "add_n", {b1, b2}, {b3});
  CHECK(bad.refusal().find("share one quantization") != std::string::npos);
}

TEST_CASE("cumsum: running sums along the axis, exclusive and reverse; int8 as TFLM sums it") {
  const float sx = 0.03f, sy = 0.2f;
  const int32_t zx = 7, zy = -3;
  const auto xv = draw_int8(2 * 5 * 3, 4);
  for (int flags = 0; flags < 4; ++flags) {
    const bool exclusive = flags & 1, reverse = flags & 2;
    CAPTURE(exclusive);
    CAPTURE(reverse);
    OneOpModel m;
    TensorId x = m.input("x", {2, 5, 3}, DType::kInt8, bytes_of(xv), quant(sx, zx));
    TensorId axis = m.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
    TensorId y = m.tensor("y", {2, 5, 3}, DType::kInt8, quant(sy, zy));
    m.op("cumsum", "cumsum", {x, axis}, {y}, {{"exclusive", exclusive}, {"reverse", reverse}});
    const auto got = values_of<int8_t>(m.run({y})[0]);
    const double out_mult = 2.0 * sx / (double(1 << 20) * sy);
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 5; ++k) {
          double sum = -zx;  // TFLM's seed (see above)
          for (int j = 0; j < 5; ++j) {
            const bool before = reverse ? j > k : j < k;
            if (before || (!exclusive && j == k)) sum += xv[(a * 5 + j) * 3 + c] - zx;
          }
          check_requantized(got[(a * 5 + k) * 3 + c], sx * sum / sy, zy, right_shift_of(out_mult));
        }
  }
  OneOpModel f;
  std::vector<float> fv = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f};
  TensorId fx = f.input("x", {2, 3}, DType::kFloat32, bytes_of(fv));
  TensorId fa = f.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{-1}));
  TensorId fy = f.tensor("y", {2, 3}, DType::kFloat32);
  f.op("cumsum", "cumsum", {fx, fa}, {fy}, {{"exclusive", 1}, {"reverse", 1}});
  CHECK(values_of<float>(f.run({fy})[0]) == std::vector<float>{5.f, 3.f, 0.f, 11.f, 6.f, 0.f});  // by hand

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt16, quant(0.1f, 0));
  TensorId ba = bad.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0}));
  TensorId by = bad.tensor("y", {4}, DType::kInt16, quant(0.1f, 0));
  bad.op("cumsum", "cumsum", {bx, ba}, {by});
  CHECK(bad.refusal().find("cumsum runs int8 or float32") != std::string::npos);
}

TEST_CASE("reverse_v2 flips contiguous axes; non-contiguous axes are refused as TFLM refuses them") {
  const auto xv = draw_int16(2 * 3 * 4 * 2, 9);
  const std::vector<std::vector<int32_t>> cases = {{0}, {2}, {3}, {1, 2}, {-1, -2}, {0, 1, 2, 3}};
  for (const auto& axes : cases) {
    OneOpModel m;
    TensorId x = m.input("x", {2, 3, 4, 2}, DType::kInt16, bytes_of(xv), quant(0.1f, 0));
    TensorId a = m.tensor("axes", {static_cast<int64_t>(axes.size())}, DType::kInt32, {}, bytes_of(axes));
    TensorId y = m.tensor("y", {2, 3, 4, 2}, DType::kInt16, quant(0.1f, 0));
    m.op("rev", "reverse_v2", {x, a}, {y});
    const auto got = values_of<int16_t>(m.run({y})[0]);
    const int dims[4] = {2, 3, 4, 2};
    bool flip[4] = {false, false, false, false};
    for (int32_t ax : axes) flip[ax < 0 ? ax + 4 : ax] = true;
    for (int i0 = 0; i0 < 2; ++i0)
      for (int i1 = 0; i1 < 3; ++i1)
        for (int i2 = 0; i2 < 4; ++i2)
          for (int i3 = 0; i3 < 2; ++i3) {
            int s[4] = {i0, i1, i2, i3};
            for (int d = 0; d < 4; ++d)
              if (flip[d]) s[d] = dims[d] - 1 - s[d];
            CHECK(got[((i0 * 3 + i1) * 4 + i2) * 2 + i3] == xv[((s[0] * 3 + s[1]) * 4 + s[2]) * 2 + s[3]]);
          }
  }
  OneOpModel bad;
  TensorId x = bad.tensor("x", {2, 3, 4}, DType::kInt8, quant(0.1f, 0));
  TensorId a = bad.tensor("axes", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0, 2}));
  TensorId y = bad.tensor("y", {2, 3, 4}, DType::kInt8, quant(0.1f, 0));
  bad.op("rev", "reverse_v2", {x, a}, {y});
  CHECK(bad.refusal().find("not contiguous") != std::string::npos);
}

TEST_CASE("gather_nd picks params' slices by index rows; a slice outside params gives zeros") {
  std::vector<int8_t> pv(3 * 4 * 2);
  for (size_t i = 0; i < pv.size(); ++i) pv[i] = static_cast<int8_t>(i * 5 - 60);
  // Indices [2, 2, 2]: four (row, column) pairs picking [2]-element slices of params [3, 4, 2].
  const std::vector<int32_t> idx = {2, 3, 0, 0, 1, 2, 9, 0};  // the last pair lies past params
  OneOpModel m;
  TensorId p = m.input("params", {3, 4, 2}, DType::kInt8, bytes_of(pv), quant(0.1f, 0));
  TensorId i = m.input("indices", {2, 2, 2}, DType::kInt32, bytes_of(idx));
  TensorId y = m.tensor("y", {2, 2, 2}, DType::kInt8, quant(0.1f, 0));
  m.op("gnd", "gather_nd", {p, i}, {y});
  const auto got = values_of<int8_t>(m.run({y})[0]);
  for (int s = 0; s < 4; ++s)
    for (int k = 0; k < 2; ++k) {
      const int row = idx[s * 2], col = idx[s * 2 + 1];
      const int8_t want = row < 3 && col < 4 ? pv[(row * 4 + col) * 2 + k] : 0;
      CHECK(got[s * 2 + k] == want);
    }
  CHECK(got[0] == pv[22]);  // (2, 3, 0): the last pixel's first channel

  OneOpModel bad;
  TensorId bp = bad.tensor("params", {4}, DType::kInt16, quant(0.1f, 0));
  TensorId bi = bad.tensor("indices", {1, 1}, DType::kInt32);
  TensorId by = bad.tensor("y", {1}, DType::kInt16, quant(0.1f, 0));
  bad.op("gnd", "gather_nd", {bp, bi}, {by});
  CHECK(bad.refusal().find("gather_nd runs int8 or float32 params") != std::string::npos);
}

TEST_CASE("l2_normalization: each row over its Euclidean norm; int8 in steps of 1/128") {
  const auto xv = draw_int8(4 * 10, 5);
  const int32_t zx = 3;
  OneOpModel m;
  TensorId x = m.input("x", {4, 10}, DType::kInt8, bytes_of(xv), quant(0.05f, zx));
  TensorId y = m.tensor("y", {4, 10}, DType::kInt8, quant(1.f / 128, 0));
  m.op("l2", "l2_normalization", {x}, {y});
  const auto got = values_of<int8_t>(m.run({y})[0]);
  for (int r = 0; r < 4; ++r) {
    double squares = 0;
    for (int i = 0; i < 10; ++i) squares += double(xv[r * 10 + i] - zx) * (xv[r * 10 + i] - zx);
    for (int i = 0; i < 10; ++i) {
      // The inverse square root is a five-step Newton-Raphson: within one step of the real value.
      const double want = std::clamp(128.0 * (xv[r * 10 + i] - zx) / std::sqrt(squares), -128.0, 127.0);
      CHECK(std::fabs(got[r * 10 + i] - want) <= 1.0);
    }
  }
  OneOpModel f;
  std::vector<float> fv = {3.f, 4.f, 0.f, 0.f};
  TensorId fx = f.input("x", {2, 2}, DType::kFloat32, bytes_of(fv));
  TensorId fy = f.tensor("y", {2, 2}, DType::kFloat32);
  f.op("l2", "l2_normalization", {fx}, {fy});
  CHECK(values_of<float>(f.run({fy})[0]) == std::vector<float>{0.6f, 0.8f, 0.f, 0.f});  // the zero row: over 1e-6

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {2, 2}, DType::kFloat32);
  TensorId by = bad.tensor("y", {2, 2}, DType::kFloat32);
  bad.op("l2", "l2_normalization", {bx}, {by}, {{"activation", 1}});
  CHECK(bad.refusal().find("fused activation") != std::string::npos);
}

TEST_CASE("log_softmax: x - max - log(sum of e^(x - max)) per row; int8 in steps of 1/16 from 127") {
  std::vector<float> fv = {1.f, 2.f, 3.f, -1.f, -1.f, -1.f};
  OneOpModel f;
  TensorId fx = f.input("x", {2, 3}, DType::kFloat32, bytes_of(fv));
  TensorId fy = f.tensor("y", {2, 3}, DType::kFloat32);
  f.op("lsm", "log_softmax", {fx}, {fy});
  const auto got = values_of<float>(f.run({fy})[0]);
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  for (int i = 0; i < 3; ++i) CHECK(got[i] == doctest::Approx(fv[i] - lse));
  for (int i = 3; i < 6; ++i) CHECK(got[i] == doctest::Approx(-std::log(3.0)));

  // int8: every input value in rows of 8 (32 rows), real results from double arithmetic; the
  // fixed-point exp and log are within one output step of them.
  const float sx = 0.1f;
  const int32_t zx = -10;
  OneOpModel m;
  TensorId x = m.input("x", {32, 8}, DType::kInt8, bytes_of(every_int8()), quant(sx, zx));
  TensorId y = m.tensor("y", {32, 8}, DType::kInt8, quant(16.f / 256, 127));
  m.op("lsm", "log_softmax", {x}, {y});
  const auto q = values_of<int8_t>(m.run({y})[0]);
  const auto xs = every_int8();
  for (int row = 0; row < 32; ++row) {
    double max = -1e9, sum = 0;
    for (int i = 0; i < 8; ++i) max = std::max(max, sx * double(xs[row * 8 + i] - zx));
    for (int i = 0; i < 8; ++i) sum += std::exp(sx * double(xs[row * 8 + i] - zx) - max);
    for (int i = 0; i < 8; ++i) {
      const double real = sx * double(xs[row * 8 + i] - zx) - max - std::log(sum);
      const double want = std::clamp(round_half_away(real * 16) + 127, -128.0, 127.0);
      CHECK(std::fabs(q[row * 8 + i] - want) <= 1.0);
    }
  }

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
  TensorId by = bad.tensor("y", {4}, DType::kInt8, quant(1.f / 256, -128));
  bad.op("lsm", "log_softmax", {bx}, {by});
  CHECK(bad.refusal().find("output scale 1/16 and zero point 127") != std::string::npos);
}

TEST_CASE("floor_div and floor_mod float32: the quotient floored, the remainder on the divisor's sign") {
  const std::vector<float> a = {7.f, -7.f, 7.f, -7.f, 5.5f, -0.f};
  const std::vector<float> b = {2.f, 2.f, -2.f, -2.f, 1.5f, 3.f};
  OneOpModel m;
  TensorId ta = m.input("a", {6}, DType::kFloat32, bytes_of(a));
  TensorId tb = m.input("b", {6}, DType::kFloat32, bytes_of(b));
  TensorId q = m.tensor("q", {6}, DType::kFloat32);
  m.op("div", "floor_div", {ta, tb}, {q});
  CHECK(values_of<float>(m.run({q})[0]) == std::vector<float>{3.f, -4.f, -4.f, 3.f, 3.f, -0.f});  // by hand
  OneOpModel n;
  TensorId na = n.input("a", {6}, DType::kFloat32, bytes_of(a));
  TensorId nb = n.input("b", {6}, DType::kFloat32, bytes_of(b));
  TensorId r = n.tensor("r", {6}, DType::kFloat32);
  n.op("mod", "floor_mod", {na, nb}, {r});
  const auto got = values_of<float>(n.run({r})[0]);
  for (size_t i = 0; i < a.size(); ++i) CHECK(got[i] == doctest::Approx(a[i] - b[i] * std::floor(a[i] / b[i])));
  CHECK(got[1] == 1.f);   // -7 mod 2
  CHECK(got[2] == -1.f);  // 7 mod -2

  OneOpModel bad;
  TensorId x = bad.tensor("a", {2}, DType::kInt32);
  TensorId y = bad.tensor("b", {2}, DType::kInt32);
  TensorId z = bad.tensor("q", {2}, DType::kInt32);
  bad.op("div", "floor_div", {x, y}, {z});
  CHECK(bad.refusal().find("floor_div runs float32 only") != std::string::npos);
}

TEST_CASE("l2_pool_2d float32: the square root of each window's mean square") {
  std::vector<float> xv(4 * 4 * 2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 7) - 3.f;
  OneOpModel m;
  TensorId x = m.input("x", {1, 4, 4, 2}, DType::kFloat32, bytes_of(xv));
  TensorId y = m.tensor("y", {1, 2, 2, 2}, DType::kFloat32);
  m.op("l2", "l2_pool_2d", {x}, {y}, {{"kernel_h", 2}, {"kernel_w", 2}, {"stride_h", 2}, {"stride_w", 2}});
  const auto got = values_of<float>(m.run({y})[0]);
  for (int oy = 0; oy < 2; ++oy)
    for (int ox = 0; ox < 2; ++ox)
      for (int c = 0; c < 2; ++c) {
        double squares = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) squares += std::pow(xv[((2 * oy + dy) * 4 + 2 * ox + dx) * 2 + c], 2);
        CHECK(got[(oy * 2 + ox) * 2 + c] == doctest::Approx(std::sqrt(squares / 4)));
      }
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {1, 2, 2, 1}, DType::kInt8, quant(0.1f, 0));
  TensorId by = bad.tensor("y", {1, 1, 1, 1}, DType::kInt8, quant(0.1f, 0));
  bad.op("l2", "l2_pool_2d", {bx}, {by}, {{"kernel_h", 2}, {"kernel_w", 2}, {"stride_h", 2}, {"stride_w", 2}});
  CHECK(bad.refusal().find("l2_pool_2d runs float32 only") != std::string::npos);
}

TEST_CASE("embedding_lookup copies the table's rows by id; int8 into float32 dequantizes; an id past the table gives zeros") {
  std::vector<int8_t> table(4 * 3);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<int8_t>(i * 9 - 50);
  const std::vector<int32_t> ids = {3, 0, 3, 7};
  for (bool hybrid : {false, true}) {
    CAPTURE(hybrid);
    OneOpModel m;
    TensorId id = m.input("ids", {4}, DType::kInt32, bytes_of(ids));
    TensorId t = m.tensor("table", {4, 3}, DType::kInt8, quant(0.25f, 0), bytes_of(table));
    TensorId y = hybrid ? m.tensor("y", {4, 3}, DType::kFloat32) : m.tensor("y", {4, 3}, DType::kInt8, quant(0.25f, 0));
    m.op("emb", "embedding_lookup", {id, t}, {y});
    const auto out = m.run({y})[0];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) {
        const int v = ids[i] < 4 ? table[ids[i] * 3 + j] : 0;
        if (hybrid) CHECK(values_of<float>(out)[i * 3 + j] == 0.25f * static_cast<float>(v));
        else CHECK(values_of<int8_t>(out)[i * 3 + j] == v);
      }
  }
  OneOpModel bad;
  TensorId id = bad.tensor("ids", {2, 1}, DType::kInt32);
  TensorId t = bad.tensor("table", {4, 3}, DType::kFloat32, {}, bytes_of(std::vector<float>(12, 1.f)));
  TensorId y = bad.tensor("y", {2, 3}, DType::kFloat32);
  bad.op("emb", "embedding_lookup", {id, t}, {y});
  CHECK(bad.refusal().find("1-D int32 row ids") != std::string::npos);
}

TEST_CASE("dynamic_update_slice writes the update at start indices clamped so that it fits") {
  std::vector<int16_t> xv(3 * 5 * 2), uv(2 * 2 * 2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<int16_t>(i);
  for (size_t i = 0; i < uv.size(); ++i) uv[i] = static_cast<int16_t>(-1 - static_cast<int>(i));
  // Starts (2, -3, 1): dim 0 clamps to 3 - 2 = 1, dim 1 to 0, dim 2 to 2 - 2 = 0.
  OneOpModel m;
  TensorId x = m.input("x", {3, 5, 2}, DType::kInt16, bytes_of(xv), quant(0.1f, 0));
  TensorId u = m.input("u", {2, 2, 2}, DType::kInt16, bytes_of(uv), quant(0.1f, 0));
  TensorId s = m.input("start", {3}, DType::kInt64, bytes_of(std::vector<int64_t>{2, -3, 1}));
  TensorId y = m.tensor("y", {3, 5, 2}, DType::kInt16, quant(0.1f, 0));
  m.op("dus", "dynamic_update_slice", {x, u, s}, {y});
  const auto got = values_of<int16_t>(m.run({y})[0]);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 2; ++c) {
        const bool inside = a >= 1 && a < 3 && b < 2;
        const int16_t want = inside ? uv[((a - 1) * 2 + b) * 2 + c] : xv[(a * 5 + b) * 2 + c];
        CHECK(got[(a * 5 + b) * 2 + c] == want);
      }
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {2, 2}, DType::kInt8, quant(0.1f, 0));
  TensorId bu = bad.tensor("u", {3, 1}, DType::kInt8, quant(0.1f, 0));
  TensorId bs = bad.tensor("start", {2}, DType::kInt32);
  TensorId by = bad.tensor("y", {2, 2}, DType::kInt8, quant(0.1f, 0));
  bad.op("dus", "dynamic_update_slice", {bx, bu, bs}, {by});
  CHECK(bad.refusal().find("larger than the operand") != std::string::npos);
}

TEST_CASE("reduce_all ANDs bool values over the axes; broadcast_args gives the shape two shapes broadcast to") {
  // [2, 3, 2] over axis 1: true only where all three are non-zero.
  const std::vector<uint8_t> xv = {1, 1, 1, 0, 1, 1,  1, 0, 1, 0, 1, 1};
  OneOpModel m;
  TensorId x = m.input("x", {2, 3, 2}, DType::kBool, xv);
  TensorId axes = m.tensor("axes", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
  TensorId y = m.tensor("y", {2, 2}, DType::kBool);
  m.op("all", "reduce_all", {x, axes}, {y}, {{"keep_dims", 0}});
  const auto got = m.run({y})[0];
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 2; ++c) {
      bool all = true;
      for (int k = 0; k < 3; ++k) all = all && xv[(a * 3 + k) * 2 + c] != 0;
      CHECK(got[a * 2 + c] == (all ? 1 : 0));
    }
  CHECK(got == std::vector<uint8_t>{1, 0, 1, 0});  // by hand

  OneOpModel b;
  TensorId sa = b.input("a", {4}, DType::kInt64, bytes_of(std::vector<int64_t>{1, 6, 1, 4}));
  TensorId sb = b.input("b", {3}, DType::kInt64, bytes_of(std::vector<int64_t>{6, 5, 1}));
  TensorId sy = b.tensor("y", {4}, DType::kInt64);
  b.op("bargs", "broadcast_args", {sa, sb}, {sy});
  CHECK(values_of<int64_t>(b.run({sy})[0]) == std::vector<int64_t>{1, 6, 5, 4});

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {2, 2}, DType::kInt8, quant(0.1f, 0));
  TensorId ba = bad.tensor("axes", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0}));
  TensorId by = bad.tensor("y", {2}, DType::kInt8, quant(0.1f, 0));
  bad.op("all", "reduce_all", {bx, ba}, {by});
  CHECK(bad.refusal().find("reduce_all runs bool only") != std::string::npos);
}

}  // namespace arenaplan
