// Shape contracts: bounded symbolic dims propagate to upper bounds, plans are validated for ranges,
// an input shape selects the smallest covering plan, out-of-contract shapes are rejected.
#include <doctest/doctest.h>

#include "core/budget/shapes.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

Bytes bytes_of(const Graph& g, const ShapeInstance& s, const std::string& tensor) { return s.bytes[*g.find_tensor(tensor)]; }
std::vector<int64_t> shape_of(const Graph& g, const ShapeInstance& s, const std::string& tensor) {
  return s.shapes[*g.find_tensor(tensor)];
}

std::string graph_text(const std::string& tensors, const std::string& ops, const std::string& dims = R"({"N":{"min":1,"max":8}})") {
  return R"({"format":"arenaplan-graph","version":1,"alignment":16,"dims":)" + dims + R"(,"tensors":{)" + tensors +
         R"(},"ops":[)" + ops + R"(],"inputs":["x"],"outputs":["y"]})";
}

std::string propagation_error(const std::string& json, int64_t n = 8) {
  return input_error_of([&] { propagate_shapes(parse_graph_json(json), {{"N", n}}); });
}

ShapeContract two_range_contract(const Graph& g) {
  return build_contract(g, g.file_order(), {{{"N", {1, 2}}}, {{"N", {3, 8}}}}, {});
}

}  // namespace

TEST_CASE("batch N in [1, 8]: every size is bounded at N = 8") {
  Graph g = example_graph("batch_contract");
  ShapeInstance top = propagate_shapes(g, upper_binding(g));
  CHECK(top.binding == DimBinding{{"N", 8}});
  CHECK(bytes_of(g, top, "x") == 8 * 16 * 16 * 3);
  CHECK(shape_of(g, top, "c1") == std::vector<int64_t>{8, 8, 8, 8});  // 3x3 stride 2 same: ceil(16 / 2)
  CHECK(shape_of(g, top, "c2") == std::vector<int64_t>{8, 8, 8, 8});  // 1x1 stride 2 valid: (16 - 1) / 2 + 1
  CHECK(shape_of(g, top, "p") == std::vector<int64_t>{8, 4, 4, 8});
  CHECK(shape_of(g, top, "cat") == std::vector<int64_t>{8, 4, 4, 16});
  CHECK(shape_of(g, top, "y") == std::vector<int64_t>{8, 10});
  // The graph as loaded is sized for the bound, so every plan made from it is a plan for N = 8.
  for (size_t t = 0; t < g.tensors.size(); ++t) CHECK(g.tensors[t].bytes == top.bytes[t]);
  for (int64_t n = 1; n <= 8; ++n) {
    ShapeInstance s = propagate_shapes(g, {{"N", n}});
    CHECK(bytes_of(g, s, "x") == n * 768);
    for (size_t t = 0; t < g.tensors.size(); ++t) CHECK(s.bytes[t] <= top.bytes[t]);
  }
  // Peak at N = 8: during conv2, x + c1 + c2 coexist.
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  CHECK(a.peak_bytes == (768 + 512 + 512) * 8);
  CHECK(g.ops[a.order[a.peak_step]].name == "conv2");
}

TEST_CASE("N = 9 is rejected naming the dim and its bound; N = 2 is accepted") {
  Graph g = example_graph("batch_contract");
  ShapeContract c = build_contract(g, g.file_order(), default_ranges(g), {});
  ShapeCheck nine = check_input_shapes(c, {{"x", {9, 16, 16, 3}}});
  CHECK_FALSE(nine.accepted);
  CHECK(nine.message == "input x dim 0 (N) is 9, above the contract's bound N <= 8");
  ShapeCheck two = check_input_shapes(c, {{"x", {2, 16, 16, 3}}});
  CHECK(two.accepted);
  CHECK(two.binding == DimBinding{{"N", 2}});
  // Default buckets for N in [1, 8] are [1,1], [2,2], [3,4], [5,8]; the smallest plan covering
  // N = 2 is the [2,2] one (sizes grow with N).
  REQUIRE(two.plan >= 0);
  REQUIRE(two.plan < static_cast<int>(c.plans.size()));
  CHECK(c.plans[two.plan].ranges.at("N").min == 2);
  CHECK(c.plans[two.plan].ranges.at("N").max == 2);
  CHECK(c.plans[two.plan].covers({{"N", 2}}));
  CHECK(bytes_of(g, two.instance, "x") == 2 * 768);
  // Fixed dims and ranks are part of the contract too.
  CHECK(check_input_shapes(c, {{"x", {2, 16, 15, 3}}}).message == "input x dim 2 is 15, the contract fixes it at 16");
  CHECK(check_input_shapes(c, {{"x", {2, 16, 16}}}).message.find("rank 3") != std::string::npos);
  CHECK_THROWS_WITH_AS(check_input_shapes(c, {{"c1", {2, 8, 8, 8}}}), doctest::Contains("has no input named c1"), InputError);
}

