// GATHER, CAST, FILL, SHAPE, PACK, UNPACK, ZEROS_LIKE, BROADCAST_TO, elementwise math (ABS, NEG,
// EXP, LOG, SQRT, RSQRT, SQUARE, SQUARED_DIFFERENCE, DIV), reductions (SUM, MEAN int16,
// REDUCE_MAX), BATCH_MATMUL, TRANSPOSE_CONV and int8 RESIZE_BILINEAR against naive loops written
// here from TFLite's documented semantics: exact for the ops that move or compare values and for
// float32 in TFLM's order, real arithmetic within one step for the quantized ones, and the types
// TFLM refuses refused by name.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/unit/sim_one_op.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
using test::bytes_of;
using test::OneOpModel;
using test::quant;
using test::values_of;

namespace {

template <class T>
std::vector<T> random_values(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -4.f, float hi = 4.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<uint8_t> int32_bytes(const std::vector<int32_t>& v) { return bytes_of(v); }

// Every value within `tolerance` steps of the naive one.
template <class T>
void check_within(const std::vector<T>& got, const std::vector<int>& want, int tolerance = 1) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK_MESSAGE(std::abs(int(got[i]) - want[i]) <= tolerance, "element " << i);
}

int quantized(double real, float scale, int zp, int lo = -128, int hi = 127) {
  return static_cast<int>(std::clamp<double>(std::round(real / scale) + zp, lo, hi));
}

}  // namespace

TEST_CASE("gather: rows of int8 and float32 params along an axis, with batch dims, as TFLite defines it") {
  // params [2, 3, 4], indices [2, 2] (batch_dims 1: each batch has its own indices), axis 1.
  const auto params = random_values<int8_t>(24, 1, -128, 127);
  const std::vector<int32_t> idx = {2, 0, 1, 1};
  OneOpModel m;
  TensorId x = m.input("x", {2, 3, 4}, DType::kInt8, bytes_of(params), quant(0.1f, 0));
  TensorId i = m.tensor("i", {2, 2}, DType::kInt32, std::nullopt, int32_bytes(idx));
  TensorId y = m.tensor("y", {2, 2, 4}, DType::kInt8, quant(0.1f, 0));
  m.op("g", "gather", {x, i}, {y}, {{"axis", 1}, {"batch_dims", 1}});
  const auto got = values_of<int8_t>(m.run({y})[0]);
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 2; ++k)
      for (int c = 0; c < 4; ++c) CHECK(got[(b * 2 + k) * 4 + c] == params[(b * 3 + idx[b * 2 + k]) * 4 + c]);

  // float32 along the last axis of [3, 5], three indices.
  const auto fp = random_floats(15, 2);
  const std::vector<int32_t> cols = {4, 0, 4};
  OneOpModel f;
  TensorId fx = f.input("x", {3, 5}, DType::kFloat32, bytes_of(fp));
  TensorId fi = f.tensor("i", {3}, DType::kInt32, std::nullopt, int32_bytes(cols));
  TensorId fy = f.tensor("y", {3, 3}, DType::kFloat32);
  f.op("g", "gather", {fx, fi}, {fy}, {{"axis", -1}});
  const auto fgot = values_of<float>(f.run({fy})[0]);
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) CHECK(fgot[r * 3 + k] == fp[r * 5 + cols[k]]);

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt16, quant(1.f, 0));
  TensorId bi = bad.tensor("i", {1}, DType::kInt32, std::nullopt, int32_bytes({0}));
  TensorId by = bad.tensor("y", {1}, DType::kInt16, quant(1.f, 0));
  bad.op("g", "gather", {bx, bi}, {by});
  CHECK(bad.refusal().find("gather runs float32 or int8") != std::string::npos);
}

TEST_CASE("cast between TFLM's types: C++ conversions, truncation toward zero, bool as 0/1") {
  const std::vector<float> xs = {-2.75f, -0.5f, 0.f, 0.99f, 3.5f, 100.25f};
  OneOpModel m;
  TensorId x = m.input("x", {6}, DType::kFloat32, bytes_of(xs));
  TensorId y = m.tensor("y", {6}, DType::kInt32);
  m.op("c", "cast", {x}, {y});
  const auto got = values_of<int32_t>(m.run({y})[0]);
  for (size_t i = 0; i < xs.size(); ++i) CHECK(got[i] == static_cast<int32_t>(xs[i]));

  const std::vector<uint8_t> flags = {0, 1, 1, 0};
  OneOpModel b;
  TensorId bx = b.input("x", {4}, DType::kBool, flags);
  TensorId by = b.tensor("y", {4}, DType::kFloat32);
  b.op("c", "cast", {bx}, {by});
  const auto bgot = values_of<float>(b.run({by})[0]);
  for (size_t i = 0; i < flags.size(); ++i) CHECK(bgot[i] == (flags[i] ? 1.f : 0.f));

  const auto shorts = random_values<int16_t>(32, 3, -32768, 32767);
  OneOpModel s;
  TensorId sx = s.input("x", {32}, DType::kInt16, bytes_of(shorts));
  TensorId sy = s.tensor("y", {32}, DType::kInt8);
  s.op("c", "cast", {sx}, {sy});
  const auto sgot = values_of<int8_t>(s.run({sy})[0]);
  for (size_t i = 0; i < shorts.size(); ++i) CHECK(sgot[i] == static_cast<int8_t>(shorts[i]));

  OneOpModel bad;
  TensorId ux = bad.tensor("x", {4}, DType::kInt8);
  TensorId uy = bad.tensor("y", {4}, DType::kUInt8);
  bad.op("c", "cast", {ux}, {uy});
  CHECK(bad.refusal().find("cast runs to int8, int16, int32, uint32 or float32") != std::string::npos);

  // uint32 both ways (an audio front end's energies): int16 -> uint32 wraps negatives modulo 2^32
  // as C++ does; uint32 -> int32 keeps the bits.
  OneOpModel u;
  TensorId ux16 = u.input("x", {32}, DType::kInt16, bytes_of(shorts));
  TensorId uy32 = u.tensor("y", {32}, DType::kUInt32);
  u.op("c", "cast", {ux16}, {uy32});
  const auto ugot = values_of<uint32_t>(u.run({uy32})[0]);
  for (size_t i = 0; i < shorts.size(); ++i) CHECK(ugot[i] == static_cast<uint32_t>(shorts[i]));
  const std::vector<uint32_t> big = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu};
  OneOpModel back;
  TensorId bu = back.input("x", {5}, DType::kUInt32, bytes_of(big));
  TensorId bi = back.tensor("y", {5}, DType::kInt32);
  back.op("c", "cast", {bu}, {bi});
  const auto bigot = values_of<int32_t>(back.run({bi})[0]);
  for (size_t i = 0; i < big.size(); ++i) CHECK(bigot[i] == static_cast<int32_t>(big[i]));
}

