// Kernel-level rewrites: pad folding (foldpad:PAD) and in-place depthwise / pointwise
// convs (inplace:OP). Legality refusals name the op and the reason; the kernels are checked
// against the ordinary kernels (bit for bit) and against naive loops written from TFLite's
// semantics; random rewrite sequences over generated MobileNet-style int8 graphs must keep the
// outputs bit-exact with every plan verified and simulated.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/sim/detail/model_kernels.h"
#include "core/sim/sim.h"
#include "core/transform/transform.h"
#include "core/tflite/exports.h"
#include "core/transform/whatif.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/rewrite_test_support.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

using test::bytes_of;
using test::check_every_step_safe;
using test::mobilenet_style;
using test::Net;
using test::quant;
using test::random_bytes;
using test::random_floats;
using test::refusal;
using test::run_op;

float scale_of(const Tensor& t) { return t.quant->scale[0]; }
int64_t zp_of(const Tensor& t) { return t.quant->zero_point[0]; }

}  // namespace

TEST_CASE("foldpad: every refusal names the op and the reason") {
  Net n(1);
  TensorId x = n.activation("x", {1, 6, 6, 3});
  TensorId a = n.pad("pad_a", x, 1, 1, 1, 1);
  TensorId da = n.depthwise("dw_a", a, 3, 1, 0);
  TensorId b = n.pad("pad_b", da, 1, 1, 1, 1, int8_t{5});  // PADV2, value 5 != zero point
  TensorId db = n.depthwise("dw_b", b, 3, 1, 0);
  TensorId c = n.pad("pad_c", db, 0, 0, 0, 0, {}, 2);  // pads channels
  TensorId dc = n.conv("conv_c", c, 4, 1, 1, 0);
  TensorId d = n.pad("pad_d", dc, 1, 1, 1, 1);  // two consumers
  TensorId e1 = n.pool("pool_d1", d, true, 3, 1);
  TensorId e2 = n.pool("pool_d2", d, false, 3, 1);
  TensorId f = n.pad("pad_f", e1, 1, 1, 1, 1);
  TensorId g_out = n.tensor("sum", n.dims(f), DType::kInt8, quant(0.05f, 0));
  n.op("relu", "relu", {f}, {g_out});
  TensorId h = n.pad("pad_h", e2, 1, 1, 1, 1);  // a graph output
  Graph g = n.finish(x, {g_out, h});

  CHECK(refusal(g, "foldpad:dw_a").find("op dw_a (kind \"depthwise_conv_2d\") is not a PAD or PADV2") != std::string::npos);
  CHECK(refusal(g, "foldpad:nope").find("no op named \"nope\"") != std::string::npos);
  CHECK(refusal(g, "foldpad:pad_b").find("the pad value 5 (zero point " + std::to_string(zp_of(g.tensors[da])) +
                                         ") is not the zero point of dw_b's input") != std::string::npos);
  CHECK(refusal(g, "foldpad:pad_c").find("op pad_c pads the batch or channel dimension") != std::string::npos);
  CHECK(refusal(g, "foldpad:pad_d").find("padded tensor pad_d.out is read by 2 ops") != std::string::npos);
  CHECK(refusal(g, "foldpad:pad_f").find("consumer relu (kind \"relu\") is not a conv, depthwise conv or max/average pool") !=
        std::string::npos);
  CHECK(refusal(g, "foldpad:pad_h").find("padded tensor pad_h.out is a graph output") != std::string::npos);
  CHECK(refusal(g, "foldpad:pad_a,pad_b").find("foldpad takes one name") != std::string::npos);
  CHECK(refusal(g, "foldpad:pad_a=3").find("foldpad takes no '=' value") != std::string::npos);
  // fuse:PAD,CONV points to the rewrite that does it.
  CHECK(refusal(g, "fuse:pad_a,dw_a").find("fold the pad into it instead: foldpad:pad_a") != std::string::npos);
  // The legal one, and only it, is a candidate.
  CHECK(refusal(g, "foldpad:pad_a").empty());
  CHECK(foldpad_candidates(g) == std::vector<std::string>{"foldpad:pad_a"});

  // Input and output quantized differently: the consumer could not read the input's bytes.
  Net m(2);
  TensorId mx = m.activation("x", {1, 5, 5, 2});
  TensorId mp = m.tensor("p", {1, 7, 7, 2}, DType::kInt8, quant(0.5f, 0));
  m.op("pad", "pad", {mx, m.tensor("paddings", {4, 2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0, 0, 1, 1, 1, 1, 0, 0}))}, {mp});
  TensorId my = m.depthwise("dw", mp, 3, 1, 0);
  Graph g2 = m.finish(mx, {my});
  CHECK(refusal(g2, "foldpad:pad").find("op pad's input x and output p are quantized differently") != std::string::npos);
}

