// Patch-based stages on model graphs (int8, explicit and PAD padding, strides 1 and 2): outputs
// bit-exact against the unpatched graph, halo MACs equal to a brute-force receptive-field count,
// every plan verified, refusals named.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

#include "core/graph/graph_json.h"
#include "core/tflite/exports.h"
#include "core/sim/sim_kernels.h"
#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"
#include "core/transform/whatif.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/rewrite_test_support.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

// stem conv (3x3, stride s, explicit pad 1) -> PAD (top/left 0, bottom/right 1, TF's stride-2 "same")
// -> depthwise 3x3 stride 2 valid -> pointwise -> depthwise 3x3 stride 1 explicit pad 1 -> conv 1x1 -> head.
Graph padded_chain(uint64_t seed, int64_t size, int64_t stem_stride) {
  Net n(seed);
  TensorId x = n.activation("input", {1, size, size, 3});
  TensorId t = n.conv("stem", x, 8, 3, stem_stride, 1, 3);
  t = n.pad("pad", t, 0, 0, 1, 1);
  t = n.depthwise("dw1", t, 3, 2, 0, 1, 3);
  t = n.conv("pw1", t, 12, 1, 1, 0);
  t = n.depthwise("dw2", t, 3, 1, 1, 1, 3);
  t = n.conv("pw2", t, 6, 1, 1, 0, 3);
  t = n.pool("head", t, true, 2, 2);
  return n.finish(x, {t});
}

const std::vector<std::string> kStage = {"stem", "pad", "dw1", "pw1", "dw2", "pw2"};

struct Window {
  int64_t k = 1, stride = 1, before = 0;
};

// The window of a stage op along one axis (square windows here), read from its attrs and weights.
Window window_of(const Graph& g, const Op& op) {
  Window w;
  if (op.kind == "pad") {
    w.before = -1;  // marked: a PAD shifts by its paddings (read below)
    return w;
  }
  if (op.kind == "conv_2d" || op.kind == "depthwise_conv_2d") {
    w.k = g.tensors[op.inputs[1]].shape[1].value;
    w.stride = op.attrs.at("stride_h");
    w.before = op.attrs.at("pad_h");
  }
  return w;
}

// Brute force: the input rows one stage op reads to produce output rows `rows` (every tap of
// every output row that lands inside the stored input), along one axis of a square model.
std::set<int64_t> rows_read(const Graph& g, const Op& op, const std::set<int64_t>& rows, int64_t in, int64_t pad_shift) {
  std::set<int64_t> out;
  const Window w = window_of(g, op);
  for (int64_t r : rows) {
    if (w.before < 0) {  // PAD
      if (r - pad_shift >= 0 && r - pad_shift < in) out.insert(r - pad_shift);
      continue;
    }
    for (int64_t f = 0; f < w.k; ++f) {
      const int64_t i = r * w.stride - w.before + f;
      if (i >= 0 && i < in) out.insert(i);
    }
  }
  return out;
}

// MACs of the stage run patch by patch over a rows x cols grid, counted by brute force: per patch,
// the span of rows and columns each op must produce (from the receptive field of the patch, taken
// back op by op), times each conv's taps per output element. An axis cut in one part keeps full size.
int64_t brute_force_patch_macs(const Graph& g, const std::vector<std::string>& stage, int rows, int cols) {
  int64_t macs = 0;
  const int parts[2] = {rows, cols};
  const Tensor& Y = g.tensors[g.ops[*g.find_op(stage.back())].outputs[0]];
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const int index[2] = {i, j};
      // need[a]: the output rows (a = 0) or columns (a = 1) the current op must produce.
      std::set<int64_t> need[2];
      for (int a = 0; a < 2; ++a) {
        const int64_t total = Y.shape[1 + a].value;
        for (int64_t r = total * index[a] / parts[a]; r < total * (index[a] + 1) / parts[a]; ++r) need[a].insert(r);
      }
      for (size_t k = stage.size(); k-- > 0;) {
        const Op& op = g.ops[*g.find_op(stage[k])];
        const Tensor& x = g.tensors[op.inputs[0]];
        const Tensor& y = g.tensors[op.outputs[0]];
        int64_t span[2];
        for (int a = 0; a < 2; ++a)
          span[a] = parts[a] == 1 ? y.shape[1 + a].value : *need[a].rbegin() - *need[a].begin() + 1;
        if (op.kind == "conv_2d")
          macs += span[0] * span[1] * y.shape[3].value * g.tensors[op.inputs[1]].shape[1].value *
                  g.tensors[op.inputs[1]].shape[2].value * x.shape[3].value;
        else if (op.kind == "depthwise_conv_2d")
          macs += span[0] * span[1] * y.shape[3].value * g.tensors[op.inputs[1]].shape[1].value *
                  g.tensors[op.inputs[1]].shape[2].value;
        for (int a = 0; a < 2; ++a) {
          std::set<int64_t> full;  // the span [first, last] the op produces, not just the rows read
          if (parts[a] == 1) {
            for (int64_t r = 0; r < y.shape[1 + a].value; ++r) full.insert(r);
          } else {
            for (int64_t r = *need[a].begin(); r <= *need[a].rbegin(); ++r) full.insert(r);
          }
          // PAD shifts by its top (a = 0) / left (a = 1) padding: read from its constant paddings.
          int64_t shift = 0;
          if (op.kind == "pad") {
            const auto* p = reinterpret_cast<const int32_t*>(g.tensors[op.inputs[1]].data->data());
            shift = p[2 + 2 * a];
          }
          need[a] = rows_read(g, op, full, x.shape[1 + a].value, shift);
        }
      }
    }
  return macs;
}

