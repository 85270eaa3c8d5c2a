// Patch-based inference (MCUNetV2): the first, memory-heavy stage runs patch by patch over a grid
// of its output (row bands, or rows x columns). Each patch is cut from the stage input with the
// halo its receptive field needs, so the big intermediate activations exist only one patch at a
// time; the halo rows and columns are computed by more than one patch, which is the extra work
// reported.
//
// Padding: a patch has a border only where it touches the image border. Every op of the stage
// maps the output rows a patch needs to the input rows it reads (stride, dilated window, padding
// before the first row); the rows that fall outside the stored input become that patch's own
// explicit padding (conv / depthwise pad_h, pad_bottom, pad_w, pad_right, read as the zero point;
// a pool's padding and folded pad; a PAD op's paddings), and everything inside is real data cut by
// the slice. So the model kernels run each patch with their ordinary arithmetic and every output
// element sees exactly the inputs it saw in the unpatched graph.
//
// Imported (model) graphs get stock TFLite ops: STRIDED_SLICE with constant begin/end/strides and
// CONCATENATION. Hand-written graphs keep the "slice" op (attrs axis/begin/size, axis_w/begin_w/
// size_w for columns) and "concat", and must not pad along a tiled axis: their simplified kernels
// pad both sides alike, which a patch border on one side only cannot express.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "core/sim/sim_kernels.h"
#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

constexpr int kH = 0, kW = 1;  // the two tiled axes
const char* const kAxisName[2] = {"rows", "columns"};

