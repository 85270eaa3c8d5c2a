// The simulator's kernels against straightforward reference loops written here, independently
// (index arithmetic with explicit bounds checks, double rounding), and tiny_cnn end to end.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "core/graph/graph_json.h"
#include "core/graph/op_kinds.h"
#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

std::vector<int8_t> random_i8(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

std::vector<int32_t> random_bias(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-3000, 3000);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Reference requantisation: exact division by 2^shift, rounded half up, saturated.
int8_t ref_requant(int64_t acc, int shift) {
  double v = std::floor(static_cast<double>(acc) / std::ldexp(1.0, shift) + 0.5);
  return static_cast<int8_t>(std::max(-128.0, std::min(127.0, v)));
}

struct Geo {
  int n, h, w, c, kh, kw, oc, sh, sw, ph, pw, shift;
  int oh() const { return (h + 2 * ph - kh) / sh + 1; }
  int ow() const { return (w + 2 * pw - kw) / sw + 1; }
  sim::Window2d win() const {
    sim::Window2d g;
    g.n = n, g.h = h, g.w = w, g.c = c, g.kh = kh, g.kw = kw, g.oc = oc, g.stride_h = sh, g.stride_w = sw;
    g.pad_h = ph, g.pad_w = pw, g.oh = oh(), g.ow = ow(), g.shift = shift;
    return g;
  }
};

int8_t at(const std::vector<int8_t>& x, const Geo& g, int b, int y, int xx, int c, bool& inside) {
  inside = y >= 0 && y < g.h && xx >= 0 && xx < g.w;
  return inside ? x[((b * g.h + y) * g.w + xx) * g.c + c] : 0;
}

std::vector<int8_t> ref_conv(const Geo& g, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                             const std::vector<int32_t>* bias, bool depthwise) {
  const int oc = depthwise ? g.c : g.oc;
  std::vector<int8_t> y(static_cast<size_t>(g.n * g.oh() * g.ow() * oc));
  for (int b = 0; b < g.n; ++b)
    for (int oy = 0; oy < g.oh(); ++oy)
      for (int ox = 0; ox < g.ow(); ++ox)
        for (int o = 0; o < oc; ++o) {
          int64_t acc = bias ? (*bias)[o] : 0;
          for (int ky = 0; ky < g.kh; ++ky)
            for (int kx = 0; kx < g.kw; ++kx) {
              const int iy = oy * g.sh - g.ph + ky, ix = ox * g.sw - g.pw + kx;
              if (depthwise) {
                bool in;
                int8_t v = at(x, g, b, iy, ix, o, in);
                acc += v * w[(ky * g.kw + kx) * g.c + o];
              } else {
                for (int c = 0; c < g.c; ++c) {
                  bool in;
                  int8_t v = at(x, g, b, iy, ix, c, in);
                  acc += v * w[((o * g.kh + ky) * g.kw + kx) * g.c + c];
                }
              }
            }
          y[((b * g.oh() + oy) * g.ow() + ox) * oc + o] = ref_requant(acc, g.shift);
        }
  return y;
}

std::vector<int8_t> ref_pool(const Geo& g, const std::vector<int8_t>& x, bool max) {
  std::vector<int8_t> y(static_cast<size_t>(g.n * g.oh() * g.ow() * g.c));
  for (int b = 0; b < g.n; ++b)
    for (int oy = 0; oy < g.oh(); ++oy)
      for (int ox = 0; ox < g.ow(); ++ox)
        for (int c = 0; c < g.c; ++c) {
          int best = -128, sum = 0, count = 0;
          for (int ky = 0; ky < g.kh; ++ky)
            for (int kx = 0; kx < g.kw; ++kx) {
              bool in;
              int8_t v = at(x, g, b, oy * g.sh - g.ph + ky, ox * g.sw - g.pw + kx, c, in);
              if (!in) continue;  // padding is ignored, not zero
              best = std::max(best, int{v});
              sum += v;
              ++count;
            }
          int8_t r;
          if (max) r = static_cast<int8_t>(best);
          else r = static_cast<int8_t>(std::lround(static_cast<double>(sum) / count));  // half away from zero
          y[((b * g.oh() + oy) * g.ow() + ox) * g.c + c] = r;
        }
  return y;
}

std::vector<int8_t> ref_dense(int batch, int in, int out, int shift, const std::vector<int8_t>& x,
                              const std::vector<int8_t>& w, const std::vector<int32_t>* bias) {
  std::vector<int8_t> y(static_cast<size_t>(batch * out));
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      int64_t acc = bias ? (*bias)[o] : 0;
      for (int i = 0; i < in; ++i) acc += x[b * in + i] * w[o * in + i];
      y[b * out + o] = ref_requant(acc, shift);
    }
  return y;
}