TEST_CASE("int32 add, sub and mul: TFLM's plain arithmetic, wrapping, clamped by the fused activation") {
  const std::vector<int32_t> av = {5, -7, 2147483647, -2147483647 - 1, 46341, 0};
  const std::vector<int32_t> bv = {3, 10, 1, -1, 46341, -9};
  for (const char* kind : {"add", "sub", "mul"})
    for (int64_t act : {0, 1}) {  // none, RELU
      CAPTURE(kind);
      CAPTURE(act);
      OneOpModel m;
      TensorId a = m.input("a", {6}, DType::kInt32, bytes_of(av));
      TensorId b = m.input("b", {6}, DType::kInt32, bytes_of(bv));
      TensorId y = m.tensor("y", {6}, DType::kInt32);
      m.op("o", kind, {a, b}, {y}, {{"activation", act}});
      const auto got = values_of<int32_t>(m.run({y})[0]);
      for (size_t i = 0; i < av.size(); ++i) {
        const uint32_t x = static_cast<uint32_t>(av[i]), z = static_cast<uint32_t>(bv[i]);
        const std::string k = kind;
        int32_t want = static_cast<int32_t>(k == "add" ? x + z : k == "sub" ? x - z : x * z);
        if (act == 1) want = std::max(want, 0);
        CHECK(got[i] == want);
      }
    }
}

TEST_CASE("fill, shape, zeros_like and broadcast_to write what their definitions say") {
  OneOpModel m;
  TensorId dims = m.tensor("dims", {2}, DType::kInt32, std::nullopt, int32_bytes({2, 3}));
  TensorId v = m.input("v", {}, DType::kInt32, int32_bytes({-7}));
  TensorId y = m.tensor("y", {2, 3}, DType::kInt32);
  m.op("f", "fill", {dims, v}, {y});
  for (int32_t got : values_of<int32_t>(m.run({y})[0])) CHECK(got == -7);

  OneOpModel s;
  TensorId sx = s.input("x", {2, 3, 5}, DType::kFloat32, bytes_of(random_floats(30, 4)));
  TensorId sy = s.tensor("y", {3}, DType::kInt32);
  s.op("s", "shape", {sx}, {sy});
  CHECK(values_of<int32_t>(s.run({sy})[0]) == std::vector<int32_t>{2, 3, 5});

  OneOpModel z;
  TensorId zx = z.input("x", {7}, DType::kInt8, bytes_of(random_values<int8_t>(7, 5, -128, 127)), quant(0.1f, 0));
  TensorId zy = z.tensor("y", {7}, DType::kInt8, quant(0.1f, 0));
  z.op("z", "zeros_like", {zx}, {zy});
  for (int8_t got : values_of<int8_t>(z.run({zy})[0])) CHECK(got == 0);

  // [3, 1] onto [2, 3, 4]: element (b, i, j) is x[i].
  const auto xs = random_values<int16_t>(3, 6, -32768, 32767);
  OneOpModel bt;
  TensorId bx = bt.input("x", {3, 1}, DType::kInt16, bytes_of(xs));
  TensorId shape = bt.tensor("shape", {3}, DType::kInt32, std::nullopt, int32_bytes({2, 3, 4}));
  TensorId by = bt.tensor("y", {2, 3, 4}, DType::kInt16);
  bt.op("b", "broadcast_to", {bx, shape}, {by});
  const auto got = values_of<int16_t>(bt.run({by})[0]);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(got[(b * 3 + i) * 4 + j] == xs[i]);
}