TEST_CASE("fuse: a quantized intermediate is refused (the fused kernel would lose its requantization)") {
  for (bool float32 : {false, true}) {
    CAPTURE(float32);
    test::Net n(5);
    const TensorId x = n.activation("x", {1, 6, 6, 3}, float32);
    const TensorId c = n.conv("c", x, 4, 1, 1, 0, 0);
    const TensorId y = n.activation("y", n.dims(c), float32);
    n.op("r", "relu", {c}, {y});
    const Graph g = n.finish(x, {y});
    const std::string why = refusal(g, "fuse:c,r");
    if (float32) {
      CHECK(why.empty());  // no quantization to lose: float model tensors fuse
    } else {
      CHECK(why.find("intermediate") != std::string::npos);
      CHECK(why.find("is quantized") != std::string::npos);
    }
  }
}

TEST_CASE("inplace on depthwise and pointwise convs: every refusal names the op and the reason") {
  Net n(3);
  TensorId x = n.activation("x", {1, 6, 6, 4});
  TensorId a = n.conv("stem", x, 4, 3, 1, 1);
  TensorId b = n.depthwise("dw_mult2", a, 3, 1, 1, 2);  // 8 channels
  TensorId c = n.conv("widen", b, 12, 1, 1, 0);         // more output channels
  TensorId d = n.conv("k3", c, 6, 3, 1, 1);             // 3x3 window
  TensorId e = n.depthwise("dw_shared", d, 3, 1, 1);    // d is also read by "later"
  TensorId f = n.conv("later", d, 6, 1, 1, 0);
  TensorId sum = n.tensor("sum", n.dims(e), DType::kInt8, quant(0.05f, 0));
  n.op("add", "add", {e, f}, {sum});
  TensorId h = n.conv("shrink", sum, 3, 1, 1, 0);
  Graph g = n.finish(x, {h});

  CHECK(refusal(g, "inplace:dw_mult2").find("op dw_mult2 has depth multiplier 2; in place, output channel c must "
                                            "overwrite input channel c") != std::string::npos);
  CHECK(refusal(g, "inplace:widen").find("op widen has more output channels (12) than input channels (8)") !=
        std::string::npos);
  CHECK(refusal(g, "inplace:k3").find("op k3 is a 3x3 conv with padding; only a pointwise (1x1, unpadded) conv runs in "
                                      "place") != std::string::npos);
  CHECK(refusal(g, "inplace:dw_shared").find("input k3.out is still read by op later, which runs after dw_shared") !=
        std::string::npos);
  CHECK(refusal(g, "inplace:shrink=shrink.w").find("a conv can only overwrite its activation input") !=
        std::string::npos);
  CHECK(refusal(g, "inplace:stem").find("op stem is a 3x3 conv with padding") != std::string::npos);
  // Legal: pointwise with fewer outputs than inputs; the temporary is one output pixel.
  Rewrite r = apply_transformation(g, parse_transformation("inplace:shrink"), {});
  const Op& shrink = r.graph.ops[*r.graph.find_op("shrink")];
  CHECK(shrink.scratch_bytes == 3);
  REQUIRE(shrink.in_place.size() == 1);
  CHECK(r.graph.tensors[shrink.in_place[0].input].name == "sum");

  // Declared in place by hand without the temporary in its scratch, the kernel refuses to run in
  // place: the op becomes the byte-level stand-in (which reads every input byte before writing).
  Graph bare = g;
  Op& bare_op = bare.ops[*bare.find_op("shrink")];
  bare_op.in_place.push_back({bare_op.outputs[0], bare_op.inputs[0]});
  const sim::KernelPlan bare_plan = sim::plan_kernel(bare, *bare.find_op("shrink"));
  CHECK(bare_plan.stand_in);
  CHECK(bare_plan.note.find("in place needs a 3-byte temporary in the op's scratch") != std::string::npos);

  // Hand-written graphs (no quantization) run the simplified kernels, which do not run in place.
  Graph hand = test::example_graph("tiny_cnn");
  for (const Op& op : hand.ops)
    if (op_family(op.kind) == OpFamily::kDepthwiseConv || op_family(op.kind) == OpFamily::kConv) {
      const std::string why = refusal(hand, "inplace:" + op.name);
      CHECK(why.find("refused") != std::string::npos);
    }
}

