// Binding graph ops to kernels: the simplified kernels of hand-written graphs (OpChecker, plan_*),
// the model kernels of imported networks (detail/model_kernels.h), and the byte-level stand-in
// for ops no kernel can run.
#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "core/graph/op_kinds.h"
#include "core/sim/detail/model_kernels.h"
#include "core/sim/sim_kernels.h"

namespace arenaplan::sim {

// ---- Binding ----------------------------------------------------------------------------------

const char* plan_kernel_name(const KernelPlan& p) {
  if (p.kind == KernelKind::kModel && p.model_kernel) return p.model_kernel;
  if (p.on_npu) return "NPU, not run";
  if (p.stand_in) return "stand-in";
  return kernel_name(p.kind);
}

const char* kernel_name(KernelKind k) {
  switch (k) {
    case KernelKind::kMix: return "mix";
    case KernelKind::kConv2d: return "conv2d";
    case KernelKind::kDepthwiseConv2d: return "depthwise_conv2d";
    case KernelKind::kFullyConnected: return "fully_connected";
    case KernelKind::kAdd: return "add";
    case KernelKind::kRelu: return "relu";
    case KernelKind::kRelu6: return "relu6";
    case KernelKind::kMaxPool2d: return "max_pool2d";
    case KernelKind::kAvgPool2d: return "avg_pool2d";
    case KernelKind::kConcat: return "concat";
    case KernelKind::kReshape: return "reshape";
    case KernelKind::kSoftmax: return "softmax";
    case KernelKind::kModel: return "model";
  }
  return "mix";
}

namespace {

// The simplified kernel for an op kind. The family comes from the one op-kind table
// (core/graph/op_kinds.h), so every spelling the graph format, the shape unit, the transforms and
// .tflite import accept binds the same kernel; within the elementwise family only add, relu and
// relu6 have one. "mix" asks for the generic kernel. nullopt: no simplified kernel.
std::optional<KernelKind> simplified_kernel(const std::string& kind) {
  switch (op_family(kind)) {
    case OpFamily::kConv: return KernelKind::kConv2d;
    case OpFamily::kDepthwiseConv: return KernelKind::kDepthwiseConv2d;
    case OpFamily::kMaxPool: return KernelKind::kMaxPool2d;
    case OpFamily::kAvgPool: return KernelKind::kAvgPool2d;
    case OpFamily::kDense: return KernelKind::kFullyConnected;
    case OpFamily::kConcat: return KernelKind::kConcat;
    case OpFamily::kReshape: return KernelKind::kReshape;
    case OpFamily::kSoftmax: return KernelKind::kSoftmax;
    case OpFamily::kElementwise:
      if (kind == "add") return KernelKind::kAdd;
      if (kind == "relu") return KernelKind::kRelu;
      if (kind == "relu6") return KernelKind::kRelu6;
      return std::nullopt;
    case OpFamily::kPool:  // which pooling is not said
    case OpFamily::kOther: break;
  }
  if (kind == "mix") return KernelKind::kMix;
  return std::nullopt;
}

uint64_t name_hash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Thrown inside binding when the graph does not give what a kernel needs (no weights and no
// kernel attrs, weights given only as bytes): the op then runs `mix`, with this as the reason.
struct MissingInfo {
  std::string why;
};

// Shape checks report against the op, in the words of the kernel's contract.
struct OpChecker {
  const Graph& g;
  const Op& op;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("op " + op.name, std::string("kind \"") + op.kind + "\": " + what);
  }
  void require(bool ok, const std::string& what) const {
    if (!ok) fail(what);
  }
  const Tensor& in(int i) const { return g.tensors[op.inputs[i]]; }
  const Tensor& out(size_t i) const { return g.tensors[op.outputs[i]]; }
  std::vector<int64_t> dims(const Tensor& t) const {
    std::vector<int64_t> d;
    for (const ShapeDim& s : t.shape) d.push_back(s.value);
    return d;
  }
  static int64_t count(const std::vector<int64_t>& d) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    return n;
  }
  std::string shape_text(const Tensor& t) const {
    std::string s = "[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(t.shape[i].value);
    }
    return s + "]";
  }
  void require_int8(const Tensor& t) const {
    require(t.dtype == DType::kInt8, "tensor " + t.name + " must be int8 (the simulator's kernels are int8)");
  }
  // Non-constant inputs, in order: the activations.
  std::vector<int> activations() const {
    std::vector<int> a;
    for (size_t i = 0; i < op.inputs.size(); ++i)
      if (!in(static_cast<int>(i)).constant) a.push_back(static_cast<int>(i));
    return a;
  }
  std::vector<int> activation_count(size_t n) const {
    auto a = activations();
    // A graph that only sizes its tensors describes no kernel: check that before the counts.
    for (int i : a)
      if (in(i).shape.empty()) throw MissingInfo{"input " + in(i).name + " has no shape"};
    for (size_t i = 0; i < op.outputs.size(); ++i)
      if (out(i).shape.empty()) throw MissingInfo{"output " + out(i).name + " has no shape"};
    require(a.size() == n, "expects " + std::to_string(n) + " non-constant input(s), has " + std::to_string(a.size()));
    require(op.outputs.size() == 1, "expects one output, has " + std::to_string(op.outputs.size()));
    return a;
  }
  // Constant operands: weights (int8) and bias (int32); a constant without a shape means the graph
  // only sized it, so the kernel cannot use it.
  void constants(KernelPlan& p, size_t weight_rank_min, size_t weight_rank_max) const {
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Tensor& t = in(static_cast<int>(i));
      if (!t.constant) continue;
      if (t.shape.empty()) throw MissingInfo{"constant " + t.name + " is given only as bytes"};
      if (t.dtype == DType::kInt32 && t.shape.size() == 1 && p.bias_index < 0) {
        p.bias_index = static_cast<int>(i);
      } else if (p.weight_index < 0 && t.shape.size() >= weight_rank_min && t.shape.size() <= weight_rank_max) {
        require_int8(t);
        p.weight_index = static_cast<int>(i);
      } else {
        fail("constant " + t.name + " " + shape_text(t) + " is neither the weights nor an int32 bias");
      }
    }
  }
  // NHWC with an optional batch dim.
  std::vector<int64_t> nhwc(const Tensor& t) const {
    auto d = dims(t);
    if (d.size() == 3) d.insert(d.begin(), 1);
    require(d.size() == 4, "tensor " + t.name + " must be [N,H,W,C] or [H,W,C], is " + shape_text(t));
    return d;
  }
  bool has(const char* name) const { return op.attrs.count(name) > 0; }
  int64_t attr(const char* name, int64_t fallback) const {
    auto it = op.attrs.find(name);
    return it == op.attrs.end() ? fallback : it->second;
  }
  int64_t attr2(const char* both, const char* one, int64_t fallback) const { return attr(one, attr(both, fallback)); }
  void check_bias(const KernelPlan& p, int64_t channels) const {
    if (p.bias_index < 0) return;
    const Tensor& b = in(p.bias_index);
    require(count(dims(b)) == channels,
            "bias " + b.name + " must have " + std::to_string(channels) + " elements, is " + shape_text(b));
  }
};