std::vector<int8_t> ref_softmax(int rows, int depth, const std::vector<int8_t>& x) {
  std::vector<int8_t> y(x.size());
  for (int r = 0; r < rows; ++r) {
    double m = -1e9, sum = 0;
    for (int i = 0; i < depth; ++i) m = std::max(m, double(x[r * depth + i]));
    for (int i = 0; i < depth; ++i) sum += std::exp((x[r * depth + i] - m) / 16.0);
    for (int i = 0; i < depth; ++i) {
      long q = std::lround(std::exp((x[r * depth + i] - m) / 16.0) / sum * 256.0) - 128;
      y[r * depth + i] = static_cast<int8_t>(std::max(-128L, std::min(127L, q)));
    }
  }
  return y;
}

const Geo kGeos[] = {
    {1, 8, 8, 3, 3, 3, 4, 1, 1, 1, 1, 9},    // same-size 3x3
    {2, 9, 7, 5, 3, 3, 6, 2, 2, 1, 1, 10},   // stride 2, odd sizes, batch 2
    {1, 6, 6, 8, 1, 1, 16, 1, 1, 0, 0, 9},   // pointwise
    {1, 10, 10, 70, 5, 3, 3, 2, 1, 2, 1, 12},  // channels past the depthwise block of 64
    {1, 5, 5, 2, 5, 5, 2, 1, 1, 0, 0, 11},   // window = input
};

}  // namespace

TEST_CASE("requantisation rounds half up and saturates") {
  CHECK(sim::requantize(100, 3) == 13);   // 12.5 -> 13
  CHECK(sim::requantize(-100, 3) == -12);  // -12.5 -> -12
  CHECK(sim::requantize(1 << 20, 4) == 127);
  CHECK(sim::requantize(-(1 << 20), 4) == -128);
  CHECK(sim::requantize(-7, 0) == -7);
  for (int32_t acc : {-70000, -129, -1, 0, 1, 77, 4095, 123456})
    for (int s : {0, 1, 5, 9, 13}) CHECK(sim::requantize(acc, s) == ref_requant(acc, s));
}

TEST_CASE("conv2d and depthwise conv2d equal the reference loops (padding, stride, batch, bias)") {
  std::mt19937 rng(7);
  for (const Geo& g : kGeos) {
    CAPTURE(g.h);
    CAPTURE(g.c);
    auto x = random_i8(static_cast<size_t>(g.n * g.h * g.w * g.c), rng);
    auto w = random_i8(static_cast<size_t>(g.oc * g.kh * g.kw * g.c), rng);
    auto bias = random_bias(static_cast<size_t>(g.oc), rng);
    std::vector<int8_t> y(static_cast<size_t>(g.n * g.oh() * g.ow() * g.oc));
    sim::conv2d_int8(g.win(), x.data(), w.data(), bias.data(), y.data());
    CHECK(y == ref_conv(g, x, w, &bias, false));
    sim::conv2d_int8(g.win(), x.data(), w.data(), nullptr, y.data());
    CHECK(y == ref_conv(g, x, w, nullptr, false));

    auto dw = random_i8(static_cast<size_t>(g.kh * g.kw * g.c), rng);
    auto dbias = random_bias(static_cast<size_t>(g.c), rng);
    sim::Window2d d = g.win();
    d.oc = g.c;
    std::vector<int8_t> dy(static_cast<size_t>(g.n * g.oh() * g.ow() * g.c));
    sim::depthwise_conv2d_int8(d, x.data(), dw.data(), dbias.data(), dy.data());
    CHECK(dy == ref_conv(g, x, dw, &dbias, true));
  }
}