TEST_CASE("in-place depthwise kernel: written over its own input, equal to the ordinary kernel and to real arithmetic") {
  std::mt19937 rng(21);
  for (int64_t stride : {1, 2})
    for (int64_t pad : {0, 1})
      for (bool f32 : {false, true}) {
        CAPTURE(stride);
        CAPTURE(pad);
        CAPTURE(f32);
        Net n(100 + stride * 10 + pad);
        TensorId x = n.activation("x", {1, 7, 6, 5}, f32);
        TensorId y = n.depthwise("dw", x, 3, stride, pad, 1, f32 ? 0 : 3);
        Graph g = n.finish(x, {y});
        Graph gi = apply_transformation(g, parse_transformation("inplace:dw"), {}).graph;
        const Op& op = gi.ops[0];
        const auto yd = n.dims(y);
        CHECK(op.scratch_bytes == yd[1] * yd[2] * (f32 ? 4 : 1));  // one channel
        const auto xb = f32 ? random_floats(7 * 6 * 5, rng) : random_bytes(7 * 6 * 5, rng);
        std::string kernel;
        const auto want = run_op(g, 0, xb);
        const auto got = run_op(gi, 0, xb, &kernel);
        CHECK(kernel == (f32 ? "depthwise_conv_2d float32 in place" : "depthwise_conv_2d int8 in place"));
        CHECK(got == want);
        if (f32) continue;
        // Naive: real-valued depthwise from TFLite's definition (zero point outside the image).
        const Tensor &X = g.tensors[x], &W = g.tensors[g.ops[0].inputs[1]], &B = g.tensors[g.ops[0].inputs[2]],
                     &Y = g.tensors[y];
        const int8_t* w = reinterpret_cast<const int8_t*>(W.data->data());
        const int32_t* bias = reinterpret_cast<const int32_t*>(B.data->data());
        int worst = 0;
        for (int64_t oy = 0; oy < yd[1]; ++oy)
          for (int64_t ox = 0; ox < yd[2]; ++ox)
            for (int64_t c = 0; c < 5; ++c) {
              double acc = 0;
              for (int64_t fy = 0; fy < 3; ++fy)
                for (int64_t fx = 0; fx < 3; ++fx) {
                  const int64_t iy = oy * stride - pad + fy, ix = ox * stride - pad + fx;
                  if (iy < 0 || ix < 0 || iy >= 7 || ix >= 6) continue;
                  acc += (static_cast<int8_t>(xb[(iy * 6 + ix) * 5 + c]) - zp_of(X)) * double(w[(fy * 3 + fx) * 5 + c]) *
                         scale_of(X) * W.quant->scale[c];
                }
              acc += bias[c] * double(scale_of(X)) * W.quant->scale[c];
              const double q = std::clamp<double>(std::round(std::clamp(acc, 0.0, 6.0) / scale_of(Y)) + zp_of(Y), -128, 127);
              worst = std::max(worst, std::abs(int(static_cast<int8_t>(got[(oy * yd[2] + ox) * 5 + c])) - int(q)));
            }
        CHECK(worst <= 1);
      }
}

