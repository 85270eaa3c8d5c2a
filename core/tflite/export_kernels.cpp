// Which kernels a rewritten graph needs that the stock TFLM runtime does not have: the exports
// name them, since an arena plan for an in-place, pad-folded or patch-bordered op is only valid on
// a runtime whose kernel does what the plan assumes.
#include <algorithm>

#include "core/graph/op_kinds.h"
#include "core/tflite/detail/tflite_options.h"
#include "core/tflite/exports.h"

namespace arenaplan {

namespace {

int64_t attr_of(const Op& op, const char* name, int64_t fallback) {
  auto it = op.attrs.find(name);
  return it == op.attrs.end() ? fallback : it->second;
}

std::vector<int64_t> dims_of(const Tensor& t) {
  std::vector<int64_t> d;
  for (const ShapeDim& s : t.shape) d.push_back(s.value);
  return d;
}

// The window (rows, columns) of a conv or depthwise conv (its OHWI / 1HWO weights) or of a pool
// (its kernel attrs); {0, 0} when unknown.
std::pair<int64_t, int64_t> window_of(const Graph& g, const Op& op, bool pool) {
  if (pool) return {attr_of(op, "kernel_h", attr_of(op, "kernel", 0)), attr_of(op, "kernel_w", attr_of(op, "kernel", 0))};
  if (op.inputs.size() < 2) return {0, 0};
  const auto w = dims_of(g.tensors[op.inputs[1]]);
  return w.size() == 4 ? std::make_pair(w[1], w[2]) : std::make_pair(int64_t{0}, int64_t{0});
}

// True when a window op's explicit pads are what TFLite's VALID (none) or SAME padding gives for
// its input: a stock kernel then computes the op (TF pads stride-2 convs like SAME before MobileNet
// depthwise layers; a patch away from the image border pads nothing).
bool pads_are_stock(const Graph& g, const Op& op, bool pool) {
  if (attr_of(op, "pad_h", 0) == 0 && attr_of(op, "pad_w", 0) == 0 && attr_of(op, "pad_bottom", 0) == 0 &&
      attr_of(op, "pad_right", 0) == 0)
    return true;
  if (op.inputs.empty()) return false;
  const auto x = dims_of(g.tensors[op.inputs[0]]);
  const auto [kh, kw] = window_of(g, op, pool);
  if (x.size() != 4 || kh < 1 || kw < 1) return false;
  const auto h = tflite_ops::tflite_padding(true, x[1], kh, attr_of(op, "stride_h", 1), attr_of(op, "dilation_h", 1));
  const auto v = tflite_ops::tflite_padding(true, x[2], kw, attr_of(op, "stride_w", 1), attr_of(op, "dilation_w", 1));
  const int64_t ph = attr_of(op, "pad_h", 0), pw = attr_of(op, "pad_w", 0);
  return ph == h.before && attr_of(op, "pad_bottom", ph) == h.after && pw == v.before &&
         attr_of(op, "pad_right", pw) == v.after;
}

std::string pads_text(const Op& op, const char* top, const char* left, const char* bottom, const char* right) {
  return std::to_string(attr_of(op, top, 0)) + "/" + std::to_string(attr_of(op, left, 0)) + "/" +
         std::to_string(attr_of(op, bottom, attr_of(op, top, 0))) + "/" +
         std::to_string(attr_of(op, right, attr_of(op, left, 0))) + " (top/left/bottom/right)";
}

}  // namespace

std::vector<CustomKernel> custom_kernels_needed(const Graph& g) {
  std::vector<CustomKernel> out;
  for (const Op& op : g.ops) {
    const OpFamily family = op_family(op.kind);
    const bool conv = family == OpFamily::kConv || family == OpFamily::kDepthwiseConv;
    const bool pool = family == OpFamily::kMaxPool || family == OpFamily::kAvgPool;
    // Explicit padding comes from a folded PAD (foldpad) or from a patch's border: a patch of a
    // patched stage pads only the sides where it touches the image border (patch_border).
    const bool folded = attr_of(op, "folded_pad", 0) == 1;
    const bool patch_border = attr_of(op, "patch_border", 0) == 1;
    const std::string own_pads = pads_text(op, "pad_h", "pad_w", "pad_bottom", "pad_right");
    const std::string patch_text = "patch border padding (this patch of a patched stage touches the image border)";
    if (conv && (folded || patch_border) && !pads_are_stock(g, op, false))
      out.push_back({op.name, op.kind + "_explicit_padding",
                     (patch_border ? patch_text + (folded ? " and a folded PAD" : "") : std::string("a folded PAD")) +
                         ": reads the border " + own_pads +
                         " as the input's zero point; TFLM's conv options only express SAME or VALID padding"});
    const bool pool_pads_uneven = pool && patch_border && !pads_are_stock(g, op, true);
    const std::string pool_pads_text = patch_text + ": pads " + own_pads + ", which is neither the SAME nor the VALID " +
                                       "padding of its input; TFLM's pool options only express SAME or VALID padding";
    if (pool && folded)
      out.push_back({op.name, op.kind + "_folded_pad",
                     "a folded PAD: reads the border " +
                         pads_text(op, "fold_pad_top", "fold_pad_left", "fold_pad_bottom", "fold_pad_right") +
                         " as the value " + std::to_string(attr_of(op, "fold_pad_value", 0)) +
                         (family == OpFamily::kAvgPool ? " and counts it in the divisor" : "") +
                         "; TFLM's pool skips padding" + (pool_pads_uneven ? "; and " + pool_pads_text : "")});
    else if (pool_pads_uneven)
      out.push_back({op.name, op.kind + "_explicit_padding", pool_pads_text});
    if (attr_of(op, "streamed", 0) == 1)
      out.push_back({op.name, op.kind,
                     "a 1x1 conv and its depthwise conv run channel by channel through a " +
                         std::to_string(attr_of(op, "plane_bytes", op.scratch_bytes)) +
                         "-byte plane in the op's scratch (the expanded tensor is never stored); TFLM runs them as two "
                         "ops with the expanded tensor in the arena"});
    if (!op.in_place.empty() && (conv || pool)) {
      const Bytes temp = attr_of(op, "in_place_temp_bytes", op.scratch_bytes);
      out.push_back({op.name, op.kind + "_in_place",
                     "writes its output over its input " + g.tensors[op.in_place[0].input].name + " through a " +
                         std::to_string(temp) + "-byte temporary (" +
                         (family == OpFamily::kDepthwiseConv ? "one channel" : "one pixel") +
                         ", in the op's scratch); TFLM's kernels need separate input and output buffers"});
    }
  }
  return out;
}

std::string custom_kernels_text(const std::vector<CustomKernel>& kernels, const std::string& prefix) {
  std::string s;
  for (const CustomKernel& k : kernels) s += prefix + "op " + k.op + ": " + k.kernel + " (" + k.why + ")\n";
  return s;
}

}  // namespace arenaplan
