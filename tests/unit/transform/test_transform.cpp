// What-if rewrites: each keeps the simulator's outputs bit for bit (quantization: a
// documented tolerance), each refuses illegal cases with the reason.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/layout/layout.h"
#include "core/sim/sim.h"
#include "core/transform/transform.h"
#include "core/transform/whatif.h"
#include "tests/unit/rewrite_test_support.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

std::string graph_text(const std::string& tensors, const std::string& ops, const std::string& inputs,
                       const std::string& outputs) {
  return R"({"format":"arenaplan-graph","version":1,"alignment":16,"tensors":{)" + tensors + R"(},"ops":[)" + ops +
         R"(],"inputs":[)" + inputs + R"(],"outputs":[)" + outputs + "]}";
}

// The simulator's own run of the graph (planned arena, file order): its captured outputs.
std::vector<uint8_t> simulated_outputs(const Graph& g) {
  LiveAnalysis live = analyze_lifetimes(g, topological_order(g));
  sim::ArenaLayout layout = sim::plan_layout(g, live, {.planner = "portfolio"});
  sim::SimOptions options;
  sim::ArenaSimulator s(g, live, layout, options);
  s.run_all();
  REQUIRE(s.violation_count() == 0);
  Bytes out = 0;
  for (TensorId t : g.outputs) out += g.tensors[t].bytes;
  return std::vector<uint8_t>(s.captured(0, 0), s.captured(0, 0) + out);
}

Bytes peak_of(const Graph& g) { return analyze_lifetimes(g, topological_order(g)).peak_bytes; }

// conv (3x3, pad 1) -> batchnorm (no simulator kernel: generic) -> relu -> conv, all int8 shapes.
const std::string kConvChain = graph_text(
    R"("I":{"shape":[8,8,4],"dtype":"int8"},"w1":{"shape":[8,3,3,4],"dtype":"int8","constant":true},
       "b1":{"shape":[8],"dtype":"int32","constant":true},
       "X":{"shape":[8,8,8],"dtype":"int8"},"N":{"shape":[8,8,8],"dtype":"int8"},"Y":{"shape":[8,8,8],"dtype":"int8"},
       "w2":{"shape":[4,1,1,8],"dtype":"int8","constant":true},"O":{"shape":[8,8,4],"dtype":"int8"})",
    R"({"name":"conv","kind":"conv2d","inputs":["I","w1","b1"],"outputs":["X"],"attrs":{"pad":1}},
       {"name":"bn","kind":"batchnorm","inputs":["X"],"outputs":["N"]},
       {"name":"relu","kind":"relu","inputs":["N"],"outputs":["Y"]},
       {"name":"proj","kind":"conv2d","inputs":["Y","w2"],"outputs":["O"]})",
    R"("I")", R"("O")");

}  // namespace

TEST_CASE("evaluate_outputs of an untransformed graph equals the simulator's run, byte for byte") {
  for (const char* name : {"two_branch", "whatif_fusion", "whatif_interact"}) {
    CAPTURE(name);
    Graph g = example_graph(name);
    CHECK(evaluate_outputs(g) == simulated_outputs(g));
  }
  Graph chain = parse_graph_json(kConvChain);
  CHECK(evaluate_outputs(chain) == simulated_outputs(chain));
}

TEST_CASE("fuse conv+batchnorm+relu: X and N vanish, outputs bit-exact, the simulator runs the new plan") {
  Graph g = parse_graph_json(kConvChain);
  Rewrite r = fuse_ops(g, {"conv", "bn", "relu"});
  const Graph& f = r.graph;
  REQUIRE(f.find_op("conv+bn+relu"));
  CHECK(f.ops[*f.find_op("conv+bn+relu")].kind == "conv2d+batchnorm+relu");
  CHECK_FALSE(f.find_tensor("X"));
  CHECK_FALSE(f.find_tensor("N"));
  CHECK(f.ops.size() == 2);
  CHECK(evaluate_outputs(f) == evaluate_outputs(g));
  CHECK(evaluate_outputs(f) == simulated_outputs(g));
  // The fused graph's own plan is safe in the simulator (oracles) and its peak is I + Y, not X + N + ...
  PlanFigures after = measure_graph(f, {});
  CHECK(after.sim_ok);
  CHECK(peak_of(f) < peak_of(g));
  CHECK(r.summary.find("never stored") != std::string::npos);

  // A fused kernel that dropped the relu would not pass: the comparison can fail.
  Graph wrong = f;
  wrong.ops[*wrong.find_op("conv+bn+relu")].kind = "conv2d+batchnorm+relu6";
  CHECK(evaluate_outputs(wrong) != evaluate_outputs(g));
}

