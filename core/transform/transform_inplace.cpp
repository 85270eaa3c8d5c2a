// In-place execution: an elementwise (or reshape) op writes its output over an input that dies at
// that op, so the two tensors share one buffer.
#include <algorithm>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

// Kernels that read each input element before writing the output element at the same place (or
// copy bytes unchanged), so writing over the input is safe.
bool in_place_capable(const std::string& kind) {
  for (const std::string& part : split(kind, '+'))
    if (const OpFamily f = op_family(part); f != OpFamily::kElementwise && f != OpFamily::kReshape && f != OpFamily::kSoftmax)
      return false;
  return true;
}

// Why `x` cannot be overwritten by op `o`, or "" when it can (in the current file order).
std::string why_not(const Graph& g, OpId o, TensorId x, TensorId y) {
  const Op& op = g.ops[o];
  const Tensor& X = g.tensors[x];
  const Tensor& Y = g.tensors[y];
  if (X.constant) return "input " + X.name + " is a constant (weights in flash)";
  if (X.persistent || X.retained || g.is_output(x))
    return "input " + X.name + " must stay intact (persistent, retained or a graph output)";
  if (g.is_input(x) && g.input_policy != InputPolicy::kInArena)
    return "input " + X.name + " is a graph input that is caller-owned or retained, not an arena buffer to reuse";
  if (Y.bytes > X.bytes)
    return "output " + Y.name + " (" + format_bytes(Y.bytes) + ") does not fit in input " + X.name + " (" +
           format_bytes(X.bytes) + ")";
  for (const Op& other : g.ops)
    for (const AsyncRead& a : other.async_reads)
      if (a.tensor == x && a.extra_steps > 0)
        return "input " + X.name + " is still read asynchronously by op " + other.name;
  for (OpId q : X.consumers) {
    if (q == o) continue;
    if (depends_on(g, q, o))
      return "input " + X.name + " is still read by op " + g.ops[q].name + ", which needs " + op.name +
             "'s result first, so no order lets " + op.name + " overwrite it";
    if (q > o)
      return "input " + X.name + " is still read by op " + g.ops[q].name + ", which runs after " + op.name +
             " (step " + std::to_string(q) + " > " + std::to_string(o) + "); run " + g.ops[q].name +
             " first (order:...) to make it legal";
  }
  return "";
}

}  // namespace

Rewrite make_in_place(const Graph& g, const std::string& op_name, const std::string& input) {
  const std::string where = "inplace:" + op_name + (input.empty() ? "" : "=" + input);
  const OpId o = op_named(g, op_name, where);
  const Op& op = g.ops[o];
  if (!in_place_capable(op.kind))
    refuse(where, "op " + op.name + " (kind \"" + op.kind + "\") is not elementwise: it reads neighbouring "
                  "input elements after writing output ones, so only elementwise and reshape kinds may overwrite "
                  "their input");
  if (op.outputs.size() != 1)
    refuse(where, "op " + op.name + " has " + std::to_string(op.outputs.size()) + " outputs; in-place needs one");
  const TensorId y = op.outputs[0];
  if (!op.in_place.empty()) refuse(where, "op " + op.name + " already runs in place");

  std::vector<TensorId> candidates;
  if (!input.empty()) {
    const TensorId x = tensor_named(g, input, where);
    if (std::find(op.inputs.begin(), op.inputs.end(), x) == op.inputs.end())
      refuse(where, input + " is not an input of op " + op.name);
    candidates.push_back(x);
  } else {
    candidates = op.inputs;
  }
  std::string reasons;
  for (TensorId x : candidates) {
    const std::string why = why_not(g, o, x, y);
    if (!why.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + why;
      continue;
    }
    Graph out = g;
    out.ops[o].in_place.push_back({y, x});
    Rewrite r;
    r.graph = finish(std::move(out), where);
    r.summary = "op " + op.name + " writes " + g.tensors[y].name + " over " + g.tensors[x].name + " (" +
                format_bytes(g.tensors[x].bytes) + "): one buffer instead of two";
    return r;
  }
  refuse(where, reasons.empty() ? "op " + op.name + " has no input to overwrite" : reasons);
}

bool may_run_in_place(const Graph& g, OpId op) { return in_place_capable(g.ops[op].kind); }

}  // namespace arenaplan
