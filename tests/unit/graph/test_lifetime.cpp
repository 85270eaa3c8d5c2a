// docs/DESIGN.md "Lifetime semantics" and the two-branch worked numbers.
#include <doctest/doctest.h>

#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

// A graph text with the given tensors/ops JSON fragments and I -> ... -> outputs.
std::string graph_text(const std::string& tensors, const std::string& ops, const std::string& inputs,
                       const std::string& outputs, const std::string& extra = "") {
  return R"({"format":"arenaplan-graph","version":1,"alignment":16,)" + extra + R"("tensors":{)" +
         tensors + R"(},"ops":[)" + ops + R"(],"inputs":[)" + inputs + R"(],"outputs":[)" + outputs +
         "]}";
}

LiveBuffer buffer_named(const LiveAnalysis& a, const std::string& name) {
  for (const LiveBuffer& b : a.buffers)
    if (b.name == name) return b;
  FAIL("no buffer " << name);
  return {};
}

}  // namespace

TEST_CASE("two-branch ABCDEF: 48, 128, 136, 104, 80, 32 KiB, peak 136 KiB during C") {
  Graph g = example_graph("two_branch");
  CHECK(live_kib(g, "A,B,C,D,E,F") == std::vector<Bytes>{48, 128, 136, 104, 80, 32});
  LiveAnalysis a = analyze_lifetimes(g, parse_order(g, "A,B,C,D,E,F"));
  CHECK(a.peak_bytes == 136 * KiB);
  CHECK(a.peak_bytes == 139264);
  CHECK(g.ops[a.order[a.peak_step]].name == "C");
  CHECK(a.total_bytes == 240 * KiB);
  CHECK(a.largest_tensor_bytes == 96 * KiB);
}

TEST_CASE("two-branch ABDCEF: 48, 128, 192, 168, 80, 32 KiB, peak 192 KiB during D (A+B+D)") {
  Graph g = example_graph("two_branch");
  CHECK(live_kib(g, "A,B,D,C,E,F") == std::vector<Bytes>{48, 128, 192, 168, 80, 32});
  LiveAnalysis a = analyze_lifetimes(g, parse_order(g, "A,B,D,C,E,F"));
  CHECK(a.peak_bytes == 196608);
  std::vector<std::string> peak;
  for (int b : a.live_at(a.peak_step)) peak.push_back(a.buffers[b].name);
  CHECK(peak == std::vector<std::string>{"A", "B", "D"});
}

TEST_CASE("the file order is the default schedule") {
  Graph g = example_graph("two_branch");
  CHECK(order_names(g, g.file_order()) == "A,B,C,D,E,F");
}

TEST_CASE("a non-topological order names the op that ran before its input existed") {
  Graph g = example_graph("two_branch");
  try {
    parse_order(g, "A,C,B,D,E,F");
    FAIL("accepted a bad order");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("op C runs at step 1 before its input B exists") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(parse_order(g, "A,B,C,D,E"), "order: op F is missing from the order", InputError);
  CHECK_THROWS_WITH_AS(parse_order(g, "A,B,C,D,E,F,F"), doctest::Contains("appears twice"), InputError);
  CHECK_THROWS_WITH_AS(parse_order(g, "A,B,X"), doctest::Contains("unknown op \"X\""), InputError);
}

TEST_CASE("inputs and outputs coexist during an op; a tensor dies after its last consumer") {
  Graph g = parse_graph_json(graph_text(R"("x":{"bytes":100},"y":{"bytes":200},"z":{"bytes":50})",
                                        R"({"name":"p","inputs":["x"],"outputs":["y"]},
                                           {"name":"q","inputs":["y"],"outputs":["z"]})",
                                        R"("x")", R"("z")"));
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  // Sizes round up to the 16-byte alignment: 112, 208, 64.
  CHECK(a.steps[0].live_bytes == 112 + 208);
  CHECK(a.steps[1].live_bytes == 208 + 64);
  CHECK(buffer_named(a, "x").last == 0);
}

TEST_CASE("graph outputs stay live until the end of the run") {
  Graph g = parse_graph_json(graph_text(R"("x":{"bytes":16},"o1":{"bytes":32},"o2":{"bytes":64})",
                                        R"({"name":"p","inputs":["x"],"outputs":["o1"]},
                                           {"name":"q","inputs":["x"],"outputs":["o2"]})",
                                        R"("x")", R"("o1","o2")"));
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  CHECK(buffer_named(a, "o1").last == 1);
  CHECK(a.steps[1].live_bytes == 16 + 32 + 64);
}

