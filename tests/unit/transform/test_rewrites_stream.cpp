// Channel-streamed pointwise -> depthwise (stream:PW,DW) and quantization moved to the caller
// (callerquant:OP): legality refusals named, the streamed kernel against the two ordinary kernels
// (bit for bit) and against TFLite's real-valued definition, MAC counts against the naive sum,
// random rewrite sequences over generated inverted-residual int8 networks, and the automatic
// search reaching TinyEngine's published 59 kB on a graph with MCUNet-VWW's first-stage shapes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/sim/sim.h"
#include "core/tflite/exports.h"
#include "core/transform/detail/transform_auto_internal.h"
#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"
#include "core/transform/whatif.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/rewrite_test_support.h"

namespace arenaplan {
namespace {

using test::inverted_residual_style;
using test::Net;
using test::quant;
using test::random_bytes;
using test::random_floats;
using test::refusal;
using test::run_op;
using test::vww_first_stage;

Graph applied_to(const Graph& g, const std::string& spec) { return apply_transformation(g, parse_transformation(spec), {}).graph; }

// MACs of a graph from its shapes alone, by TFLite's definition of each op, independent of the
// simulator's kernel plans: conv OH*OW*OC*KH*KW*IC/groups, depthwise OH*OW*OC*KH*KW, dense IN*OUT.
// The graphs here are built from the ops below, so the rewritten ops are counted as their parts.
int64_t naive_macs(const Graph& g) {
  auto dims = [&](TensorId t) {
    std::vector<int64_t> d;
    for (const ShapeDim& s : g.tensors[t].shape) d.push_back(s.value);
    return d;
  };
  int64_t macs = 0;
  for (const Op& op : g.ops) {
    if (op.kind == "conv_2d") {
      const auto y = dims(op.outputs[0]), w = dims(op.inputs[1]);
      macs += y[0] * y[1] * y[2] * y[3] * w[1] * w[2] * w[3];
    } else if (op.kind == "depthwise_conv_2d") {
      const auto y = dims(op.outputs[0]), w = dims(op.inputs[1]);
      macs += y[0] * y[1] * y[2] * y[3] * w[1] * w[2];
    }
  }
  return macs;
}

}  // namespace

TEST_CASE("stream: every refusal names the op and the reason") {
  Net n(3);
  TensorId x = n.activation("x", {1, 6, 6, 4});
  TensorId a = n.conv("pw_a", x, 8, 1, 1, 0, 3);
  TensorId b = n.pad("pad_b", a, 1, 1, 1, 1);
  TensorId c = n.depthwise("dw_b", b, 3, 1, 0);
  TensorId d = n.conv("k3", c, 4, 3, 1, 1);  // a 3x3 conv
  TensorId e = n.depthwise("dw_e", d, 3, 1, 1);
  TensorId f = n.conv("pw_f", e, 6, 1, 1, 0);
  TensorId h = n.depthwise("dw_mult", f, 3, 1, 1, 2);  // multiplier 2
  TensorId i = n.conv("pw_i", h, 4, 1, 1, 0);
  TensorId j = n.depthwise("dw_j", i, 3, 1, 1);
  TensorId k = n.conv("pw_k", j, 4, 1, 1, 1);  // padded 1x1
  TensorId l = n.depthwise("dw_l", k, 3, 1, 0);
  TensorId m = n.conv("pw_m", l, 4, 1, 1, 0, 4);  // fused tanh
  TensorId o = n.depthwise("dw_o", m, 3, 1, 1);
  TensorId p = n.conv("pw_p", o, 4, 1, 1, 0);
  TensorId q = n.depthwise("dw_q", p, 3, 1, 1);
  Graph g = n.finish(x, {q, i});  // pw_i's output is a graph output

  auto says = [&](const Graph& graph, const std::string& spec, const std::string& text) {
    const std::string why = refusal(graph, spec);
    CAPTURE(why);
    CHECK(why.rfind(spec + ": refused: ", 0) == 0);
    CHECK(why.find(text) != std::string::npos);
  };
  says(g, "stream:dw_b,dw_e", "op dw_b (kind \"depthwise_conv_2d\") is not a conv (the pointwise expansion)");
  says(g, "stream:pw_a,pw_f", "op pw_f (kind \"conv_2d\") is not a depthwise conv");
  says(g, "stream:k3,dw_e", "op k3 is not a pointwise conv (1x1 window over all input channels, no groups)");
  says(g, "stream:pw_a,dw_b", "intermediate pw_a.out is read by PAD pad_b, not by dw_b; fold the pad into dw_b first "
                              "(foldpad:pad_b)");
  says(g, "stream:pw_f,dw_mult", "op dw_mult has depth multiplier 2; streaming computes output channel c from plane c");
  says(g, "stream:pw_i,dw_j", "intermediate pw_i.out is a graph output");
  says(g, "stream:pw_k,dw_l", "op pw_k is padded");
  says(g, "stream:pw_m,dw_o", "op pw_m has fused activation 4; the streamed kernel honours none, relu");
  says(g, "stream:pw_p,dw_b", "intermediate pw_p.out is also read by op dw_q, so it cannot vanish");
  says(g, "stream:nope,dw_b", "no op named \"nope\"");
  // Another reader of the intermediate.
  {
    Net n2(4);
    TensorId x2 = n2.activation("x", {1, 5, 5, 3});
    TensorId e2 = n2.conv("pw", x2, 6, 1, 1, 0);
    TensorId d2 = n2.depthwise("dw", e2, 3, 1, 1);
    TensorId r2 = n2.tensor("r", n2.dims(e2), DType::kInt8, quant(0.05f, 0));
    n2.op("relu", "relu", {e2}, {r2});
    Graph g2 = n2.finish(x2, {d2, r2});
    says(g2, "stream:pw,dw", "intermediate pw.out is also read by op relu, so it cannot vanish");
  }
  {
    Net n3(5);
    TensorId x3 = n3.activation("x", {1, 5, 5, 3});
    TensorId d3 = n3.depthwise("dw", n3.conv("pw", x3, 6, 1, 1, 0), 3, 1, 1);
    TensorId z3 = n3.depthwise("dw2", n3.conv("pw2", d3, 6, 1, 1, 0), 3, 1, 1);
    Graph g3 = n3.finish(x3, {z3});
    says(applied_to(g3, "inplace:dw"), "stream:pw,dw", "op dw runs in place; stream first");
    // A streamed op is not a conv to stream again.
    Graph s3 = applied_to(g3, "stream:pw,dw");
    CHECK(refusal(s3, "stream:pw2,dw2").empty());
    Graph twice = applied_to(s3, "stream:pw2,dw2");
    CHECK(twice.ops.size() == 2);
    says(s3, "stream:pw+dw,dw2", "op pw+dw is already fused or streamed");
    // Hand-written tensors (no quantization): the simplified kernels, which have no streamed twin.
    Graph hand = g3;
    for (Tensor& t : hand.tensors)
      if (!t.constant) t.quant.reset();
    says(hand, "stream:pw,dw", "op pw's tensor x is not an NHWC int8 tensor with per-tensor quantization nor float32");
  }
  {
    // Weights computed at run time (not constant) cannot be streamed from flash.
    Net n4(6);
    TensorId x4 = n4.activation("x", {1, 4, 4, 3});
    TensorId w4 = n4.tensor("w_live", {6, 1, 1, 3}, DType::kInt8, quant(0.01f, 0));
    TensorId e4 = n4.activation("e", {1, 4, 4, 6});
    n4.op("pw", "conv_2d", {x4, w4}, {e4});
    TensorId d4 = n4.depthwise("dw", e4, 3, 1, 1);
    Graph g4 = n4.g;  // w_live is a second graph input
    g4.inputs = {x4, w4};
    g4.outputs = {d4};
    link_tensors(g4);
    validate_graph(g4);
    says(g4, "stream:pw,dw", "op pw's weights w_live are not constant");
  }
}

TEST_CASE("streamed kernel: equal to the conv then the depthwise bit for bit, and to TFLite's real arithmetic") {
  std::mt19937 rng(31);
  for (int64_t stride : {1, 2})
    for (int64_t pad : {0, 1})
      for (bool f32 : {false, true}) {
        CAPTURE(stride);
        CAPTURE(pad);
        CAPTURE(f32);
        Net n(300 + stride * 10 + pad + (f32 ? 5 : 0));
        const int64_t H = 7, W = 6, C = 3, E = 5;
        TensorId x = n.activation("x", {1, H, W, C}, f32);
        TensorId mid = n.conv("pw", x, E, 1, 1, 0, f32 ? 0 : 3);  // relu6 on the expansion
        TensorId y = n.depthwise("dw", mid, 3, stride, pad, 1, pad ? 3 : 0);
        Graph g = n.finish(x, {y});
        Rewrite rw = apply_transformation(g, parse_transformation("stream:pw,dw"), {});
        const Graph& s = rw.graph;
        REQUIRE(s.ops.size() == 1);
        CHECK(s.ops[0].name == "pw+dw");
        CHECK(!s.find_tensor("pw.out"));  // the expanded tensor is gone
        const int64_t plane = (H + 2 * pad) * (W + 2 * pad) * (f32 ? 4 : 1);
        CHECK(s.ops[0].scratch_bytes == plane);  // one plane, with the depthwise's border
        CHECK(rw.figures.at("vanished_bytes") == H * W * E * (f32 ? 4 : 1));

        const auto xb = f32 ? random_floats(H * W * C, rng) : random_bytes(H * W * C, rng);
        const auto mid_bytes = run_op(g, 0, xb);
        const auto want = run_op(g, 1, mid_bytes);
        std::string kernel;
        const auto got = run_op(s, 0, xb, &kernel);
        CHECK(kernel == (f32 ? "pointwise_depthwise_stream float32" : "pointwise_depthwise_stream int8"));
        CHECK(got == want);
        // The work: exactly the two convs' MACs; the cycle model also charges the plane's traffic
        // (every expanded element stored and loaded once) and the input walked once per channel.
        const sim::KernelWork work = sim::plan_kernel(s, 0).work;
        CHECK(work.macs == sim::plan_kernel(g, 0).work.macs + sim::plan_kernel(g, 1).work.macs);
        const int width = f32 ? 4 : 1;
        CHECK(work.temp_bytes == H * W * E * width);
        CHECK(work.reread_bytes == (E - 1) * H * W * C * width);
        sim::OpWork once, twice;
        once.macs = twice.macs = work.macs;
        twice.reread_bytes = work.reread_bytes;
        const sim::McuProfile& m4 = sim::find_mcu_profile("cortex-m4");
        CHECK(sim::op_cycles(m4, twice) - sim::op_cycles(m4, once) ==
              static_cast<int64_t>(std::ceil(m4.sram_load_cycles_per_byte * double(work.reread_bytes))));
        if (f32) continue;
        // Naive, from TFLite's definition in real numbers: the expansion (relu6) requantized to
        // int8, then the depthwise over those int8 values with the zero point outside the image.
        const Tensor &X = g.tensors[x], &M = g.tensors[mid], &Y = g.tensors[y];
        const Tensor &W1 = g.tensors[g.ops[0].inputs[1]], &B1 = g.tensors[g.ops[0].inputs[2]];
        const Tensor &W2 = g.tensors[g.ops[1].inputs[1]], &B2 = g.tensors[g.ops[1].inputs[2]];
        const auto* w1 = reinterpret_cast<const int8_t*>(W1.data->data());
        const auto* b1 = reinterpret_cast<const int32_t*>(B1.data->data());
        const auto* w2 = reinterpret_cast<const int8_t*>(W2.data->data());
        const auto* b2 = reinterpret_cast<const int32_t*>(B2.data->data());
        const double sx = X.quant->scale[0], sm = M.quant->scale[0], sy = Y.quant->scale[0];
        const int64_t zx = X.quant->zero_point[0], zm = M.quant->zero_point[0], zy = Y.quant->zero_point[0];
        int worst_mid = 0, worst = 0;
        for (int64_t p = 0; p < H * W; ++p)
          for (int64_t e = 0; e < E; ++e) {
            double acc = b1[e] * sx * W1.quant->scale[e];
            for (int64_t i = 0; i < C; ++i)
              acc += (static_cast<int8_t>(xb[p * C + i]) - zx) * double(w1[e * C + i]) * sx * W1.quant->scale[e];
            const double q = std::clamp<double>(std::round(std::clamp(acc, 0.0, 6.0) / sm) + zm, -128, 127);
            worst_mid = std::max(worst_mid, std::abs(int(static_cast<int8_t>(mid_bytes[p * E + e])) - int(q)));
          }
        const auto yd = n.dims(y);
        for (int64_t oy = 0; oy < yd[1]; ++oy)
          for (int64_t ox = 0; ox < yd[2]; ++ox)
            for (int64_t e = 0; e < E; ++e) {
              double acc = b2[e] * sm * W2.quant->scale[e];
              for (int64_t fy = 0; fy < 3; ++fy)
                for (int64_t fx = 0; fx < 3; ++fx) {
                  const int64_t iy = oy * stride - pad + fy, ix = ox * stride - pad + fx;
                  if (iy < 0 || ix < 0 || iy >= H || ix >= W) continue;
                  acc += (static_cast<int8_t>(mid_bytes[(iy * W + ix) * E + e]) - zm) * double(w2[(fy * 3 + fx) * E + e]) *
                         sm * W2.quant->scale[e];
                }
              if (pad) acc = std::clamp(acc, 0.0, 6.0);
              const double q = std::clamp<double>(std::round(acc / sy) + zy, -128, 127);
              worst = std::max(worst, std::abs(int(static_cast<int8_t>(got[(oy * yd[2] + ox) * E + e])) - int(q)));
            }
        CHECK(worst_mid <= 1);
        CHECK(worst <= 1);
      }
}

TEST_CASE("stream after foldpad: the PAD's border travels with the depthwise, outputs bit-exact, plans verified") {
  for (bool asymmetric : {false, true}) {
    CAPTURE(asymmetric);
    Net n(40 + asymmetric);
    TensorId x = n.activation("x", {1, 10, 10, 4});
    TensorId e = n.conv("expand", x, 12, 1, 1, 0, 3);
    TensorId p = n.pad("pad", e, asymmetric ? 0 : 1, asymmetric ? 0 : 1, 1, 1);
    TensorId d = n.depthwise("dw", p, 3, 2, 0, 1, 3);
    TensorId y = n.conv("project", d, 4, 1, 1, 0);
    Graph g = n.finish(x, {y});
    WhatIfOptions o;
    o.measure_alone = false;
    WhatIfReport r = run_whatif(g, {{"foldpad:pad"}, {"stream:expand,dw"}}, o, {});
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[1].applied);
    CHECK(r.outputs_check == "bit-exact");
    CHECK(r.after.verified);
    CHECK(r.after.sim_ok);
    const Op& s = r.result.ops[*r.result.find_op("expand+dw")];
    const int64_t plane = asymmetric ? 11 * 11 : 12 * 12;  // 10x10 plus the folded border
    CHECK(s.scratch_bytes == plane);
    // Input 400 B + output 5x5x12 = 300 B + the plane; the 1200 B expansion never exists.
    CHECK(r.after.peak_bytes < r.before.peak_bytes);
    CHECK(r.steps[1].after.peak_bytes <= 400 + 300 + plane + 3 * 16);
    CHECK(r.steps[1].summary.find("expand.out (1200 B) is never stored") != std::string::npos);
    // The export names the kernel stock TFLM lacks (the folded border travels inside it).
    const std::vector<CustomKernel> custom = custom_kernels_needed(r.result);
    REQUIRE(custom.size() == 1);
    CHECK(custom[0].op == "expand+dw");
    CHECK(custom[0].kernel == "pointwise_depthwise_stream");
    CHECK(custom[0].why.find(std::to_string(plane) + "-byte plane") != std::string::npos);
  }
}

