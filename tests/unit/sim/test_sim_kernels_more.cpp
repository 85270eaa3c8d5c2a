// Model kernels added for networks beyond the fixtures (leaky_relu, maximum/minimum,
// resize_nearest_neighbor, split/split_v, slice, prelu, arg_max): each op in a one-op model built
// with ModelBuilder, simulated in the arena, its output bytes against a naive computation of the
// op's definition written here, and `outputs_are_the_model` true; each refuses one unsupported
// variant by name (a stand-in, no crash).
//
// int8 expectations: the real value (scale x (q - zero point)) pushed through the op in double,
// divided by the output scale, rounded half away from zero, plus the zero point, clamped. TFLM's
// MultiplyByQuantizedMultiplier rounds twice: first to 2^-r of an output step (r = the right
// shift, from frexp of the real multiplier), then to a whole step. So it may differ by one step
// from the single rounding only when the real result lies within 2^-(r+1) of a half step (r > 0),
// or exactly on one (r = 0: the high multiply's rounding is the only one); there the test accepts
// either neighbour, everywhere else it demands the exact byte.
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/test_support.h"
#include "tflite_schema_generated.h"

namespace arenaplan {
namespace {

using test::bytes_of;
using test::quant;
using test::values_of;
using test::every_int8;
using test::OneOpModel;
using test::check_requantized;
using test::right_shift_of;
using test::round_half_away;

// A one-op .tflite written with the generated writer: tensors (constant when given bytes), the
// op's code and builtin options; the graph's inputs are the op's non-constant inputs.
struct TfliteOneOp {
  struct T {
    std::string name;
    std::vector<int32_t> shape;
    int8_t type;  // TensorType: 0 float32, 2 int32, 4 int64, 9 int8
    std::vector<uint8_t> data;
    float scale = 0;  // 0: no quantization
    int64_t zero_point = 0;
  };
  std::vector<T> tensors;
  int32_t code = 0;
  std::vector<int32_t> ins, outs;
  std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> options;

  std::string build() const {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b)};
    std::vector<flatbuffers::Offset<tfl::Tensor>> ts;
    std::vector<int32_t> graph_in;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const T& t = tensors[i];
      uint32_t buffer = 0;
      if (!t.data.empty()) {
        buffer = static_cast<uint32_t>(buffers.size());
        buffers.push_back(tfl::CreateBuffer(b, b.CreateVector(t.data)));
      } else if (std::find(ins.begin(), ins.end(), static_cast<int32_t>(i)) != ins.end()) {
        graph_in.push_back(static_cast<int32_t>(i));
      }
      flatbuffers::Offset<tfl::QuantizationParameters> q;
      if (t.scale > 0)
        q = tfl::CreateQuantizationParameters(b, 0, 0, b.CreateVector(std::vector<float>{t.scale}),
                                              b.CreateVector(std::vector<int64_t>{t.zero_point}));
      ts.push_back(tfl::CreateTensor(b, b.CreateVector(t.shape), t.type, buffer, b.CreateString(t.name), q));
    }
    const flatbuffers::Offset<void> opts = options ? options(b) : flatbuffers::Offset<void>();
    std::vector<flatbuffers::Offset<tfl::Operator>> ops = {tfl::CreateOperator(
        b, 0, b.CreateVector(ins), b.CreateVector(outs), options ? 1 : 0, flatbuffers::Offset<tfl::Opaque>(opts.o))};
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes = {
        tfl::CreateOperatorCode(b, static_cast<int8_t>(std::min(code, 127)), 0, 1, code)};
    auto sg = tfl::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(graph_in), b.CreateVector(outs),
                                  b.CreateVector(ops), b.CreateString("main"));
    std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs = {sg};
    auto model = tfl::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), b.CreateString("one"), b.CreateVector(buffers));
    tfl::FinishModelBuffer(b, model);
    return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  }
  // Imports and simulates with `fed` inputs by name: the outputs (CHECKs the run is the model's).
  std::vector<std::vector<uint8_t>> run(const std::map<std::string, std::vector<uint8_t>>& fed, Graph* imported = nullptr) const {
    Graph g = import_tflite(build()).graph;
    sim::SimRequest req;
    req.input_bytes = fed;
    const sim::SimReport r = sim::simulate(g, req);
    CHECK(r.ok());
    CHECK(sim::simulation_json(g, r)["outputs_are_the_model"].get<bool>());
    if (imported) *imported = g;
    return r.outputs;
  }
};

}  // namespace

