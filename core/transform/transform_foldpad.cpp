// Pad folding: a PAD/PADV2 whose only consumer is a conv, depthwise conv or pool disappears; the
// consumer reads the PAD's input and treats the border as the pad value (TinyEngine-style kernels
// do this). The padded copy, which coexisted with its input, is never stored.
//
// How the consumer keeps its meaning:
//   conv / depthwise  the pad amounts add to its explicit padding (pad_h = top, pad_w = left,
//                     pad_bottom, pad_right): these kernels read padding as the input's zero
//                     point, so the fold is exact only when the pad value is that zero point (int8)
//                     or 0.0 (float32); anything else is refused.
//   max / avg pool    attrs fold_pad_top/_left/_bottom/_right and fold_pad_value (the int8 value, or
//                     a float's bit pattern): the kernel reads those border cells as the value and
//                     average pooling counts them in its divisor, as it did when they were stored.
//                     The pool's own padding stays outside them (skipped, not counted).
// Every folded op gets attr "folded_pad" = 1: it needs a kernel stock TFLM does not have.
#include <algorithm>
#include <cstring>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

bool is_pad_kind(const std::string& kind) { return kind == "pad" || kind == "padv2"; }

// The pad value as an int8 or as a float's bit pattern, and whether it equals "nothing" for a
// conv (the zero point, or 0.0f).
struct PadValue {
  int64_t stored = 0;      // int8 value, or float bits
  bool is_neutral = false;  // reads as zero contribution in a conv sum
  std::string text;         // for messages
};

PadValue pad_value_of(const Graph& g, const Op& pad, const Tensor& out, const std::string& where) {
  PadValue v;
  const bool int8 = out.dtype == DType::kInt8;
  if (!int8 && out.dtype != DType::kFloat32)
    refuse(where, "op " + pad.name + " pads " + (out.dtype ? dtype_name(*out.dtype) : "untyped") +
                      " data; folding handles int8 and float32");
  if (int8 && (!out.quant || out.quant->zero_point.size() != 1))
    refuse(where, "op " + pad.name + "'s output " + out.name + " has no per-tensor quantization");
  const int64_t zp = int8 ? out.quant->zero_point[0] : 0;
  if (pad.inputs.size() > 2) {  // PADV2: the constant_values operand
    const Tensor& c = g.tensors[pad.inputs[2]];
    if (!c.constant || !c.data || c.dtype != out.dtype || c.data->size() < static_cast<size_t>(dtype_width(*out.dtype)))
      refuse(where, "op " + pad.name + "'s constant_values " + c.name + " is not constant data of the output type");
    if (int8) {
      v.stored = static_cast<int8_t>((*c.data)[0]);
    } else {
      uint32_t bits;
      std::memcpy(&bits, c.data->data(), 4);
      v.stored = bits;
    }
  } else {
    v.stored = int8 ? zp : 0;  // PAD: the output's zero point, or 0.0f
  }
  if (int8) {
    v.is_neutral = v.stored == zp;
    v.text = std::to_string(v.stored) + " (zero point " + std::to_string(zp) + ")";
  } else {
    float f;
    const uint32_t bits = static_cast<uint32_t>(v.stored);
    std::memcpy(&f, &bits, 4);
    v.is_neutral = f == 0.0f;
    v.text = std::to_string(f);
  }
  return v;
}

}  // namespace