TEST_CASE("callerquant: the entry QUANTIZE and exit DEQUANTIZE move to the caller, the check feeds quantize(input)") {
  Net n(50);
  TensorId x = n.tensor("image", {1, 12, 12, 3}, DType::kFloat32);
  TensorId q = n.quantize("quant", x);
  TensorId c = n.conv("conv", q, 4, 3, 1, 1, 3);
  TensorId y = n.dequantize("dequant", c);
  Graph g = n.finish(x, {y});
  const Tensor Q = g.tensors[q];

  WhatIfOptions o;
  o.measure_alone = false;
  WhatIfReport r = run_whatif(g, {{"callerquant:quant"}, {"callerquant:dequant"}}, o, {});
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].applied);
  CHECK(r.steps[1].applied);
  CHECK(r.outputs_check == "bit-exact");
  CHECK(r.outputs_note.find("inputs quant.out fed the original graph's values") != std::string::npos);
  CHECK(r.after.verified);
  CHECK(r.after.sim_ok);
  // Before, the peak is the DEQUANTIZE: int8 576 B + float 2304 B; the entry QUANTIZE holds the
  // float input 1728 B + 432 B. After: the int8 input 432 B + the int8 output 576 B.
  CHECK(r.before.peak_bytes == 576 + 2304);
  CHECK(r.steps[0].after.peak_bytes == 576 + 2304);
  CHECK(r.after.peak_bytes == 432 + 576);
  REQUIRE(r.result.inputs.size() == 1);
  CHECK(r.result.tensors[r.result.inputs[0]].name == "quant.out");
  CHECK(r.result.tensors[r.result.outputs[0]].name == "conv.out");
  // The interface change, with the numbers the firmware needs.
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.9g", static_cast<double>(Q.quant->scale[0]));
  const std::string& feed = r.steps[0].interface_change;
  CAPTURE(feed);
  CHECK(feed.find("must feed quant.out (int8 [1,12,12,3]) quantized with scale " + std::string(scale) +
                  ", zero point " + std::to_string(Q.quant->zero_point[0])) != std::string::npos);
  CHECK(r.steps[1].interface_change.find("reads conv.out (int8 [1,12,12,4]) and must dequantize it") !=
        std::string::npos);

  // The comparison is real: a rewritten graph computing something else differs.
  Graph wrong = r.result;
  const OpId conv = *wrong.find_op("conv");
  wrong.ops[conv].attrs["activation"] = 0;  // drops the relu6
  CHECK(!outputs_match(g, wrong, 1));
  CHECK(outputs_match(g, r.result, 1));

  // Refusals.
  CHECK(refusal(g, "callerquant:conv").find("op conv (kind \"conv_2d\") is not a QUANTIZE or DEQUANTIZE") !=
        std::string::npos);
  Graph mid_q = g;
  {
    Net m(51);
    TensorId a = m.activation("a", {1, 4, 4, 2});
    TensorId f = m.dequantize("deq", a);
    TensorId b = m.quantize("requant", f);
    TensorId out = m.conv("c", b, 2, 1, 1, 0);
    TensorId extra = m.dequantize("deq_out", out);
    TensorId side = m.tensor("side", m.dims(out), DType::kInt8, quant(0.05f, 0));
    m.op("relu", "relu", {out}, {side});
    mid_q = m.finish(a, {extra, side, f});
  }
  CHECK(refusal(mid_q, "callerquant:requant").find("quantizes deq.out, which is not a graph input") != std::string::npos);
  CHECK(refusal(mid_q, "callerquant:deq").find("op deq's output deq.out is not a graph output read by no op") !=
        std::string::npos);
  // An int8 input's requantization is not the float entry; an in-place QUANTIZE stays.
  {
    Net m(53);
    TensorId a = m.activation("a", {1, 4, 4, 2});
    TensorId b = m.quantize("requant", a);
    Graph int8_in = m.finish(a, {m.conv("c", b, 2, 1, 1, 0)});
    CHECK(refusal(int8_in, "callerquant:requant").find("op requant's input a is not float32") != std::string::npos);
    CHECK(refusal(applied_to(g, "inplace:quant"), "callerquant:quant").find("op quant runs in place") !=
          std::string::npos);
  }
  {
    Net m(52);
    TensorId a = m.tensor("a", {1, 4, 4, 2}, DType::kFloat32);
    TensorId b = m.quantize("q", a);
    TensorId r2 = m.tensor("r", {1, 4, 4, 2}, DType::kFloat32);
    m.op("relu", "relu", {a}, {r2});
    Graph two = m.finish(a, {b, r2});
    CHECK(refusal(two, "callerquant:q").find("graph input a is also read by other ops") != std::string::npos);
  }
}