TEST_CASE("fusion keeps meaning through JSON: the fused graph written and read back evaluates the same") {
  Graph g = example_graph("whatif_fusion");
  Graph f = fuse_ops(g, {"c2", "r2"}).graph;
  Graph back = parse_graph_json(graph_to_json(f));
  CHECK(evaluate_outputs(back) == evaluate_outputs(g));
}

TEST_CASE("patched and quantized graphs survive a JSON round trip with their meaning") {
  Graph p = example_graph("whatif_patch");
  Graph patched = patch_stage(p, {"c1", "r1", "c2", "pool"}, 3).graph;
  Graph back = parse_graph_json(graph_to_json(patched));
  CHECK(evaluate_outputs(back) == evaluate_outputs(p));
  CHECK(peak_of(back) == peak_of(patched));
  Graph q = quantize_tensor(example_graph("whatif_interact"), "S", DType::kInt8).graph;
  Graph qback = parse_graph_json(graph_to_json(q));
  CHECK(peak_of(qback) == 140 * KiB);
  CHECK(evaluate_outputs(qback) == evaluate_outputs(q));
}

TEST_CASE("illegal fusions are refused with the reason") {
  Graph g = example_graph("whatif_fusion");
  CHECK(refusal(g, "fuse:c1,c2").find("op c2 (kind \"conv2d\") is not elementwise") != std::string::npos);
  CHECK(refusal(g, "fuse:c1,r2").find("op r2 does not read c1's output X1") != std::string::npos);
  CHECK(refusal(g, "fuse:c3,B").find("intermediate A is also read by op D") != std::string::npos);
  // A intermediate read twice cannot vanish.
  Graph two = parse_graph_json(graph_text(R"("I":{"bytes":64},"X":{"bytes":64},"Y":{"bytes":64},"Z":{"bytes":64})",
                                          R"({"name":"a","kind":"conv2d","inputs":["I"],"outputs":["X"]},
                                             {"name":"r","kind":"relu","inputs":["X"],"outputs":["Y"]},
                                             {"name":"q","kind":"add","inputs":["X","Y"],"outputs":["Z"]})",
                                          R"("I")", R"("Z")"));
  CHECK(refusal(two, "fuse:a,r") == "fuse:a,r: refused: intermediate X is also read by op q, so it cannot disappear");
  // r -> q is legal: q's other input X comes from a, not from r; Y enters q as its second input.
  Graph rq = fuse_ops(two, {"r", "q"}).graph;
  CHECK(rq.ops[*rq.find_op("r+q")].attrs.at("1.slot") == 1);
  CHECK(evaluate_outputs(rq) == evaluate_outputs(two));
  CHECK(refusal(two, "fuse:a,nosuch") == "fuse:a,nosuch: refused: no op named \"nosuch\"");
}

TEST_CASE("in-place relu over its dying input: one buffer, outputs bit-exact in the simulator itself") {
  Graph g = example_graph("whatif_fusion");
  Rewrite r = make_in_place(g, "r0");
  const Op& r0 = r.graph.ops[*r.graph.find_op("r0")];
  REQUIRE(r0.in_place.size() == 1);
  CHECK(r.graph.tensors[r0.in_place[0].input].name == "I");
  LiveAnalysis before = analyze_lifetimes(g, g.file_order());
  LiveAnalysis after = analyze_lifetimes(r.graph, r.graph.file_order());
  CHECK(before.steps[0].live_bytes == 128 * KiB);
  CHECK(after.steps[0].live_bytes == 64 * KiB);
  // The simulator runs the aliased plan (r0 overwriting I) and must give the original outputs.
  CHECK(simulated_outputs(r.graph) == simulated_outputs(g));
}