TEST_CASE("below the lower bound is rejected too") {
  Graph g = parse_graph_json(graph_text(R"("x":{"shape":["N",4],"dtype":"int8"},"y":{"shape":["N",4],"dtype":"int8"})",
                                        R"({"name":"r","kind":"relu","inputs":["x"],"outputs":["y"]})",
                                        R"({"N":{"min":2,"max":4}})"));
  ShapeContract c = build_contract(g, g.file_order(), default_ranges(g), {});
  CHECK(check_input_shapes(c, {{"x", {1, 4}}}).message == "input x dim 0 (N) is 1, below the contract's bound N >= 2");
  CHECK(check_input_shapes(c, {{"x", {3, 4}}}).accepted);
}

TEST_CASE("plan selection between two validated ranges: N in [1, 2] and N in [3, 8]") {
  Graph g = example_graph("batch_contract");
  ShapeContract c = two_range_contract(g);
  REQUIRE(c.plans.size() == 2);
  // Each plan is made for its range's upper corner and verified at every binding it covers.
  const ContractPlan& small = c.plans[0];
  const ContractPlan& large = c.plans[1];
  CHECK(small.ranges.at("N").max == 2);
  CHECK(large.ranges.at("N").min == 3);
  CHECK(small.verified_bindings == 2);
  CHECK(large.verified_bindings == 6);
  CHECK(small.exhaustive);
  Bytes peak2 = analyze_lifetimes(graph_at(g, propagate_shapes(g, {{"N", 2}})), g.file_order()).peak_bytes;
  Bytes peak8 = analyze_lifetimes(g, g.file_order()).peak_bytes;
  CHECK(small.plan.arena_bytes >= peak2);
  CHECK(large.plan.arena_bytes >= peak8);
  CHECK(small.plan.arena_bytes == peak2);  // a chain-like graph: the greedy planners reach the bound
  CHECK(large.plan.arena_bytes == peak8);
  CHECK(small.plan.arena_bytes < large.plan.arena_bytes);

  CHECK(check_input_shapes(c, {{"x", {1, 16, 16, 3}}}).plan == 0);
  CHECK(check_input_shapes(c, {{"x", {2, 16, 16, 3}}}).plan == 0);
  CHECK(check_input_shapes(c, {{"x", {3, 16, 16, 3}}}).plan == 1);
  CHECK(check_input_shapes(c, {{"x", {8, 16, 16, 3}}}).plan == 1);
  CHECK_FALSE(check_input_shapes(c, {{"x", {9, 16, 16, 3}}}).accepted);

  // The small plan really is too small for N = 8: its offsets do not verify there.
  Graph at8 = graph_at(g, propagate_shapes(g, {{"N", 8}}));
  LayoutProblem p8 = layout_problem(at8, analyze_lifetimes(at8, g.file_order()));
  CHECK_FALSE(verify_plan(p8, small.plan.offsets, small.plan.arena_bytes).ok());
  // ...while the large plan verifies at N = 1 as well.
  Graph at1 = graph_at(g, propagate_shapes(g, {{"N", 1}}));
  CHECK(verify_plan(layout_problem(at1, analyze_lifetimes(at1, g.file_order())), large.plan.offsets, large.plan.arena_bytes).ok());
}