TEST_CASE("max and average pools equal the reference loops; padded positions are ignored") {
  std::mt19937 rng(11);
  for (Geo g : kGeos) {
    g.kh = std::min(g.kh + 1, g.h), g.kw = std::min(g.kw, g.w);
    g.ph = std::min(g.ph, g.kh - 1), g.pw = std::min(g.pw, g.kw - 1);
    auto x = random_i8(static_cast<size_t>(g.n * g.h * g.w * g.c), rng);
    sim::Window2d w = g.win();
    w.oc = g.c;
    std::vector<int8_t> y(static_cast<size_t>(g.n * g.oh() * g.ow() * g.c));
    sim::max_pool2d_int8(w, x.data(), y.data());
    CHECK(y == ref_pool(g, x, true));
    sim::avg_pool2d_int8(w, x.data(), y.data());
    CHECK(y == ref_pool(g, x, false));
  }
}

TEST_CASE("dense, add, relu, relu6, softmax and concat equal the reference loops") {
  std::mt19937 rng(13);
  auto x = random_i8(3 * 40, rng), w = random_i8(7 * 40, rng);
  auto bias = random_bias(7, rng);
  std::vector<int8_t> y(3 * 7);
  sim::fully_connected_int8(3, 40, 7, 9, x.data(), w.data(), bias.data(), y.data());
  CHECK(y == ref_dense(3, 40, 7, 9, x, w, &bias));

  auto a = random_i8(300, rng), b = random_i8(300, rng);
  std::vector<int8_t> s(300);
  sim::add_int8(300, a.data(), b.data(), s.data());
  for (size_t i = 0; i < 300; ++i) CHECK(s[i] == std::max(-128, std::min(127, a[i] + b[i])));

  std::vector<int8_t> r = a;  // in place
  sim::clamp_int8(300, 0, 127, r.data(), r.data());
  for (size_t i = 0; i < 300; ++i) CHECK(r[i] == (a[i] < 0 ? 0 : a[i]));
  sim::clamp_int8(300, 0, 96, a.data(), r.data());
  for (size_t i = 0; i < 300; ++i) CHECK(r[i] == std::max(0, std::min(96, int{a[i]})));

  auto logits = random_i8(4 * 10, rng);
  std::vector<int8_t> p(40);
  sim::softmax_int8(4, 10, logits.data(), p.data());
  CHECK(p == ref_softmax(4, 10, logits));
  sim::softmax_int8(4, 10, logits.data(), logits.data());  // in place
  CHECK(logits == p);

  // Concat along the channel axis of [2,3,C]: parts interleave per position.
  std::vector<uint8_t> c1 = {1, 2, 3, 4, 5, 6}, c2 = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
  std::vector<uint8_t> cat(18);
  const uint8_t* parts[] = {c1.data(), c2.data()};
  const int64_t chunk[] = {1, 2};
  sim::concat_bytes(6, 2, parts, chunk, cat.data());
  CHECK(cat == std::vector<uint8_t>{1, 10, 11, 2, 12, 13, 3, 14, 15, 4, 16, 17, 5, 18, 19, 6, 20, 21});
}

