// One source for each fact: the op-kind table (core/graph/op_kinds.h), the byte formatters and
// the lifetime contract (tensor_residence) that analyze_lifetimes and the schedule model share.
#include <doctest/doctest.h>

#include <set>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/graph/op_kinds.h"
#include "core/tflite/tflite_ops.h"

using namespace arenaplan;

TEST_CASE("each op-kind spelling is listed once") {
  std::set<std::string> seen;
  for (const OpKind& k : op_kinds()) CHECK_MESSAGE(seen.insert(k.name).second, k.name);
}

TEST_CASE("the kinds the .tflite importer writes (TFLite's lowercase builtin names) have their family") {
  // BuiltinOperator codes of the published schema.
  const std::vector<std::pair<int, OpFamily>> codes = {
      {0, OpFamily::kElementwise},   // add
      {1, OpFamily::kAvgPool},       // average_pool_2d
      {2, OpFamily::kConcat},        // concatenation
      {3, OpFamily::kConv},          // conv_2d
      {4, OpFamily::kDepthwiseConv}, // depthwise_conv_2d
      {6, OpFamily::kElementwise},   // dequantize
      {9, OpFamily::kDense},         // fully_connected
      {14, OpFamily::kElementwise},  // logistic
      {17, OpFamily::kMaxPool},      // max_pool_2d
      {18, OpFamily::kElementwise},  // mul
      {19, OpFamily::kElementwise},  // relu
      {21, OpFamily::kElementwise},  // relu6
      {22, OpFamily::kReshape},      // reshape
      {25, OpFamily::kSoftmax},      // softmax
      {43, OpFamily::kReshape},      // squeeze
      {70, OpFamily::kReshape},      // expand_dims
      {114, OpFamily::kElementwise}, // quantize
      {117, OpFamily::kElementwise}, // hard_swish
  };
  for (const auto& [code, family] : codes) {
    const char* name = tflite_ops::builtin_name(code);
    REQUIRE(name != nullptr);
    CAPTURE(name);
    CHECK(op_family(name) == family);
  }
}

TEST_CASE("the graph format's own spellings and the shape unit's agree on the family") {
  CHECK(op_family("conv2d") == OpFamily::kConv);
  CHECK(op_family("depthwise_conv2d") == OpFamily::kDepthwiseConv);
  CHECK(op_family("max_pool2d") == OpFamily::kMaxPool);
  CHECK(op_family("avg_pool2d") == OpFamily::kAvgPool);
  CHECK(op_family("dense") == OpFamily::kDense);
  CHECK(op_family("concat") == OpFamily::kConcat);
  CHECK(op_family("flatten") == OpFamily::kReshape);
  CHECK(op_family("batchnorm") == OpFamily::kElementwise);
  CHECK(op_family("mystery_op") == OpFamily::kOther);
  CHECK(is_window_family(op_family("conv_2d")));
  CHECK_FALSE(is_window_family(op_family("dense")));
  CHECK(std::string(op_family_name(OpFamily::kDepthwiseConv)) == "depthwise_conv");
}

TEST_CASE("byte formatters: exact forms name the bytes, rounded forms say KiB") {
  CHECK(format_bytes(139264) == "136 KiB");
  CHECK(format_bytes(2 << 20) == "2 MiB");
  CHECK(format_bytes(1536) == "1536 B");
  CHECK(format_bytes_exact(139264) == "136 KiB (139264 B)");
  CHECK(format_bytes_exact(1536) == "1536 B");
  CHECK(format_bytes_exact(0) == "0 B");
  CHECK(format_kib(1536) == "1.5 KiB");
  CHECK(format_kib(1536, 2) == "1.50 KiB");
  CHECK(format_kib(2048) == "2 KiB");
  CHECK(format_kib(-1536, 2) == "-1.50 KiB");
}

TEST_CASE("tensor_residence: constants and caller-owned inputs stay out, outputs are held to the end") {
  const char* text = R"({"format": "arenaplan-graph", "version": 1, "name": "r", "input_policy": "caller_owned",
    "tensors": {"x": {"bytes": 16}, "w": {"bytes": 16, "constant": true}, "s": {"bytes": 16, "persistent": true},
                "h": {"bytes": 16}, "k": {"bytes": 16, "retained": true}, "y": {"bytes": 16}},
    "ops": [{"name": "A", "inputs": ["x", "w"], "outputs": ["h"]}, {"name": "B", "inputs": ["h", "s"], "outputs": ["k"]},
            {"name": "C", "inputs": ["k"], "outputs": ["y"]}],
    "inputs": ["x"], "outputs": ["y"]})";
  const Graph g = parse_graph_json(text);
  auto of = [&](const char* name) { return tensor_residence(g, *g.find_tensor(name)); };
  CHECK(of("x").residence == Residence::kOutside);  // caller-owned input
  CHECK(of("w").residence == Residence::kOutside);  // constant: flash
  CHECK(of("s").residence == Residence::kWholeRun);
  CHECK(of("h").residence == Residence::kFromProducer);
  CHECK_FALSE(of("h").held_to_end);
  CHECK(of("k").held_to_end);  // retained
  CHECK(of("y").held_to_end);  // graph output
  // analyze_lifetimes follows the same contract: h dies at B, k and y live to the last step.
  const LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  CHECK(a.buffer_of_tensor[*g.find_tensor("x")] == -1);
  CHECK(a.buffer_of_tensor[*g.find_tensor("w")] == -1);
  CHECK(a.buffers[a.buffer_of_tensor[*g.find_tensor("h")]].last == 1);
  CHECK(a.buffers[a.buffer_of_tensor[*g.find_tensor("k")]].last == 2);
  CHECK(a.buffers[a.buffer_of_tensor[*g.find_tensor("s")]].first == 0);
}