TEST_CASE("leaky_relu int8 and float32 against its definition; an int32 input is refused") {
  for (float alpha : {0.2f, 0.01f, 1.5f, -0.3f}) {
    CAPTURE(alpha);
    OneOpModel m;
    const float sx = 0.05f, sy = 0.04f;
    const int32_t zx = -7, zy = 11;
    TensorId x = m.input("x", {1, 16, 16}, DType::kInt8, bytes_of(every_int8()), quant(sx, zx));
    TensorId y = m.tensor("y", {1, 16, 16}, DType::kInt8, quant(sy, zy));
    int64_t bits;
    uint32_t u;
    std::memcpy(&u, &alpha, 4);
    bits = u;
    m.op("leaky", "leaky_relu", {x}, {y}, {{"alpha_f32", bits}});
    auto got = values_of<int8_t>(m.run({y})[0]);
    const auto xs = every_int8();
    for (size_t i = 0; i < xs.size(); ++i) {
      const double real = sx * double(xs[i] - zx);
      const double out = real >= 0 ? real : real * alpha;
      // TFLM forms the slope multiplier in float: sx * alpha / sy.
      const double mult = real >= 0 ? double(sx / sy) : std::fabs(double(sx * alpha / sy));
      check_requantized(got[i], out / sy, zy, right_shift_of(mult));
    }
  }
  OneOpModel f;
  std::vector<float> fv = {-4.f, -0.5f, 0.f, 0.25f, 3.f, -1e-3f};
  TensorId x = f.input("x", {6}, DType::kFloat32, bytes_of(fv));
  TensorId y = f.tensor("y", {6}, DType::kFloat32);
  const float alpha = 0.1f;
  uint32_t u;
  std::memcpy(&u, &alpha, 4);
  f.op("leaky", "leaky_relu", {x}, {y}, {{"alpha_f32", int64_t{u}}});
  auto got = values_of<float>(f.run({y})[0]);
  for (size_t i = 0; i < fv.size(); ++i) CHECK(got[i] == (fv[i] > 0 ? fv[i] : fv[i] * alpha));

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt32, quant(0.1f, 0));
  TensorId by = bad.tensor("y", {4}, DType::kInt32, quant(0.1f, 0));
  bad.op("leaky", "leaky_relu", {bx}, {by});
  CHECK(bad.refusal().find("leaky_relu runs int8, int16 or float32") != std::string::npos);
}