Rewrite fold_pad(const Graph& g, const std::string& pad_name) {
  const std::string where = "foldpad:" + pad_name;
  const OpId p = op_named(g, pad_name, where);
  const Op& pad = g.ops[p];
  if (!is_pad_kind(pad.kind))
    refuse(where, "op " + pad.name + " (kind \"" + pad.kind + "\") is not a PAD or PADV2");
  if (pad.inputs.size() < 2 || pad.outputs.size() != 1)
    refuse(where, "op " + pad.name + " needs an input, its paddings and one output");
  if (!pad.in_place.empty()) refuse(where, "op " + pad.name + " runs in place");
  const TensorId x = pad.inputs[0], y = pad.outputs[0];
  const Tensor& X = g.tensors[x];
  const Tensor& Y = g.tensors[y];
  if (g.is_output(y) || Y.retained || Y.persistent)
    refuse(where, "padded tensor " + Y.name + " is a graph output (or retained/persistent), so it must be stored");
  if (Y.consumers.size() != 1)
    refuse(where, "padded tensor " + Y.name + " is read by " + std::to_string(Y.consumers.size()) +
                      " ops; folding needs exactly one consumer");
  const OpId c = Y.consumers[0];
  const Op& consumer = g.ops[c];
  const OpFamily family = op_family(consumer.kind);
  const bool conv = family == OpFamily::kConv || family == OpFamily::kDepthwiseConv;
  const bool pool = family == OpFamily::kMaxPool || family == OpFamily::kAvgPool;
  if (!conv && !pool)
    refuse(where, "consumer " + consumer.name + " (kind \"" + consumer.kind +
                      "\") is not a conv, depthwise conv or max/average pool, which can read a border as the pad value");
  if (consumer.inputs.empty() || consumer.inputs[0] != y ||
      std::count(consumer.inputs.begin(), consumer.inputs.end(), y) != 1)
    refuse(where, "consumer " + consumer.name + " does not read " + Y.name + " as its (only) activation input");
  if (!consumer.in_place.empty())
    refuse(where, "consumer " + consumer.name + " runs in place; fold the pad first, then make it in place");
  for (const Op& op : g.ops)
    for (const AsyncRead& a : op.async_reads)
      if (a.tensor == y) refuse(where, "padded tensor " + Y.name + " is read asynchronously by op " + op.name);

  const std::vector<int64_t> xd = dims_of(X), yd = dims_of(Y);
  if (xd.size() != 4 || yd.size() != 4 || X.dtype != Y.dtype)
    refuse(where, "op " + pad.name + " must pad an NHWC (rank 4) tensor without changing its type");
  const std::vector<int64_t> pads = constant_ints(g.tensors[pad.inputs[1]], where, "paddings");
  if (pads.size() != 8) refuse(where, "paddings of op " + pad.name + " must be [4, 2]");
  for (int d = 0; d < 4; ++d)
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0 || xd[d] + pads[2 * d] + pads[2 * d + 1] != yd[d])
      refuse(where, "paddings of op " + pad.name + " do not give the shape of " + Y.name);
  if (pads[0] || pads[1] || pads[6] || pads[7])
    refuse(where, "op " + pad.name + " pads the batch or channel dimension; only height and width padding folds "
                  "into a window op");
  if (!same_quantization(X, Y))
    refuse(where, "op " + pad.name + "'s input " + X.name + " and output " + Y.name +
                      " are quantized differently, so " + consumer.name + " cannot read " + X.name + "'s bytes as " +
                      Y.name + "'s");
  const PadValue value = pad_value_of(g, pad, Y, where);
  if (conv && !value.is_neutral)
    refuse(where, "the pad value " + value.text + " is not the zero point of " + consumer.name +
                      "'s input: a conv reads its padding as the zero point, so the fold would change the output");

  Graph out = g;
  Op& op = out.ops[c];
  op.inputs[0] = x;
  const int64_t top = pads[2], bottom = pads[3], left = pads[4], right = pads[5];
  auto attr = [&](const char* name, int64_t fallback) { return attr_of(op, name, fallback); };
  if (conv) {
    const int64_t ph = attr("pad_h", 0), pw = attr("pad_w", 0);
    op.attrs["pad_bottom"] = attr("pad_bottom", ph) + bottom;
    op.attrs["pad_right"] = attr("pad_right", pw) + right;
    op.attrs["pad_h"] = ph + top;
    op.attrs["pad_w"] = pw + left;
    if (op.attrs.count("padding_same")) op.attrs["padding_same"] = 0;
  } else {
    if (attr("fold_pad_top", 0) || attr("fold_pad_left", 0) || attr("fold_pad_bottom", 0) || attr("fold_pad_right", 0))
      refuse(where, "pool " + consumer.name + " already reads a folded pad");
    op.attrs["fold_pad_top"] = top;
    op.attrs["fold_pad_left"] = left;
    op.attrs["fold_pad_bottom"] = bottom;
    op.attrs["fold_pad_right"] = right;
    op.attrs["fold_pad_value"] = value.stored;
  }
  op.attrs["folded_pad"] = 1;
  out.ops.erase(out.ops.begin() + p);
  std::set<TensorId> drop{y};
  for (size_t i = 1; i < pad.inputs.size(); ++i) {
    const TensorId t = pad.inputs[i];
    if (g.tensors[t].consumers.size() == 1 && !g.is_output(t) && !g.is_input(t)) drop.insert(t);
  }
  drop_tensors(out, drop);
  Rewrite r;
  r.graph = finish(std::move(out), where);
  r.summary = "PAD " + pad.name + " folded into " + consumer.name + ", which reads " + X.name + " with a border of " +
              std::to_string(top) + "/" + std::to_string(left) + "/" + std::to_string(bottom) + "/" +
              std::to_string(right) + " (top/left/bottom/right) as " + value.text + ": " + Y.name + " (" +
              format_bytes(Y.bytes) + ") is never stored; needs a kernel with explicit asymmetric padding";
  r.figures["vanished_bytes"] = Y.bytes;
  return r;
}

std::vector<std::string> foldpad_candidates(const Graph& g) {
  return legal_op_specs(g, "foldpad", [](const Op& op) { return is_pad_kind(op.kind); }, fold_pad);
}

}  // namespace arenaplan