TEST_CASE("mix reads every input byte: one flipped bit changes the output, same input same output") {
  std::vector<uint8_t> in(1000, 7), out1(333), out2(333);
  auto run = [&](std::vector<uint8_t>& out) {
    uint64_t h = sim::mix_digest(sim::mix_seed(42), in.data(), static_cast<int64_t>(in.size()));
    sim::mix_fill(h, 0, out.data(), static_cast<int64_t>(out.size()));
  };
  run(out1);
  run(out2);
  CHECK(out1 == out2);
  // Bytes in the word-wise body (each of the four lanes) and in the byte-wise tail.
  for (size_t at : {0, 9, 18, 27, 500, 991, 999}) {
    CAPTURE(at);
    in[at] ^= 1;
    run(out2);
    in[at] ^= 1;
    int same = 0;
    for (size_t i = 0; i < out1.size(); ++i) same += out1[i] == out2[i];
    CHECK(same < 10);  // ~1/256 of the bytes by chance
  }
}

TEST_CASE("binding: tiny_cnn ops get their kernels and MAC counts; sized-only graphs run mix") {
  Graph g = example_graph("tiny_cnn");
  std::map<std::string, sim::KernelPlan> k;
  for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o) k[g.ops[o].name] = sim::plan_kernel(g, o);
  CHECK(k["conv1"].kind == sim::KernelKind::kConv2d);
  CHECK(k["conv1"].work.macs == 16 * 16 * 8 * 3 * 3 * 3);
  CHECK(k["dw"].kind == sim::KernelKind::kDepthwiseConv2d);
  CHECK(k["dw"].work.macs == 8 * 8 * 8 * 3 * 3);
  CHECK(k["pw"].work.macs == 8 * 8 * 16 * 16);
  CHECK(k["fc"].kind == sim::KernelKind::kFullyConnected);
  CHECK(k["fc"].work.macs == 256 * 10);
  CHECK(k["avg"].kind == sim::KernelKind::kAvgPool2d);
  CHECK(k["pool"].kind == sim::KernelKind::kMaxPool2d);
  CHECK(k["cat"].kind == sim::KernelKind::kConcat);
  CHECK(k["flat"].kind == sim::KernelKind::kReshape);
  CHECK(k["softmax"].kind == sim::KernelKind::kSoftmax);

  Graph tb = example_graph("two_branch");  // conv2d on byte sizes only
  for (OpId o = 0; o < static_cast<OpId>(tb.ops.size()); ++o) CHECK(sim::plan_kernel(tb, o).kind == sim::KernelKind::kMix);
}

TEST_CASE("binding: every spelling of a family in the op-kind table binds that family's kernel") {
  // The simulator asks core/graph/op_kinds.h like the shape unit, the transforms and the importer:
  // an op written "conv", "dwconv2d" or "maxpool" runs the kernel "conv2d", "depthwise_conv2d" or
  // "max_pool2d" runs, with the same work (elementwise kernels are chosen by name, not family).
  const Graph g = example_graph("tiny_cnn");
  int spellings = 0;
  for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o) {
    const OpFamily family = op_family(g.ops[o].kind);
    if (family == OpFamily::kElementwise || family == OpFamily::kOther) continue;
    const sim::KernelPlan written = sim::plan_kernel(g, o);
    for (const OpKind& k : op_kinds()) {
      if (k.family != family) continue;
      Graph respelled = g;
      respelled.ops[o].kind = k.name;
      const sim::KernelPlan p = sim::plan_kernel(respelled, o);
      CHECK_MESSAGE(p.kind == written.kind, g.ops[o].name << " written as \"" << k.name << "\"");
      CHECK(!p.stand_in);
      CHECK(p.work.macs == written.work.macs);
      ++spellings;
    }
  }
  // tiny_cnn has conv, depthwise, both pools, dense, concat, reshape and softmax ops: every
  // spelling of those families was tried at least once.
  int table = 0;
  for (const OpKind& k : op_kinds())
    if (k.family != OpFamily::kElementwise && k.family != OpFamily::kPool) ++table;
  CHECK(spellings >= table);
}