// Stride and padding from the attrs: "padding" 1 is TFLite's "same" (output = ceil(in / stride),
// extra padding at the bottom/right), else explicit "pad" / "pad_h" / "pad_w" (default 0, "valid").
void stride_pad(const OpChecker& c, Window2d& w) {
  w.stride_h = c.attr2("stride", "stride_h", 1);
  w.stride_w = c.attr2("stride", "stride_w", 1);
  c.require(w.stride_h >= 1 && w.stride_w >= 1, "stride must be >= 1");
  c.require(c.attr("dilation", 1) == 1, "dilation other than 1 is not supported by the simulator's kernels");
  const int64_t padding = c.attr("padding", 0);
  c.require(padding == 0 || padding == 1, "attr padding must be 0 (valid) or 1 (same)");
  if (padding == 1) {
    auto same = [](int64_t in, int64_t k, int64_t s) {
      int64_t out = (in + s - 1) / s;
      return std::max<int64_t>(0, (out - 1) * s + k - in) / 2;
    };
    w.pad_h = same(w.h, w.kh, w.stride_h);
    w.pad_w = same(w.w, w.kw, w.stride_w);
  } else {
    w.pad_h = c.attr2("pad", "pad_h", 0);
    w.pad_w = c.attr2("pad", "pad_w", 0);
  }
  // Explicit pads may differ per side (an imported SAME puts the odd pixel after).
  const int64_t pad_bottom = padding == 1 ? w.pad_h : c.attr("pad_bottom", w.pad_h);
  const int64_t pad_right = padding == 1 ? w.pad_w : c.attr("pad_right", w.pad_w);
  c.require(w.pad_h >= 0 && w.pad_w >= 0 && w.pad_h < w.kh && w.pad_w < w.kw && pad_bottom >= 0 && pad_right >= 0 &&
                pad_bottom < w.kh && pad_right < w.kw,
            "pad must be in [0, kernel size)");
  w.oh = padding == 1 ? (w.h + w.stride_h - 1) / w.stride_h : window_out_dim(w.h, w.kh, w.stride_h, w.pad_h, pad_bottom);
  w.ow = padding == 1 ? (w.w + w.stride_w - 1) / w.stride_w : window_out_dim(w.w, w.kw, w.stride_w, w.pad_w, pad_right);
  c.require(w.oh > 0 && w.ow > 0, "the " + std::to_string(w.kh) + "x" + std::to_string(w.kw) +
                                        " window does not fit the input");
}