TEST_CASE("pack and unpack interleave slices along an axis, and undo each other") {
  // Three [2, 4] int8 slices packed along axis 1 into [2, 3, 4]: y[a][k][b] = slice_k[a][b].
  std::vector<std::vector<int8_t>> slices;
  OneOpModel m;
  std::vector<TensorId> ins;
  for (int k = 0; k < 3; ++k) {
    slices.push_back(random_values<int8_t>(8, 10 + k, -128, 127));
    ins.push_back(m.input("s" + std::to_string(k), {2, 4}, DType::kInt8, bytes_of(slices.back()), quant(0.1f, 0)));
  }
  TensorId y = m.tensor("y", {2, 3, 4}, DType::kInt8, quant(0.1f, 0));
  m.op("p", "pack", ins, {y}, {{"values_count", 3}, {"axis", 1}});
  const auto packed = values_of<int8_t>(m.run({y})[0]);
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < 3; ++k)
      for (int b = 0; b < 4; ++b) CHECK(packed[(a * 3 + k) * 4 + b] == slices[k][a * 4 + b]);

  OneOpModel u;
  TensorId ux = u.input("x", {2, 3, 4}, DType::kInt8, bytes_of(packed), quant(0.1f, 0));
  std::vector<TensorId> outs;
  for (int k = 0; k < 3; ++k) outs.push_back(u.tensor("o" + std::to_string(k), {2, 4}, DType::kInt8, quant(0.1f, 0)));
  u.op("u", "unpack", {ux}, outs, {{"num", 3}, {"axis", 1}});
  const auto unpacked = u.run(outs);
  for (int k = 0; k < 3; ++k) CHECK(values_of<int8_t>(unpacked[k]) == slices[k]);

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {2, 2}, DType::kInt64);
  TensorId b0 = bad.tensor("a", {2}, DType::kInt64), b1 = bad.tensor("b", {2}, DType::kInt64);
  bad.op("u", "unpack", {bx}, {b0, b1}, {{"num", 2}, {"axis", 0}});
  CHECK(bad.refusal().find("unpack runs float32, int8, int16 or int32") != std::string::npos);
}

TEST_CASE("float32 unary math is the C library's, and TFLM's float-only ops refuse int8 by name") {
  const auto xs = random_floats(64, 20, 0.01f, 9.f);
  struct Case {
    const char* kind;
    float (*f)(float);
  };
  const Case cases[] = {{"exp", [](float x) { return std::exp(x); }},    {"log", [](float x) { return std::log(x); }},
                        {"sqrt", [](float x) { return std::sqrt(x); }},  {"rsqrt", [](float x) { return 1.f / std::sqrt(x); }},
                        {"square", [](float x) { return x * x; }},      {"neg", [](float x) { return -x; }},
                        {"abs", [](float x) { return std::fabs(x - 4.f); }}};
  for (const Case& k : cases) {
    std::vector<float> in = xs;
    if (std::string(k.kind) == "abs") for (float& v : in) v -= 4.f;
    OneOpModel m;
    TensorId x = m.input("x", {64}, DType::kFloat32, bytes_of(in));
    TensorId y = m.tensor("y", {64}, DType::kFloat32);
    m.op("u", k.kind, {x}, {y});
    const auto got = values_of<float>(m.run({y})[0]);
    for (size_t i = 0; i < xs.size(); ++i) CHECK_MESSAGE(got[i] == k.f(xs[i]), k.kind << " at " << i);
  }
  for (const char* kind : {"exp", "log", "neg", "square", "sqrt"}) {
    OneOpModel bad;
    TensorId x = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
    TensorId y = bad.tensor("y", {4}, DType::kInt8, quant(0.1f, 0));
    bad.op("u", kind, {x}, {y});
    CHECK(bad.refusal().find(std::string(kind) + " runs float32 only") != std::string::npos);
  }
}

TEST_CASE("abs and rsqrt int8 against real arithmetic; rsqrt int16 refused as TFLM refuses it") {
  const auto xs = test::every_int8();
  {
    OneOpModel m;
    TensorId x = m.input("x", {256}, DType::kInt8, bytes_of(xs), quant(0.05f, 3));
    TensorId y = m.tensor("y", {256}, DType::kInt8, quant(0.04f, -100));
    m.op("a", "abs", {x}, {y});
    std::vector<int> want;
    for (int8_t v : xs) want.push_back(quantized(std::fabs(0.05 * (v - 3)), 0.04f, -100));
    check_within(values_of<int8_t>(m.run({y})[0]), want);
  }
  {
    OneOpModel m;
    TensorId x = m.input("x", {256}, DType::kInt8, bytes_of(xs), quant(0.02f, -128));
    TensorId y = m.tensor("y", {256}, DType::kInt8, quant(0.05f, -128));
    m.op("r", "rsqrt", {x}, {y});
    const auto got = values_of<int8_t>(m.run({y})[0]);
    std::vector<int> want;
    for (int8_t v : xs) want.push_back(v == -128 ? 127 : quantized(1.0 / std::sqrt(0.02 * (v + 128)), 0.05f, -128));
    check_within(got, want);
  }
  OneOpModel bad;
  TensorId x = bad.tensor("x", {4}, DType::kInt16, quant(0.1f, 0));
  TensorId y = bad.tensor("y", {4}, DType::kInt16, quant(0.1f, 0));
  bad.op("r", "rsqrt", {x}, {y});
  CHECK(bad.refusal().find("rsqrt runs float32 or int8") != std::string::npos);
}