TEST_CASE("in-place QUANTIZE: the int8 copy is written over the float input it narrows, bit-exact") {
  // float32 -> int8 writes element i at byte i after reading bytes 4i..4i+3: never a byte not yet
  // read, so the elementwise in-place kind covers it (and refuses the widening DEQUANTIZE).
  Net n(70);
  TensorId x = n.tensor("image", {1, 10, 10, 3}, DType::kFloat32);
  TensorId q = n.quantize("quant", x);
  TensorId c = n.conv("conv", q, 2, 1, 1, 0);
  TensorId y = n.dequantize("dequant", c);
  Graph g = n.finish(x, {y});
  WhatIfOptions o;
  o.measure_alone = false;
  WhatIfReport r = run_whatif(g, {{"inplace:quant"}}, o, {});
  REQUIRE(r.steps[0].applied);
  CHECK(r.outputs_check == "bit-exact");
  CHECK(r.after.sim_ok);
  CHECK(r.steps[0].after.verified);
  CHECK(r.after.peak_bytes < r.before.peak_bytes);  // 1200 B float + 300 B int8 no longer coexist
  CHECK(refusal(g, "inplace:dequant").find("does not fit in input conv.out") != std::string::npos);
}

TEST_CASE("MAC counts of rewritten graphs equal the naive sum of their convs (no rewrite here adds work)") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    Graph g = inverted_residual_style(seed);
    const int64_t want = naive_macs(g);
    REQUIRE(want > 0);
    CHECK(count_macs(g) == want);
    // Every stream, fold and in-place that applies: the work stays the convs' MACs.
    Graph r = g;
    for (const std::string& spec : foldpad_candidates(r)) r = applied_to(r, spec);
    for (const std::string& spec : stream_candidates(r)) {
      try {
        r = applied_to(r, spec);
      } catch (const InputError&) {
      }
    }
    for (const std::string& spec : callerquant_candidates(r)) r = applied_to(r, spec);
    bool streamed = false;
    for (const Op& op : r.ops) streamed = streamed || op.kind == "pointwise_depthwise_stream";
    CHECK(streamed);
    CHECK(count_macs(r) == want);
    WhatIfOptions o;
    o.measure_alone = false;
    const PlanFigures f = measure_graph(r, o);
    CHECK(f.simulated);
    CHECK(f.macs == want);  // the simulator's own count, op by op
  }
}