TEST_CASE("in-place pointwise kernel: pixel by pixel over its own input (Cout <= Cin, strides 1 and 2)") {
  std::mt19937 rng(22);
  for (int64_t stride : {1, 2})
    for (int64_t cout : {2, 5, 6})
      for (bool f32 : {false, true}) {
        CAPTURE(stride);
        CAPTURE(cout);
        Net n(200 + cout);
        TensorId x = n.activation("x", {1, 5, 4, 6}, f32);
        TensorId y = n.conv("pw", x, cout, 1, stride, 0);
        Graph g = n.finish(x, {y});
        Graph gi = apply_transformation(g, parse_transformation("inplace:pw"), {}).graph;
        CHECK(gi.ops[0].scratch_bytes == cout * (f32 ? 4 : 1));
        const auto xb = f32 ? random_floats(5 * 4 * 6, rng) : random_bytes(5 * 4 * 6, rng);
        const auto want = run_op(g, 0, xb);
        CHECK(run_op(gi, 0, xb) == want);
        if (f32) continue;
        // Naive pointwise: each output pixel from its input pixel in real arithmetic.
        const Tensor &X = g.tensors[x], &W = g.tensors[g.ops[0].inputs[1]], &B = g.tensors[g.ops[0].inputs[2]],
                     &Y = g.tensors[y];
        const int8_t* w = reinterpret_cast<const int8_t*>(W.data->data());
        const int32_t* bias = reinterpret_cast<const int32_t*>(B.data->data());
        const auto yd = n.dims(y);
        int worst = 0;
        for (int64_t oy = 0; oy < yd[1]; ++oy)
          for (int64_t ox = 0; ox < yd[2]; ++ox)
            for (int64_t o = 0; o < cout; ++o) {
              double acc = bias[o] * double(scale_of(X)) * W.quant->scale[o];
              for (int64_t i = 0; i < 6; ++i)
                acc += (static_cast<int8_t>(xb[((oy * stride) * 4 + ox * stride) * 6 + i]) - zp_of(X)) *
                       double(w[o * 6 + i]) * scale_of(X) * W.quant->scale[o];
              const double q = std::clamp<double>(std::round(acc / scale_of(Y)) + zp_of(Y), -128, 127);
              worst = std::max(worst, std::abs(int(static_cast<int8_t>(want[(oy * yd[2] + ox) * cout + o])) - int(q)));
            }
        CHECK(worst <= 1);
      }
}

TEST_CASE("folded pad: pools read the border as the pad value and average pooling counts it") {
  std::mt19937 rng(23);
  for (bool average : {true, false})
    for (int8_t value : {int8_t{-128}, int8_t{3}, int8_t{90}}) {
      CAPTURE(average);
      CAPTURE(int(value));
      Net n(300);
      TensorId x = n.activation("x", {1, 5, 6, 2});
      TensorId p = n.pad("pad", x, 1, 2, 0, 1, value);
      TensorId y = n.pool("pool", p, average, 3, 2);
      Graph g = n.finish(x, {y});
      Rewrite r = apply_transformation(g, parse_transformation("foldpad:pad"), {});
      REQUIRE(r.graph.ops.size() == 1);
      CHECK(!r.graph.find_tensor("pad.out"));
      CHECK(r.figures.at("vanished_bytes") == 1 * 6 * 9 * 2);
      const auto xb = random_bytes(5 * 6 * 2, rng);
      std::string kernel;
      const auto got = run_op(r.graph, 0, xb, &kernel);
      CHECK(kernel == (average ? "average_pool_2d int8 folded pad" : "max_pool_2d int8 folded pad"));
      // Naive: materialise the padded image, then TFLite's pool over it (every cell counted).
      const auto yd = n.dims(y);
      for (int64_t oy = 0; oy < yd[1]; ++oy)
        for (int64_t ox = 0; ox < yd[2]; ++ox)
          for (int64_t c = 0; c < 2; ++c) {
            int acc = average ? 0 : -128, count = 0;
            for (int64_t fy = 0; fy < 3; ++fy)
              for (int64_t fx = 0; fx < 3; ++fx) {
                const int64_t py = oy * 2 + fy, px = ox * 2 + fx, iy = py - 1, ix = px - 2;
                const int v = (iy < 0 || iy >= 5 || ix < 0 || ix >= 6) ? value : static_cast<int8_t>(xb[(iy * 6 + ix) * 2 + c]);
                acc = average ? acc + v : std::max(acc, v);
                ++count;
              }
            if (average) acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
            CHECK(static_cast<int8_t>(got[(oy * yd[2] + ox) * 2 + c]) == acc);
          }
      // And the whole graph: the same bytes as PAD then pool.
      CHECK(evaluate_outputs(r.graph, 7) == evaluate_outputs(g, 7));
    }
  // The pool's own padding (TFLite SAME: skipped, not counted) stays outside the folded border,
  // in int8 and float32.
  for (bool f32 : {false, true})
    for (bool average : {true, false}) {
      CAPTURE(f32);
      CAPTURE(average);
      Net n(301);
      TensorId x = n.activation("x", {1, 6, 5, 3}, f32);
      TensorId p = n.pad("pad", x, 2, 0, 1, 1);
      TensorId y = n.activation_like("pool.out", {1, 5, 3, 3}, p);  // 9x6 padded, 3x3 / 2, own pad 1
      n.op("pool", average ? "average_pool_2d" : "max_pool_2d", {p}, {y},
           {{"kernel_h", 3}, {"kernel_w", 3}, {"stride_h", 2}, {"stride_w", 2}, {"pad_h", 1}, {"pad_w", 1},
            {"pad_bottom", 1}, {"pad_right", 1}});
      Graph g = n.finish(x, {y});
      Rewrite r = apply_transformation(g, parse_transformation("foldpad:pad"), {});
      CHECK(std::string(sim::plan_kernel_name(sim::plan_kernel(r.graph, 0))).find("folded pad") != std::string::npos);
      CHECK(evaluate_outputs(r.graph, 11) == evaluate_outputs(g, 11));
      WhatIfReport w = run_whatif(g, {{"foldpad:pad"}}, {}, {});
      CHECK(w.outputs_check == "bit-exact");
      CHECK(w.after.sim_ok);
      CHECK(w.after.peak_bytes < w.before.peak_bytes);
    }
}

