// Channel streaming of a pointwise -> depthwise pair (an inverted-residual block's expansion and
// its depthwise conv, as TinyEngine and MCUNetV2 run them): for each channel c, the 1x1 conv's
// output plane c goes to a one-plane scratch and the depthwise conv's output channel c is computed
// from it. The expanded tensor, usually the largest of the block, is never stored; the MACs stay
// those of the two convs. The simulator's kernel: core/sim/kernels_stream.cpp (its header comment
// gives the op's attrs).
//
// A PAD between the two must be folded into the depthwise first (foldpad:PAD), which the search
// finds as a two-step sequence; the depthwise's explicit padding then travels with its attrs.
#include <algorithm>
#include <cstring>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

const char* const kStreamKind = "pointwise_depthwise_stream";

// The reasons an op cannot be one end of the pair, common to both.
void check_part(const Graph& g, const Op& op, OpFamily family, const char* what, const std::string& where) {
  if (op.kind.find('+') != std::string::npos || op.attrs.count("fused_parts") || op.kind == kStreamKind)
    refuse(where, "op " + op.name + " is already fused or streamed; stream the two convs before fusing");
  if (op_family(op.kind) != family)
    refuse(where, "op " + op.name + " (kind \"" + op.kind + "\") is not a " + what);
  if (!op.in_place.empty()) refuse(where, "op " + op.name + " runs in place; stream first, then make other ops in place");
  if (op.outputs.size() != 1 || op.inputs.size() < 2 || op.inputs.size() > 3)
    refuse(where, "op " + op.name + " needs an activation, weights, an optional bias and one output");
  for (size_t i = 1; i < op.inputs.size(); ++i)
    if (!g.tensors[op.inputs[i]].constant)
      refuse(where, "op " + op.name + "'s " + (i == 1 ? "weights " : "bias ") + g.tensors[op.inputs[i]].name +
                        " are not constant");
  const int64_t activation = attr_of(op, "activation", 0);
  if (activation < 0 || activation > 3)
    refuse(where, "op " + op.name + " has fused activation " + std::to_string(activation) +
                      "; the streamed kernel honours none, relu, relu_n1_to_1 and relu6");
  for (TensorId t : {op.inputs[0], op.outputs[0]})
    if (!model_activation(g.tensors[t]) || g.tensors[t].shape.size() != 4)
      refuse(where, "op " + op.name + "'s tensor " + g.tensors[t].name +
                        " is not an NHWC int8 tensor with per-tensor quantization nor float32: the streamed kernel "
                        "runs the model kernels' arithmetic only");
}

}  // namespace