TEST_CASE("MAC counts of fused ops on float model graphs: the parts' MACs, as the naive sum") {
  Net n(60);
  TensorId x = n.activation("x", {1, 9, 9, 3}, true);
  TensorId c = n.conv("conv", x, 6, 3, 1, 1);
  TensorId r = n.tensor("relu.out", n.dims(c), DType::kFloat32);
  n.op("relu", "relu", {c}, {r});
  TensorId e = n.conv("expand", r, 12, 1, 1, 0);
  TensorId d = n.depthwise("dw", e, 3, 2, 1);
  TensorId s = n.tensor("sum", n.dims(d), DType::kFloat32);
  TensorId other = n.conv("side", n.conv("side0", x, 12, 3, 2, 1), 12, 1, 1, 0);
  n.op("add", "add", {d, other}, {s});
  Graph g = n.finish(x, {s});
  const int64_t want = naive_macs(g);
  Graph fused = applied_to(applied_to(applied_to(g, "fuse:conv,relu"), "stream:expand,dw"), "fuse:side,add");
  CHECK(fused.ops.size() == 4);
  CHECK(count_macs(fused) == want);
  WhatIfOptions o;
  o.measure_alone = false;
  const PlanFigures f = measure_graph(fused, o);
  CHECK(f.simulated);
  CHECK(f.macs == want);
  CHECK(outputs_match(g, fused, 1));
}