TEST_CASE("maximum and minimum: int8 and float32, broadcast as numpy does; a bool maximum is refused") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> av(2 * 3 * 4), bv(3 * 1);
  for (auto& v : av) v = static_cast<int8_t>(d(rng));
  for (auto& v : bv) v = static_cast<int8_t>(d(rng));
  for (bool is_max : {true, false}) {
    CAPTURE(is_max);
    OneOpModel m;
    TensorId a = m.input("a", {2, 3, 4}, DType::kInt8, bytes_of(av), quant(0.1f, 3));
    TensorId b = m.input("b", {3, 1}, DType::kInt8, bytes_of(bv), quant(0.1f, 3));
    TensorId y = m.tensor("y", {2, 3, 4}, DType::kInt8, quant(0.1f, 3));
    m.op("mm", is_max ? "maximum" : "minimum", {a, b}, {y});
    auto got = values_of<int8_t>(m.run({y})[0]);
    CHECK(sim::plan_kernel(m.g, 0).work.alu_ops == 2 * 3 * 4);  // the cycle model: one compare per output element
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) {
          const int8_t x = av[(i * 3 + j) * 4 + k], z = bv[j];  // b's dims (3, 1) align to the last two
          CHECK(got[(i * 3 + j) * 4 + k] == (is_max ? std::max(x, z) : std::min(x, z)));
        }
  }
  OneOpModel f;
  std::vector<float> fa = {-1.5f, 2.f, 0.f, 7.f}, fb = {0.5f};
  TensorId a = f.input("a", {2, 2}, DType::kFloat32, bytes_of(fa));
  TensorId b = f.input("b", {1}, DType::kFloat32, bytes_of(fb));
  TensorId y = f.tensor("y", {2, 2}, DType::kFloat32);
  f.op("max", "maximum", {a, b}, {y});
  CHECK(values_of<float>(f.run({y})[0]) == std::vector<float>{0.5f, 2.f, 0.5f, 7.f});

  OneOpModel bad;
  TensorId ba = bad.tensor("a", {2, 2}, DType::kBool);
  TensorId bb = bad.tensor("b", {2}, DType::kBool);
  TensorId by = bad.tensor("y", {2, 2}, DType::kBool);
  bad.op("max", "maximum", {ba, bb}, {by});
  CHECK(bad.refusal().find("maximum runs float32, int8, int16, int32 or int64") != std::string::npos);
}

TEST_CASE("resize_nearest_neighbor: plain, align_corners, half_pixel_centers against the definition; a float16 image is refused") {
  std::vector<int8_t> xv(3 * 5 * 2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<int8_t>(i * 3 - 40);
  for (int mode = 0; mode < 3; ++mode) {
    CAPTURE(mode);
    const bool align = mode == 1, half = mode == 2;
    OneOpModel m;
    TensorId x = m.input("x", {1, 3, 5, 2}, DType::kInt8, bytes_of(xv), quant(0.2f, 1));
    TensorId size = m.tensor("size", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{7, 4}));
    TensorId y = m.tensor("y", {1, 7, 4, 2}, DType::kInt8, quant(0.2f, 1));
    m.op("resize", "resize_nearest_neighbor", {x, size}, {y}, {{"align_corners", align}, {"half_pixel_centers", half}});
    auto got = values_of<int8_t>(m.run({y})[0]);
    CHECK(sim::plan_kernel(m.g, 0).work.alu_ops == 7 * 4 * 2);  // one copy per output element
    // Source index of output o: floor(o * in/out); align_corners: round(o * (in-1)/(out-1)), half
    // away; half-pixel centers: floor((o + 0.5) * in/out). Clamped into the image.
    auto source = [&](int o, int in, int out) {
      double s;
      if (align) s = round_half_away(o * double(in - 1) / (out - 1));
      else s = std::floor((o + (half ? 0.5 : 0.0)) * double(in) / out);
      return std::clamp(static_cast<int>(s), 0, in - 1);
    };
    for (int oy = 0; oy < 7; ++oy)
      for (int ox = 0; ox < 4; ++ox)
        for (int c = 0; c < 2; ++c) CHECK(got[(oy * 4 + ox) * 2 + c] == xv[(source(oy, 3, 7) * 5 + source(ox, 5, 4)) * 2 + c]);
  }
  OneOpModel bad;
  TensorId x = bad.tensor("x", {1, 2, 2, 1}, DType::kFloat16);
  TensorId size = bad.tensor("size", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{4, 4}));
  TensorId y = bad.tensor("y", {1, 4, 4, 1}, DType::kFloat16);
  bad.op("resize", "resize_nearest_neighbor", {x, size}, {y});
  CHECK(bad.refusal().find("runs int8, int16 or float32") != std::string::npos);
}

