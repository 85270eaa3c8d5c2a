// Models compiled by Vela for an Ethos-U NPU: one `ethos-u` custom op reads the command stream and
// the weights (constants), Vela's scratch and fast scratch (tensors without data that no op
// writes: TFLM allocates them in the arena), and the input. They import, plan and size for TFLM.
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include "core/graph/lifetime.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflm_arena.h"
#include "tests/unit/test_support.h"
#include "tflite_schema_generated.h"

using namespace arenaplan;

namespace {

// quantize (CPU) -> ethos-u (NPU: cmd, weights, scratch, scratch_fast, x) -> y, the shape Vela writes.
std::string vela_shaped_model() {
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint8_t> cmd(64, 1), weights(256, 2);
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b), tfl::CreateBuffer(b, b.CreateVector(cmd)),
                                                           tfl::CreateBuffer(b, b.CreateVector(weights))};
  auto tensor = [&](std::vector<int32_t> shape, int8_t type, uint32_t buffer, const char* name) {
    return tfl::CreateTensor(b, b.CreateVector(shape), type, buffer, b.CreateString(name));
  };
  constexpr int8_t kFloat32 = 0, kUInt8 = 3, kInt8 = 9;
  std::vector<flatbuffers::Offset<tfl::Tensor>> ts = {
      tensor({1, 16}, kFloat32, 0, "input"),       tensor({1, 16}, kInt8, 0, "x"),
      tensor({64}, kUInt8, 1, "cmd"),              tensor({256}, kUInt8, 2, "weights"),
      tensor({2048}, kUInt8, 0, "main_scratch"),   tensor({512}, kUInt8, 0, "main_scratch_fast"),
      tensor({1, 8}, kInt8, 0, "y")};
  std::vector<int32_t> q_in = {0}, q_out = {1}, npu_in = {2, 3, 4, 5, 1}, npu_out = {6};
  std::vector<flatbuffers::Offset<tfl::Operator>> ops = {
      tfl::CreateOperator(b, 0, b.CreateVector(q_in), b.CreateVector(q_out)),
      tfl::CreateOperator(b, 1, b.CreateVector(npu_in), b.CreateVector(npu_out))};
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes = {tfl::CreateOperatorCode(b, 114, 0, 1, 114),
                                                               tfl::CreateOperatorCode(b, 32, b.CreateString("ethos-u"), 1, 32)};
  std::vector<int32_t> sg_in = {0}, sg_out = {6};
  auto sg = tfl::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(sg_in), b.CreateVector(sg_out), b.CreateVector(ops),
                                b.CreateString("main"));
  std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs = {sg};
  auto model = tfl::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), b.CreateString("vela"), b.CreateVector(buffers));
  tfl::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace

TEST_CASE("Vela models: the ethos-u op's scratch tensors are its working memory, planned in the arena") {
  const TfliteModel m = import_tflite(vela_shaped_model());
  const Graph& g = m.graph;
  REQUIRE(g.ops.size() == 2);
  const Op& npu = g.ops[1];
  CHECK(npu.kind == "ethos-u");
  CHECK(m.custom_ops == std::vector<std::string>{"ethos-u"});
  // The scratch tensors are written by the op that uses them, not graph inputs, not constants.
  for (const char* name : {"main_scratch", "main_scratch_fast"}) {
    CAPTURE(name);
    const TensorId t = *g.find_tensor(name);
    CHECK(g.tensors[t].producer == 1);
    CHECK(!g.is_input(t));
  }
  const LiveAnalysis live = analyze_lifetimes(g, g.file_order());
  // At the NPU op: x (16) + y (8) + scratch 2,048 + fast scratch 512, each 16-aligned.
  CHECK(live.peak_bytes == 16 + 16 + 2048 + 512);
}

TEST_CASE("Vela models: TFLM's ethos-u kernel sized (OpData, base-address scratch), not estimated") {
  const std::string model = vela_shaped_model();
  for (int pointer : {4, 8}) {
    CAPTURE(pointer);
    TflmArenaOptions o;
    o.target.pointer_bytes = pointer;
    const TflmArena a = tflm_arena(model, o);
    CHECK(a.estimated_ops.empty());
    CHECK(a.scratch_buffers == 2);  // base addresses (uint64_t) and sizes (size_t) of its 6 tensors
    CHECK(a.scratch_bytes == align_up(6 * 8, 16) + align_up(6 * pointer, 16));
  }
}
