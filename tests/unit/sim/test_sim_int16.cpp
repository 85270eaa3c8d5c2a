// int16 activations with int8 weights (TFLM's 16x8 kernels): int16_conv_fc's bytes against TFLM's
// are in test_sim_models.cpp; here every op of that stack runs a model kernel, and what TFLM's
// kernels refuse or read differently is refused by name.
#include <doctest/doctest.h>

#include <string>

#include "core/sim/sim.h"
#include "tests/unit/tflm_fixture_models.h"

namespace arenaplan {
namespace {

// The stand-in note of the op named `op` after a change to the stack (empty: a model kernel).
template <class Change>
std::string refusal_of(const std::string& op, Change&& change) {
  test::Int16Stack m(20261208);
  change(m.g);
  link_tensors(m.g);
  for (size_t i = 0; i < m.g.ops.size(); ++i)
    if (m.g.ops[i].name == op) {
      const sim::KernelPlan p = sim::plan_kernel(m.g, static_cast<OpId>(i));
      return p.stand_in ? p.note : std::string();
    }
  FAIL("no op " << op);
  return "";
}

const Op& op_named(const Graph& g, const std::string& name) {
  for (const Op& op : g.ops)
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}

}  // namespace

TEST_CASE("int16 stack: conv, depthwise, add, mul, split, concatenation, FC and softmax all run model kernels") {
  const test::Int16Stack m(20261208);
  for (const Op& op : m.g.ops) {
    CAPTURE(op.name);
    const sim::KernelPlan p = sim::plan_kernel(m.g, static_cast<OpId>(&op - m.g.ops.data()));
    CHECK_FALSE(p.stand_in);
  }
}

TEST_CASE("int16: what TFLM's 16x8 kernels refuse or read differently is refused by name") {
  CHECK(refusal_of("depthwise", [](Graph&) {}).empty());
  // TFLM's int16 depthwise reads its bias as int64 whatever its type.
  CHECK(refusal_of("depthwise", [](Graph& g) {
          Tensor& b = g.tensors[op_named(g, "depthwise").inputs[2]];
          b.dtype = DType::kInt32;
          b.bytes /= 2;
        }).find("reads its bias as int64") != std::string::npos);
  CHECK(refusal_of("gate", [](Graph& g) { g.tensors[op_named(g, "gate").outputs[0]].quant->zero_point = {3}; })
            .find("int16 mul needs zero points 0") != std::string::npos);
  CHECK(refusal_of("softmax", [](Graph& g) { g.tensors[op_named(g, "softmax").outputs[0]].quant->scale = {1.f / 65536}; })
            .find("int16 softmax needs zero points 0 and output scale 1/32768") != std::string::npos);
  CHECK(refusal_of("fc1", [](Graph& g) {
          Tensor& b = g.tensors[op_named(g, "fc1").inputs[2]];
          b.dtype = DType::kInt16;
          b.bytes /= 4;
        }).find("bias") != std::string::npos);
}

}  // namespace arenaplan