TEST_CASE("graph inputs: in the arena until the last consumer, caller-owned, or retained") {
  const std::string tensors = R"("x":{"bytes":16},"y":{"bytes":32},"z":{"bytes":64})";
  const std::string ops = R"({"name":"p","inputs":["x"],"outputs":["y"]},{"name":"q","inputs":["y"],"outputs":["z"]})";
  Graph in_arena = parse_graph_json(graph_text(tensors, ops, R"("x")", R"("z")"));
  CHECK(analyze_lifetimes(in_arena, in_arena.file_order()).steps[1].live_bytes == 32 + 64);
  Graph caller = parse_graph_json(graph_text(tensors, ops, R"("x")", R"("z")", R"("input_policy":"caller_owned",)"));
  LiveAnalysis ac = analyze_lifetimes(caller, caller.file_order());
  CHECK(ac.steps[0].live_bytes == 32);
  CHECK(ac.buffer_of_tensor[0] == -1);
  Graph retained = parse_graph_json(graph_text(tensors, ops, R"("x")", R"("z")", R"("input_policy":"retained",)"));
  CHECK(analyze_lifetimes(retained, retained.file_order()).steps[1].live_bytes == 16 + 32 + 64);
}

TEST_CASE("persistent state is live for the whole run, in the tail") {
  Graph g = parse_graph_json(graph_text(
      R"("x":{"bytes":16},"h":{"bytes":128,"persistent":true},"y":{"bytes":32},"z":{"bytes":16})",
      R"({"name":"p","inputs":["x"],"outputs":["y"]},{"name":"q","inputs":["y","h"],"outputs":["z"]})",
      R"("x")", R"("z")"));
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  LiveBuffer h = buffer_named(a, "h");
  CHECK(h.first == 0);
  CHECK(h.last == 1);
  CHECK(h.category == ArenaCategory::kTail);
  CHECK(a.steps[0].live_bytes == 16 + 128 + 32);
}

TEST_CASE("scratch is live only while its op runs (two-branch, 48 KiB during D: 104 + 48)") {
  std::string text = *find_example("two_branch");
  text.replace(text.find(R"("inputs": ["A"], "outputs": ["D"])"), 33,
               R"("inputs": ["A"], "outputs": ["D"], "scratch_bytes": "48KiB")");
  Graph g = parse_graph_json(text);
  CHECK(live_kib(g, "A,B,C,D,E,F") == std::vector<Bytes>{48, 128, 136, 152, 80, 32});
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  LiveBuffer s = buffer_named(a, "D:scratch");
  CHECK(s.kind == BufferKind::kScratch);
  CHECK(s.category == ArenaCategory::kTemp);
  CHECK(s.first == 3);
  CHECK(s.last == 3);
  CHECK(a.total_bytes == 240 * KiB);  // scratch is not a tensor
}

TEST_CASE("an asynchronous consumer extends the input's lifetime to its completion") {
  const std::string tensors = R"("x":{"bytes":16},"a":{"bytes":32},"b":{"bytes":48},"c":{"bytes":64},"d":{"bytes":16})";
  const std::string ops = R"({"name":"p","inputs":["x"],"outputs":["a"]},
      {"name":"dma","inputs":["a"],"outputs":["b"],"async":{"a":2}},
      {"name":"q","inputs":["b"],"outputs":["c"]},{"name":"r","inputs":["c"],"outputs":["d"]})";
  Graph g = parse_graph_json(graph_text(tensors, ops, R"("x")", R"("d")"));
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  CHECK(buffer_named(a, "a").last == 3);  // read by dma at step 1, completes at step 3
  CHECK(a.steps[3].live_bytes == 32 + 64 + 16);
  CHECK_THROWS_WITH_AS(parse_graph_json(graph_text(tensors, R"({"name":"p","inputs":["x"],"outputs":["a"],"async":{"d":1}},
      {"name":"q","inputs":["a"],"outputs":["d"]})", R"("x")", R"("d")")), doctest::Contains("/ops/0/async/d"), InputError);
}

TEST_CASE("a retained output lives until the end") {
  Graph g = parse_graph_json(graph_text(R"("x":{"bytes":16},"y":{"bytes":32,"retained":true},"z":{"bytes":64})",
                                        R"({"name":"p","inputs":["x"],"outputs":["y"]},{"name":"q","inputs":["y"],"outputs":["z"]},
                                           {"name":"r","inputs":["z"],"outputs":["w"]})",
                                        R"("x")", R"("w")").replace(0, 0, "").insert(
                                            std::string(R"({"format":"arenaplan-graph","version":1,"alignment":16,"tensors":{)").size(),
                                            R"("w":{"bytes":16},)"));
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  CHECK(buffer_named(a, "y").last == 2);
}