TEST_CASE("a kind whose shapes contradict its kernel is an InputError naming the op") {
  std::string text = *find_example("tiny_cnn");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    REQUIRE(t.find(from) != std::string::npos);
    return parse_graph_json(t.replace(t.find(from), from.size(), to));
  };
  auto bind_error = [](const Graph& g) {
    return input_error_of([&] {
      for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o) sim::plan_kernel(g, o);
    });
  };
  // conv1 with pad 0 would give 14x14, not 16x16.
  CHECK(bind_error(with(R"("attrs": {"stride": 1, "pad": 1})", R"("attrs": {"stride": 1, "pad": 0})")) ==
        "op conv1: kind \"conv2d\": output conv1 is [1,16,16,8] but the input, window 3x3, stride 1x1 and pad 0x0 give "
        "[1,14,14,8]");
  // Weights whose input channels do not match the image.
  CHECK(bind_error(with(R"("w_conv1": {"shape": [8, 3, 3, 3])", R"("w_conv1": {"shape": [8, 3, 3, 4])"))
            .find("op conv1: kind \"conv2d\": weights w_conv1 must be [OC,KH,KW,3]") == 0);
  // Dense weights expecting another K.
  CHECK(bind_error(with(R"("w_fc": {"shape": [10, 256])", R"("w_fc": {"shape": [10, 100])")).find("op fc:") == 0);
  // Add of different sizes (the simulator does not broadcast).
  CHECK(bind_error(with(R"("inputs": ["pw", "cat"])", R"("inputs": ["pw", "avg"])")).find("op res:") == 0);
}

TEST_CASE("tiny_cnn simulated end to end equals a reference interpreter built from the loops above") {
  Graph g = example_graph("tiny_cnn");
  LiveAnalysis live = analyze_lifetimes(g, g.file_order());
  sim::SimOptions options;
  options.seed = 5;
  sim::ArenaSimulator s(g, live, sim::plan_layout(g, live, {.planner = "best"}), options);
  s.run_all();
  REQUIRE(s.violation_count() == 0);

  // The same seeded bytes (fill_tensor is the simulator's documented generator), then naive loops.
  std::map<std::string, std::vector<int8_t>> v;
  std::map<std::string, std::vector<int32_t>> b;
  for (const Tensor& t : g.tensors) {
    if (!(t.constant || g.is_input(*g.find_tensor(t.name)))) continue;
    std::vector<uint8_t> bytes(static_cast<size_t>(t.bytes));
    sim::fill_tensor(t, 5, t.constant ? 0 : 1, bytes.data());
    if (t.dtype == DType::kInt32) {
      b[t.name].resize(bytes.size() / 4);
      std::memcpy(b[t.name].data(), bytes.data(), bytes.size());
    } else {
      v[t.name].assign(bytes.begin(), bytes.end());
    }
  }
  const int sh1 = sim::default_shift(27), sh_dw = sim::default_shift(9), sh_pw = sim::default_shift(16),
            sh_fc = sim::default_shift(256);
  v["conv1"] = ref_conv({1, 16, 16, 3, 3, 3, 8, 1, 1, 1, 1, sh1}, v["image"], v["w_conv1"], &b["b_conv1"], false);
  for (auto& x : v["conv1"]) x = std::max<int8_t>(x, 0);  // relu
  v["dw"] = ref_conv({1, 16, 16, 8, 3, 3, 8, 2, 2, 1, 1, sh_dw}, v["conv1"], v["w_dw"], &b["b_dw"], true);
  for (auto& x : v["dw"]) x = std::min<int8_t>(std::max<int8_t>(x, 0), 96);  // relu6
  v["avg"] = ref_pool({1, 16, 16, 8, 2, 2, 8, 2, 2, 0, 0, 0}, v["conv1"], false);
  std::vector<int8_t> cat;
  for (int p = 0; p < 64; ++p) {
    cat.insert(cat.end(), v["dw"].begin() + p * 8, v["dw"].begin() + p * 8 + 8);
    cat.insert(cat.end(), v["avg"].begin() + p * 8, v["avg"].begin() + p * 8 + 8);
  }
  std::vector<int8_t> pw = ref_conv({1, 8, 8, 16, 1, 1, 16, 1, 1, 0, 0, sh_pw}, cat, v["w_pw"], &b["b_pw"], false);
  std::vector<int8_t> res(pw.size());
  for (size_t i = 0; i < res.size(); ++i) res[i] = static_cast<int8_t>(std::max(-128, std::min(127, pw[i] + cat[i])));
  std::vector<int8_t> pool = ref_pool({1, 8, 8, 16, 2, 2, 16, 2, 2, 0, 0, 0}, res, true);
  std::vector<int8_t> logits = ref_dense(1, 256, 10, sh_fc, pool, v["w_fc"], &b["b_fc"]);
  std::vector<int8_t> probs = ref_softmax(1, 10, logits);

  std::vector<int8_t> simulated(10);
  std::memcpy(simulated.data(), s.captured(0, 0), 10);
  CHECK(simulated == probs);
  // Not a degenerate network: the logits are not all saturated and the probabilities differ.
  int distinct = 0;
  for (int i = 1; i < 10; ++i) distinct += probs[i] != probs[0];
  CHECK(distinct > 0);
}