TEST_CASE("folded pad into conv and depthwise: the pads join the explicit padding, outputs unchanged") {
  for (bool f32 : {false, true}) {
    CAPTURE(f32);
    Net n(400);
    TensorId x = n.activation("x", {1, 8, 7, 3}, f32);
    TensorId p = n.pad("pad", x, 0, 1, 1, 2);
    TensorId d = n.depthwise("dw", p, 3, 2, 0);
    TensorId q = n.pad("pad2", d, 2, 1, 1, 0);
    TensorId y = n.conv("conv", q, 4, 3, 1, 0, 1);
    Graph g = n.finish(x, {y});
    Rewrite r1 = apply_transformation(g, parse_transformation("foldpad:pad"), {});
    Rewrite r2 = apply_transformation(r1.graph, parse_transformation("foldpad:pad2"), {});
    const Op& dw = r2.graph.ops[*r2.graph.find_op("dw")];
    CHECK(dw.attrs.at("pad_h") == 0);
    CHECK(dw.attrs.at("pad_w") == 1);
    CHECK(dw.attrs.at("pad_bottom") == 1);
    CHECK(dw.attrs.at("pad_right") == 2);
    CHECK(r2.graph.ops.size() == 2);
    CHECK(evaluate_outputs(r2.graph, 3) == evaluate_outputs(g, 3));
    WhatIfReport w = run_whatif(g, {{"foldpad:pad"}, {"foldpad:pad2"}, {"inplace:dw"}}, {}, {});
    CHECK(w.outputs_check == "bit-exact");
    check_every_step_safe(w);
    CHECK(w.after.peak_bytes < w.before.peak_bytes);
    // Cycle model: the PAD's copy disappears; the in-place kernel stages every output byte
    // through its temporary (one more store and load per byte), its MACs unchanged.
    CHECK(w.steps[0].after.cycles < w.before.cycles);
    CHECK(w.steps[2].after.macs == w.steps[1].after.macs);
    CHECK(w.steps[2].after.cycles > w.steps[1].after.cycles);
  }
}

