// Identity ops as views: an op whose output holds exactly its input's bytes (a SPLIT or SPLIT_V
// into one part, a CONCATENATION of one tensor, a SLICE or STRIDED_SLICE that keeps everything, a
// QUANTIZE to the same type and parameters, a PAD of nothing, a TRANSPOSE by the identity) copies
// a tensor that the arena then holds twice while both are live. The rewrite removes the op; its
// consumers read the input. Nothing is computed differently, so outputs stay bit-exact, and stock
// TFLM runs the rewritten model (the op is gone, not replaced by a custom kernel).
//
// Not views here: RESHAPE, SQUEEZE and EXPAND_DIMS change the shape the consumers read (they run
// in place instead: inplace:OP), and a graph output keeps its producer, so the model's interface
// (which tensor the application reads) never changes.
#include <algorithm>
#include <cctype>

#include "core/transform/detail/transform_internal.h"
#include "core/transform/transform.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

// Per-channel parameters must also run along the same dimension.
bool same_quantization_and_axis(const Tensor& a, const Tensor& b) {
  return same_quantization(a, b) && (!a.quant || a.quant->scale.size() <= 1 || a.quant->axis == b.quant->axis);
}

// The op's tensor inputs that are not constants (operands such as an axis or paddings are).
std::vector<TensorId> data_inputs(const Graph& g, const Op& op) {
  std::vector<TensorId> out;
  for (TensorId t : op.inputs)
    if (!g.tensors[t].constant) out.push_back(t);
  return out;
}

bool all_equal(const std::vector<int64_t>& values, int64_t v) {
  return std::all_of(values.begin(), values.end(), [&](int64_t x) { return x == v; });
}

// Why the op is no identity of its data input, given that input and output have one shape, type
// and quantization; "" when it is one.
std::string why_not_identity(const Graph& g, const Op& op, const std::string& where) {
  const std::string& k = op.kind;
  if (k == "split" || k == "split_v")
    return op.outputs.size() == 1 ? "" : "it splits into " + std::to_string(op.outputs.size()) + " parts";
  if (k == "concatenation" || k == "concat")
    return data_inputs(g, op).size() == 1 && op.inputs.size() == 1 ? "" : "it joins several tensors";
  if (k == "quantize" || k == "requantize") return "";  // same type and parameters: checked by the caller
  if (k == "slice" || k == "strided_slice") {
    // Same shape in and out: a slice keeps everything when it starts at 0 and steps by 1 (a
    // negative stride would reverse the tensor in the same shape).
    if (op.inputs.size() < 2) return "it has no begin operand";
    if (!all_equal(constant_ints(g.tensors[op.inputs[1]], where, "begin"), 0)) return "it does not start at 0";
    if (k == "strided_slice" && op.inputs.size() > 3 &&
        !all_equal(constant_ints(g.tensors[op.inputs[3]], where, "strides"), 1))
      return "its strides are not all 1";
    return "";
  }
  if (k == "pad" || k == "padv2" || k == "mirror_pad") {
    if (op.inputs.size() < 2) return "it has no paddings operand";
    return all_equal(constant_ints(g.tensors[op.inputs[1]], where, "paddings"), 0) ? "" : "it pads";
  }
  if (k == "transpose") {
    if (op.inputs.size() < 2) return "it has no permutation operand";
    const std::vector<int64_t> perm = constant_ints(g.tensors[op.inputs[1]], where, "perm");
    for (size_t i = 0; i < perm.size(); ++i)
      if (perm[i] != static_cast<int64_t>(i)) return "its permutation is not the identity";
    return "";
  }
  return "kind \"" + k + "\" is no copy of its input (views: split, split_v, concatenation, slice, strided_slice, "
         "quantize, pad, transpose that keep every byte)";
}

}  // namespace

Rewrite view_of_input(const Graph& g, const std::string& op_name) {
  const std::string where = "view:" + op_name;
  const OpId o = op_named(g, op_name, where);
  const Op& op = g.ops[o];
  const std::vector<TensorId> ins = data_inputs(g, op);
  if (ins.size() != 1 || op.outputs.size() != 1)
    refuse(where, "a view reads one tensor and writes one; op " + op.name + " reads " + std::to_string(ins.size()) +
                      " and writes " + std::to_string(op.outputs.size()));
  const TensorId x = ins[0], y = op.outputs[0];
  const Tensor& X = g.tensors[x];
  const Tensor& Y = g.tensors[y];
  if (X.bytes != Y.bytes || X.dtype != Y.dtype || dims_of(X) != dims_of(Y) || !same_quantization_and_axis(X, Y))
    refuse(where, "op " + op.name + "'s output " + Y.name + " differs from its input " + X.name +
                      " in size, shape, type or quantization, so its bytes are not the input's");
  if (const std::string why = why_not_identity(g, op, where); !why.empty())
    refuse(where, "op " + op.name + " is no identity: " + why);
  if (g.is_output(y) || Y.retained || Y.persistent)
    refuse(where, "tensor " + Y.name + " is a graph output (or retained/persistent): the application reads it by "
                  "that name, so it keeps its own buffer");
  if (X.persistent) refuse(where, "input " + X.name + " is persistent state, which its readers may overwrite");

  Graph out = g;
  for (Op& consumer : out.ops) {
    std::replace(consumer.inputs.begin(), consumer.inputs.end(), y, x);
    for (AsyncRead& a : consumer.async_reads)
      if (a.tensor == y) a.tensor = x;
    for (InPlace& p : consumer.in_place)
      if (p.input == y) p.input = x;
  }
  out.ops.erase(out.ops.begin() + o);
  std::set<TensorId> drop{y};
  for (TensorId t : op.inputs)
    if (t != x && g.tensors[t].consumers.size() == 1 && !g.is_output(t) && !g.is_input(t)) drop.insert(t);
  drop_tensors(out, drop);
  Rewrite r;
  r.graph = finish(std::move(out), where);
  std::string kind = op.kind;
  std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::toupper(c); });
  r.summary = kind + " " + op.name + " only copies " + X.name + ": removed, its readers read " + X.name + " itself, so " + Y.name + " (" +
              format_bytes(Y.bytes) + ") is never stored; stock TFLM runs the result";
  r.figures["vanished_bytes"] = Y.bytes;
  return r;
}

std::vector<std::string> view_candidates(const Graph& g) {
  return legal_op_specs(g, "view", [](const Op&) { return true; }, view_of_input);
}

}  // namespace arenaplan
