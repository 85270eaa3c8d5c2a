// In-place execution: an op writes its output over an input that dies at that op, so the two
// tensors share one buffer. Elementwise and reshape kinds do it element by element; two window
// kernels do it through a temporary in the op's scratch (the simulator's in-place conv kernels,
// core/sim/kernels_conv.cpp): depthwise conv channel by channel (a one-channel temporary) and
// pointwise 1x1 conv pixel by pixel (a Cout-element temporary, Cout <= Cin).
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

// True for a conv or depthwise conv whose activation is a model activation: the simulator runs it
// with the model kernels, which have the in-place variants. The simplified kernels of hand-written
// graphs do not.
bool model_window_op(const Graph& g, const Op& op) {
  const OpFamily f = op_family(op.kind);
  if ((f != OpFamily::kDepthwiseConv && f != OpFamily::kConv) || op.inputs.empty()) return false;
  return model_activation(g.tensors[op.inputs[0]]);
}

// For a depthwise or pointwise conv: why its kernel cannot overwrite input x with these shapes
// ("" when it can), and the temporary it needs (bytes) in `temp`.
std::string why_not_window(const Graph& g, const Op& op, TensorId x, Bytes& temp) {
  const bool depthwise = op_family(op.kind) == OpFamily::kDepthwiseConv;
  if (op.kind.find('+') != std::string::npos)
    return "op " + op.name + " is fused; the in-place conv kernels run one conv (its fused activation attr included)";
  if (op.inputs.empty() || op.inputs[0] != x)
    return "a conv can only overwrite its activation input (the first), not " + g.tensors[x].name;
  if (op.inputs.size() < 2) return "op " + op.name + " has no weights input";
  const Tensor& X = g.tensors[x];
  const Tensor& Y = g.tensors[op.outputs[0]];
  const Tensor& W = g.tensors[op.inputs[1]];
  const auto xd = dims_of(X), yd = dims_of(Y), wd = dims_of(W);
  if (xd.size() != 4 || yd.size() != 4 || wd.size() != 4 || !X.dtype || X.dtype != Y.dtype)
    return "op " + op.name + " needs NHWC input and output of one type and [.,KH,KW,.] weights to run in place";
  const int64_t width = dtype_width(*Y.dtype);
  if (depthwise) {
    if (yd[3] != xd[3])
      return "op " + op.name + " has depth multiplier " + std::to_string(xd[3] ? yd[3] / xd[3] : 0) +
             "; in place, output channel c must overwrite input channel c (multiplier 1)";
    temp = yd[0] * yd[1] * yd[2] * width;  // one output channel
  } else {
    const bool pads = has_padding(op);
    if (wd[1] != 1 || wd[2] != 1 || pads)
      return "op " + op.name + " is a " + std::to_string(wd[1]) + "x" + std::to_string(wd[2]) + " conv" +
             (pads ? " with padding" : "") + "; only a pointwise (1x1, unpadded) conv runs in place, pixel by pixel";
    if (yd[3] > xd[3])
      return "op " + op.name + " has more output channels (" + std::to_string(yd[3]) + ") than input channels (" +
             std::to_string(xd[3]) + "), so pixel p's outputs would overwrite input pixels not read yet";
    temp = yd[3] * width;  // one output pixel
  }
  if (yd[1] * yd[2] > xd[1] * xd[2] || yd[0] != xd[0])
    return "output " + Y.name + " has more pixels than input " + X.name;
  return "";
}

}  // namespace

Rewrite make_in_place(const Graph& g, const std::string& op_name, const std::string& input) {
  const std::string where = "inplace:" + op_name + (input.empty() ? "" : "=" + input);
  const OpId o = op_named(g, op_name, where);
  const Op& op = g.ops[o];
  const OpFamily family = op_family(op.kind);
  const bool window = model_window_op(g, op);
  if (!window && !in_place_capable(op.kind))
    refuse(where, "op " + op.name + " (kind \"" + op.kind + "\") is not elementwise: it reads neighbouring "
                  "input elements after writing output ones, so only elementwise and reshape kinds may overwrite "
                  "their input, and depthwise and pointwise (1x1) convs through a temporary when they run the model "
                  "kernels (quantized int8 or float32 tensors)");
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
  } else if (window) {
    candidates = {op.inputs[0]};  // weights and bias are constants: only the activation can be overwritten
  } else {
    candidates = op.inputs;
  }
  std::string reasons;
  for (TensorId x : candidates) {
    Bytes temp = 0;
    std::string why = window ? why_not_window(g, op, x, temp) : "";
    if (why.empty()) why = why_not(g, o, x, y);
    if (!why.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + why;
      continue;
    }
    Graph out = g;
    out.ops[o].in_place.push_back({y, x});
    // The kernel's temporary joins the op's scratch (live only while the op runs).
    out.ops[o].scratch_bytes += temp;
    if (window) out.ops[o].attrs["in_place_temp_bytes"] = temp;
    Rewrite r;
    r.graph = finish(std::move(out), where);
    r.summary = "op " + op.name + " writes " + g.tensors[y].name + " over " + g.tensors[x].name + " (" +
                format_bytes(g.tensors[x].bytes) + "): one buffer instead of two";
    if (window)
      r.summary += std::string(", through a ") + format_bytes(temp) + " temporary (" +
                   (family == OpFamily::kDepthwiseConv ? "one channel" : "one pixel") +
                   "); needs an in-place conv kernel stock TFLM does not have";
    // An output smaller than its input (stride 2, fewer channels) inherits the input's whole
    // buffer for the rest of its life: the arena cannot shrink an allocation.
    if (window && g.tensors[y].bytes < g.tensors[x].bytes)
      r.summary += "; the shared buffer keeps " + g.tensors[x].name + "'s " + format_bytes(g.tensors[x].bytes) +
                   " until " + g.tensors[y].name + " (" + format_bytes(g.tensors[y].bytes) + ") dies";
    return r;
  }
  refuse(where, reasons.empty() ? "op " + op.name + " has no input to overwrite" : reasons);
}

bool may_run_in_place(const Graph& g, OpId op) {
  return model_window_op(g, g.ops[op]) || in_place_capable(g.ops[op].kind);
}

}  // namespace arenaplan