TEST_CASE("legal in-place: the output shares its input's buffer") {
  Graph g = parse_graph_json(graph_text(R"("x":{"bytes":16},"y":{"bytes":64},"r":{"bytes":64},"z":{"bytes":16})",
                                        R"({"name":"p","inputs":["x"],"outputs":["y"]},
                                           {"name":"relu","inputs":["y"],"outputs":["r"],"in_place":{"r":"y"}},
                                           {"name":"q","inputs":["r"],"outputs":["z"]})",
                                        R"("x")", R"("z")"));
  LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  CHECK(a.buffer_of_tensor[*g.find_tensor("y")] == a.buffer_of_tensor[*g.find_tensor("r")]);
  CHECK(a.steps[1].live_bytes == 64);
  CHECK(buffer_named(a, "y").first == 0);
  CHECK(buffer_named(a, "y").last == 2);
}

TEST_CASE("illegal in-place declarations are errors") {
  const std::string t = R"("x":{"bytes":16},"y":{"bytes":64},"r":{"bytes":64},"big":{"bytes":128},"z":{"bytes":16})";
  // q reads y after relu overwrites it, in every order (q needs relu's output): no order exists.
  CHECK(parse_error(graph_text(t, R"({"name":"p","inputs":["x"],"outputs":["y"]},
      {"name":"relu","inputs":["y"],"outputs":["r"],"in_place":{"r":"y"}},
      {"name":"q","inputs":["y","r"],"outputs":["z"]})", R"("x")", R"("z")")) == "/ops: the graph has a cycle through ops relu, q");
  // Output larger than the input it would overwrite.
  CHECK(parse_error(graph_text(t, R"({"name":"p","inputs":["x"],"outputs":["y"]},
      {"name":"grow","inputs":["y"],"outputs":["big"],"in_place":{"big":"y"}},
      {"name":"q","inputs":["big"],"outputs":["z"]})", R"("x")", R"("z")")).find("does not fit") != std::string::npos);
  // Overwriting a graph output.
  CHECK(parse_error(graph_text(t, R"({"name":"p","inputs":["x"],"outputs":["y"]},
      {"name":"relu","inputs":["y"],"outputs":["r"],"in_place":{"r":"y"}})", R"("x")", R"("y","r")")).find("must stay intact") != std::string::npos);
  // Overwriting an input that an asynchronous read still needs.
  CHECK(parse_error(graph_text(t, R"({"name":"p","inputs":["x"],"outputs":["y"]},
      {"name":"relu","inputs":["y"],"outputs":["r"],"in_place":{"r":"y"},"async":{"y":1}},
      {"name":"q","inputs":["r"],"outputs":["z"]})", R"("x")", R"("z")")).find("still read asynchronously") != std::string::npos);
}

TEST_CASE("in-place is legal when the order runs the other reader first") {
  Graph g = parse_graph_json(graph_text(
      R"("x":{"bytes":16},"y":{"bytes":64},"r":{"bytes":64},"s":{"bytes":32},"z":{"bytes":16})",
      R"({"name":"p","inputs":["x"],"outputs":["y"]},
         {"name":"side","inputs":["y"],"outputs":["s"]},
         {"name":"relu","inputs":["y"],"outputs":["r"],"in_place":{"r":"y"}},
         {"name":"q","inputs":["r","s"],"outputs":["z"]})", R"("x")", R"("z")"));
  CHECK_NOTHROW(parse_order(g, "p,side,relu,q"));
  CHECK_THROWS_WITH_AS(parse_order(g, "p,relu,side,q"), doctest::Contains("still reads it"), InputError);
  // The default topological order respects the in-place precedence.
  CHECK(order_names(g, topological_order(g)) == "p,side,relu,q");
}

TEST_CASE("a graph with no ops to run has no steps and nothing live (fuzz_tflite regression)") {
  // The JSON format needs an op, but an imported model can fold every op away at initialisation.
  Graph g;
  g.tensors.push_back(Tensor{"x", 64});
  g.inputs = {0};
  g.outputs = {0};
  link_tensors(g);
  LiveAnalysis a = analyze_lifetimes(g, {});
  CHECK(a.steps.empty());
  CHECK(a.buffers.empty());
  CHECK(a.buffer_of_tensor == std::vector<int>{-1});
  CHECK(a.peak_bytes == 0);
}