TEST_CASE("squared_difference and div: float32 exactly, int8 against real arithmetic, broadcast") {
  const auto a = random_values<int8_t>(24, 30, -128, 127), b = random_values<int8_t>(4, 31, -128, 127);
  const float sa = 0.05f, sb = 0.03f, sy = 0.2f;
  const int za = 5, zb = -7, zy = -20;
  {
    OneOpModel m;
    TensorId x = m.input("a", {2, 3, 4}, DType::kInt8, bytes_of(a), quant(sa, za));
    TensorId z = m.input("b", {4}, DType::kInt8, bytes_of(b), quant(sb, zb));
    TensorId y = m.tensor("y", {2, 3, 4}, DType::kInt8, quant(sy, zy));
    m.op("s", "squared_difference", {x, z}, {y});
    std::vector<int> want;
    for (int i = 0; i < 24; ++i) {
      const double d = sa * (a[i] - za) - sb * (b[i % 4] - zb);
      want.push_back(quantized(d * d, sy, zy));
    }
    check_within(values_of<int8_t>(m.run({y})[0]), want);
  }
  {
    std::vector<int8_t> divisors = b;
    for (auto& v : divisors) if (v == zb) v = static_cast<int8_t>(zb + 1);  // TFLM only DCHECKs a zero divisor
    OneOpModel m;
    TensorId x = m.input("a", {2, 3, 4}, DType::kInt8, bytes_of(a), quant(sa, za));
    TensorId z = m.input("b", {4}, DType::kInt8, bytes_of(divisors), quant(sb, zb));
    TensorId y = m.tensor("y", {2, 3, 4}, DType::kInt8, quant(sy, zy));
    m.op("d", "div", {x, z}, {y});
    std::vector<int> want;
    for (int i = 0; i < 24; ++i) want.push_back(quantized(sa * (a[i] - za) / (sb * (divisors[i % 4] - zb)), sy, zy));
    check_within(values_of<int8_t>(m.run({y})[0]), want);
  }
  const auto fa = random_floats(12, 32), fb = random_floats(12, 33, 0.5f, 3.f);
  for (const char* kind : {"squared_difference", "div"}) {
    OneOpModel m;
    TensorId x = m.input("a", {12}, DType::kFloat32, bytes_of(fa));
    TensorId z = m.input("b", {12}, DType::kFloat32, bytes_of(fb));
    TensorId y = m.tensor("y", {12}, DType::kFloat32);
    m.op("f", kind, {x, z}, {y}, {{"activation", 3}});  // relu6: div clamps, squared_difference has none
    const auto got = values_of<float>(m.run({y})[0]);
    for (int i = 0; i < 12; ++i) {
      const float want = std::string(kind) == "div" ? std::min(std::max(fa[i] / fb[i], 0.f), 6.f)
                                                    : (fa[i] - fb[i]) * (fa[i] - fb[i]);
      CHECK(got[i] == want);
    }
  }
  const std::vector<int32_t> ia = {7, -7, 100, -2147483647 - 1}, ib = {2, 2, -3, -1};
  OneOpModel m;
  TensorId x = m.input("a", {4}, DType::kInt32, bytes_of(ia));
  TensorId z = m.input("b", {4}, DType::kInt32, bytes_of(ib));
  TensorId y = m.tensor("y", {4}, DType::kInt32);
  m.op("d", "div", {x, z}, {y});
  const auto got = values_of<int32_t>(m.run({y})[0]);
  CHECK(got[0] == 3);
  CHECK(got[1] == -3);  // C++ division truncates toward zero
  CHECK(got[2] == -33);
  CHECK(got[3] == ia[3]);  // the device's SDIV: INT32_MIN / -1 stays INT32_MIN
}

TEST_CASE("sum int8 and int16, mean int16, reduce_max int8 and float32 over chosen axes") {
  // x [2, 3, 4] reduced over axes {0, 2}: 3 outputs of 8 elements each.
  const auto x8 = random_values<int8_t>(24, 40, -128, 127);
  const auto axes = int32_bytes({0, -1});
  auto reduced = [](auto&& xs, int j, auto&& f) {
    for (int b = 0; b < 2; ++b)
      for (int k = 0; k < 4; ++k) f(xs[(b * 3 + j) * 4 + k]);
  };
  {
    OneOpModel m;
    TensorId x = m.input("x", {2, 3, 4}, DType::kInt8, bytes_of(x8), quant(0.02f, 10));
    TensorId ax = m.tensor("axes", {2}, DType::kInt32, std::nullopt, axes);
    TensorId y = m.tensor("y", {3}, DType::kInt8, quant(0.1f, -5));
    m.op("s", "sum", {x, ax}, {y});
    std::vector<int> want;
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      reduced(x8, j, [&](int8_t v) { s += 0.02 * (v - 10); });
      want.push_back(quantized(s, 0.1f, -5));
    }
    check_within(values_of<int8_t>(m.run({y})[0]), want);
  }
  const auto x16 = random_values<int16_t>(24, 41, -3000, 3000);
  for (const char* kind : {"sum", "mean"}) {
    OneOpModel m;
    TensorId x = m.input("x", {2, 3, 4}, DType::kInt16, bytes_of(x16), quant(0.01f, 0));
    TensorId ax = m.tensor("axes", {2}, DType::kInt32, std::nullopt, axes);
    TensorId y = m.tensor("y", {3}, DType::kInt16, quant(0.02f, 0));
    m.op("r", kind, {x, ax}, {y});
    std::vector<int> want;
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      reduced(x16, j, [&](int16_t v) { s += 0.01 * v; });
      if (std::string(kind) == "mean") s /= 8;
      want.push_back(quantized(s, 0.02f, 0, -32768, 32767));
    }
    check_within(values_of<int16_t>(m.run({y})[0]), want);
  }
  {
    OneOpModel m;
    TensorId x = m.input("x", {2, 3, 4}, DType::kInt8, bytes_of(x8), quant(0.02f, 10));
    TensorId ax = m.tensor("axes", {2}, DType::kInt32, std::nullopt, axes);
    TensorId y = m.tensor("y", {3}, DType::kInt8, quant(0.02f, 10));
    m.op("m", "reduce_max", {x, ax}, {y});
    const auto got = values_of<int8_t>(m.run({y})[0]);
    for (int j = 0; j < 3; ++j) {
      int best = -128;
      reduced(x8, j, [&](int8_t v) { best = std::max<int>(best, v); });
      CHECK(got[j] == best);
    }
  }
  const auto xf = random_floats(24, 42);
  OneOpModel m;
  TensorId x = m.input("x", {2, 3, 4}, DType::kFloat32, bytes_of(xf));
  TensorId ax = m.tensor("axes", {2}, DType::kInt32, std::nullopt, axes);
  TensorId y = m.tensor("y", {3}, DType::kFloat32);
  m.op("s", "sum", {x, ax}, {y});
  const auto got = values_of<float>(m.run({y})[0]);
  for (int j = 0; j < 3; ++j) {
    float s = 0;
    reduced(xf, j, [&](float v) { s += v; });  // TFLM's order: input order
    CHECK(got[j] == s);
  }
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
  TensorId bax = bad.tensor("axes", {1}, DType::kInt32, std::nullopt, int32_bytes({0}));
  TensorId by = bad.tensor("y", {1}, DType::kInt8, quant(0.2f, 0));
  bad.op("m", "reduce_max", {bx, bax}, {by});
  CHECK(bad.refusal().find("need the input's quantization on the output") != std::string::npos);
}