// An imported model's graph JSON keeps TFLite's per-side padding (SAME puts the odd pixel after)
// and a RESHAPE's constant shape operand; every op binds on it as on the model itself.
TEST_CASE("kernel binding: a model's graph JSON binds like the model (asymmetric SAME pads, RESHAPE's shape operand)") {
  const Graph model = import_tflite(test::read_tflm_fixture("ds_cnn_small.tflite")).graph;
  const Graph back = parse_graph_json(graph_to_json(model));
  const Op& stem = back.ops[0];
  REQUIRE(stem.kind == "conv_2d");
  CHECK(stem.attrs.at("pad_h") == 4);
  CHECK(stem.attrs.at("pad_bottom") == 5);
  for (const Graph* g : {&model, &back})
    for (OpId o = 0; o < static_cast<OpId>(g->ops.size()); ++o) {
      CAPTURE(g->ops[o].name);
      CHECK_NOTHROW(sim::plan_kernel(*g, o));
    }
  // The bottom pad still counts: one row less gives another output height.
  Graph short_pad = back;
  short_pad.ops[0].attrs["pad_bottom"] = 4;
  CHECK(input_error_of([&] { sim::plan_kernel(short_pad, 0); }).find("but the input, window 10x4, stride 2x2") !=
        std::string::npos);
}

// A corrupt shape (here 10 GB in one tensor) is refused with the figures, never a bad_alloc.
TEST_CASE("simulate: an arena no process could hold is refused before memory runs out") {
  const Graph g = parse_graph_json(R"({"format": "arenaplan-graph", "version": 1, "name": "huge", "alignment": 16,
    "tensors": {"x": {"shape": [1, 100000, 100000, 1], "dtype": "int8"}, "y": {"shape": [1, 100000, 100000, 1], "dtype": "int8"}},
    "ops": [{"name": "relu", "kind": "relu", "inputs": ["x"], "outputs": ["y"]}], "inputs": ["x"], "outputs": ["y"]})");
  sim::SimRequest req;
  // simulate() refuses on the live bytes, before its reference run (beside the plan search)
  // allocates; the page's stepped run on the plan it made.
  CHECK(input_error_of([&] { sim::simulate(g, req); }) ==
        "model: the live bytes at the peak (20,000,000,000 B) and the constants (0 B) are more than the simulator's "
        "memory limit (1,073,741,824 B, --memory-limit); check the tensor shapes");
  CHECK(input_error_of([&] { sim::prepare_simulation(g, req); }) ==
        "model: the planned arena (20,000,000,000 B) and the constants (0 B) are more than the simulator's memory "
        "limit (1,073,741,824 B, --memory-limit); check the tensor shapes");
  // The limit is the caller's: a small one refuses a model that fits the default.
  const Graph small = import_tflite(test::read_tflm_fixture("svdf_int8.tflite")).graph;
  CHECK_NOTHROW(sim::simulate(small, req));
  req.memory_limit_bytes = 1024;
  CHECK(input_error_of([&] { sim::simulate(small, req); }).find("more than the simulator's memory limit (1,024 B") !=
        std::string::npos);
}