int64_t stage_macs_by_hand(const Graph& g, const std::vector<std::string>& stage) {
  return brute_force_patch_macs(g, stage, 1, 1);
}

std::string patch_refusal(const Graph& g, const std::string& spec) {
  try {
    apply_transformation(g, parse_transformation(spec), {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("patch on int8 MobileNet-style graphs with PAD and explicit padding: bit-exact, true halo MACs, verified") {
  for (int64_t stride : {1, 2}) {
    for (int64_t size : {16, 19}) {
      const Graph g = padded_chain(100 + static_cast<uint64_t>(size * stride), size, stride);
      const std::vector<uint8_t> want = evaluate_outputs(g);
      const int64_t stage_macs = stage_macs_by_hand(g, kStage);
      for (PatchGrid grid : {PatchGrid{2, 1}, PatchGrid{3, 1}, PatchGrid{2, 2}, PatchGrid{3, 3}, PatchGrid{1, 3}}) {
        CAPTURE(stride);
        CAPTURE(size);
        CAPTURE(grid.rows);
        CAPTURE(grid.cols);
        const Rewrite r = patch_stage(g, kStage, grid);
        CHECK(evaluate_outputs(r.graph) == want);
        CHECK(r.figures.at("stage_macs") == stage_macs);
        const int64_t patched = brute_force_patch_macs(g, kStage, grid.rows, grid.cols);
        CHECK(r.figures.at("halo_macs") == patched - stage_macs);
        CHECK(r.figures.at("halo_macs") > 0);
        CHECK(r.figures.at("tiles") == grid.rows * grid.cols);
        // Model graphs get stock TFLite ops for the cuts and the joins.
        int slices = 0;
        for (const Op& op : r.graph.ops) {
          CHECK(op.kind != "slice");
          CHECK(op.kind != "concat");
          slices += op.kind == "strided_slice";
        }
        CHECK(slices == grid.rows * grid.cols);
        const PlanFigures after = measure_graph(r.graph, {});
        CHECK(after.verified);
        CHECK(after.sim_ok);
      }
    }
  }
}

TEST_CASE("patch: each patch's border is the image border only (pads on the edge patches, none inside)") {
  const Graph g = padded_chain(7, 16, 1);
  const Rewrite r = patch_stage(g, kStage, PatchGrid{3, 3});
  // stem pads 1 on every side: the corner patch 0 pads top and left only, the middle patch 4 nothing.
  const Op& corner = r.graph.ops[*r.graph.find_op("stem.p0")];
  CHECK(corner.attrs.at("pad_h") == 1);
  CHECK(corner.attrs.at("pad_w") == 1);
  CHECK(corner.attrs.at("pad_bottom") == 0);
  CHECK(corner.attrs.at("pad_right") == 0);
  const Op& middle = r.graph.ops[*r.graph.find_op("stem.p4")];
  for (const char* a : {"pad_h", "pad_w", "pad_bottom", "pad_right"}) CHECK(middle.attrs.at(a) == 0);
  // The edge patches need the explicit-padding kernel, the middle one is a stock VALID conv.
  std::set<std::string> custom;
  for (const CustomKernel& k : custom_kernels_needed(r.graph)) custom.insert(k.op);
  CHECK(custom.count("stem.p0"));
  CHECK_FALSE(custom.count("stem.p4"));
  const Op& last = r.graph.ops[*r.graph.find_op("stem.p8")];
  CHECK(last.attrs.at("pad_bottom") == 1);
  CHECK(last.attrs.at("pad_right") == 1);
  // The PAD (bottom/right 1) pads only the last row and column of patches.
  auto paddings = [&](const char* op) {
    const Op& p = r.graph.ops[*r.graph.find_op(op)];
    const auto* v = reinterpret_cast<const int32_t*>(r.graph.tensors[p.inputs[1]].data->data());
    return std::vector<int32_t>(v, v + 8);
  };
  CHECK(paddings("pad.p0") == std::vector<int32_t>{0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(paddings("pad.p8") == std::vector<int32_t>{0, 0, 0, 1, 0, 1, 0, 0});
  CHECK(evaluate_outputs(r.graph) == evaluate_outputs(g));
}

TEST_CASE("patch: a patched pool that pads only its image-border sides needs a kernel stock TFLM lacks; the exports say so") {
  // stem conv 3x3 pad 1 -> average pool 3x3 stride 1 with SAME padding (1 on every side).
  Net n(9);
  const TensorId x = n.activation("input", {1, 12, 12, 4});
  const TensorId t = n.conv("stem", x, 8, 3, 1, 1);
  const TensorId y = n.activation_like("pool.out", {1, 12, 12, 8}, t);
  n.op("pool", "average_pool_2d", {t}, {y},
       {{"kernel_h", 3}, {"kernel_w", 3}, {"stride_h", 1}, {"stride_w", 1}, {"pad_h", 1}, {"pad_w", 1},
        {"pad_bottom", 1}, {"pad_right", 1}});
  const Graph g = n.finish(x, {y});
  CHECK(custom_kernels_needed(g).empty());  // SAME padding: stock kernels
  const Rewrite r = patch_stage(g, {"stem", "pool"}, PatchGrid{3, 3});
  CHECK(evaluate_outputs(r.graph) == evaluate_outputs(g));
  std::map<std::string, CustomKernel> custom;
  for (const CustomKernel& k : custom_kernels_needed(r.graph)) custom[k.op] = k;
  // The corner patch's pool pads top and left only: neither SAME nor VALID for its input.
  REQUIRE(custom.count("pool.p0"));
  CHECK(custom["pool.p0"].kernel == "average_pool_2d_explicit_padding");
  CHECK(custom["pool.p0"].why.find("patch border padding") != std::string::npos);
  CHECK(custom["pool.p0"].why.find("1/1/0/0 (top/left/bottom/right)") != std::string::npos);
  // The conv's border is named as what it is, a patch border, not a folded PAD.
  REQUIRE(custom.count("stem.p0"));
  CHECK(custom["stem.p0"].kernel == "conv_2d_explicit_padding");
  CHECK(custom["stem.p0"].why.find("patch border padding") != std::string::npos);
  CHECK(custom["stem.p0"].why.find("folded PAD") == std::string::npos);
  // The middle patch touches no image border: stock VALID conv and pool.
  CHECK_FALSE(custom.count("pool.p4"));
  CHECK_FALSE(custom.count("stem.p4"));
  // Every other patch touches the border on one or two sides.
  CHECK(custom.size() == 2 * 8);
}

TEST_CASE("patch after foldpad, and foldpad after patch, stay bit-exact; pools read folded pads per patch") {
  // The first seed whose tail pool has at least 3x3 outputs, so every grid below can cut it (the
  // generator's draws differ between libstdc++ and libc++, so the seed is found, not fixed).
  Graph g;
  uint64_t seed = 11;
  for (;; ++seed) {
    REQUIRE(seed < 100);
    g = mobilenet_style(seed);
    const std::vector<ShapeDim>& pooled = g.tensors[g.outputs[0]].shape;
    if (pooled[1].value >= 3 && pooled[2].value >= 3) break;
  }
  CAPTURE(seed);
  const std::vector<uint8_t> want = evaluate_outputs(g);
  // Fold every PAD, then patch the stem .. first pointwise and, separately, the padded tail pool.
  Graph folded = g;
  for (const Op& op : g.ops)
    if (op.kind == "pad") folded = fold_pad(folded, op.name).graph;
  REQUIRE(evaluate_outputs(folded) == want);
  for (PatchGrid grid : {PatchGrid{2, 1}, PatchGrid{2, 2}, PatchGrid{3, 3}}) {
    CAPTURE(grid.rows);
    CAPTURE(grid.cols);
    CHECK(evaluate_outputs(patch_stage(folded, {"stem", "dw0", "pw0"}, grid).graph) == want);
    // The last pool reads the folded tail PAD: its edge patches get fold_pad_* borders.
    CHECK(evaluate_outputs(patch_stage(folded, {"pool"}, grid).graph) == want);
    CHECK(evaluate_outputs(patch_stage(g, {"pad_tail", "pool"}, grid).graph) == want);
  }
}

TEST_CASE("patch refusals name the op and the reason") {
  const Graph g = padded_chain(3, 16, 1);
  CHECK(patch_refusal(g, "patch:stem,dw1=2").find("does not read stem's output") != std::string::npos);
  CHECK(patch_refusal(g, "patch:stem=1").find("at least 2 tiles") != std::string::npos);
  CHECK(patch_refusal(g, "patch:stem=2y2").find("ROWSxCOLS") != std::string::npos);
  CHECK(patch_refusal(g, "patch:stem=x2").find("ROWSxCOLS") != std::string::npos);
  CHECK(patch_refusal(g, "patch:pw2=99").find("99 patches along an output of") != std::string::npos);
  CHECK(patch_refusal(g, "patch:nothere=2").find("nothere") != std::string::npos);
  // An intermediate read outside the stage must exist whole.
  Net n(5);
  TensorId x = n.activation("input", {1, 8, 8, 4});
  TensorId a = n.conv("a", x, 4, 3, 1, 1);
  TensorId b = n.conv("b", a, 4, 1, 1, 0);
  TensorId sum = n.activation("sum", {1, 8, 8, 4});
  n.op("add", "add", {a, b}, {sum});
  const Graph branchy = n.finish(x, {sum});
  CHECK(patch_refusal(branchy, "patch:a,b=2").find("intermediate a.out is needed outside the stage") != std::string::npos);
  // An ADD may join two tensors of the stage, not two stage inputs.
  CHECK(patch_refusal(branchy, "patch:add=2").find("besides the stage input a.out") != std::string::npos);
  CHECK(patch_refusal(branchy, "patch:b,add=2").find("besides the stage input a.out") == std::string::npos);
  // Hand-written graphs pad both sides alike: a padded tiled axis is refused, naming it.
  const Graph hand = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"alignment":16,"tensors":{
      "I":{"shape":[8,8,4],"dtype":"int8"},"w":{"shape":[4,3,3,4],"dtype":"int8","constant":true},
      "Y":{"shape":[8,8,4],"dtype":"int8"}},
      "ops":[{"name":"c","kind":"conv2d","inputs":["I","w"],"outputs":["Y"],"attrs":{"pad":1}}],
      "inputs":["I"],"outputs":["Y"]})");
  CHECK(patch_refusal(hand, "patch:c=2").find("pads rows") != std::string::npos);
}

TEST_CASE("patch on hand-written graphs: rows x columns grids cut by slice (axis_w) stay bit-exact") {
  const Graph g = example_graph("whatif_patch");
  const std::vector<uint8_t> want = evaluate_outputs(g);
  for (PatchGrid grid : {PatchGrid{2, 2}, PatchGrid{3, 3}, PatchGrid{1, 2}}) {
    CAPTURE(grid.rows);
    CAPTURE(grid.cols);
    const Rewrite r = patch_stage(g, {"c1", "r1", "c2", "pool"}, grid);
    CHECK(evaluate_outputs(r.graph) == want);
    int slices = 0;
    for (const Op& op : r.graph.ops) slices += op.kind == "slice" && op.attrs.count("axis_w");
    CHECK(slices == grid.rows * grid.cols);
    // Net extra work: the halo, less what no patch needs (c2's stride-2 window never reads X's
    // last column, so a patch grid cut along columns skips it; with 2 columns that evens out).
    CHECK(r.figures.at("halo_macs") >= 0);
  }
  // The simulator's MAC count of the patched graph agrees with the rewrite's halo figure.
  const WhatIfReport w = run_whatif(g, {{"patch:c1,r1,c2,pool=3x3"}}, {}, {});
  REQUIRE(w.steps[0].applied);
  CHECK(w.after.macs == w.before.macs + w.steps[0].figures.at("halo_macs"));
  CHECK(w.outputs_check == "bit-exact");
  CHECK(w.after.verified);
}

TEST_CASE("fuzz: random sequences of patch, foldpad and in-place rewrites on MobileNet-style int8 graphs stay bit-exact") {
  int patched = 0, patched_2d = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    const Graph original = mobilenet_style(seed, seed % 5 == 0);
    std::mt19937 rng(static_cast<uint32_t>(seed * 7919));
    Graph g = original;
    const std::vector<WhatIfSpec> applied = test::apply_random_legal(g, 5, rng, [](const Graph& h) {
      std::vector<std::string> candidates = patch_candidates(h);
      // Patch grids the candidate list leaves out: 2x2 and 3x2 over every proposed chain.
      for (const std::string& c : std::vector<std::string>(candidates)) {
        const std::string chain = c.substr(0, c.rfind('='));
        candidates.push_back(chain + "=2x2");
        candidates.push_back(chain + "=3x2");
      }
      for (const std::string& f : foldpad_candidates(h)) candidates.push_back(f);
      for (const Op& op : h.ops)
        if (op.kind == "depthwise_conv_2d" || op.kind == "conv_2d") candidates.push_back("inplace:" + op.name);
      return candidates;
    });
    for (const WhatIfSpec& s : applied)
      if (s.spec.rfind("patch:", 0) == 0) ++patched, patched_2d += s.spec.find('x', s.spec.rfind('=')) != std::string::npos;
    REQUIRE(!applied.empty());
    for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o)  // model kernels everywhere, no stand-ins
      REQUIRE_MESSAGE(!sim::plan_kernel(g, o).stand_in, g.ops[o].name);
    WhatIfOptions options;
    options.measure_alone = false;
    options.plan_time_limit_seconds = 0.2;
    const WhatIfReport r = run_whatif(original, applied, options, {});
    CHECK(r.outputs_check == "bit-exact");
    for (const WhatIfStep& s : r.steps) {
      CAPTURE(s.spec);
      CHECK(s.applied);
      CHECK(s.after.verified);
      CHECK(s.after.sim_ok);
    }
  }
  CHECK(patched >= 5);
  CHECK(patched_2d >= 2);
}

TEST_CASE("patch across inverted-residual blocks: the ADD inside the stage, skip cropped or cut from the stage input, bit-exact") {
  for (uint64_t seed : {1, 2, 3, 4}) {
    CAPTURE(seed);
    const Graph g = residual_mcunet_style(seed);
    const std::vector<uint8_t> want = evaluate_outputs(g);
    const PlanFigures before = measure_graph(g, {});
    // From the stem's input through both residual blocks (the skip of the first block is the
    // stem's output, read by the expansion with a halo and by the ADD without).
    const std::vector<std::string> stage = {"stem", "expand0", "dw0", "project0", "add0", "expand1", "dw1", "project1", "add1"};
    for (PatchGrid grid : {PatchGrid{2, 1}, PatchGrid{3, 1}, PatchGrid{2, 2}}) {
      CAPTURE(grid.rows);
      CAPTURE(grid.cols);
      const Rewrite r = patch_stage(g, stage, grid);
      CHECK(evaluate_outputs(r.graph) == want);
      CHECK(r.figures.at("halo_macs") > 0);
      int adds = 0, crops = 0;
      for (const Op& op : r.graph.ops) {
        adds += op.kind == "add";
        crops += op.name.find(".crop.") != std::string::npos;
      }
      CHECK(adds == 2 * grid.rows * grid.cols);  // each patch runs both ADDs
      CHECK(crops > 0);                           // a skip read wider by the expansion than by the ADD
      const PlanFigures after = measure_graph(r.graph, {});
      CHECK(after.verified);
      CHECK(after.sim_ok);
      CHECK(after.peak_bytes < before.peak_bytes);
    }
    // One residual block on its own: the ADD reads the skip straight from the stage input.
    const Rewrite block = patch_stage(g, {"expand1", "dw1", "project1", "add1"}, PatchGrid{3, 1});
    CHECK(evaluate_outputs(block.graph) == want);
    CHECK(measure_graph(block.graph, {}).verified);
  }
}

TEST_CASE("fuse: a patch's float cut fused into its QUANTIZE stays bit-exact (the intermediate keeps its type)") {
  // The fused kernel rebuilds the vanished float patch; it used to take the type of the fused op's
  // int8 output (or none, the sizes differing), so the quantize read the wrong bytes.
  for (uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    const Graph g = inverted_residual_style(seed);
    const std::vector<uint8_t> want = evaluate_outputs(g);
    const Rewrite patched = patch_stage(g, {"quant_in", "stem"}, PatchGrid{2, 2});
    REQUIRE(evaluate_outputs(patched.graph) == want);
    const std::optional<OpId> quantize = patched.graph.find_op("quant_in.p0");
    REQUIRE(quantize);
    const Tensor& cut = patched.graph.tensors[patched.graph.ops[*quantize].inputs.at(0)];
    REQUIRE(cut.dtype == DType::kFloat32);
    REQUIRE(cut.producer >= 0);
    const Rewrite fused = fuse_ops(patched.graph, {patched.graph.ops[cut.producer].name, "quant_in.p0"});
    CHECK(evaluate_outputs(fused.graph) == want);
  }
}