KernelPlan plan_window(const OpChecker& c, KernelKind kind) {
  KernelPlan p;
  p.kind = kind;
  Window2d& w = p.win;
  const bool conv = kind == KernelKind::kConv2d || kind == KernelKind::kDepthwiseConv2d;
  p.x_index = c.activation_count(1)[0];
  const Tensor& xt = c.in(p.x_index);
  c.require_int8(xt);
  c.require_int8(c.out(0));
  auto x = c.nhwc(xt);
  w.n = x[0], w.h = x[1], w.w = x[2], w.c = x[3];
  if (conv) c.constants(p, 3, 4);
  else c.require(c.activations().size() == c.op.inputs.size(), "a pool takes no constant inputs");

  // Window size: the kernel attrs, else the weights; both given must agree.
  std::vector<int64_t> wd;
  if (p.weight_index >= 0) {
    wd = c.dims(c.in(p.weight_index));
    if (kind == KernelKind::kDepthwiseConv2d && wd.size() == 4) {
      c.require(wd[0] == 1, "depthwise weights " + c.in(p.weight_index).name + " must be [1,KH,KW,C], is " +
                                c.shape_text(c.in(p.weight_index)));
      wd.erase(wd.begin());
    }
    if (kind == KernelKind::kConv2d)
      c.require(wd.size() == 4 && wd[3] == w.c, "weights " + c.in(p.weight_index).name + " must be [OC,KH,KW," +
                                                     std::to_string(w.c) + "], is " + c.shape_text(c.in(p.weight_index)));
    else
      c.require(wd.size() == 3 && wd[2] == w.c, "weights " + c.in(p.weight_index).name + " must be [1,KH,KW," +
                                                     std::to_string(w.c) + "], is " + c.shape_text(c.in(p.weight_index)));
  }
  const int64_t wkh = wd.empty() ? -1 : wd[wd.size() - 3], wkw = wd.empty() ? -1 : wd[wd.size() - 2];
  w.kh = c.attr2("kernel", "kernel_h", wkh);
  w.kw = c.attr2("kernel", "kernel_w", wkw);
  if (!conv && w.kh < 0 && w.kw < 0 && !c.has("stride") && !c.has("padding")) {
    // A pool described only by its shapes: non-overlapping windows of input / output size.
    auto y = c.nhwc(c.out(0));
    if (y[1] > 0 && y[2] > 0 && w.h % y[1] == 0 && w.w % y[2] == 0) {
      w.kh = w.h / y[1], w.kw = w.w / y[2];
      w.stride_h = w.kh, w.stride_w = w.kw;
      w.oh = y[1], w.ow = y[2], w.oc = w.c;
      c.require(y[0] == w.n && y[3] == w.c, "output " + c.out(0).name + " " + c.shape_text(c.out(0)) +
                                                " must keep the batch and channels of the input");
      p.work.alu_ops = w.n * w.oh * w.ow * w.c * w.kh * w.kw;
      return p;
    }
  }
  if (w.kh < 0 || w.kw < 0)
    throw MissingInfo{conv ? "no weight tensor and no kernel attrs" : "no kernel attrs (kernel or kernel_h, kernel_w)"};
  c.require(w.kh >= 1 && w.kw >= 1, "kernel must be >= 1");
  c.require(wd.empty() || (w.kh == wkh && w.kw == wkw), "kernel attrs disagree with the weights " +
                                                            c.in(std::max(p.weight_index, 0)).name);
  if (kind == KernelKind::kConv2d) {
    const int64_t filters = c.attr("filters", wd.empty() ? -1 : wd[0]);
    if (filters < 0) throw MissingInfo{"no weight tensor and no filters attr"};
    c.require(wd.empty() || filters == wd[0], "attr filters disagrees with the weights");
    w.oc = filters;
  } else {
    c.require(c.attr("depth_multiplier", 1) == 1, "depth_multiplier other than 1 is not supported by the simulator");
    c.require(c.attr("filters", w.c) == w.c, "a depthwise conv keeps the channel count");
    w.oc = w.c;
  }
  if (conv) {
    c.check_bias(p, w.oc);
    if (p.weight_index < 0) p.implicit_weight_bytes = kind == KernelKind::kConv2d ? w.oc * w.kh * w.kw * w.c : w.kh * w.kw * w.c;
    const int64_t reduction = kind == KernelKind::kConv2d ? w.kh * w.kw * w.c : w.kh * w.kw;
    w.shift = static_cast<int>(c.attr("shift", default_shift(reduction)));
    c.require(w.shift >= 0 && w.shift <= 31, "shift must be in [0, 31]");
  }
  stride_pad(c, w);
  auto y = c.nhwc(c.out(0));
  if (y != std::vector<int64_t>{w.n, w.oh, w.ow, w.oc})
    c.fail("output " + c.out(0).name + " is " + c.shape_text(c.out(0)) + " but the input, window " +
           std::to_string(w.kh) + "x" + std::to_string(w.kw) + ", stride " + std::to_string(w.stride_h) + "x" +
           std::to_string(w.stride_w) + " and pad " + std::to_string(w.pad_h) + "x" + std::to_string(w.pad_w) +
           " give [" + std::to_string(w.n) + "," + std::to_string(w.oh) + "," + std::to_string(w.ow) + "," +
           std::to_string(w.oc) + "]");
  p.work.pointwise = kind == KernelKind::kConv2d && w.kh == 1 && w.kw == 1;
  if (kind == KernelKind::kConv2d) p.work.macs = w.macs();
  else if (kind == KernelKind::kDepthwiseConv2d) p.work.macs = w.n * w.oh * w.ow * w.c * w.kh * w.kw;
  else p.work.alu_ops = w.n * w.oh * w.ow * w.c * w.kh * w.kw;
  return p;
}