TEST_CASE("the smallest covering plan wins when ranges overlap; uncovered shapes are rejected") {
  Graph g = example_graph("batch_contract");
  ShapeContract c = build_contract(g, g.file_order(), {{{"N", {1, 8}}}, {{"N", {1, 2}}}}, {});
  ShapeCheck two = check_input_shapes(c, {{"x", {2, 16, 16, 3}}});
  CHECK(c.plans[two.plan].ranges.at("N").max == 2);
  ShapeContract partial = build_contract(g, g.file_order(), {{{"N", {1, 2}}}}, {});
  ShapeCheck five = check_input_shapes(partial, {{"x", {5, 16, 16, 3}}});
  CHECK_FALSE(five.accepted);
  CHECK(five.message == "no validated plan covers N = 5 (plans: N in [1, 2])");
  CHECK_THROWS_WITH_AS(build_contract(g, g.file_order(), {{{"N", {1, 9}}}}, {}),
                       "ranges/0/N: [1, 9] leaves the graph's bound 1 <= N <= 8", InputError);
  CHECK_THROWS_WITH_AS(build_contract(g, g.file_order(), {{{"M", {1, 2}}}}, {}), doctest::Contains("no symbolic dim M"), InputError);
}

TEST_CASE("default ranges: [1,1], [2,2], [3,4], [5,8] for N in [1, 8]") {
  Graph g = example_graph("batch_contract");
  std::vector<DimRanges> r = default_ranges(g);
  REQUIRE(r.size() == 4);
  CHECK(r[2].at("N").min == 3);
  CHECK(r[2].at("N").max == 4);
  CHECK(r[3].at("N").min == 5);
  CHECK(r[3].at("N").max == 8);
  CHECK(default_ranges(example_graph("two_branch")).size() == 1);  // no symbols: one plan
}

TEST_CASE("propagation: conv/pool stride and padding, dense, concat, reshape, broadcasting") {
  const std::string x = R"("x":{"shape":["N",15,15,4],"dtype":"int8"},)";
  // valid 3x3 stride 2: (15 - 3) / 2 + 1 = 7; same stride 2: ceil(15 / 2) = 8; explicit pad 1: (15 + 2 - 3) / 2 + 1 = 8.
  Graph g = parse_graph_json(graph_text(x + R"("a":{"shape":["N",7,7,6],"dtype":"int8"},"b":{"shape":["N",8,8,6],"dtype":"int8"},
        "c":{"shape":["N",8,8,6],"dtype":"int8"},"w":{"shape":[6,3,3,4],"dtype":"int8","constant":true},
        "d":{"shape":["N",8,8,12],"dtype":"int8"},"e":{"shape":["N",4,4,12],"dtype":"int8"},
        "f":{"shape":["N",192],"dtype":"int8"},"k":{"shape":[5,192],"dtype":"int8","constant":true},
        "y":{"shape":["N",5],"dtype":"float32"})",
      R"({"name":"valid","kind":"conv2d","inputs":["x","w"],"outputs":["a"],"attrs":{"stride":2}},
         {"name":"same","kind":"conv2d","inputs":["x","w"],"outputs":["b"],"attrs":{"stride":2,"padding":1}},
         {"name":"pad","kind":"depthwise_conv2d","inputs":["x"],"outputs":["c"],"attrs":{"kernel":3,"stride":2,"pad":1,"filters":6}},
         {"name":"cat","kind":"concat","inputs":["b","c"],"outputs":["d"]},
         {"name":"pool","kind":"max_pool2d","inputs":["d"],"outputs":["e"],"attrs":{"kernel":2,"stride":2}},
         {"name":"flat","kind":"reshape","inputs":["e"],"outputs":["f"]},
         {"name":"fc","kind":"fully_connected","inputs":["f","k","a"],"outputs":["y"]})"));
  // fc reads a too (to keep "valid" reachable); its activation input is f, the first non-constant.
  ShapeInstance s = propagate_shapes(g, {{"N", 3}});
  CHECK(shape_of(g, s, "a") == std::vector<int64_t>{3, 7, 7, 6});
  CHECK(shape_of(g, s, "d") == std::vector<int64_t>{3, 8, 8, 12});
  CHECK(shape_of(g, s, "y") == std::vector<int64_t>{3, 5});
  CHECK(bytes_of(g, s, "y") == 3 * 5 * 4);

  const std::string t2 = R"("x":{"shape":["N",8],"dtype":"int8"},"z":{"shape":[1,8],"dtype":"int8","constant":true},)";
  // Broadcasting [N, 8] with [1, 8] is fine; a declared output that disagrees names the dim.
  CHECK(propagation_error(graph_text(t2 + R"("y":{"shape":["N",8],"dtype":"int8"})",
                                     R"({"name":"add","kind":"add","inputs":["x","z"],"outputs":["y"]})")) == "");
  CHECK(propagation_error(graph_text(t2 + R"("y":{"shape":["N",4],"dtype":"int8"})",
                                     R"({"name":"add","kind":"add","inputs":["x","z"],"outputs":["y"]})")) ==
        "op add: output y dim 1 is declared 4 but the op computes 8 (at N = 8)");
  CHECK(propagation_error(graph_text(R"("x":{"shape":["N",8],"dtype":"int8"},"y":{"shape":["N",9],"dtype":"int8"})",
                                     R"({"name":"r","kind":"reshape","inputs":["x"],"outputs":["y"]})"), 2)
            .find("op r: reshape of [2, 8] (16 elements) into y [2, 9] (18 elements)") == 0);
  CHECK(propagation_error(graph_text(R"("x":{"shape":["N",8],"dtype":"int8"},"u":{"shape":[1,3],"dtype":"int8","constant":true},"y":{"shape":["N",8],"dtype":"int8"})",
                                     R"({"name":"m","kind":"mul","inputs":["x","u"],"outputs":["y"]})")) ==
        "op m: cannot broadcast [8, 8] with u [1, 3]");
  CHECK(propagation_error(graph_text(R"("x":{"shape":["N",4,4,2],"dtype":"int8"},"y":{"shape":["N",2,2,2],"dtype":"int8"})",
                                     R"({"name":"p","kind":"max_pool2d","inputs":["x"],"outputs":["y"],"attrs":{"kernel":5}})"))
            .find("does not fit input size 4") != std::string::npos);
}