Rewrite stream_pointwise_depthwise(const Graph& g, const std::string& pw_name, const std::string& dw_name) {
  const std::string where = "stream:" + pw_name + "," + dw_name;
  const OpId p = op_named(g, pw_name, where), d = op_named(g, dw_name, where);
  const Op& pw = g.ops[p];
  const Op& dw = g.ops[d];
  check_part(g, pw, OpFamily::kConv, "conv (the pointwise expansion)", where);
  check_part(g, dw, OpFamily::kDepthwiseConv, "depthwise conv", where);

  const TensorId x = pw.inputs[0], mid = pw.outputs[0], y = dw.outputs[0];
  const Tensor& X = g.tensors[x];
  const Tensor& M = g.tensors[mid];
  const Tensor& Y = g.tensors[y];
  const auto xd = dims_of(X), md = dims_of(M), yd = dims_of(Y);
  const auto w1 = dims_of(g.tensors[pw.inputs[1]]), w2 = dims_of(g.tensors[dw.inputs[1]]);
  if (w1.size() != 4 || w1[1] != 1 || w1[2] != 1 || w1[3] != xd[3])
    refuse(where, "op " + pw.name + " is not a pointwise conv (1x1 window over all input channels, no groups)");
  if (has_padding(pw)) refuse(where, "op " + pw.name + " is padded; a pointwise conv's plane has no border");

  // The intermediate must vanish: the depthwise is its only reader.
  if (g.is_output(mid) || M.retained || M.persistent)
    refuse(where, "intermediate " + M.name + " is a graph output (or retained/persistent), so it must be stored");
  for (const Op& other : g.ops)
    for (const AsyncRead& a : other.async_reads)
      if (a.tensor == mid) refuse(where, "intermediate " + M.name + " is read asynchronously by op " + other.name);
  for (OpId c : M.consumers) {
    if (c == d) continue;
    const Op& reader = g.ops[c];
    if (reader.kind == "pad" || reader.kind == "padv2")
      refuse(where, "intermediate " + M.name + " is read by PAD " + reader.name + ", not by " + dw.name +
                        "; fold the pad into " + dw.name + " first (foldpad:" + reader.name + ")");
    refuse(where, "intermediate " + M.name + " is also read by op " + reader.name + ", so it cannot vanish");
  }
  if (M.consumers.empty() || dw.inputs[0] != mid || std::count(dw.inputs.begin(), dw.inputs.end(), mid) != 1)
    refuse(where, "op " + dw.name + " does not read " + pw.name + "'s output " + M.name + " as its activation");

  if (yd[3] != md[3] || w2.size() != 4 || w2[3] != md[3])
    refuse(where, "op " + dw.name + " has depth multiplier " + std::to_string(md[3] ? yd[3] / md[3] : 0) +
                      "; streaming computes output channel c from plane c alone (multiplier 1)");
  if (X.dtype != M.dtype || M.dtype != Y.dtype)
    refuse(where, "ops " + pw.name + " and " + dw.name + " do not share one element type");

  // The streamed op: the pointwise's inputs then the depthwise's weights and bias; the
  // depthwise's attrs under "1." as a fused op's part 1.
  Graph out = g;
  Op s;
  s.name = pw.name + "+" + dw.name;
  s.kind = kStreamKind;
  s.inputs = pw.inputs;
  s.inputs.insert(s.inputs.end(), dw.inputs.begin() + 1, dw.inputs.end());
  s.outputs = dw.outputs;
  s.attrs = pw.attrs;
  for (const auto& [key, value] : dw.attrs) s.attrs["1." + key] = value;
  s.attrs["pw_inputs"] = static_cast<int64_t>(pw.inputs.size());
  s.attrs["mid_h"] = md[1];
  s.attrs["mid_w"] = md[2];
  if (M.dtype == DType::kInt8) {
    uint32_t bits;
    std::memcpy(&bits, &M.quant->scale[0], 4);
    s.attrs["mid_scale"] = bits;
    s.attrs["mid_zero_point"] = M.quant->zero_point[0];
  }
  s.attrs["streamed"] = 1;  // needs a kernel stock TFLM does not have
  // One plane, sized with the depthwise's border as a firmware kernel that copies each channel into
  // a bordered buffer needs it (the simulator's kernel skips border taps and uses the interior).
  const int64_t ph = attr_of(dw, "pad_h", 0), pwd = attr_of(dw, "pad_w", 0);
  const Bytes plane = (md[1] + ph + attr_of(dw, "pad_bottom", ph)) * (md[2] + pwd + attr_of(dw, "pad_right", pwd)) *
                      dtype_width(*M.dtype);
  s.scratch_bytes = plane + std::max(pw.scratch_bytes, dw.scratch_bytes);
  s.attrs["plane_bytes"] = plane;
  out.ops[p] = s;
  out.ops.erase(out.ops.begin() + d);
  drop_tensors(out, {mid});

  Rewrite r;
  r.graph = finish(std::move(out), where);
  r.summary = pw.name + " and " + dw.name + " run channel by channel: each of " + M.name + "'s " +
              std::to_string(md[3]) + " planes goes through a " + format_bytes(plane) + " scratch plane into " +
              dw.name + "'s output channel, so " + M.name + " (" + format_bytes(M.bytes) +
              ") is never stored; no extra MACs; needs a streamed pointwise+depthwise kernel stock TFLM does not have";
  r.figures["vanished_bytes"] = M.bytes;
  r.figures["plane_bytes"] = plane;
  return r;
}

}  // namespace arenaplan