KernelPlan plan_dense(const OpChecker& c) {
  KernelPlan p;
  p.kind = KernelKind::kFullyConnected;
  p.x_index = c.activation_count(1)[0];
  const Tensor& xt = c.in(p.x_index);
  c.require_int8(xt);
  c.require_int8(c.out(0));
  c.constants(p, 2, 2);
  auto xd = c.dims(xt);
  const int64_t xs = OpChecker::count(xd);
  // TFLite keeps the first dim as the batch and flattens the rest.
  p.batch = xd.size() >= 2 ? xd[0] : 1;
  p.in = xs / p.batch;
  if (p.weight_index >= 0) {
    auto wd = c.dims(c.in(p.weight_index));
    c.require(wd[1] == p.in || xs % wd[1] == 0,
              "weights " + c.in(p.weight_index).name + " " + c.shape_text(c.in(p.weight_index)) + " expect K = " +
                  std::to_string(wd[1]) + " but input " + xt.name + " " + c.shape_text(xt) + " has " +
                  std::to_string(xs) + " elements");
    p.in = wd[1];
    p.batch = xs / p.in;
    p.out = c.attr("units", wd[0]);
    c.require(p.out == wd[0], "attr units disagrees with the weights");
  } else {
    p.out = c.attr("units", -1);
    if (p.out < 0) throw MissingInfo{"no weight tensor and no units attr"};
    p.implicit_weight_bytes = p.out * p.in;
  }
  c.require(OpChecker::count(c.dims(c.out(0))) == p.batch * p.out,
            "output " + c.out(0).name + " must have " + std::to_string(p.batch * p.out) + " elements (batch " +
                std::to_string(p.batch) + " x units " + std::to_string(p.out) + "), is " + c.shape_text(c.out(0)));
  c.check_bias(p, p.out);
  p.shift = static_cast<int>(c.attr("shift", default_shift(p.in)));
  c.require(p.shift >= 0 && p.shift <= 31, "shift must be in [0, 31]");
  p.work.macs = p.batch * p.in * p.out;
  return p;
}