TEST_CASE("split and split_v cut along the axis into the outputs' shares; a non-constant axis is refused") {
  std::vector<int8_t> xv(2 * 6 * 3);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<int8_t>(i);
  auto expect_part = [&](const std::vector<int8_t>& got, int from, int rows) {
    REQUIRE(got.size() == size_t(2 * rows * 3));
    for (int a = 0; a < 2; ++a)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < 3; ++c) CHECK(got[(a * rows + r) * 3 + c] == xv[(a * 6 + from + r) * 3 + c]);
  };
  {
    OneOpModel m;
    TensorId axis = m.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{-2}));
    TensorId x = m.input("x", {2, 6, 3}, DType::kInt8, bytes_of(xv), quant(0.1f, 0));
    std::vector<TensorId> ys;
    for (const char* name : {"y0", "y1", "y2"}) ys.push_back(m.tensor(name, {2, 2, 3}, DType::kInt8, quant(0.1f, 0)));
    m.op("split", "split", {axis, x}, ys, {{"num_splits", 3}});
    auto outs = m.run(ys);
    for (int i = 0; i < 3; ++i) expect_part(values_of<int8_t>(outs[i]), 2 * i, 2);
  }
  {
    OneOpModel m;
    TensorId x = m.input("x", {2, 6, 3}, DType::kInt8, bytes_of(xv), quant(0.1f, 0));
    TensorId sizes = m.tensor("sizes", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, -1, 2}));
    TensorId axis = m.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
    std::vector<TensorId> ys = {m.tensor("y0", {2, 1, 3}, DType::kInt8, quant(0.1f, 0)),
                                m.tensor("y1", {2, 3, 3}, DType::kInt8, quant(0.1f, 0)),
                                m.tensor("y2", {2, 2, 3}, DType::kInt8, quant(0.1f, 0))};
    m.op("split_v", "split_v", {x, sizes, axis}, ys, {{"num_splits", 3}});
    auto outs = m.run(ys);
    expect_part(values_of<int8_t>(outs[0]), 0, 1);
    expect_part(values_of<int8_t>(outs[1]), 1, 3);
    expect_part(values_of<int8_t>(outs[2]), 4, 2);
  }
  OneOpModel bad;
  TensorId axis = bad.tensor("axis", {1}, DType::kInt32);
  TensorId x = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
  TensorId y0 = bad.tensor("y0", {2}, DType::kInt8, quant(0.1f, 0)), y1 = bad.tensor("y1", {2}, DType::kInt8, quant(0.1f, 0));
  bad.op("split", "split", {axis, x}, {y0, y1});
  CHECK(bad.refusal().find("is not constant data") != std::string::npos);
}

TEST_CASE("slice copies the box begin .. begin + size (size -1: to the end); a box past the input is refused") {
  std::vector<float> xv(3 * 4 * 5);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) * 0.5f;
  OneOpModel m;
  TensorId x = m.input("x", {3, 4, 5}, DType::kFloat32, bytes_of(xv));
  TensorId begin = m.tensor("begin", {3}, DType::kInt64, {}, bytes_of(std::vector<int64_t>{1, 0, 2}));
  TensorId size = m.tensor("size", {3}, DType::kInt64, {}, bytes_of(std::vector<int64_t>{2, -1, 2}));
  TensorId y = m.tensor("y", {2, 4, 2}, DType::kFloat32);
  m.op("slice", "slice", {x, begin, size}, {y});
  auto got = values_of<float>(m.run({y})[0]);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 2; ++c) CHECK(got[(a * 4 + b) * 2 + c] == xv[((a + 1) * 4 + b) * 5 + c + 2]);

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {4}, DType::kInt8, quant(0.1f, 0));
  TensorId bb = bad.tensor("begin", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{3}));
  TensorId bs = bad.tensor("size", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{2}));
  TensorId by = bad.tensor("y", {2}, DType::kInt8, quant(0.1f, 0));
  bad.op("slice", "slice", {bx, bb, bs}, {by});
  CHECK(bad.refusal().find("is outside dim 0") != std::string::npos);
}

