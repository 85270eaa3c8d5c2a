// Models compiled by Vela for an Ethos-U NPU: one `ethos-u` custom op reads the command stream and
// the weights (constants), Vela's scratch and fast scratch (tensors without data that no op
// writes: TFLM allocates them in the arena), and the input. They import, plan and size for TFLM.
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <algorithm>

#include "core/graph/lifetime.h"
#include "core/graph/op_kinds.h"
#include "core/layout/layout.h"
#include "core/sim/sim.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_summary.h"
#include "core/tflite/tflite_write.h"
#include "core/session/session.h"
#include "core/tflite/tflm_arena.h"
#include "tests/unit/test_support.h"
#include "tests/unit/tflm_fixture_models.h"
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

// ---- The project's own Vela-shaped model (tests/unit/data/tflm/vela_npu.tflite, written by
// tflite_from_graph from test::VelaStack with Vela's nested offline plan). -----------------------

TEST_CASE("Vela models: the ethos-u op imports as an NPU op, its scratch TFLM's, Vela's offsets kept") {
  const test::VelaStack built(20261205);
  const TfliteModel m = import_tflite(test::read_tflm_fixture("vela_npu.tflite"));
  const Graph& g = m.graph;
  REQUIRE(g.ops.size() == 3);
  CHECK(!runs_on_npu(g.ops[0].kind));  // quantize: CPU
  CHECK(runs_on_npu(g.ops[1].kind));   // ethos-u: NPU
  CHECK(g.ops[1].name == "ethos-u_1");
  CHECK(!runs_on_npu(g.ops[2].kind));  // dequantize: CPU
  // The command stream and flash are constants (flash, never arena); the scratch tensors are TFLM's.
  CHECK(g.tensors[*g.find_tensor("main_split_1_command_stream")].constant);
  CHECK(g.tensors[*g.find_tensor("main_split_1_flash")].constant);
  std::vector<std::string> working;
  for (TensorId t : m.working_tensors) working.push_back(g.tensors[t].name);
  CHECK(working == std::vector<std::string>{"main_split_1_scratch", "main_split_1_scratch_fast"});
  REQUIRE(m.offline_offsets);
  CHECK(*m.offline_offsets == built.vela_offsets);
  const JsonOut j = tflite_summary_json(tflite_summary(m, analyze_lifetimes(g, g.file_order())));
  CHECK(j["npu_ops"] == JsonOut::array({"ethos-u_1"}));
  CHECK(j["working_tensors"][0]["offline_offset"] == 0);
  CHECK(j["working_tensors"][0]["bytes"] == test::VelaStack::kScratch);
}

TEST_CASE("Vela models: Vela's nested plan is kept, never re-planned, and the refusal names the op") {
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  const TfliteModel m = import_tflite(test::read_tflm_fixture("vela_npu.tflite"), keep);
  const LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  LayoutProblem problem = layout_problem(m.graph, live);
  const std::string why = test::input_error_of([&] { keep_offline_offsets(problem, m, live); });
  CHECK(why.rfind("op ethos-u_1: runs on the Ethos-U NPU", 0) == 0);
  // A model without an NPU op keeps its offsets as before.
  TfliteModel cpu_only = m;
  cpu_only.graph.ops[1].kind = "custom";
  CHECK(!npu_plan_kept(cpu_only));
}

TEST_CASE("Vela models: tflm-arena of TFLM with the Ethos-U kernel: Vela's scratch at 0, the kernel's two arrays after it") {
  const std::string model = test::read_tflm_fixture("vela_npu.tflite");
  for (int pointer : {4, 8}) {
    CAPTURE(pointer);
    TflmArenaOptions o;
    o.target.pointer_bytes = pointer;
    const TflmArena a = tflm_arena(model, o);
    CHECK(a.estimated_ops.empty());
    // Every feature map lies inside the 1,024-byte scratch (offline); the ethos-u kernel's base
    // addresses (6 x uint64_t) and sizes (6 x size_t) are planned online after it.
    CHECK(a.head_bytes == test::VelaStack::kScratch + 48 + align_up(6 * pointer, 16));
    ExportRequest r;
    r.format = ExportFormat::kCHeader;
    r.tflm_target = o.target;
    const LoadedInput in = load_input(model);
    r.order = in.graph.file_order();
    const TflmArenaComparison c = tflm_comparison_of(in, r);
    CHECK(c.offline.min_arena_bytes == c.tflm.min_arena_bytes);
    CHECK(c.offline_kept.rfind("ethos-u_1 runs on the Ethos-U NPU", 0) == 0);
    CHECK(tflm_comparison_sentence(c).rfind("with the model's own offline plan: ", 0) == 0);
  }
}

