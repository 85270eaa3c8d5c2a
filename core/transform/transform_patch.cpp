// Patch-based inference (MCUNetV2): the first, memory-heavy stage runs tile by tile over row bands
// of its output. Each tile is cut from the stage input with the halo its receptive field needs,
// so the big intermediate activations exist only one tile at a time; the halo rows are computed
// by more than one tile, which is the extra work reported.
#include <algorithm>

#include "core/sim/sim_kernels.h"
#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

struct StageOp {
  OpId op = -1;
  TensorId x = -1;  // activation input
  TensorId y = -1;  // output
  int64_t kh = 1, stride = 1;  // rows: window height and stride (1, 1 for elementwise)
};

int64_t attr(const Op& op, const char* one, const char* both, int64_t fallback) {
  if (auto it = op.attrs.find(one); it != op.attrs.end()) return it->second;
  if (auto it = op.attrs.find(both); it != op.attrs.end()) return it->second;
  return fallback;
}

// Index of H in an NHWC ([N,H,W,C] or [H,W,C]) shape.
int h_axis(const Tensor& t) { return static_cast<int>(t.shape.size()) - 3; }

Tensor tile_tensor(const Graph& g, const Tensor& t, int64_t rows, int tile) {
  Tensor n;
  n.name = fresh_tensor_name(g, t.name + ".p" + std::to_string(tile));
  n.dtype = t.dtype;
  n.shape = t.shape;
  n.shape[h_axis(t)].value = rows;
  n.shape[h_axis(t)].symbol.clear();
  n.bytes = dtype_width(*t.dtype);
  for (const ShapeDim& d : n.shape) n.bytes *= d.value;
  return n;
}

int64_t work_of(const Graph& g, OpId o) {
  const sim::KernelWork w = sim::plan_kernel(g, o).work;
  return w.macs;
}

}  // namespace