TEST_CASE("fuzz: random legal sequences with stream and callerquant over inverted-residual int8 graphs stay bit-exact") {
  int streamed = 0, moved = 0, folded = 0, in_place = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    const Graph original = inverted_residual_style(seed);
    for (OpId o = 0; o < static_cast<OpId>(original.ops.size()); ++o)
      REQUIRE_MESSAGE(!sim::plan_kernel(original, o).stand_in, original.ops[o].name);
    std::mt19937 rng(static_cast<uint32_t>(seed * 131));
    Graph g = original;
    const std::vector<WhatIfSpec> applied = test::apply_random_legal(g, 10, rng, [](const Graph& h) {
      std::vector<std::string> candidates = foldpad_candidates(h);
      for (auto* list : {stream_candidates, callerquant_candidates, inplace_candidates}) {
        const auto more = list(h);
        candidates.insert(candidates.end(), more.begin(), more.end());
      }
      return candidates;
    });
    REQUIRE(!applied.empty());
    for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o)
      REQUIRE_MESSAGE(!sim::plan_kernel(g, o).stand_in, g.ops[o].name);
    for (const WhatIfSpec& s : applied) {
      streamed += s.spec.rfind("stream:", 0) == 0;
      moved += s.spec.rfind("callerquant:", 0) == 0;
      folded += s.spec.rfind("foldpad:", 0) == 0;
      in_place += s.spec.rfind("inplace:", 0) == 0;
    }
    WhatIfOptions options;
    options.measure_alone = false;
    options.plan_time_limit_seconds = 0.2;
    WhatIfReport r = run_whatif(original, applied, options, {});
    CHECK(r.outputs_check == "bit-exact");
    test::check_every_step_safe(r);
  }
  CHECK(streamed >= 8);
  CHECK(moved >= 8);
  CHECK(folded >= 3);
  CHECK(in_place >= 5);
}