TEST_CASE("Vela models: simulate runs the CPU ops, refuses the NPU op by name, its outputs not computed") {
  const Graph g = import_tflite(test::read_tflm_fixture("vela_npu.tflite")).graph;
  sim::SimRequest req;
  req.input_bytes["input"] = test::VelaStack(20261205).input_bytes(13);
  const sim::SimReport r = sim::simulate(g, req);
  CHECK(r.ok());  // the plan oracles hold: placeholder bytes fill the NPU op's outputs
  REQUIRE(r.per_op.size() == 3);
  CHECK(!r.per_op[0].stand_in);
  CHECK(std::string(r.per_op[0].kernel).find("quantize") == 0);
  CHECK(r.per_op[1].on_npu);
  CHECK(std::string(r.per_op[1].kernel) == "NPU, not run");
  REQUIRE(r.not_simulated.size() == 1);
  CHECK(r.not_simulated[0].first == "ethos-u_1");
  CHECK(r.not_simulated[0].second == "ethos-u: runs on the Ethos-U NPU, not simulated");
  CHECK(r.stand_ins.empty());  // refused by name, not a stand-in
  // x was computed by the CPU; y and everything after it was not.
  CHECK(std::find(r.not_computed.begin(), r.not_computed.end(), "x") == r.not_computed.end());
  CHECK(std::find(r.not_computed.begin(), r.not_computed.end(), "y") != r.not_computed.end());
  CHECK(std::find(r.not_computed.begin(), r.not_computed.end(), "output") != r.not_computed.end());
  CHECK(r.output_computed == std::vector<char>{0});
  CHECK(!sim::outputs_are_the_model(r));
  const std::string text = sim::simulation_summary_text(r);
  CHECK(text.find("outputs:           1 of 1 NOT computed") != std::string::npos);
  CHECK(text.find("the model's") == std::string::npos);
  const JsonOut j = sim::simulation_json(g, r);
  CHECK(j["outputs_not_computed"] == JsonOut::array({"output"}));
  CHECK(j["outputs_are_the_model"] == false);
}

TEST_CASE("Vela models: the writer writes an ethos-u op as Vela's custom op, with its options") {
  const test::VelaStack built(20261205);
  const std::string bytes = tflite_from_graph(built.g);
  const tfl::Model* model = tfl::GetModel(bytes.data());
  const tfl::OperatorCode* code = model->operator_codes()->Get(model->subgraphs()->Get(0)->operators()->Get(1)->opcode_index());
  CHECK(code->builtin_code() == 32);
  REQUIRE(code->custom_code());
  CHECK(code->custom_code()->str() == "ethos-u");
  const auto* options = model->subgraphs()->Get(0)->operators()->Get(1)->custom_options();
  REQUIRE(options);
  CHECK(std::vector<uint8_t>(options->begin(), options->end()) == std::vector<uint8_t>{1, 4, 1});  // int8 1: CO_TYPE_ETHOSU
}

TEST_CASE("Vela models: an imported NPU op is not written back (its scratch is its output, its plan Vela's)") {
  const Graph imported = import_tflite(test::read_tflm_fixture("vela_npu.tflite")).graph;
  CHECK(test::input_error_of([&] { tflite_from_graph(imported); })
            .rfind("op ethos-u_1: an ethos-u op is written with Vela's operands first", 0) == 0);
}