TEST_CASE("prelu int8 (per-channel slope broadcast) and float32 against its definition; a 5-d float32 input is refused") {
  const float sx = 0.03f, sa = 0.01f, sy = 0.05f;
  const int32_t zx = 4, za = -10, zy = -20;
  std::vector<int8_t> alpha = {-128, -50, 0, 40, 127};  // real slopes -1.18 .. 1.37
  OneOpModel m;
  TensorId x = m.input("x", {1, 256, 1, 1}, DType::kInt8, bytes_of(every_int8()), quant(sx, zx));
  // Broadcast: x [1, 256, 1, 1] against slopes [1, 1, 5]: every input value with every slope.
  TensorId a = m.tensor("alpha", {1, 1, 5}, DType::kInt8, quant(sa, za), bytes_of(alpha));
  TensorId y = m.tensor("y", {1, 256, 1, 5}, DType::kInt8, quant(sy, zy));
  m.op("prelu", "prelu", {x, a}, {y});
  auto got = values_of<int8_t>(m.run({y})[0]);
  const auto xs = every_int8();
  for (int i = 0; i < 256; ++i)
    for (int k = 0; k < 5; ++k) {
      const double real = sx * double(xs[i] - zx), slope = sa * double(alpha[k] - za);
      const bool positive = real >= 0;
      check_requantized(got[i * 5 + k], (positive ? real : real * slope) / sy, zy,
                        right_shift_of(positive ? double(sx) / sy : double(sx) * sa / sy));
    }
  OneOpModel f;
  std::vector<float> fx = {-2.f, -0.5f, 0.f, 3.f}, fa = {0.25f, -1.f};
  TensorId x2 = f.input("x", {2, 2}, DType::kFloat32, bytes_of(fx));
  TensorId a2 = f.tensor("alpha", {2}, DType::kFloat32, {}, bytes_of(fa));
  TensorId y2 = f.tensor("y", {2, 2}, DType::kFloat32);
  f.op("prelu", "prelu", {x2, a2}, {y2});
  CHECK(values_of<float>(f.run({y2})[0]) == std::vector<float>{-0.5f, 0.5f, 0.f, 3.f});

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {1, 1, 1, 2, 2}, DType::kFloat32);
  TensorId ba = bad.tensor("alpha", {2}, DType::kFloat32, {}, bytes_of(std::vector<float>{1.f, 2.f}));
  TensorId by = bad.tensor("y", {1, 1, 1, 2, 2}, DType::kFloat32);
  bad.op("prelu", "prelu", {bx, ba}, {by});
  CHECK(bad.refusal().find("float32 prelu runs up to 4 dims") != std::string::npos);
}

TEST_CASE("arg_max: first index of the largest value along the axis, int32 out; int64 or float16 indices are refused") {
  std::vector<int8_t> xv(2 * 5 * 3);
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> d(-3, 3);  // few values: many ties, the first must win
  for (auto& v : xv) v = static_cast<int8_t>(d(rng));
  {
    OneOpModel m;
    TensorId x = m.input("x", {2, 5, 3}, DType::kInt8, bytes_of(xv), quant(0.1f, 0));
    TensorId axis = m.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
    TensorId y = m.tensor("y", {2, 3}, DType::kInt32);
    m.op("argmax", "arg_max", {x, axis}, {y});
    auto bytes = m.run({y})[0];
    CHECK(sim::plan_kernel(m.g, 0).work.alu_ops == 2 * 5 * 3);  // one compare per input element
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 3; ++c) {
        int best = 0;
        for (int k = 1; k < 5; ++k)
          if (xv[(a * 5 + k) * 3 + c] > xv[(a * 5 + best) * 3 + c]) best = k;
        CHECK(values_of<int32_t>(bytes)[a * 3 + c] == best);
      }
  }
  OneOpModel f;
  std::vector<float> fv = {NAN, 1.f, 3.f, 3.f, -1.f, NAN};
  TensorId x = f.input("x", {2, 3}, DType::kFloat32, bytes_of(fv));
  TensorId axis = f.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{-1}));
  TensorId y = f.tensor("y", {2}, DType::kInt32);
  f.op("argmax", "arg_max", {x, axis}, {y});
  // TFLite: a NaN never wins and any number replaces it.
  CHECK(values_of<int32_t>(f.run({y})[0]) == std::vector<int32_t>{2, 0});

  OneOpModel bad;
  TensorId bx = bad.tensor("x", {2, 3}, DType::kFloat32);
  TensorId ba = bad.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
  TensorId by = bad.tensor("y", {2}, DType::kFloat16);
  bad.op("argmax", "arg_max", {bx, ba}, {by});
  CHECK(bad.refusal().find("int32 indices only") != std::string::npos);
  // TFLM refuses int64 indices ("Only int32_t are supported currently"), so the simulator does.
  OneOpModel wide;
  TensorId wx = wide.tensor("x", {2, 3}, DType::kFloat32);
  TensorId wa = wide.tensor("axis", {1}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1}));
  TensorId wy = wide.tensor("y", {2}, DType::kInt64);
  wide.op("argmax", "arg_max", {wx, wa}, {wy});
  CHECK(wide.refusal().find("int32 indices only") != std::string::npos);
}