// Whether the search applied `spec`; the applied entry, or nullptr.
const AutoApplied* applied(const AutoRewriteResult& r, const std::string& spec) {
  for (const AutoApplied& a : r.applied)
    if (a.spec == spec) return &a;
  return nullptr;
}

TEST_CASE("auto on MCUNet-VWW's first-stage shapes reaches TinyEngine's published 59 kB, bit-exact and verified") {
  const Graph g = vww_first_stage();
  AutoRewriteOptions o;
  o.max_evaluations = 3000;  // counted, not timed: the result does not depend on the machine's load
  o.time_limit_seconds = 300;
  AutoRewriteResult r = auto_rewrite(g, o);
  CAPTURE(auto_rewrite_text(r));
  // TFLM's plan of this stage peaks at the PAD before the stride-2 depthwise: the 76,800 B
  // expansion and its 84,672 B padded copy.
  CHECK(r.report.before.peak_bytes == 76800 + 84672);
  CHECK(r.report.after.peak_bytes <= 59000);
  CHECK(r.report.outputs_check == "bit-exact");
  CHECK(r.report.after.verified);
  CHECK(r.report.after.sim_ok);
  // The float input alone is 76,800 B: below that only with the QUANTIZE moved to the caller.
  const AutoApplied* caller = applied(r, "callerquant:quantize_0");
  REQUIRE(caller != nullptr);
  CHECK(caller->interface_change.find("must feed quantize_0.out (int8 [1,80,80,3]) quantized with scale") !=
        std::string::npos);
  CHECK(r.lower_bound_bytes <= r.report.after.peak_bytes);
}

TEST_CASE("auto with TinyEngine's 59 kB as budget fits it without extra MACs: stream, not patches") {
  const Graph g = vww_first_stage();
  AutoRewriteOptions o;
  o.max_evaluations = 3000;
  o.time_limit_seconds = 300;
  o.budget_bytes = 59000;
  AutoRewriteResult r = auto_rewrite(g, o);
  CAPTURE(auto_rewrite_text(r));
  CHECK(r.budget_met);
  CHECK(r.report.after.peak_bytes <= 59000);
  CHECK(r.report.outputs_check == "bit-exact");
  CHECK(r.report.after.verified);
  // Streaming the expansion into the depthwise fits without recomputing a halo; patches cost MACs.
  CHECK(r.extra_macs == 0);
  CHECK(applied(r, "stream:conv_2d_5,depthwise_conv_2d_7") != nullptr);
}

}  // namespace arenaplan