struct Span {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

// How an op maps output rows (or columns) to the input rows it reads, along one axis.
struct AxisWindow {
  int64_t extent = 1;                       // input rows one output row reads: (kernel - 1) * dilation + 1
  int64_t stride = 1;
  int64_t before = 0, after = 0;            // border rows around the stored input (padding, folded pad)
  int64_t fold_before = 0, fold_after = 0;  // of those, a pool's folded-PAD rows (next to the data)
  int64_t in = 0, out = 0;                  // stored input and output sizes
};

// What one patch of an op reads along an axis: stored rows, and border rows on each side.
struct PatchRead {
  Span stored;
  int64_t border_before = 0, border_after = 0;
};

PatchRead patch_read(const AxisWindow& w, Span out) {
  const int64_t lo = out.begin * w.stride - w.before, hi = (out.end - 1) * w.stride - w.before + w.extent;
  return {{std::max<int64_t>(lo, 0), std::min(hi, w.in)}, std::max<int64_t>(0, -lo), std::max<int64_t>(0, hi - w.in)};
}

enum class StageKind { kConv, kPool, kPad, kElementwise };

struct StageOp {
  OpId op = -1;
  TensorId x = -1, y = -1;
  std::vector<TensorId> xs;  // the activation inputs: x alone, or both operands of a residual ADD
  StageKind kind = StageKind::kElementwise;
  AxisWindow axis[2];
  std::vector<int64_t> paddings;  // PAD: [before, after] per dim
};

// Index of H (axis 0) or W (axis 1) in an NHWC ([N,H,W,C] or [H,W,C]) shape.
int dim_index(const Tensor& t, int axis) { return static_cast<int>(t.shape.size()) - 3 + axis; }

int64_t attr2(const Op& op, const char* one, const char* both, int64_t fallback) {
  return attr_of(op, one, attr_of(op, both, fallback));
}

// Kernel size along each axis of a conv or depthwise conv: attrs, else the constant weights.
std::pair<int64_t, int64_t> conv_kernel(const Graph& g, const Op& op, const std::string& where) {
  std::vector<int64_t> wd;
  for (TensorId t : op.inputs)
    if (g.tensors[t].constant && g.tensors[t].shape.size() == 4) {
      wd = dims_of(g.tensors[t]);
      break;
    }
  const int64_t kh = attr2(op, "kernel_h", "kernel", wd.empty() ? -1 : wd[1]);
  const int64_t kw = attr2(op, "kernel_w", "kernel", wd.empty() ? -1 : wd[2]);
  if (kh < 1 || kw < 1) refuse(where, "op " + op.name + " has neither kernel attrs nor OHWI weights to give its window");
  return {kh, kw};
}

// The window geometry of one stage op along both axes, or a refusal naming why it cannot run on a patch.
StageOp stage_op(const Graph& g, const std::string& name, bool model, int cols, const std::string& where) {
  StageOp s;
  s.op = op_named(g, name, where);
  const Op& op = g.ops[s.op];
  std::vector<TensorId> acts;
  for (TensorId t : op.inputs)
    if (!g.tensors[t].constant && std::find(acts.begin(), acts.end(), t) == acts.end()) acts.push_back(t);
  // A residual ADD (or another binary elementwise op) joins two tensors of its output's shape, both
  // computed inside the stage or cut from its input: it reads the same patch of each.
  const bool binary = acts.size() == 2 && is_elementwise_kind(op.kind) && op.outputs.size() == 1 &&
                      dims_of(g.tensors[acts[0]]) == dims_of(g.tensors[op.outputs[0]]) &&
                      dims_of(g.tensors[acts[1]]) == dims_of(g.tensors[op.outputs[0]]);
  if (acts.size() != 1 && !binary)
    refuse(where, "op " + op.name + " has " + std::to_string(acts.size()) + " activation inputs; a patched stage holds single-input ops "
                  "and elementwise ops joining two tensors of their output's shape (a residual ADD)");
  s.xs = acts;
  if (op.outputs.size() != 1) refuse(where, "op " + op.name + " has " + std::to_string(op.outputs.size()) + " outputs");
  if (!op.in_place.empty() || !op.async_reads.empty())
    refuse(where, "op " + op.name + " runs in place or reads asynchronously; patch before those rewrites");
  s.x = acts[0];
  s.y = op.outputs[0];
  for (TensorId t : {s.x, s.y}) {
    const Tensor& T = g.tensors[t];
    if (!T.dtype || (T.shape.size() != 3 && T.shape.size() != 4))
      refuse(where, "tensor " + T.name + " needs an NHWC shape ([N,H,W,C] or [H,W,C]) to be cut into patches");
  }
  const Tensor &X = g.tensors[s.x], &Y = g.tensors[s.y];
  for (int a : {kH, kW}) {
    s.axis[a].in = X.shape[dim_index(X, a)].value;
    s.axis[a].out = Y.shape[dim_index(Y, a)].value;
  }
  const OpFamily family = op_family(op.kind);
  // Hand-written graphs: their kernels pad symmetrically ("pad", "padding" same), so no tiled axis may pad.
  auto hand_written_pads = [&](int a, const char* one, const char* fallback) {
    const int64_t p = attr2(op, one, fallback, 0);
    const bool same = attr_of(op, "padding", 0) == 1;
    if ((p != 0 || same) && (a == kH || cols > 1))
      refuse(where, "op " + op.name + " pads " + kAxisName[a] + " (" + (same ? "padding same" : std::string(one) + " " + std::to_string(p)) +
                        ") in a hand-written graph, whose kernels pad both sides alike: a patch border on one side is not "
                        "expressible, so the stage must not pad along a tiled axis");
    return p;
  };
  if (family == OpFamily::kConv || family == OpFamily::kDepthwiseConv) {
    s.kind = StageKind::kConv;
    const auto [kh, kw] = conv_kernel(g, op, where);
    const int64_t k[2] = {kh, kw};
    const char* stride[2] = {"stride_h", "stride_w"};
    const char* dil[2] = {"dilation_h", "dilation_w"};
    const char* pad[2] = {"pad_h", "pad_w"};
    const char* pad_after[2] = {"pad_bottom", "pad_right"};
    for (int a : {kH, kW}) {
      AxisWindow& w = s.axis[a];
      w.stride = attr2(op, stride[a], "stride", 1);
      w.extent = (k[a] - 1) * attr2(op, dil[a], "dilation", 1) + 1;
      if (model) {
        w.before = attr_of(op, pad[a], 0);
        w.after = attr_of(op, pad_after[a], w.before);
      } else {
        w.before = w.after = hand_written_pads(a, pad[a], "pad");
      }
    }
  } else if (is_pool_family(family)) {
    s.kind = StageKind::kPool;
    const char* kernel[2] = {"kernel_h", "kernel_w"};
    const char* stride[2] = {"stride_h", "stride_w"};
    const char* pad[2] = {"pad_h", "pad_w"};
    const char* pad_after[2] = {"pad_bottom", "pad_right"};
    const char* fold[2] = {"fold_pad_top", "fold_pad_left"};
    const char* fold_after[2] = {"fold_pad_bottom", "fold_pad_right"};
    for (int a : {kH, kW}) {
      AxisWindow& w = s.axis[a];
      // A hand-written pool described only by shapes pools non-overlapping windows of in / out.
      const int64_t by_shape = w.out > 0 && w.in % w.out == 0 ? w.in / w.out : -1;
      w.extent = attr2(op, kernel[a], "kernel", by_shape);
      if (w.extent < 1) refuse(where, "pool " + op.name + " has no window size");
      const bool has_kernel = op.attrs.count(kernel[a]) || op.attrs.count("kernel");
      w.stride = attr2(op, stride[a], "stride", has_kernel ? 1 : w.extent);
      w.fold_before = attr_of(op, fold[a], 0);
      w.fold_after = attr_of(op, fold_after[a], 0);
      if (model) {
        w.before = attr_of(op, pad[a], 0) + w.fold_before;
        w.after = attr_of(op, pad_after[a], attr_of(op, pad[a], 0)) + w.fold_after;
      } else {
        w.before = w.after = hand_written_pads(a, pad[a], "pad");
      }
    }
  } else if ((op.kind == "pad" || op.kind == "padv2") && model) {
    s.kind = StageKind::kPad;
    const Tensor& p = g.tensors[op.inputs.size() > 1 ? op.inputs[1] : op.inputs[0]];
    if (op.inputs.size() < 2 || X.shape.size() != 4) refuse(where, "PAD " + op.name + " needs an NHWC input and its paddings");
    s.paddings = constant_ints(p, where, "paddings");
    if (s.paddings.size() != 8) refuse(where, "paddings of PAD " + op.name + " must be [4, 2]");
    for (int a : {kH, kW}) {
      s.axis[a].before = s.paddings[2 * (1 + a)];
      s.axis[a].after = s.paddings[2 * (1 + a) + 1];
      if (s.axis[a].before < 0 || s.axis[a].after < 0) refuse(where, "PAD " + op.name + " has negative paddings");
    }
  } else if (!(is_elementwise_kind(op.kind) && (op.inputs.size() == 1 || binary))) {
    refuse(where, "op " + op.name + " (kind \"" + op.kind + "\") cannot run on a patch: the stage may hold conv, "
                  "depthwise, pool, PAD (imported models) and single-input elementwise ops");
  }
  for (int a : {kH, kW}) {
    const AxisWindow& w = s.axis[a];
    const int64_t span = w.in + w.before + w.after - w.extent;
    if (w.stride < 1 || w.extent < 1 || span < 0 || span / w.stride + 1 != w.out)
      refuse(where, "op " + op.name + "'s output " + kAxisName[a] + " (" + std::to_string(w.out) +
                        ") do not follow from its input, window, stride and padding; cannot map patches back to its input");
  }
  return s;
}

Tensor patch_tensor(const Graph& g, const Tensor& t, int64_t rows, int64_t cols, int patch) {
  Tensor n = t;  // dtype and quantization
  n.name = fresh_tensor_name(g, t.name + ".p" + std::to_string(patch));
  n.constant = n.persistent = n.retained = false;
  n.data = nullptr;
  n.shape[dim_index(t, kH)] = ShapeDim{rows, {}};
  n.shape[dim_index(t, kW)] = ShapeDim{cols, {}};
  for (ShapeDim& d : n.shape) d.symbol.clear();
  n.bytes = dtype_width(*t.dtype);
  for (const ShapeDim& d : n.shape) n.bytes *= d.value;
  n.producer = -1;
  n.consumers.clear();
  return n;
}

// A constant int32 vector (strided_slice bounds, PAD paddings), added to `out`.
TensorId add_int32_constant(Graph& out, const std::string& base, const std::vector<int64_t>& values,
                            std::vector<int64_t> shape) {
  Tensor t;
  t.name = fresh_tensor_name(out, base);
  t.dtype = DType::kInt32;
  for (int64_t d : shape) t.shape.push_back(ShapeDim{d, {}});
  t.constant = true;
  t.bytes = static_cast<Bytes>(values.size() * 4);
  auto bytes = std::make_shared<std::vector<uint8_t>>(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const int32_t v = static_cast<int32_t>(values[i]);
    std::memcpy(bytes->data() + i * 4, &v, 4);
  }
  t.data = std::move(bytes);
  out.tensors.push_back(std::move(t));
  return static_cast<TensorId>(out.tensors.size() - 1);
}

// The op that cuts one patch (rows x columns of `read`) out of the stage input X.
Op slice_op(Graph& out, const Tensor& X, TensorId x, const Span read[2], bool model, const std::string& name) {
  Op s;
  s.name = name;
  s.inputs = {x};
  if (model) {
    s.kind = "strided_slice";
    const size_t rank = X.shape.size();
    std::vector<int64_t> begin(rank, 0), end = dims_of(X), strides(rank, 1);
    for (int a : {kH, kW}) begin[dim_index(X, a)] = read[a].begin, end[dim_index(X, a)] = read[a].end;
    const int64_t n = static_cast<int64_t>(rank);
    s.inputs.push_back(add_int32_constant(out, name + ".begin", begin, {n}));
    s.inputs.push_back(add_int32_constant(out, name + ".end", end, {n}));
    s.inputs.push_back(add_int32_constant(out, name + ".strides", strides, {n}));
  } else {
    s.kind = "slice";
    s.attrs = {{"axis", dim_index(X, kH)}, {"begin", read[kH].begin}, {"size", read[kH].size()}};
    if (read[kW].begin != 0 || read[kW].end != X.shape[dim_index(X, kW)].value)
      s.attrs.insert({{"axis_w", dim_index(X, kW)}, {"begin_w", read[kW].begin}, {"size_w", read[kW].size()}});
  }
  return s;
}

// Marks a patch's conv or pool whose own padding (pad_h, pad_w, pad_bottom, pad_right) is not
// zero with attr patch_border = 1: stock TFLM runs it only when those pads are SAME (or none) for
// the patch's shape, which the exports check (custom_kernels_needed).
void mark_patch_border(Op& op) {
  op.attrs.erase("patch_border");
  if (has_padding(op)) op.attrs["patch_border"] = 1;
}

// One stage op on one patch: its input is `x`, its borders the patch's (model graphs).
Op patch_op(Graph& out, const StageOp& s, const Op& original, const std::vector<TensorId>& xs, const PatchRead read[2],
            bool model, const std::string& name) {
  Op op = original;
  op.name = name;
  for (size_t i = 0; i < s.xs.size(); ++i) std::replace(op.inputs.begin(), op.inputs.end(), s.xs[i], xs[i]);
  op.attrs["patch_of_stage"] = 1;  // the search does not patch a patch again (patch_candidates)
  if (!model) return op;
  if (s.kind == StageKind::kConv) {
    op.attrs["pad_h"] = read[kH].border_before, op.attrs["pad_bottom"] = read[kH].border_after;
    op.attrs["pad_w"] = read[kW].border_before, op.attrs["pad_right"] = read[kW].border_after;
    if (op.attrs.count("padding_same")) op.attrs["padding_same"] = 0;
    // Explicit per-patch padding needs the explicit-padding kernel unless it equals SAME for the
    // patch's shape; the exports check that and name the kernel (custom_kernels_needed). A patch
    // with no border is a VALID conv, which stock kernels run, even when the stage had a folded PAD
    // (its rows are now part of the patch border).
    op.attrs.erase("folded_pad");
    mark_patch_border(op);
  } else if (s.kind == StageKind::kPool) {
    const char* pad[2] = {"pad_h", "pad_w"};
    const char* pad_after[2] = {"pad_bottom", "pad_right"};
    const char* fold[2] = {"fold_pad_top", "fold_pad_left"};
    const char* fold_after[2] = {"fold_pad_bottom", "fold_pad_right"};
    for (int a : {kH, kW}) {
      // The folded PAD's rows lie next to the data, the pool's own padding beyond them.
      const int64_t fb = std::min(s.axis[a].fold_before, read[a].border_before);
      const int64_t fa = std::min(s.axis[a].fold_after, read[a].border_after);
      op.attrs[pad[a]] = read[a].border_before - fb, op.attrs[pad_after[a]] = read[a].border_after - fa;
      if (s.axis[a].fold_before || s.axis[a].fold_after) op.attrs[fold[a]] = fb, op.attrs[fold_after[a]] = fa;
    }
    if (op.attrs.count("padding_same")) op.attrs["padding_same"] = 0;
    // A patch away from the folded PAD's rows reads none of them: a stock pool as far as they go.
    if (!attr_of(op, fold[kH], 0) && !attr_of(op, fold_after[kH], 0) && !attr_of(op, fold[kW], 0) &&
        !attr_of(op, fold_after[kW], 0))
      op.attrs.erase("folded_pad");
    mark_patch_border(op);  // the pool's own padding, outside any folded PAD rows
  } else if (s.kind == StageKind::kPad) {
    std::vector<int64_t> p = s.paddings;
    for (int a : {kH, kW}) p[2 * (1 + a)] = read[a].border_before, p[2 * (1 + a) + 1] = read[a].border_after;
    op.inputs[1] = add_int32_constant(out, name + ".paddings", p, {4, 2});
  }
  return op;
}

int64_t macs_of(const Graph& g, OpId o) { return sim::plan_kernel(g, o).work.macs; }

}  // namespace