TEST_CASE("illegal in-place is refused: input still read later, conv kernels, graph outputs") {
  Graph g = parse_graph_json(graph_text(
      R"("I":{"bytes":64},"y":{"bytes":64},"r":{"bytes":64},"s":{"bytes":64},"o":{"bytes":64})",
      R"({"name":"p","kind":"conv2d","inputs":["I"],"outputs":["y"]},
         {"name":"relu","kind":"relu","inputs":["y"],"outputs":["r"]},
         {"name":"q","kind":"conv2d","inputs":["y"],"outputs":["s"]},
         {"name":"cat","kind":"concat","inputs":["r","s"],"outputs":["o"]})",
      R"("I")", R"("o")"));
  CHECK(refusal(g, "inplace:relu") ==
        "inplace:relu: refused: input y is still read by op q, which runs after relu (step 2 > 1); run q first "
        "(order:...) to make it legal");
  // Once q runs first, the same rewrite is legal.
  Graph reordered = apply_transformation(g, parse_transformation("order:p,q,relu,cat"), {}).graph;
  CHECK(refusal(reordered, "inplace:relu") == "");
  CHECK(refusal(g, "inplace:q").find("is not elementwise") != std::string::npos);
  Graph out = parse_graph_json(graph_text(R"("I":{"bytes":64},"y":{"bytes":64},"r":{"bytes":64})",
                                          R"({"name":"p","kind":"conv2d","inputs":["I"],"outputs":["y"]},
                                             {"name":"relu","kind":"relu","inputs":["y"],"outputs":["r"]})",
                                          R"("I")", R"("y","r")"));
  CHECK(refusal(out, "inplace:relu").find("input y must stay intact") != std::string::npos);
  // A reader that depends on the op itself can never run first.
  Graph dep = parse_graph_json(graph_text(R"("I":{"bytes":64},"y":{"bytes":64},"r":{"bytes":64},"o":{"bytes":64})",
                                          R"({"name":"p","kind":"conv2d","inputs":["I"],"outputs":["y"]},
                                             {"name":"relu","kind":"relu","inputs":["y"],"outputs":["r"]},
                                             {"name":"add","kind":"add","inputs":["y","r"],"outputs":["o"]})",
                                          R"("I")", R"("o")"));
  CHECK(refusal(dep, "inplace:relu").find("which needs relu's result first") != std::string::npos);
}

TEST_CASE("quantize S=int8: 48 KiB float32 kept as 12 KiB int8 between a quantize and a dequantize op") {
  Graph g = example_graph("whatif_interact");
  Rewrite r = quantize_tensor(g, "S", DType::kInt8);
  const Graph& q = r.graph;
  REQUIRE(q.find_tensor("S.q"));
  CHECK(q.tensors[*q.find_tensor("S.q")].bytes == 12 * KiB);
  CHECK(q.tensors[*q.find_tensor("S.dq.o1")].bytes == 48 * KiB);
  REQUIRE(q.find_op("S.quantize"));
  REQUIRE(q.find_op("S.dequantize.o1"));
  // The dequantize op runs just before its consumer, the quantize op just after the producer.
  CHECK(*q.find_op("S.quantize") == *q.find_op("s0") + 1);
  CHECK(*q.find_op("S.dequantize.o1") + 1 == *q.find_op("o1"));
  CHECK(peak_of(q) == 140 * KiB);
  CHECK(changes_values(q));
  CHECK_FALSE(changes_values(g));
  CHECK(measure_graph(q, {}).sim_ok);
}

TEST_CASE("quantization tolerance: dequantize(quantize(x)) is within scale/2 of every x") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
  std::vector<float> x(4096), back(4096);
  for (float& v : x) v = dist(rng);
  x[5] = 6.0f;
  std::vector<int8_t> q(x.size());
  const float scale = quantize_scale(x.data(), static_cast<int64_t>(x.size()));
  CHECK(scale == doctest::Approx(6.0f / 127));
  quantize_values(x.data(), static_cast<int64_t>(x.size()), scale, q.data());
  dequantize_values(q.data(), static_cast<int64_t>(q.size()), scale, back.data());
  float worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(x[i] - back[i]));
  CHECK(worst <= scale / 2 * 1.0001f);
  CHECK(worst > scale / 4);  // the bound is tight, not vacuous
}

TEST_CASE("illegal quantizations are refused with the reason") {
  Graph g = example_graph("whatif_interact");
  CHECK(refusal(g, "quantize:X=int8") ==
        "quantize:X=int8: refused: X gives only a byte size; quantization needs its dtype (give \"dtype\" with its size)");
  CHECK(refusal(g, "quantize:S=float32").find("float32 (4 B) is not narrower than S's float32") != std::string::npos);
  CHECK(refusal(g, "quantize:out=int8").find("graph output") != std::string::npos);
  CHECK(refusal(g, "quantize:S=int9").find("unknown dtype") != std::string::npos);
  Graph f = example_graph("whatif_fusion");
  CHECK(refusal(f, "quantize:w1=int8").find("constant") != std::string::npos);
}

