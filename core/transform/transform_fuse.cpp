// Operator fusion: A -> B becomes one kernel that applies B to A's result as it is written, so
// the intermediate tensor is never stored (TFLite's fused activations, folded batchnorm).
#include <algorithm>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

int parts_of(const Op& op) {
  auto it = op.attrs.find("fused_parts");
  return it == op.attrs.end() ? 1 : static_cast<int>(it->second);
}

// One fusion step: head A (possibly already fused) absorbs B.
Graph fuse_pair(const Graph& g, OpId a, OpId b, const std::string& where) {
  const Op& A = g.ops[a];
  const Op& B = g.ops[b];
  auto reject_name = [&](const Op& op) {
    if (parts_of(op) == 1 && (op.name.find('+') != std::string::npos || op.kind.find('+') != std::string::npos))
      refuse(where, "op " + op.name + " has '+' in its name or kind, which fused ops use to list their parts");
  };
  reject_name(A);
  if (parts_of(B) != 1) refuse(where, "op " + B.name + " is already fused; fuse the chain from its head instead");
  reject_name(B);
  if (A.outputs.size() != 1)
    refuse(where, "op " + A.name + " has " + std::to_string(A.outputs.size()) +
                      " outputs; only a single-output op can head a fused kernel");
  if (B.outputs.size() != 1) refuse(where, "op " + B.name + " has " + std::to_string(B.outputs.size()) + " outputs");
  const TensorId y = A.outputs[0];
  const Tensor& Y = g.tensors[y];
  const auto reads_y = std::count(B.inputs.begin(), B.inputs.end(), y);
  if (reads_y == 0) refuse(where, "op " + B.name + " does not read " + A.name + "'s output " + Y.name);
  if (reads_y > 1) refuse(where, "op " + B.name + " reads " + Y.name + " twice");
  for (OpId c : Y.consumers)
    if (c != b) refuse(where, "intermediate " + Y.name + " is also read by op " + g.ops[c].name + ", so it cannot disappear");
  if (g.is_output(y) || Y.retained || Y.persistent)
    refuse(where, "intermediate " + Y.name + " is a graph output (or retained/persistent), so it must be stored");
  if (!is_elementwise_kind(B.kind) && (A.kind == "pad" || A.kind == "padv2"))
    refuse(where, "op " + B.name + " (kind \"" + B.kind + "\") is not elementwise, so " + A.name +
                      " cannot fuse into it; to drop the padded copy fold the pad into it instead: foldpad:" + A.name);
  if (!is_elementwise_kind(B.kind))
    refuse(where, "op " + B.name + " (kind \"" + B.kind + "\") is not elementwise: a fused kernel can only apply "
                  "per-element ops to " + A.name + "'s result as it is written");
  // The fused kernel rebuilds the vanished intermediate from its size alone; a quantized model
  // tensor's scale and zero point (the requantization between the two kernels) would be lost.
  if (Y.quant)
    refuse(where, "intermediate " + Y.name + " is quantized (its scale and zero point requantize " + A.name +
                      "'s result), which a fused kernel does not carry; the outputs would differ");
  if (!A.in_place.empty() || !B.in_place.empty())
    refuse(where, "op " + (A.in_place.empty() ? B.name : A.name) +
                      " overwrites an input in place; fuse first, then make the fused op in place");
  if (B.scratch_bytes > 0)
    refuse(where, "op " + B.name + " needs scratch memory, so it is not a per-element step a kernel can fuse");
  for (const Op* op : {&A, &B})
    for (const AsyncRead& r : op->async_reads)
      if (r.tensor == y) refuse(where, "intermediate " + Y.name + " is read asynchronously by op " + op->name);
  for (TensorId z : B.inputs) {
    if (z == y) continue;
    const OpId p = g.tensors[z].producer;
    if (p >= 0 && (p == a || depends_on(g, p, a)))
      refuse(where, "input " + g.tensors[z].name + " of op " + B.name + " is computed from " + A.name +
                        "'s result, so " + B.name + " cannot run inside " + A.name + "'s kernel");
  }

  const int k = parts_of(A);  // B becomes part k
  Op F;
  F.name = A.name + "+" + B.name;
  F.kind = (A.kind.empty() ? "op" : A.kind) + "+" + (B.kind.empty() ? "op" : B.kind);
  F.attrs = A.attrs;
  const std::string prefix = std::to_string(k) + ".";
  for (const auto& [key, value] : B.attrs) F.attrs[prefix + key] = value;
  F.attrs[prefix + "slot"] = std::find(B.inputs.begin(), B.inputs.end(), y) - B.inputs.begin();
  F.attrs[prefix + "inputs"] = static_cast<int64_t>(B.inputs.size()) - 1;
  F.attrs[prefix + "bytes"] = Y.bytes;
  // The intermediate's element type: a part may change it (a float slice fused into QUANTIZE), so
  // it cannot be taken from the fused op's output. Stored as DType's ordinal (graph.h's enum order).
  if (Y.dtype) F.attrs[prefix + "dtype"] = static_cast<int64_t>(*Y.dtype);
  F.attrs["fused_parts"] = k + 1;
  F.inputs = A.inputs;
  for (TensorId z : B.inputs)
    if (z != y) F.inputs.push_back(z);
  F.outputs = B.outputs;
  F.scratch_bytes = A.scratch_bytes;
  F.async_reads = A.async_reads;
  for (const AsyncRead& r : B.async_reads) F.async_reads.push_back(r);
  if (g.find_op(F.name)) refuse(where, "an op named " + F.name + " already exists");

  Graph out = g;
  out.ops[a] = F;
  out.ops.erase(out.ops.begin() + b);
  drop_tensors(out, {y});
  return finish(std::move(out), where);
}

}  // namespace

Rewrite fuse_ops(const Graph& g, const std::vector<std::string>& chain) {
  std::string where = "fuse:";
  for (size_t i = 0; i < chain.size(); ++i) where += (i ? "," : "") + chain[i];
  if (chain.size() < 2) refuse(where, "fusion needs at least two ops");
  for (const std::string& name : chain) op_named(g, name, where);
  Graph cur = g;
  std::string head = chain[0];
  Bytes vanished = 0;
  std::string names;
  for (size_t i = 1; i < chain.size(); ++i) {
    const OpId a = *cur.find_op(head);
    const OpId b = op_named(cur, chain[i], where);
    const Tensor& y = cur.tensors[cur.ops[a].outputs.empty() ? 0 : cur.ops[a].outputs[0]];
    const std::string y_name = y.name;
    const Bytes y_bytes = y.bytes;
    cur = fuse_pair(cur, a, b, where);
    vanished += y_bytes;
    names += (names.empty() ? "" : ", ") + y_name;
    head += "+" + chain[i];
  }
  Rewrite r;
  r.graph = std::move(cur);
  r.summary = "ops run as one kernel " + head + "; intermediate " + names + " (" + format_bytes(vanished) +
              ") is never stored";
  return r;
}

}  // namespace arenaplan