KernelPlan plan_elementwise(const OpChecker& c, KernelKind kind) {
  KernelPlan p;
  p.kind = kind;
  const auto acts = c.activation_count(kind == KernelKind::kAdd ? 2 : 1);
  // A RESHAPE's constant operand is the new shape (TFLite's second input), which its output's
  // shape already gives; every other kind reads activations only.
  if (kind == KernelKind::kReshape) c.require(acts.size() == 1 && acts[0] == 0, "reshapes its first input");
  else c.require(acts.size() == c.op.inputs.size(), "takes no constant inputs");
  const int64_t n = OpChecker::count(c.dims(c.out(0)));
  for (int i : acts) {
    if (kind != KernelKind::kReshape) c.require_int8(c.in(i));
    c.require(OpChecker::count(c.dims(c.in(i))) == n && c.in(i).bytes == c.out(0).bytes,
              "input " + c.in(i).name + " " + c.shape_text(c.in(i)) + " and output " + c.out(0).name + " " +
                  c.shape_text(c.out(0)) + " must have the same number of elements" +
                  (kind == KernelKind::kAdd ? " (the simulator's add does not broadcast)" : ""));
  }
  if (kind != KernelKind::kReshape) c.require_int8(c.out(0));
  else c.require(c.in(0).dtype == c.out(0).dtype, "input and output dtypes differ");
  p.out = n;
  if (kind == KernelKind::kSoftmax) {
    auto d = c.dims(c.out(0));
    p.in = d.empty() ? 1 : d.back();  // depth
    p.batch = n / p.in;
    p.work.alu_ops = 3 * n;
  } else {
    p.work.alu_ops = kind == KernelKind::kReshape ? c.out(0).bytes : n;
  }
  return p;
}