TEST_CASE("batch_matmul: broadcast batches, adj_x and adj_y, float32 in order and int8 requantized") {
  // lhs [2, 1, 3, 5] (adj_x: stored [.., 5, 3]), rhs [1, 2, 5, 4] (adj_y: stored [.., 4, 5]).
  const int rows = 3, depth = 5, cols = 4;
  for (int adj = 0; adj < 4; ++adj) {
    const bool ax = adj & 1, ay = adj & 2;
    const auto af = random_floats(2 * rows * depth, 50 + adj), bf = random_floats(2 * depth * cols, 60 + adj);
    auto lhs_at = [&](int b, int r, int k) { return b * rows * depth + (ax ? k * rows + r : r * depth + k); };
    auto rhs_at = [&](int b, int k, int c) { return b * depth * cols + (ay ? c * depth + k : k * cols + c); };
    OneOpModel m;
    TensorId a = m.input("a", {2, 1, ax ? depth : rows, ax ? rows : depth}, DType::kFloat32, bytes_of(af));
    TensorId b = m.input("b", {1, 2, ay ? cols : depth, ay ? depth : cols}, DType::kFloat32, bytes_of(bf));
    TensorId y = m.tensor("y", {2, 2, rows, cols}, DType::kFloat32);
    m.op("mm", "batch_matmul", {a, b}, {y}, {{"adj_x", ax}, {"adj_y", ay}});
    const auto got = values_of<float>(m.run({y})[0]);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) {
            float s = 0;
            for (int k = 0; k < depth; ++k) s += af[lhs_at(i, r, k)] * bf[rhs_at(j, k, c)];
            CHECK(got[((i * 2 + j) * rows + r) * cols + c] == s);
          }
  }
  const auto a8 = random_values<int8_t>(rows * depth, 70, -128, 127), b8 = random_values<int8_t>(depth * cols, 71, -128, 127);
  OneOpModel m;
  TensorId a = m.input("a", {rows, depth}, DType::kInt8, bytes_of(a8), quant(0.05f, 4));
  TensorId b = m.input("b", {depth, cols}, DType::kInt8, bytes_of(b8), quant(0.02f, -3));
  TensorId y = m.tensor("y", {rows, cols}, DType::kInt8, quant(0.3f, 2));
  m.op("mm", "batch_matmul", {a, b}, {y});
  std::vector<int> want;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      double s = 0;
      for (int k = 0; k < depth; ++k) s += 0.05 * (a8[r * depth + k] - 4) * 0.02 * (b8[k * cols + c] + 3);
      want.push_back(quantized(s, 0.3f, 2));
    }
  check_within(values_of<int8_t>(m.run({y})[0]), want);

  OneOpModel bad;
  TensorId bx = bad.tensor("a", {2, 2}, DType::kInt8, quant(0.1f, 0));
  TensorId bw = bad.tensor("b", {2, 2}, DType::kFloat32);
  TensorId by = bad.tensor("y", {2, 2}, DType::kInt8, quant(0.1f, 0));
  bad.op("mm", "batch_matmul", {bx, bw}, {by});
  CHECK(bad.refusal().find("batch_matmul runs float32, int8 or int16, one type throughout") != std::string::npos);
}