TEST_CASE("recompute T for its late consumer: lower peak, more cycles, outputs bit-exact") {
  // T (16 KiB) is made early and read at the very end; the middle holds 48 + 48 KiB.
  for (bool shaped : {true, false}) {
    CAPTURE(shaped);
    const std::string act = shaped ? R"({"shape":[16,16,64],"dtype":"int8"})" : R"({"bytes":"16KiB"})";
    const std::string big = shaped ? R"({"shape":[16,16,192],"dtype":"int8"})" : R"({"bytes":"48KiB"})";
    const std::string w = [&](const char* oc, const char* ic) {
      return std::string(R"({"shape":[)") + oc + ",1,1," + ic + R"(],"dtype":"int8","constant":true})";
    }("64", "64");
    Graph g = parse_graph_json(graph_text(
        std::string(R"("I":)") + act + R"(,"T":)" + act + R"(,"A":)" + big + R"(,"B":)" + big + R"(,"C":)" + act +
            R"(,"O":)" + act + R"(,"wt":)" + w + R"(,"wa":{"shape":[192,1,1,64],"dtype":"int8","constant":true})" +
            R"(,"wb":{"shape":[192,1,1,192],"dtype":"int8","constant":true})" +
            R"(,"wc":{"shape":[64,1,1,192],"dtype":"int8","constant":true})",
        R"({"name":"t","kind":"conv2d","inputs":["I","wt"],"outputs":["T"]},
           {"name":"a","kind":"conv2d","inputs":["T","wa"],"outputs":["A"]},
           {"name":"b","kind":"conv2d","inputs":["A","wb"],"outputs":["B"]},
           {"name":"c","kind":"conv2d","inputs":["B","wc"],"outputs":["C"]},
           {"name":"o","kind":"add","inputs":["C","T"],"outputs":["O"]})",
        R"("I")", R"("O")"));
    // I must stay until the recomputation: make it caller-owned so the trade is T (16) for nothing.
    g.input_policy = InputPolicy::kCallerOwned;
    Rewrite r = recompute_tensor(g, "T", "o");
    REQUIRE(r.graph.find_op("t@o"));
    CHECK(*r.graph.find_op("t@o") + 1 == *r.graph.find_op("o"));
    CHECK(peak_of(g) == 112 * KiB);        // during b: T + A + B
    CHECK(peak_of(r.graph) == 96 * KiB);   // T no longer lives across a, b, c
    CHECK(evaluate_outputs(r.graph) == evaluate_outputs(g));
    PlanFigures before = measure_graph(g, {}), after = measure_graph(r.graph, {});
    CHECK(after.sim_ok);
    CHECK(after.cycles > before.cycles);  // t's work is done twice
    if (shaped) CHECK(after.macs == before.macs + 16 * 16 * 64 * 64);
  }
}

TEST_CASE("illegal recomputations are refused with the reason") {
  Graph g = example_graph("two_branch");
  CHECK(refusal(g, "recompute:A@B").find("B is A's first consumer") != std::string::npos);
  CHECK(refusal(g, "recompute:B@C").find("B has one consumer") != std::string::npos);
  CHECK(refusal(g, "recompute:I@A").find("not produced by an op") != std::string::npos);
  CHECK(refusal(g, "recompute:A@F").find("op F does not read A") != std::string::npos);
}

