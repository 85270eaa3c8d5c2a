// UNIDIRECTIONAL_SEQUENCE_LSTM: the fixtures' bytes against TFLM's (test_sim_models.cpp holds
// the measured hashes); here the operand slots survive a .tflite round trip, the state carries
// over runs, and every variant TFLM refuses is refused by name (the op becomes a stand-in).
#include <doctest/doctest.h>

#include <bit>
#include <cstring>

#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_write.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/sim_run.h"
#include "tests/unit/tflm_fixture_models.h"

namespace arenaplan {
namespace {

constexpr int kSlots = 24;

// The tensor in each of op 0's 24 slots (-1: absent), from its absent_inputs mask.
std::vector<TensorId> slots_of(const Op& op) {
  const int64_t absent = op.attrs.at("absent_inputs");
  std::vector<TensorId> s(kSlots, -1);
  size_t next = 0;
  for (int k = 0; k < kSlots; ++k)
    if (!((absent >> k) & 1)) s[k] = op.inputs.at(next++);
  return s;
}
void set_slots(Op& op, const std::vector<TensorId>& s) {
  int64_t absent = 0;
  op.inputs.clear();
  for (int k = 0; k < kSlots; ++k) {
    if (s[k] < 0) absent |= int64_t{1} << k;
    else op.inputs.push_back(s[k]);
  }
  op.attrs["absent_inputs"] = absent;
}

// The first LSTM of a stack with a change, and op 0's stand-in note.
template <class Change>
std::string refusal_after(DType act, Change&& change) {
  test::OneOpModel m;
  m.g = test::LstmStack(5, act).g;
  change(m);
  return m.refusal();
}

// A [state] vector tensor for an optional slot (peephole, layer norm, projection bias).
TensorId vector_operand(test::OneOpModel& m, const char* name, DType type) {
  const int64_t state = m.dims(m.g.ops[0].outputs[0])[2];
  std::vector<uint8_t> bytes(static_cast<size_t>(state * dtype_width(type)), 1);
  return m.tensor(name, {state}, type, test::quant(0.01f, 0), bytes);
}

}  // namespace

TEST_CASE("lstm: the 24 operand slots survive writing and importing, trailing absent ones included") {
  const test::LstmStack stack(1, DType::kInt8);
  const Graph g = import_tflite(tflite_from_graph(stack.g)).graph;
  REQUIRE(g.ops.size() == 2);
  for (const Op& op : g.ops) {
    CHECK(op.inputs.size() == 15);
    // Peephole 9-11, projection 16-17 and layer norm 20-23 absent: nine slots of 24.
    CHECK(op.attrs.at("absent_inputs") == 0xF30E00);
    CHECK(std::popcount(static_cast<uint64_t>(op.attrs.at("absent_inputs"))) == 9);
    CHECK(op.attrs.at("activation") == 4);
  }
  CHECK(g.ops[0].attrs.at("time_major") == 0);
  CHECK(g.ops[1].attrs.at("time_major") == 1);
  CHECK(g.ops[1].attrs.count("cell_clip_f32") == 1);
  // Written again, the import's graph keeps its slots.
  const Graph again = import_tflite(tflite_from_graph(g)).graph;
  for (size_t i = 0; i < g.ops.size(); ++i) CHECK(again.ops[i].inputs == g.ops[i].inputs);
  CHECK(again.ops[1].attrs == g.ops[1].attrs);
}

TEST_CASE("lstm int8, int16 and float32: model kernels, the state carried from run to run") {
  for (DType act : {DType::kInt8, DType::kInt16, DType::kFloat32}) {
    CAPTURE(static_cast<int>(act));
    const test::LstmStack stack(3, act);
    sim::SimRequest req;
    req.runs = 2;
    req.input_bytes[stack.g.tensors[stack.g.inputs[0]].name] = stack.input_bytes(4);
    const test::SimRun simulated = test::simulate_keeping_reference(stack.g, req);
    const sim::SimReport& r = simulated.report;
    const auto& reference = simulated.reference;
    CHECK(r.ok());
    CHECK(r.outputs_match_reference);
    CHECK(r.stand_ins.empty());
    const Bytes n = stack.g.tensors[stack.g.outputs[0]].bytes;
    // The same input twice: only the hidden and cell states kept from run 0 make run 1 differ.
    CHECK(std::memcmp(reference->captured(0, 0), reference->captured(1, 0), static_cast<size_t>(n)) != 0);
  }
}

TEST_CASE("lstm: what TFLM's kernel refuses is refused by name") {
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel&) {}).empty());
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel& m) {
          auto s = slots_of(m.g.ops[0]);
          s[9] = vector_operand(m, "peephole", DType::kInt16);
          set_slots(m.g.ops[0], s);
        }).find("no peephole") != std::string::npos);
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel& m) {
          auto s = slots_of(m.g.ops[0]);
          s[17] = vector_operand(m, "projection_bias", DType::kInt32);
          set_slots(m.g.ops[0], s);
        }).find("no projection") != std::string::npos);
  CHECK(refusal_after(DType::kFloat32, [](test::OneOpModel& m) {
          auto s = slots_of(m.g.ops[0]);
          s[21] = vector_operand(m, "forget_layer_norm", DType::kFloat32);
          set_slots(m.g.ops[0], s);
        }).find("no layer normalization") != std::string::npos);
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel& m) {
          auto s = slots_of(m.g.ops[0]);
          s[1] = s[5] = s[12] = -1;  // CIFG: the input gate coupled to the forget gate
          set_slots(m.g.ops[0], s);
        }).find("no CIFG") != std::string::npos);
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel& m) { m.g.ops[0].attrs["activation"] = 1; })
            .find("needs a tanh cell gate") != std::string::npos);
  CHECK(refusal_after(DType::kInt16, [](test::OneOpModel& m) {
          m.g.tensors[slots_of(m.g.ops[0])[19]].persistent = false;
        }).find("must be variable tensors") != std::string::npos);
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel& m) {
          Tensor& w = m.g.tensors[slots_of(m.g.ops[0])[2]];
          w.quant->scale.assign(16, 0.004f);
          w.quant->zero_point.assign(16, 0);
        }).find("quantized per channel") != std::string::npos);
  CHECK(refusal_after(DType::kInt16, [](test::OneOpModel& m) {
          Tensor& b = m.g.tensors[slots_of(m.g.ops[0])[13]];
          b.dtype = DType::kInt32;
          b.bytes /= 2;
        }).find("needs int64 biases") != std::string::npos);
  CHECK(refusal_after(DType::kInt8, [](test::OneOpModel& m) { m.g.ops[0].attrs.erase("absent_inputs"); })
            .find("positions of its optional operands") != std::string::npos);
}

}  // namespace arenaplan