namespace {

// TRANSPOSE_CONV as the gradient of a conv: output (oy, ox, co) gathers input (iy, ix, ci) times
// filter (co, fy, fx, ci) wherever iy * stride - pad + fy == oy (and likewise for x).
template <class Acc, class X, class W>
std::vector<Acc> transpose_conv_naive(const std::vector<X>& x, const std::vector<W>& w, int h, int wd, int ic, int k,
                                      int oc, int oh, int ow, int stride, int pad, Acc x_off) {
  std::vector<Acc> out(static_cast<size_t>(oh * ow * oc), Acc{0});
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int co = 0; co < oc; ++co) {
        Acc s{0};
        for (int iy = 0; iy < h; ++iy)
          for (int ix = 0; ix < wd; ++ix)
            for (int ci = 0; ci < ic; ++ci)
              for (int fy = 0; fy < k; ++fy)
                for (int fx = 0; fx < k; ++fx)
                  if (iy * stride - pad + fy == oy && ix * stride - pad + fx == ox)
                    s += (static_cast<Acc>(x[(iy * wd + ix) * ic + ci]) + x_off) * static_cast<Acc>(w[((co * k + fy) * k + fx) * ic + ci]);
        out[(oy * ow + ox) * oc + co] = s;
      }
  return out;
}

}  // namespace

TEST_CASE("transpose_conv: stride 2, SAME and VALID padding, bias, int8 per channel and float32") {
  const int h = 3, w = 3, ic = 2, k = 3, oc = 2, stride = 2;
  for (int same = 0; same < 2; ++same) {
    const int oh = same ? h * stride : (h - 1) * stride + k, ow = same ? w * stride : (w - 1) * stride + k;
    // TFLM's padding from the output size: SAME pads (ceil(o/s) - 1) * s + k - o before, halved.
    const int pad = same ? std::max(((oh + stride - 1) / stride - 1) * stride + k - oh, 0) / 2 : 0;
    const auto x8 = random_values<int8_t>(h * w * ic, 80 + same, -128, 127);
    const auto w8 = random_values<int8_t>(oc * k * k * ic, 82 + same, -127, 127);
    const std::vector<int32_t> bias = {100, -250};
    OneOpModel m;
    TensorId shape = m.tensor("shape", {4}, DType::kInt32, std::nullopt, int32_bytes({1, oh, ow, oc}));
    Quantization wq{{0.01f, 0.02f}, {0, 0}, 0};
    TensorId wt = m.tensor("w", {oc, k, k, ic}, DType::kInt8, wq, bytes_of(w8));
    TensorId x = m.input("x", {1, h, w, ic}, DType::kInt8, bytes_of(x8), quant(0.05f, -6));
    TensorId bt = m.tensor("b", {oc}, DType::kInt32, std::nullopt, int32_bytes(bias));
    TensorId y = m.tensor("y", {1, oh, ow, oc}, DType::kInt8, quant(0.25f, 3));
    m.op("t", "transpose_conv", {shape, wt, x, bt}, {y}, {{"padding_same", same}, {"stride_h", stride}, {"stride_w", stride}});
    const auto sums = transpose_conv_naive<int64_t>(x8, w8, h, w, ic, k, oc, oh, ow, stride, pad, int64_t{6});
    std::vector<int> want;
    for (size_t i = 0; i < sums.size(); ++i) {
      const int co = static_cast<int>(i % oc);
      want.push_back(quantized(0.05 * wq.scale[co] * static_cast<double>(sums[i] + bias[co]), 0.25f, 3));
    }
    check_within(values_of<int8_t>(m.run({y})[0]), want);

    const auto xf = random_floats(h * w * ic, 84 + same), wf = random_floats(oc * k * k * ic, 86 + same);
    OneOpModel f;
    TensorId fs = f.tensor("shape", {4}, DType::kInt32, std::nullopt, int32_bytes({1, oh, ow, oc}));
    TensorId fw = f.tensor("w", {oc, k, k, ic}, DType::kFloat32, std::nullopt, bytes_of(wf));
    TensorId fx = f.input("x", {1, h, w, ic}, DType::kFloat32, bytes_of(xf));
    TensorId fy = f.tensor("y", {1, oh, ow, oc}, DType::kFloat32);
    f.op("t", "transpose_conv", {fs, fw, fx}, {fy}, {{"padding_same", same}, {"stride_h", stride}, {"stride_w", stride}, {"activation", 1}});
    const auto fgot = values_of<float>(f.run({fy})[0]);
    const auto fwant = transpose_conv_naive<double>(xf, wf, h, w, ic, k, oc, oh, ow, stride, pad, 0.0);
    for (size_t i = 0; i < fgot.size(); ++i) CHECK(fgot[i] == doctest::Approx(std::max(fwant[i], 0.0)).epsilon(1e-5));
  }
}