Rewrite patch_stage(const Graph& g, const std::vector<std::string>& names, int tiles) {
  std::string where = "patch:";
  for (size_t i = 0; i < names.size(); ++i) where += (i ? "," : "") + names[i];
  where += "=" + std::to_string(tiles);
  if (names.empty()) refuse(where, "name the ops of the stage");
  if (tiles < 2) refuse(where, "patch-based inference needs at least 2 tiles");

  std::vector<StageOp> stage;
  for (size_t k = 0; k < names.size(); ++k) {
    StageOp s;
    s.op = op_named(g, names[k], where);
    const Op& op = g.ops[s.op];
    std::vector<TensorId> acts;
    for (TensorId t : op.inputs)
      if (!g.tensors[t].constant) acts.push_back(t);
    if (acts.size() != 1)
      refuse(where, "op " + op.name + " has " + std::to_string(acts.size()) + " activation inputs; a patched stage is a chain of single-input ops");
    if (op.outputs.size() != 1) refuse(where, "op " + op.name + " has " + std::to_string(op.outputs.size()) + " outputs");
    if (!op.in_place.empty() || !op.async_reads.empty())
      refuse(where, "op " + op.name + " runs in place or reads asynchronously; patch before those rewrites");
    s.x = acts[0];
    s.y = op.outputs[0];
    if (k > 0 && s.x != stage.back().y)
      refuse(where, "op " + op.name + " does not read " + g.ops[stage.back().op].name + "'s output: the stage must be a chain");
    for (TensorId t : {s.x, s.y}) {
      const Tensor& T = g.tensors[t];
      if (!T.dtype || (T.shape.size() != 3 && T.shape.size() != 4))
        refuse(where, "tensor " + T.name + " needs an NHWC shape ([N,H,W,C] or [H,W,C]) to be cut into row tiles");
    }
    const OpFamily family = op_family(op.kind);
    if (is_window_family(family)) {
      if (is_pool_family(family)) {
        s.kh = attr(op, "kernel_h", "kernel", 2);
        s.stride = attr(op, "stride_h", "stride", s.kh);
      } else {
        if (op.inputs.size() < 2) refuse(where, "op " + op.name + " has no weights");
        std::vector<int64_t> wd = dims_of(g.tensors[op.inputs[1]]);
        if (family == OpFamily::kDepthwiseConv && wd.size() == 4) wd.erase(wd.begin());
        if (wd.size() < 3) refuse(where, "weights of op " + op.name + " have no kernel height");
        s.kh = family == OpFamily::kConv ? wd[1] : wd[0];
        s.stride = attr(op, "stride_h", "stride", 1);
      }
      if (attr(op, "pad_h", "pad", 0) != 0)
        refuse(where, "op " + op.name + " pads rows (pad_h " + std::to_string(attr(op, "pad_h", "pad", 0)) +
                          "): zero rows at tile borders are not modelled, so the stage must use row padding 0");
    } else if (!(is_elementwise_kind(op.kind) && op.inputs.size() == 1)) {
      refuse(where, "op " + op.name + " (kind \"" + op.kind + "\") cannot run on a tile: the stage may hold conv, "
                    "depthwise, pool and single-input elementwise ops");
    }
    if (k + 1 < names.size()) {
      const Tensor& Y = g.tensors[s.y];
      if (Y.consumers.size() != 1 || g.is_output(s.y) || Y.retained || Y.persistent)
        refuse(where, "intermediate " + Y.name + " is needed outside the stage, so it cannot exist one tile at a time");
    }
    stage.push_back(s);
  }
  const Tensor& X = g.tensors[stage.front().x];
  const Tensor& Y = g.tensors[stage.back().y];
  const int64_t out_rows = Y.shape[h_axis(Y)].value;
  if (tiles > out_rows)
    refuse(where, std::to_string(tiles) + " tiles for an output of " + std::to_string(out_rows) + " rows");

  Graph out = g;
  std::vector<Op> tile_ops;
  std::vector<TensorId> tile_outputs;
  for (int i = 0; i < tiles; ++i) {
    // Rows each layer must produce for this band of the stage output, back to the stage input.
    std::vector<std::pair<int64_t, int64_t>> rows(stage.size() + 1);
    rows[stage.size()] = {out_rows * i / tiles, out_rows * (i + 1) / tiles};
    for (size_t k = stage.size(); k-- > 0;) {
      const auto [a, b] = rows[k + 1];
      rows[k] = {a * stage[k].stride, (b - 1) * stage[k].stride + stage[k].kh};
    }
    // A stage that pads ("same" padding given as "padding", not "pad") reads rows past the input.
    if (rows[0].second > X.shape[h_axis(X)].value)
      refuse(where, "tile " + std::to_string(i) + " needs input rows up to " + std::to_string(rows[0].second) + " of " +
                        X.name + "'s " + std::to_string(X.shape[h_axis(X)].value) +
                        ": the stage pads rows, and zero rows at tile borders are not modelled");
    Op slice;
    slice.name = fresh_op_name(out, g.ops[stage.front().op].name + ".slice.p" + std::to_string(i));
    slice.kind = "slice";
    slice.inputs = {stage.front().x};
    slice.attrs = {{"axis", h_axis(X)}, {"begin", rows[0].first}, {"size", rows[0].second - rows[0].first}};
    out.tensors.push_back(tile_tensor(out, X, rows[0].second - rows[0].first, i));
    TensorId cur = static_cast<TensorId>(out.tensors.size() - 1);
    slice.outputs = {cur};
    tile_ops.push_back(slice);
    for (size_t k = 0; k < stage.size(); ++k) {
      Op op = g.ops[stage[k].op];
      op.name = fresh_op_name(out, op.name + ".p" + std::to_string(i));
      std::replace(op.inputs.begin(), op.inputs.end(), stage[k].x, cur);
      out.tensors.push_back(tile_tensor(out, g.tensors[stage[k].y], rows[k + 1].second - rows[k + 1].first, i));
      cur = static_cast<TensorId>(out.tensors.size() - 1);
      op.outputs = {cur};
      tile_ops.push_back(op);
    }
    tile_outputs.push_back(cur);
  }
  Op concat;
  concat.name = fresh_op_name(out, g.ops[stage.back().op].name + ".concat");
  concat.kind = "concat";
  concat.attrs = {{"axis", h_axis(Y)}};
  concat.inputs = tile_outputs;
  concat.outputs = {stage.back().y};
  tile_ops.push_back(concat);

  std::vector<Op> ops;
  std::set<OpId> in_stage;
  for (const StageOp& s : stage) in_stage.insert(s.op);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (static_cast<OpId>(o) == stage.front().op) ops.insert(ops.end(), tile_ops.begin(), tile_ops.end());
    if (!in_stage.count(static_cast<OpId>(o))) ops.push_back(g.ops[o]);
  }
  out.ops = std::move(ops);
  std::set<TensorId> vanished;
  for (size_t k = 0; k + 1 < stage.size(); ++k) vanished.insert(stage[k].y);
  drop_tensors(out, vanished);

  Rewrite r;
  r.graph = finish(std::move(out), where);
  int64_t stage_macs = 0, tile_macs = 0;
  for (const StageOp& s : stage) stage_macs += work_of(g, s.op);
  for (size_t o = 0; o < r.graph.ops.size(); ++o) {
    const std::string& n = r.graph.ops[o].name;
    for (const StageOp& s : stage)
      if (n.rfind(g.ops[s.op].name + ".p", 0) == 0 && r.graph.ops[o].kind == g.ops[s.op].kind)
        tile_macs += work_of(r.graph, static_cast<OpId>(o));
  }
  r.figures["stage_macs"] = stage_macs;
  r.figures["halo_macs"] = tile_macs - stage_macs;
  r.figures["tiles"] = tiles;
  r.summary = "ops " + where.substr(6, where.rfind('=') - 6) + " run over " + std::to_string(tiles) +
              " row tiles cut from " + X.name + "; the halos recompute " + std::to_string(tile_macs - stage_macs) +
              " MACs (" + std::to_string(stage_macs ? (tile_macs - stage_macs) * 100 / stage_macs : 0) +
              " % of the stage's " + std::to_string(stage_macs) + ")";
  return r;
}

}  // namespace arenaplan