TEST_CASE("shape and range parsing") {
  CHECK(parse_shape("2x16x16x3", "s") == std::vector<int64_t>{2, 16, 16, 3});
  CHECK(parse_shape("[2, 16,16,3]", "s") == std::vector<int64_t>{2, 16, 16, 3});
  CHECK_THROWS_WITH_AS(parse_shape("2x-1", "--input x"), doctest::Contains("--input x: expected a shape"), InputError);
  CHECK_THROWS_WITH_AS(parse_shape("0x3", "s"), "s: dims must be positive", InputError);
  DimRanges r = parse_ranges("N=3..8,M=2", "r");
  CHECK(r.at("N").min == 3);
  CHECK(r.at("N").max == 8);
  CHECK(r.at("M").min == 2);
  CHECK(r.at("M").max == 2);
  CHECK_THROWS_AS(parse_ranges("N=a..2", "r"), InputError);
}

TEST_CASE("a window op without attrs (imported geometry) keeps its declared output; with attrs it is checked") {
  const std::string tensors = R"("x":{"shape":["N",16,16,3],"dtype":"int8"},"w":{"shape":[8,3,3,3],"dtype":"int8","constant":true},
                                 "y":{"shape":["N",8,8,8],"dtype":"int8"})";
  // Stride 2 is not carried: without attrs the declared [N, 8, 8, 8] stands.
  CHECK(propagation_error(graph_text(tensors, R"({"name":"c","kind":"conv_2d","inputs":["x","w"],"outputs":["y"]})")) == "");
  // With attrs the geometry is checked: stride 1 valid gives 14, not 8.
  CHECK(propagation_error(graph_text(tensors, R"({"name":"c","kind":"conv_2d","inputs":["x","w"],"outputs":["y"],"attrs":{"stride":1}})")) ==
        "op c: output y dim 1 is declared 8 but the op computes 14 (at N = 8)");
}