KernelPlan plan_concat(const OpChecker& c) {
  KernelPlan p;
  p.kind = KernelKind::kConcat;
  c.require(!c.op.inputs.empty() && c.op.outputs.size() == 1, "expects inputs and one output");
  for (size_t i = 0; i < c.op.inputs.size(); ++i)
    if (c.in(static_cast<int>(i)).shape.empty()) throw MissingInfo{"input " + c.in(static_cast<int>(i)).name + " has no shape"};
  if (c.out(0).shape.empty()) throw MissingInfo{"output has no shape"};
  auto y = c.dims(c.out(0));
  const int64_t rank = static_cast<int64_t>(y.size());
  int64_t axis = c.attr("axis", -1);
  if (axis < 0) axis += rank;
  c.require(axis >= 0 && axis < rank, "axis out of range for output " + c.shape_text(c.out(0)));
  c.require(c.out(0).dtype.has_value(), "output needs a dtype");
  const int width = dtype_width(*c.out(0).dtype);
  int64_t outer = 1, inner = width, sum = 0;
  for (int64_t i = 0; i < axis; ++i) outer *= y[i];
  for (int64_t i = axis + 1; i < rank; ++i) inner *= y[i];
  for (size_t i = 0; i < c.op.inputs.size(); ++i) {
    const Tensor& t = c.in(static_cast<int>(i));
    auto d = c.dims(t);
    bool ok = t.dtype == c.out(0).dtype && static_cast<int64_t>(d.size()) == rank;
    for (int64_t k = 0; ok && k < rank; ++k) ok = k == axis || d[k] == y[k];
    c.require(ok, "input " + t.name + " " + c.shape_text(t) + " must match output " + c.shape_text(c.out(0)) +
                      " in dtype and every dim but axis " + std::to_string(axis));
    p.chunk.push_back(d[axis] * inner);
    sum += d[axis];
  }
  c.require(sum == y[axis], "inputs sum to " + std::to_string(sum) + " along axis " + std::to_string(axis) +
                                ", output has " + std::to_string(y[axis]));
  p.outer = outer;
  p.work.alu_ops = c.out(0).bytes;
  return p;
}

KernelPlan plan_mix(const Graph& g, const Op& op, std::string why) {
  KernelPlan p;
  p.kind = KernelKind::kMix;
  p.note = std::move(why);
  for (TensorId t : op.inputs) p.work.alu_ops += g.tensors[t].bytes;
  for (TensorId t : op.outputs) p.work.alu_ops += g.tensors[t].bytes;
  return p;
}

// The byte-level stand-in: `mix` over the op's bytes, named as such in every report.
KernelPlan plan_stand_in(const Graph& g, const Op& op, const std::string& why) {
  KernelPlan p = plan_mix(g, op, "stand-in, output bytes are not the model's: " + why);
  p.stand_in = true;
  return p;
}

KernelPlan plan_model(const Graph& g, const Op& op) {
  const PrepareKernel prepare = find_model_kernel(op.kind);
  if (!prepare) return plan_stand_in(g, op, "no kernel for kind \"" + op.kind + "\"");
  try {
    ModelKernel k = prepare(KernelContext{g, op});
    KernelPlan p;
    p.kind = KernelKind::kModel;
    p.model_kernel = k.name;
    p.work = k.work;
    p.run = std::move(k.run);
    p.run_with_scratch = std::move(k.run_with_scratch);
    p.run_with_state = std::move(k.run_with_state);
    p.state_bytes = k.state_bytes;
    return p;
  } catch (const Unsupported& u) {
    return plan_stand_in(g, op, u.why);
  }
}

}  // namespace

KernelPlan plan_kernel(const Graph& g, OpId id) {
  const Op& op = g.ops[id];
  const std::optional<KernelKind> simplified = simplified_kernel(op.kind);
  const bool known = simplified.has_value();
  const KernelKind kind = simplified.value_or(KernelKind::kMix);
  KernelPlan p;
  if (runs_on_npu(op.kind)) {
    p = plan_mix(g, op, op.kind + ": runs on the Ethos-U NPU, not simulated");
    p.on_npu = true;
    p.work.alu_ops = 0;  // the CPU computes nothing; only the placeholder's bytes are charged
  } else if (uses_model_kernels(g, op)) {
    p = plan_model(g, op);
  } else if (!known) {
    p = plan_mix(g, op, op.kind.empty() ? "no kind given" : "no kernel for kind \"" + op.kind + "\"");
    p.stand_in = !op.kind.empty();
  } else if (kind == KernelKind::kMix) {
    p = plan_mix(g, op, "");
  } else {
    OpChecker c{g, op};
    try {
      switch (kind) {
        case KernelKind::kConv2d:
        case KernelKind::kDepthwiseConv2d:
        case KernelKind::kMaxPool2d:
        case KernelKind::kAvgPool2d: p = plan_window(c, kind); break;
        case KernelKind::kFullyConnected: p = plan_dense(c); break;
        case KernelKind::kConcat: p = plan_concat(c); break;
        default: p = plan_elementwise(c, kind); break;
      }
    } catch (const MissingInfo& m) {
      // The graph sized this op but did not describe it: run the generic kernel.
      p = plan_mix(g, op, m.why);
    }
  }
  p.salt = name_hash(op.name);
  return p;
}