TEST_CASE("import: the options of resize_nearest_neighbor, split_v and arg_max reach the kernels of an imported .tflite") {
  {
    // RESIZE_NEAREST_NEIGHBOR (97) 2 -> 3 with align_corners: sources round(o * 1/2) = 0, 1 (half
    // away), 1, where the plain rule floor(o * 2/3) gives 0, 0, 1.
    TfliteOneOp m;
    m.code = 97;
    m.tensors = {{"x", {1, 1, 2, 1}, 9, {}, 0.5f, 0},
                 {"size", {2}, 2, bytes_of(std::vector<int32_t>{1, 3})},
                 {"y", {1, 1, 3, 1}, 9, {}, 0.5f, 0}};
    m.ins = {0, 1}, m.outs = {2};
    m.options = [](flatbuffers::FlatBufferBuilder& b) { return tfl::CreateResizeNearestNeighborOptions(b, true, false).Union(); };
    Graph g;
    auto out = m.run({{"x", {5, 9}}}, &g);
    CHECK(g.ops[0].attrs.at("align_corners") == 1);
    CHECK(out[0] == std::vector<uint8_t>{5, 9, 9});
  }
  {
    // SPLIT_V (102): sizes (2, -1) along axis 0 of [5] int8.
    TfliteOneOp m;
    m.code = 102;
    m.tensors = {{"x", {5}, 9, {}, 0.1f, 0},
                 {"sizes", {2}, 2, bytes_of(std::vector<int32_t>{2, -1})},
                 {"axis", {1}, 2, bytes_of(std::vector<int32_t>{0})},
                 {"a", {2}, 9, {}, 0.1f, 0},
                 {"b", {3}, 9, {}, 0.1f, 0}};
    m.ins = {0, 1, 2}, m.outs = {3, 4};
    m.options = [](flatbuffers::FlatBufferBuilder& b) { return tfl::CreateSplitVOptions(b, 2).Union(); };
    Graph g;
    auto out = m.run({{"x", {1, 2, 3, 4, 5}}}, &g);
    CHECK(g.ops[0].attrs.at("num_splits") == 2);
    CHECK(out[0] == std::vector<uint8_t>{1, 2});
    CHECK(out[1] == std::vector<uint8_t>{3, 4, 5});
  }
  {
    // ARG_MAX (56) over the last axis of [2, 3] float32, int32 indices (output_type 2).
    TfliteOneOp m;
    m.code = 56;
    m.tensors = {{"x", {2, 3}, 0, {}}, {"axis", {1}, 2, bytes_of(std::vector<int32_t>{1})}, {"y", {2}, 2, {}}};
    m.ins = {0, 1}, m.outs = {2};
    m.options = [](flatbuffers::FlatBufferBuilder& b) { return tfl::CreateArgMaxOptions(b, 2).Union(); };
    Graph g;
    auto out = m.run({{"x", bytes_of(std::vector<float>{0.f, 5.f, -1.f, 2.f, 2.f, 9.f})}}, &g);
    CHECK(g.ops[0].attrs.at("output_type") == 2);
    CHECK(values_of<int32_t>(out[0]) == std::vector<int32_t>{1, 2});
  }
}

}  // namespace arenaplan
