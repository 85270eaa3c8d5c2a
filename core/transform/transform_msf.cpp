// Multi-stage fusion (msf-CNN): a patch stage (transform_patch.cpp) whose patches also run every
// 1x1 expansion and its depthwise consumer channel by channel (transform_stream.cpp), with the
// PAD between them folded first. Patching alone leaves each patch's expanded tensor whole; with
// the stream only one plane of it exists, so a stage can span inverted-residual blocks (their ADD
// inside the patch) with a small working set. One spec, so the search reaches it in one step: done
// as separate rewrites it is 2-3 per patch, each saving nothing until the last patch's is applied.
#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

bool is_pointwise_conv(const Graph& g, const Op& op) {
  if (op_family(op.kind) != OpFamily::kConv) return false;
  for (TensorId t : op.inputs)
    if (g.tensors[t].constant && g.tensors[t].shape.size() == 4)
      return g.tensors[t].shape[1].value == 1 && g.tensors[t].shape[2].value == 1;
  return false;
}

}  // namespace

Rewrite multi_stage_fusion(const Graph& g, const std::vector<std::string>& stage, PatchGrid grid) {
  Rewrite r = patch_stage(g, stage, grid);
  const int64_t tiles = static_cast<int64_t>(grid.rows) * grid.cols;
  int streamed = 0;
  for (int64_t k = 0; k < tiles; ++k) {
    const std::string suffix = ".p" + std::to_string(k);
    for (size_t i = 0; i + 1 < stage.size(); ++i) {
      const std::optional<OpId> pw = r.graph.find_op(stage[i] + suffix);
      if (!pw || !is_pointwise_conv(r.graph, r.graph.ops[*pw])) continue;
      const Tensor& y = r.graph.tensors[r.graph.ops[*pw].outputs[0]];
      if (y.consumers.size() != 1) continue;
      OpId next = y.consumers[0];
      if (r.graph.ops[next].kind == "pad" || r.graph.ops[next].kind == "padv2") {
        r.graph = fold_pad(r.graph, r.graph.ops[next].name).graph;  // refusals are InputErrors: the spec fails whole
        const Tensor& y2 = r.graph.tensors[r.graph.ops[*r.graph.find_op(stage[i] + suffix)].outputs[0]];
        if (y2.consumers.size() != 1) continue;
        next = y2.consumers[0];
      }
      if (op_family(r.graph.ops[next].kind) != OpFamily::kDepthwiseConv) continue;
      r.graph = stream_pointwise_depthwise(r.graph, stage[i] + suffix, r.graph.ops[next].name).graph;
      ++streamed;
    }
  }
  r.figures["streamed_pairs"] = streamed;
  r.summary += "; " + std::to_string(streamed) + " expansion+depthwise pairs of the patches run channel by channel (stream)";
  return r;
}

}  // namespace arenaplan