TEST_CASE("resize_bilinear int8 against the real interpolation; align_corners with half_pixel refused") {
  const auto x8 = random_values<int8_t>(2 * 3 * 2, 90, -128, 127);
  for (int mode = 0; mode < 3; ++mode) {  // plain, align_corners, half_pixel_centers
    const bool align = mode == 1, half = mode == 2;
    const int ih = 2, iw = 3, oh = 5, ow = 4, d = 2;
    OneOpModel m;
    TensorId x = m.input("x", {1, ih, iw, d}, DType::kInt8, bytes_of(x8), quant(0.1f, 0));
    TensorId size = m.tensor("size", {2}, DType::kInt32, std::nullopt, int32_bytes({oh, ow}));
    TensorId y = m.tensor("y", {1, oh, ow, d}, DType::kInt8, quant(0.1f, 0));
    m.op("r", "resize_bilinear", {x, size}, {y}, {{"align_corners", align}, {"half_pixel_centers", half}});
    std::vector<int> want;
    auto source = [&](int o, int in, int out, double& s, int& lo, int& hi) {
      const double scale = align && out > 1 ? double(in - 1) / (out - 1) : double(in) / out;
      s = half ? (o + 0.5) * scale - 0.5 : o * scale;
      lo = std::max(static_cast<int>(std::floor(s)), 0);
      hi = std::min(static_cast<int>(std::ceil(s)), in - 1);
    };
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int c = 0; c < d; ++c) {
          double sy, sx;
          int y0, y1, x0, x1;
          source(oy, ih, oh, sy, y0, y1);
          source(ox, iw, ow, sx, x0, x1);
          const double dy = sy - y0, dx = sx - x0;
          auto at = [&](int yy, int xx) { return double(x8[(yy * iw + xx) * d + c]); };
          want.push_back(static_cast<int>(std::round(at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx) +
                                                     at(y0, x1) * (1 - dy) * dx + at(y1, x1) * dy * dx)));
        }
    // TFLM's 1/1024 coordinates differ from the real ones by under 1/1024 per axis.
    check_within(values_of<int8_t>(m.run({y})[0]), want);
  }
  OneOpModel bad;
  TensorId x = bad.tensor("x", {1, 2, 2, 1}, DType::kInt8, quant(0.1f, 0));
  TensorId size = bad.tensor("size", {2}, DType::kInt32, std::nullopt, int32_bytes({4, 4}));
  TensorId y = bad.tensor("y", {1, 4, 4, 1}, DType::kInt8, quant(0.1f, 0));
  bad.op("r", "resize_bilinear", {x, size}, {y}, {{"align_corners", 1}, {"half_pixel_centers", 1}});
  CHECK(bad.refusal().find("refuses align_corners with half_pixel_centers") != std::string::npos);
}

TEST_CASE("comparisons: float32 and int32 exactly, int8 on the real values, bool outputs, broadcast") {
  const auto fa = random_floats(12, 100), fb = random_floats(4, 101);
  const char* kinds[] = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"};
  auto truth = [](const std::string& k, double a, double b) {
    if (k == "equal") return a == b;
    if (k == "not_equal") return a != b;
    if (k == "greater") return a > b;
    if (k == "greater_equal") return a >= b;
    if (k == "less") return a < b;
    return a <= b;
  };
  for (const char* kind : kinds) {
    OneOpModel m;
    TensorId a = m.input("a", {3, 4}, DType::kFloat32, bytes_of(fa));
    TensorId b = m.input("b", {4}, DType::kFloat32, bytes_of(fb));
    TensorId y = m.tensor("y", {3, 4}, DType::kBool);
    m.op("c", kind, {a, b}, {y});
    const auto got = m.run({y})[0];
    for (int i = 0; i < 12; ++i) CHECK(got[i] == (truth(kind, fa[i], fb[i % 4]) ? 1 : 0));
  }
  // int8 with different scales: compared on the real values (distinct enough not to tie).
  const std::vector<int8_t> a8 = {-100, -20, 0, 13, 50, 127}, b8 = {-50, -10, 0, 26, 24, 63};
  for (const char* kind : kinds) {
    OneOpModel m;
    TensorId a = m.input("a", {6}, DType::kInt8, bytes_of(a8), quant(0.01f, 0));
    TensorId b = m.input("b", {6}, DType::kInt8, bytes_of(b8), quant(0.02f, 0));
    TensorId y = m.tensor("y", {6}, DType::kBool);
    m.op("c", kind, {a, b}, {y});
    const auto got = m.run({y})[0];
    for (int i = 0; i < 6; ++i) CHECK_MESSAGE(got[i] == (truth(kind, 0.01 * a8[i], 0.02 * b8[i]) ? 1 : 0), kind << " " << i);
  }
  OneOpModel bad;
  TensorId a = bad.tensor("a", {2}, DType::kInt16, quant(0.01f, 0));
  TensorId b = bad.tensor("b", {2}, DType::kInt16, quant(0.01f, 0));
  TensorId y = bad.tensor("y", {2}, DType::kBool);
  bad.op("c", "greater", {a, b}, {y});
  CHECK(bad.refusal().find("leaves the scaling it uses unset") != std::string::npos);
}

TEST_CASE("select_v2 picks x where the condition holds, broadcasting all three; space_to_depth moves blocks") {
  // condition [2, 1], x [2, 3], y [3]: out[i][j] = cond[i] ? x[i][j] : y[j].
  const std::vector<uint8_t> cond = {1, 0};
  const auto xs = random_values<int16_t>(6, 110, -32768, 32767), ys = random_values<int16_t>(3, 111, -32768, 32767);
  OneOpModel m;
  TensorId ct = m.input("c", {2, 1}, DType::kBool, cond);
  TensorId xt = m.input("x", {2, 3}, DType::kInt16, bytes_of(xs));
  TensorId yt = m.input("y", {3}, DType::kInt16, bytes_of(ys));
  TensorId ot = m.tensor("o", {2, 3}, DType::kInt16);
  m.op("s", "select_v2", {ct, xt, yt}, {ot});
  const auto got = values_of<int16_t>(m.run({ot})[0]);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(got[i * 3 + j] == (cond[i] ? xs[i * 3 + j] : ys[j]));

  // [1, 4, 6, 2] with block 2 into [1, 2, 3, 8]: out channel = ((y % 2) * 2 + x % 2) * 2 + c.
  const auto in = random_values<int8_t>(48, 112, -128, 127);
  OneOpModel s;
  TensorId sx = s.input("x", {1, 4, 6, 2}, DType::kInt8, bytes_of(in), quant(0.1f, 0));
  TensorId sy = s.tensor("y", {1, 2, 3, 8}, DType::kInt8, quant(0.1f, 0));
  s.op("s", "space_to_depth", {sx}, {sy}, {{"block_size", 2}});
  const auto out = values_of<int8_t>(s.run({sy})[0]);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x)
      for (int c = 0; c < 2; ++c) CHECK(out[((y / 2) * 3 + x / 2) * 8 + ((y % 2) * 2 + x % 2) * 2 + c] == in[(y * 6 + x) * 2 + c]);
}