PatchGrid parse_patch_grid(const std::string& value, const std::string& where) {
  PatchGrid grid;
  int* part = &grid.rows;
  *part = 0;
  bool digits = false;
  for (char c : value) {
    if ((c == 'x' || c == 'X') && part == &grid.rows && digits) {
      part = &grid.cols;
      *part = 0;
      digits = false;
    } else if (c >= '0' && c <= '9' && *part <= 100000) {
      *part = *part * 10 + (c - '0');
      digits = true;
    } else {
      refuse(where, "patches must be a whole number of row bands (4) or ROWSxCOLS (3x3), got \"" + value + "\"");
    }
  }
  if (!digits) refuse(where, "patches must be a whole number of row bands (4) or ROWSxCOLS (3x3), got \"" + value + "\"");
  if (part == &grid.rows) grid.cols = 1;
  return grid;
}

Rewrite patch_stage(const Graph& g, const std::vector<std::string>& names, int tiles) {
  return patch_stage(g, names, PatchGrid{tiles, 1});
}

Rewrite patch_stage(const Graph& g, const std::vector<std::string>& names, PatchGrid grid) {
  std::string where = "patch:";
  for (size_t i = 0; i < names.size(); ++i) where += (i ? "," : "") + names[i];
  const std::string grid_text = grid.cols == 1 ? std::to_string(grid.rows) : std::to_string(grid.rows) + "x" + std::to_string(grid.cols);
  where += "=" + grid_text;
  if (names.empty()) refuse(where, "name the ops of the stage");
  if (grid.rows < 1 || grid.cols < 1 || grid.rows * static_cast<int64_t>(grid.cols) < 2)
    refuse(where, "patch-based inference needs at least 2 tiles");
  const bool model = sim::uses_model_kernels(g, g.ops[op_named(g, names[0], where)]);

  // The stage: ops in an order where each reads the stage input X or earlier stage ops' outputs
  // (a chain, or inverted-residual blocks whose ADD reads a tensor of the stage twice).
  std::vector<StageOp> stage;
  std::map<TensorId, size_t> made_by;  // stage tensor -> index of the stage op writing it
  TensorId stage_x = -1;
  for (size_t k = 0; k < names.size(); ++k) {
    StageOp s = stage_op(g, names[k], model, grid.cols, where);
    const Op& op = g.ops[s.op];
    for (TensorId x : s.xs) {
      if (made_by.count(x)) continue;
      if (stage_x < 0) stage_x = x;
      else if (x != stage_x)
        refuse(where, "op " + op.name + (stage.empty() ? std::string() : " does not read " + g.ops[stage.back().op].name + "'s output: it") +
                          " reads " + g.tensors[x].name +
                          ", which no earlier op of the stage writes, besides the stage input " + g.tensors[stage_x].name +
                          " (a stage has one input; name its ops in the order they run)");
    }
    if (made_by.count(s.y)) refuse(where, "op " + op.name + " is named twice");
    made_by[s.y] = k;
    stage.push_back(std::move(s));
  }
  for (size_t k = 0; k + 1 < stage.size(); ++k) {
    const TensorId y = stage[k].y;
    const Tensor& Y = g.tensors[y];
    bool outside = g.is_output(y) || Y.retained || Y.persistent || Y.consumers.empty();
    for (OpId c : Y.consumers) {
      bool inside = false;
      for (const StageOp& t : stage) inside = inside || t.op == c;
      outside = outside || !inside;
    }
    if (outside) refuse(where, "intermediate " + Y.name + " is needed outside the stage, so it cannot exist one patch at a time");
  }
  const Tensor& X = g.tensors[stage_x];
  const Tensor& Y = g.tensors[stage.back().y];
  const int parts[2] = {grid.rows, grid.cols};
  for (int a : {kH, kW})
    if (parts[a] > stage.back().axis[a].out)
      refuse(where, std::to_string(parts[a]) + " patches along an output of " + std::to_string(stage.back().axis[a].out) +
                        " " + kAxisName[a]);

  Graph out = g;
  std::vector<Op> new_ops;
  std::vector<std::string> patch_op_names;  // the stage ops' copies, for the MAC count
  std::vector<TensorId> bands;
  int patch = 0;
  using Area = std::array<Span, 2>;
  for (int i = 0; i < grid.rows; ++i) {
    std::vector<TensorId> band_parts;
    for (int j = 0; j < grid.cols; ++j, ++patch) {
      // The area each stage tensor must hold for this patch, back to the stage input: a tensor
      // read by two ops (a residual's skip) holds the union of what they read; rows and columns
      // are independent.
      const size_t n = stage.size();
      std::map<TensorId, Area> need;
      std::vector<std::array<PatchRead, 2>> reads(n);
      const int index[2] = {i, j};
      for (int a : {kH, kW}) {
        const int64_t total = stage.back().axis[a].out;
        need[stage.back().y][a] = {total * index[a] / parts[a], total * (index[a] + 1) / parts[a]};
      }
      for (size_t k = n; k-- > 0;) {
        for (int a : {kH, kW}) {
          // An axis cut in one part keeps every op's full extent (nothing trimmed, nothing added).
          const AxisWindow& w = stage[k].axis[a];
          reads[k][a] = parts[a] == 1 ? PatchRead{{0, w.in}, w.before, w.after} : patch_read(w, need[stage[k].y][a]);
          if (reads[k][a].stored.size() <= 0)
            refuse(where, "patch " + std::to_string(patch) + " of op " + g.ops[stage[k].op].name + " reads only padding " +
                              kAxisName[a] + ": use fewer patches");
        }
        for (TensorId x : stage[k].xs) {
          auto it = need.find(x);
          if (it == need.end()) {
            need[x] = {reads[k][kH].stored, reads[k][kW].stored};
          } else {
            for (int a : {kH, kW}) {
              Span& u = it->second[a];
              u = {std::min(u.begin, reads[k][a].stored.begin), std::max(u.end, reads[k][a].stored.end)};
            }
          }
        }
      }
      const std::string suffix = ".p" + std::to_string(patch);
      // Each stage tensor's patch (its area of `need`), and the cut of it an op reads: cut from
      // the stage input directly, or cropped from a wider patch of an intermediate.
      std::map<TensorId, TensorId> held;
      std::map<std::pair<TensorId, std::array<int64_t, 4>>, TensorId> cuts;
      auto cut = [&](TensorId x, const Area& area, const std::string& reader) -> TensorId {
        const bool from_input = x == stage_x;
        const Area have = from_input ? Area{Span{0, X.shape[dim_index(X, kH)].value}, Span{0, X.shape[dim_index(X, kW)].value}} : need.at(x);
        const TensorId source = from_input ? stage_x : held.at(x);
        if (!from_input && have[kH].begin == area[kH].begin && have[kH].end == area[kH].end &&
            have[kW].begin == area[kW].begin && have[kW].end == area[kW].end)
          return source;
        const std::array<int64_t, 4> key = {area[kH].begin, area[kH].end, area[kW].begin, area[kW].end};
        if (auto c = cuts.find({x, key}); c != cuts.end()) return c->second;
        const Span rel[2] = {{area[kH].begin - have[kH].begin, area[kH].end - have[kH].begin},
                             {area[kW].begin - have[kW].begin, area[kW].end - have[kW].begin}};
        const Tensor& S = out.tensors[source];
        Op slice = slice_op(out, S, source, rel, model, fresh_op_name(out, reader + (from_input ? ".slice" : ".crop") + suffix));
        out.tensors.push_back(patch_tensor(out, g.tensors[x], area[kH].size(), area[kW].size(), patch));
        const TensorId t = static_cast<TensorId>(out.tensors.size() - 1);
        slice.outputs = {t};
        new_ops.push_back(std::move(slice));
        cuts[{x, key}] = t;
        return t;
      };
      for (size_t k = 0; k < n; ++k) {
        const Op& original = g.ops[stage[k].op];
        std::vector<TensorId> xs;
        for (TensorId x : stage[k].xs) xs.push_back(cut(x, {reads[k][kH].stored, reads[k][kW].stored}, original.name));
        Op op = patch_op(out, stage[k], original, xs, reads[k].data(), model, fresh_op_name(out, original.name + suffix));
        const Area& area = need.at(stage[k].y);
        out.tensors.push_back(patch_tensor(out, g.tensors[stage[k].y], area[kH].size(), area[kW].size(), patch));
        held[stage[k].y] = static_cast<TensorId>(out.tensors.size() - 1);
        op.outputs = {held[stage[k].y]};
        patch_op_names.push_back(op.name);
        new_ops.push_back(std::move(op));
      }
      band_parts.push_back(held.at(stage.back().y));
    }
    if (band_parts.size() == 1) {
      bands.push_back(band_parts[0]);
      continue;
    }
    // A row band's patches side by side (the whole output when there is one band).
    Op concat;
    concat.name = fresh_op_name(out, g.ops[stage.back().op].name + ".concat_w.b" + std::to_string(i));
    concat.kind = model ? "concatenation" : "concat";
    concat.attrs = {{"axis", dim_index(Y, kW)}};
    concat.inputs = band_parts;
    if (grid.rows == 1) {
      concat.outputs = {stage.back().y};
    } else {
      const int64_t band_rows = out.tensors[band_parts[0]].shape[dim_index(Y, kH)].value;
      out.tensors.push_back(patch_tensor(out, Y, band_rows,
                                         Y.shape[dim_index(Y, kW)].value, i));
      out.tensors.back().name = fresh_tensor_name(out, Y.name + ".b" + std::to_string(i));
      concat.outputs = {static_cast<TensorId>(out.tensors.size() - 1)};
      bands.push_back(concat.outputs[0]);
    }
    new_ops.push_back(std::move(concat));
  }
  if (grid.rows > 1) {
    Op concat;
    concat.name = fresh_op_name(out, g.ops[stage.back().op].name + ".concat");
    concat.kind = model ? "concatenation" : "concat";
    concat.attrs = {{"axis", dim_index(Y, kH)}};
    concat.inputs = bands;
    concat.outputs = {stage.back().y};
    new_ops.push_back(std::move(concat));
  }

  std::vector<Op> ops;
  std::set<OpId> in_stage;
  for (const StageOp& s : stage) in_stage.insert(s.op);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (static_cast<OpId>(o) == stage.front().op) ops.insert(ops.end(), new_ops.begin(), new_ops.end());
    if (!in_stage.count(static_cast<OpId>(o))) ops.push_back(g.ops[o]);
  }
  out.ops = std::move(ops);
  std::set<TensorId> vanished;
  for (size_t k = 0; k + 1 < stage.size(); ++k) vanished.insert(stage[k].y);
  for (const StageOp& s : stage)  // a PAD's own paddings, when nothing else reads them
    if (s.kind == StageKind::kPad) {
      const TensorId p = g.ops[s.op].inputs[1];
      if (g.tensors[p].consumers.size() == 1 && !g.is_output(p) && !g.is_input(p)) vanished.insert(p);
    }
  drop_tensors(out, vanished);

  Rewrite r;
  r.graph = finish(std::move(out), where);
  int64_t stage_macs = 0, patch_macs = 0;
  for (const StageOp& s : stage) stage_macs += macs_of(g, s.op);
  for (const std::string& n : patch_op_names)
    if (std::optional<OpId> o = r.graph.find_op(n)) patch_macs += macs_of(r.graph, *o);
  const int64_t halo = patch_macs - stage_macs;
  r.figures["stage_macs"] = stage_macs;
  r.figures["halo_macs"] = halo;
  r.figures["tiles"] = static_cast<int64_t>(grid.rows) * grid.cols;
  r.figures["tile_rows"] = grid.rows;
  r.figures["tile_cols"] = grid.cols;
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f", stage_macs ? 100.0 * static_cast<double>(halo) / static_cast<double>(stage_macs) : 0.0);
  r.summary = "ops " + where.substr(6, where.rfind('=') - 6) + " run over " +
              (grid.cols == 1 ? std::to_string(grid.rows) + " row tiles" : grid_text + " patches") + " cut from " +
              X.name + " (borders padded only at the image edge); the halos recompute " + std::to_string(halo) +
              " MACs (" + percent + " % of the stage's " + std::to_string(stage_macs) + ")";
  return r;
}

}  // namespace arenaplan