TEST_CASE("fuzz: random legal rewrite sequences over MobileNet-style int8 graphs stay bit-exact and verified") {
  int folded = 0, dw_in_place = 0, pw_in_place = 0;
  for (uint64_t seed = 1; seed <= 14; ++seed) {
    CAPTURE(seed);
    const Graph original = mobilenet_style(seed, seed % 7 == 0);
    for (OpId o = 0; o < static_cast<OpId>(original.ops.size()); ++o)  // real kernels, no byte-level stand-ins
      REQUIRE_MESSAGE(!sim::plan_kernel(original, o).stand_in, original.ops[o].name);
    std::mt19937 rng(static_cast<uint32_t>(seed * 977));
    Graph g = original;
    const std::vector<WhatIfSpec> applied = test::apply_random_legal(g, 8, rng, [](const Graph& h) {
      std::vector<std::string> candidates = foldpad_candidates(h);
      for (const Op& op : h.ops)
        if (op.kind == "depthwise_conv_2d" || op.kind == "conv_2d") candidates.push_back("inplace:" + op.name);
      return candidates;
    });
    REQUIRE(!applied.empty());
    for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o)
      REQUIRE_MESSAGE(!sim::plan_kernel(g, o).stand_in, g.ops[o].name);
    for (const WhatIfSpec& s : applied) {
      if (s.spec.rfind("foldpad:", 0) == 0) ++folded;
      else if (s.spec.find(":dw") != std::string::npos) ++dw_in_place;
      else ++pw_in_place;
    }
    WhatIfOptions options;
    options.measure_alone = false;
    options.plan_time_limit_seconds = 0.2;
    WhatIfReport r = run_whatif(original, applied, options, {});
    CHECK(r.outputs_check == "bit-exact");
    check_every_step_safe(r);
  }
  // The fuzz exercised every rewrite.
  CHECK(folded >= 10);
  CHECK(dw_in_place >= 5);
  CHECK(pw_in_place >= 5);
}

TEST_CASE("export names the kernels a rewritten graph needs that stock TFLM lacks, in the header and the report") {
  Net n(500);
  TensorId x = n.activation("x", {1, 8, 8, 4});
  // TF's stride-2 padding (bottom/right only): folded, it is exactly TFLite's SAME, a stock kernel.
  TensorId a = n.pad("pad_same", x, 0, 0, 1, 1);
  TensorId b = n.depthwise("dw_same", a, 3, 2, 0);
  // Symmetric padding before a stride-2 window is not SAME: an explicit-padding kernel.
  TensorId c = n.pad("pad_sym", b, 1, 1, 1, 1);
  TensorId d = n.depthwise("dw_sym", c, 3, 2, 0);
  TensorId e = n.conv("pw", d, 3, 1, 1, 0);
  TensorId f = n.pad("pad_pool", e, 1, 1, 1, 1);
  TensorId y = n.pool("pool", f, true, 3, 1);
  Graph g = n.finish(x, {y});
  CHECK(custom_kernels_needed(g).empty());
  WhatIfReport r = run_whatif(
      g, {{"foldpad:pad_same"}, {"foldpad:pad_sym"}, {"foldpad:pad_pool"}, {"inplace:pw"}}, {}, {});
  REQUIRE(r.outputs_check == "bit-exact");
  const std::vector<CustomKernel> custom = custom_kernels_needed(r.result);
  REQUIRE(custom.size() == 3);
  CHECK(custom[0].op == "dw_sym");
  CHECK(custom[0].kernel == "depthwise_conv_2d_explicit_padding");
  CHECK(custom[0].why.find("1/1/1/1 (top/left/bottom/right)") != std::string::npos);
  CHECK(custom[1].op == "pw");
  CHECK(custom[1].kernel == "conv_2d_in_place");
  CHECK(custom[1].why.find("3-byte temporary (one pixel") != std::string::npos);
  CHECK(custom[2].op == "pool");
  CHECK(custom[2].kernel == "average_pool_2d_folded_pad");
  CHECK(custom[2].why.find("counts it in the divisor") != std::string::npos);

  auto header_and_report = [](const Graph& graph) {
    const LiveAnalysis live = analyze_lifetimes(graph, graph.file_order());
    const LayoutProblem problem = layout_problem(graph, live);
    const ArenaPlan plan = plan_arena(problem, {.planner = "best"});
    const PlanView view{graph, live, problem, plan};
    return std::make_pair(c_header(view, {}), plan_report_json(view, {}));
  };
  const auto [header, report] = header_and_report(r.result);
  CHECK(header.find("#define ARENAPLAN_CUSTOM_KERNELS 3") != std::string::npos);
  CHECK(header.find("//   op dw_sym: depthwise_conv_2d_explicit_padding (") != std::string::npos);
  CHECK(header.find("//   op pw: conv_2d_in_place (") != std::string::npos);
  REQUIRE(report["custom_kernels"].size() == 3);
  CHECK(report["custom_kernels"][1]["kernel"] == "conv_2d_in_place");
  // An unrewritten graph's header says it needs none.
  CHECK(header_and_report(g).first.find("#define ARENAPLAN_CUSTOM_KERNELS 0") != std::string::npos);
}

}  // namespace arenaplan