void run_kernel(const KernelPlan& p, const Operand* in, size_t nin, const Operand* out, size_t nout,
                const Operand& scratch, const uint8_t* implicit_weights, const Operand& state) {
  // Scratch is staged first, as a kernel's im2col or partial sums would be: a plan that lets
  // scratch overlap a live operand corrupts real data.
  if (scratch.bytes > 0) mix_fill(mix_seed(p.salt), 0x5c, scratch.data, scratch.bytes);
  auto i8 = [](const Operand& o) { return reinterpret_cast<int8_t*>(o.data); };
  const int8_t* x = p.x_index >= 0 ? i8(in[p.x_index]) : nullptr;
  const int8_t* w = p.weight_index >= 0 ? i8(in[p.weight_index]) : reinterpret_cast<const int8_t*>(implicit_weights);
  const int32_t* bias = p.bias_index >= 0 ? reinterpret_cast<const int32_t*>(in[p.bias_index].data) : nullptr;
  if (!w && (p.kind == KernelKind::kConv2d || p.kind == KernelKind::kDepthwiseConv2d ||
             p.kind == KernelKind::kFullyConnected))
    throw std::invalid_argument("run_kernel: this plan needs the implicit weights (implicit_weight_bytes)");
  switch (p.kind) {
    case KernelKind::kModel:
      if (p.run_with_state) {
        if (state.bytes < p.state_bytes) throw std::invalid_argument("run_kernel: this kernel needs its state across runs");
        p.run_with_state(in, out, state);
      } else if (p.run_with_scratch) {
        p.run_with_scratch(in, out, scratch);
      } else {
        p.run(in, out);
      }
      break;
    case KernelKind::kConv2d: conv2d_int8(p.win, x, w, bias, i8(out[0])); break;
    case KernelKind::kDepthwiseConv2d: depthwise_conv2d_int8(p.win, x, w, bias, i8(out[0])); break;
    case KernelKind::kFullyConnected: fully_connected_int8(p.batch, p.in, p.out, p.shift, x, w, bias, i8(out[0])); break;
    case KernelKind::kMaxPool2d: max_pool2d_int8(p.win, x, i8(out[0])); break;
    case KernelKind::kAvgPool2d: avg_pool2d_int8(p.win, x, i8(out[0])); break;
    case KernelKind::kAdd: add_int8(p.out, i8(in[0]), i8(in[1]), i8(out[0])); break;
    case KernelKind::kRelu: clamp_int8(p.out, 0, 127, i8(in[0]), i8(out[0])); break;
    case KernelKind::kRelu6: clamp_int8(p.out, 0, 96, i8(in[0]), i8(out[0])); break;
    case KernelKind::kSoftmax: softmax_int8(p.batch, p.in, i8(in[0]), i8(out[0])); break;
    case KernelKind::kReshape:
      if (out[0].data != in[0].data) std::memmove(out[0].data, in[0].data, static_cast<size_t>(out[0].bytes));
      break;
    case KernelKind::kConcat:
      concat_parts(p.outer, nin, [&](size_t i) { return in[i].data; }, p.chunk.data(), out[0].data);
      break;
    case KernelKind::kMix: {
      // Digest every input (and the staged scratch) before writing: safe when an output aliases an input.
      uint64_t h = mix_seed(p.salt);
      for (size_t i = 0; i < nin; ++i) h = mix_digest(h, in[i].data, in[i].bytes);
      if (scratch.bytes > 0) h = mix_digest(h, scratch.data, scratch.bytes);
      for (size_t o = 0; o < nout; ++o) mix_fill(h, o, out[o].data, out[o].bytes);
      break;
    }
  }
}

}  // namespace arenaplan::sim