TEST_CASE("mirror_pad: REFLECT leaves the edge out, SYMMETRIC repeats it, on every padded dim") {
  // [2, 3] padded by (1, 1) rows and (2, 2) columns.
  const std::vector<float> xs = {1, 2, 3, 4, 5, 6};
  for (int reflect = 0; reflect < 2; ++reflect) {
    OneOpModel m;
    TensorId x = m.input("x", {2, 3}, DType::kFloat32, bytes_of(xs));
    TensorId p = m.tensor("p", {2, 2}, DType::kInt32, std::nullopt, int32_bytes({1, 1, 2, 2}));
    TensorId y = m.tensor("y", {4, 7}, DType::kFloat32);
    m.op("m", "mirror_pad", {x, p}, {y}, {{"reflect", reflect}});
    const auto got = values_of<float>(m.run({y})[0]);
    // Index i of a dim of size n padded by `before`: mirrored into 0..n-1 about the edges.
    auto source = [&](int i, int n, int before) {
      int at = i - before;
      if (at < 0) at = reflect ? -at : -at - 1;
      if (at >= n) at = reflect ? 2 * n - 2 - at : 2 * n - 1 - at;
      return at;
    };
    for (int r = 0; r < 4; ++r)
      for (int col = 0; col < 7; ++col) CHECK(got[r * 7 + col] == xs[source(r, 2, 1) * 3 + source(col, 3, 2)]);
  }
  OneOpModel bad;
  TensorId x = bad.tensor("x", {2}, DType::kFloat32);
  TensorId p = bad.tensor("p", {1, 2}, DType::kInt32, std::nullopt, int32_bytes({2, 0}));
  TensorId y = bad.tensor("y", {4}, DType::kFloat32);
  bad.op("m", "mirror_pad", {x, p}, {y}, {{"reflect", 1}});
  CHECK(bad.refusal().find("paddings do not fit") != std::string::npos);  // reflecting 2 of 2 needs 3
}

TEST_CASE("space_to_batch_nd pads and deals pixels out to batches; batch_to_space_nd crops them back") {
  // [1, 4, 4, 2] int8, block 2 x 2, one pixel of padding on every side: padded 6 x 6, out [4, 3, 3, 2].
  const auto xs = random_values<int8_t>(32, 120, -128, 127);
  OneOpModel m;
  TensorId x = m.input("x", {1, 4, 4, 2}, DType::kInt8, bytes_of(xs), quant(0.1f, 7));
  TensorId block = m.tensor("block", {2}, DType::kInt32, std::nullopt, int32_bytes({2, 2}));
  TensorId pads = m.tensor("pads", {2, 2}, DType::kInt32, std::nullopt, int32_bytes({1, 1, 1, 1}));
  TensorId y = m.tensor("y", {4, 3, 3, 2}, DType::kInt8, quant(0.1f, 7));
  m.op("s", "space_to_batch_nd", {x, block, pads}, {y});
  const auto got = values_of<int8_t>(m.run({y})[0]);
  for (int sh = 0; sh < 2; ++sh)
    for (int sw = 0; sw < 2; ++sw)
      for (int oy = 0; oy < 3; ++oy)
        for (int ox = 0; ox < 3; ++ox)
          for (int c = 0; c < 2; ++c) {
            const int py = oy * 2 + sh - 1, px = ox * 2 + sw - 1;  // in the unpadded input
            // TFLM pads with 0, not the zero point (its Prepare leaves the pad value unset).
            const int8_t want = py < 0 || py >= 4 || px < 0 || px >= 4 ? 0 : xs[(py * 4 + px) * 2 + c];
            CHECK(got[(((sh * 2 + sw) * 3 + oy) * 3 + ox) * 2 + c] == want);
          }

  OneOpModel back;
  TensorId bx = back.input("x", {4, 3, 3, 2}, DType::kInt8, bytes_of(got), quant(0.1f, 7));
  TensorId bblock = back.tensor("block", {2}, DType::kInt32, std::nullopt, int32_bytes({2, 2}));
  TensorId crops = back.tensor("crops", {2, 2}, DType::kInt32, std::nullopt, int32_bytes({1, 1, 1, 1}));
  TensorId by = back.tensor("y", {1, 4, 4, 2}, DType::kInt8, quant(0.1f, 7));
  back.op("b", "batch_to_space_nd", {bx, bblock, crops}, {by});
  CHECK(values_of<int8_t>(back.run({by})[0]) == xs);
}

}  // namespace arenaplan
