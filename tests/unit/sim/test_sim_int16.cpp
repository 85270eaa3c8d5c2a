// int16 activations with int8 weights (TFLM's 16x8 kernels): int16_conv_fc's bytes against TFLM's
// are in test_sim_models.cpp; here every op of that stack runs a model kernel, and what TFLM's
// kernels refuse or read differently is refused by name.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_write.h"
#include "tests/unit/tflm_fixture_models.h"

namespace arenaplan {
namespace {

// The stack as the simulator gets it: written as .tflite and imported.
Graph imported_stack() { return import_tflite(tflite_from_graph(test::Int16Stack(20261208).g)).graph; }

// The first op of `kind`.
OpId first_of(const Graph& g, const std::string& kind) {
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].kind == kind) return static_cast<OpId>(i);
  throw std::runtime_error("no op of kind " + kind);
}

// The stand-in note of the first op of `kind` after a change to the stack (empty: a model kernel).
template <class Change>
std::string refusal_of(const std::string& kind, Change&& change) {
  Graph g = imported_stack();
  change(g, g.ops[first_of(g, kind)]);
  link_tensors(g);
  const sim::KernelPlan p = sim::plan_kernel(g, first_of(g, kind));
  return p.stand_in ? p.note : std::string();
}

}  // namespace

TEST_CASE("int16 stack: conv, depthwise, add, relu, mul, relu6, split, concatenation, FC and softmax all run model kernels") {
  const Graph g = imported_stack();
  REQUIRE(g.ops.size() == 12);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    CAPTURE(g.ops[i].name);
    CHECK_FALSE(sim::plan_kernel(g, static_cast<OpId>(i)).stand_in);
  }
}

TEST_CASE("int16: what TFLM's 16x8 kernels refuse or read differently is refused by name") {
  CHECK(refusal_of("depthwise_conv_2d", [](Graph&, Op&) {}).empty());
  // TFLM's int16 depthwise reads its bias as int64 whatever its type.
  CHECK(refusal_of("depthwise_conv_2d", [](Graph& g, Op& op) {
          Tensor& b = g.tensors[op.inputs[2]];
          b.dtype = DType::kInt32;
          b.bytes /= 2;
        }).find("reads its bias as int64") != std::string::npos);
  CHECK(refusal_of("mul", [](Graph& g, Op& op) { g.tensors[op.outputs[0]].quant->zero_point = {3}; })
            .find("int16 mul needs zero points 0") != std::string::npos);
  CHECK(refusal_of("softmax", [](Graph& g, Op& op) { g.tensors[op.outputs[0]].quant->scale = {1.f / 65536}; })
            .find("int16 softmax needs zero points 0 and output scale 1/32768") != std::string::npos);
  CHECK(refusal_of("relu", [](Graph& g, Op& op) { g.tensors[op.inputs[0]].quant->zero_point = {1}; })
            .find("int16 relu needs zero points 0") != std::string::npos);
  CHECK(refusal_of("fully_connected", [](Graph& g, Op& op) {
          Tensor& b = g.tensors[op.inputs[2]];
          b.dtype = DType::kInt16;
          b.bytes /= 4;
        }).find("bias") != std::string::npos);
}

}  // namespace arenaplan