TEST_CASE("patch-based stage over 2 row tiles: lower peak, halo MACs as computed by hand, outputs bit-exact") {
  // MCUNetV2's situation: a big early activation (X, 28.1 KiB) feeding a small stage output.
  Graph g = parse_graph_json(graph_text(
      R"("I":{"shape":[32,32,8],"dtype":"int8"},"w1":{"shape":[32,3,3,8],"dtype":"int8","constant":true},
         "X":{"shape":[30,30,32],"dtype":"int8"},"R":{"shape":[30,30,32],"dtype":"int8"},
         "w2":{"shape":[16,3,3,32],"dtype":"int8","constant":true},"Y":{"shape":[28,28,16],"dtype":"int8"},
         "P":{"shape":[14,14,16],"dtype":"int8"},"wf":{"shape":[10,3136],"dtype":"int8","constant":true},
         "O":{"shape":[10],"dtype":"int8"})",
      R"({"name":"c1","kind":"conv2d","inputs":["I","w1"],"outputs":["X"]},
         {"name":"r1","kind":"relu","inputs":["X"],"outputs":["R"]},
         {"name":"c2","kind":"conv2d","inputs":["R","w2"],"outputs":["Y"]},
         {"name":"pool","kind":"max_pool2d","inputs":["Y"],"outputs":["P"]},
         {"name":"fc","kind":"fully_connected","inputs":["P","wf"],"outputs":["O"]})",
      R"("I")", R"("O")"));
  Rewrite r = patch_stage(g, {"c1", "r1", "c2", "pool"}, 2);
  // pool output rows [0,7) and [7,14) need c2 rows [0,14), [14,28), R/X rows [0,16), [14,30), I rows [0,18), [14,32).
  const Graph& p = r.graph;
  REQUIRE(p.find_tensor("I.p0"));
  CHECK(p.tensors[*p.find_tensor("I.p0")].shape[0].value == 18);
  CHECK(p.tensors[*p.find_tensor("X.p1")].shape[0].value == 16);
  CHECK_FALSE(p.find_tensor("X"));
  // c1 computes 32 rows instead of 30: 2 halo rows x 30 columns x 32 channels x 3x3x8.
  CHECK(r.figures.at("halo_macs") == 2 * 30 * 32 * 72);
  CHECK(peak_of(p) < peak_of(g));
  CHECK(evaluate_outputs(p) == evaluate_outputs(g));
  CHECK(evaluate_outputs(p) == simulated_outputs(g));
  PlanFigures after = measure_graph(p, {});
  CHECK(after.sim_ok);

  Rewrite four = patch_stage(g, {"c1", "r1", "c2", "pool"}, 4);
  CHECK(four.figures.at("halo_macs") > r.figures.at("halo_macs"));
  CHECK(peak_of(four.graph) < peak_of(p));
  CHECK(evaluate_outputs(four.graph) == evaluate_outputs(g));
}

TEST_CASE("illegal patches are refused with the reason") {
  Graph g = parse_graph_json(kConvChain);
  CHECK(refusal(g, "patch:conv,bn=2").find("pads rows") != std::string::npos);
  CHECK(refusal(g, "patch:proj=1").find("at least 2 tiles") != std::string::npos);
  Graph b = example_graph("two_branch");
  CHECK(refusal(b, "patch:A,B=2").find("NHWC shape") != std::string::npos);
}

TEST_CASE("shared pool: two models that never run at once need the larger arena, not the sum") {
  Graph kws = example_graph("two_branch");
  Graph det = example_graph("whatif_interact");
  Rewrite r = merge_models({kws, det});
  CHECK(r.graph.find_op("two-branch/A"));
  CHECK(r.graph.find_op("whatif-interact/o1"));
  TransformContext context;
  context.models["det"] = det;
  WhatIfOptions options;
  options.measure_alone = false;
  WhatIfReport w = run_whatif(kws, {{"pool:det"}}, options, context);
  REQUIRE(w.pool);
  CHECK(w.pool->partitioned_bytes == 136 * KiB + 176 * KiB);
  // Time-shared: the detector's 176 KiB peak plus the spotter's 16 KiB output it still holds.
  CHECK(w.pool->time_shared_bytes == 192 * KiB);
  CHECK(w.after.sim_ok);
  CHECK(w.outputs_check == "not compared");
}

TEST_CASE("transformation specs parse, and bad ones say what is expected") {
  Transformation t = parse_transformation("patch:a,b,c=4");
  CHECK(t.kind == "patch");
  CHECK(t.names == std::vector<std::string>{"a", "b", "c"});
  CHECK(t.value == "4");
  CHECK(parse_transformation("recompute:T@C").value == "C");
  CHECK(parse_transformation("inplace:r").value == "");
  CHECK_THROWS_WITH_AS(parse_transformation("squash:x"), doctest::Contains("unknown transformation"), InputError);
  CHECK_THROWS_WITH_AS(parse_transformation("quantize:T"), doctest::Contains("needs a value"), InputError);
  CHECK_THROWS_WITH_AS(parse_transformation("fuse:a"), doctest::Contains("at least two"), InputError);
  CHECK_THROWS_AS(parse_transformation("nothing"), InputError);
}
