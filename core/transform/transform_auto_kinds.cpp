// The table of rewrite kinds the automatic search uses, and the candidate specs of each existing
// kind. Enumerations are deliberately generous (a superset of the legal specs): legality often
// depends on the order or on other rewrites (in-place needs its input to die first), so
// apply_transformation decides, and the lower bound may trust that nothing else is ever touched.
#include <algorithm>
#include <optional>

#include "core/transform/transform_auto.h"

namespace arenaplan {

namespace {

// A name a spec can carry: the spec syntax splits on these characters.
bool spec_safe(const std::string& name) { return name.find_first_of(",=@:") == std::string::npos && !name.empty(); }

std::vector<TensorId> activation_inputs(const Graph& g, const Op& op) {
  std::vector<TensorId> acts;
  for (TensorId t : op.inputs)
    if (!g.tensors[t].constant && std::find(acts.begin(), acts.end(), t) == acts.end()) acts.push_back(t);
  return acts;
}

bool nhwc(const Tensor& t) { return t.dtype && (t.shape.size() == 3 || t.shape.size() == 4); }

}  // namespace

std::vector<std::string> fuse_candidates(const Graph& g) {
  std::vector<std::string> out;
  for (const Op& a : g.ops) {
    if (a.outputs.size() != 1 || !spec_safe(a.name)) continue;
    const Tensor& y = g.tensors[a.outputs[0]];
    if (y.consumers.size() != 1) continue;
    const Op& b = g.ops[y.consumers[0]];
    // A fused head absorbs elementwise parts only; b already fused can never be absorbed.
    if (!is_elementwise_kind(b.kind) || !spec_safe(b.name)) continue;
    out.push_back("fuse:" + a.name + "," + b.name);
  }
  return out;
}

std::vector<std::string> inplace_candidates(const Graph& g) {
  // Each op whose kernel may overwrite an input (make_in_place's own test, so kernel-level in-place
  // kinds join by themselves), over each activation input; the order decides the rest.
  std::vector<std::string> out;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    if (op.outputs.size() != 1 || !op.in_place.empty() || !spec_safe(op.name)) continue;
    if (!may_run_in_place(g, static_cast<OpId>(o))) continue;
    const std::vector<TensorId> acts = activation_inputs(g, op);
    if (acts.size() == 1) out.push_back("inplace:" + op.name);
    else
      for (TensorId x : acts)
        if (spec_safe(g.tensors[x].name)) out.push_back("inplace:" + op.name + "=" + g.tensors[x].name);
  }
  return out;
}

std::vector<std::string> recompute_candidates(const Graph& g) {
  std::vector<std::string> out;
  for (const Tensor& t : g.tensors) {
    if (t.producer < 0 || t.consumers.size() < 2 || !spec_safe(t.name)) continue;
    if (g.ops[t.producer].outputs.size() != 1) continue;
    for (OpId c : t.consumers)
      if (spec_safe(g.ops[c].name)) out.push_back("recompute:" + t.name + "@" + g.ops[c].name);
  }
  return out;
}

std::vector<std::string> patch_candidates(const Graph& g) {
  // Chains of single-activation-input ops over NHWC tensors (shapes never change under other
  // rewrites), each intermediate read by the next op only; PADs join (imported models pad before
  // depthwise convs). Short chains (2-4 ops) over 2, 4 and 8 row bands; and MCUNetV2's stages:
  // chains of up to 16 ops ending where the resolution drops (stride or pool) whose interior holds
  // an activation larger than the stage's input and output, over 2x2 and 3x3 patches. Longer stages and finer grids trade halo MACs for memory; these keep the
  // list linear in the graph.
  std::vector<std::string> out;
  auto chain_op = [&](OpId o) {
    const Op& op = g.ops[o];
    const std::vector<TensorId> acts = activation_inputs(g, op);
    return op.outputs.size() == 1 && acts.size() == 1 && !op.attrs.count("patch_of_stage") && nhwc(g.tensors[acts[0]]) &&
           nhwc(g.tensors[op.outputs[0]]) && spec_safe(op.name) &&
           (is_window_family(op_family(op.kind)) || is_elementwise_kind(op.kind) || op.kind == "pad" ||
            op.kind == "padv2");
  };
  auto downsamples = [&](OpId o) {
    const Tensor& x = g.tensors[activation_inputs(g, g.ops[o])[0]];
    const Tensor& y = g.tensors[g.ops[o].outputs[0]];
    const size_t h = x.shape.size() - 3;
    return y.shape.size() == x.shape.size() && y.shape[h].value < x.shape[h].value;
  };
  // A stage pays when an activation inside it is larger than both its input and its output
  // (which exist whole anyway): then only one patch of the big one is ever live.
  auto interior_dominates = [&](const std::vector<OpId>& chain) {
    // A caller-owned graph input (the camera frame outside the arena) costs the arena nothing.
    const TensorId in = activation_inputs(g, g.ops[chain.front()])[0];
    const Bytes in_bytes = g.is_input(in) && g.input_policy == InputPolicy::kCallerOwned ? 0 : g.tensors[in].bytes;
    const Bytes ends = std::max(in_bytes, g.tensors[g.ops[chain.back()].outputs[0]].bytes);
    for (size_t k = 0; k + 1 < chain.size(); ++k)
      if (g.tensors[g.ops[chain[k]].outputs[0]].bytes > ends) return true;
    return false;
  };
  for (size_t s = 0; s < g.ops.size(); ++s) {
    std::vector<OpId> chain{static_cast<OpId>(s)};
    if (!chain_op(chain[0])) continue;
    auto names = [&] {
      std::string text;
      for (OpId o : chain) text += (text.empty() ? "" : ",") + g.ops[o].name;
      return text;
    };
    while (chain.size() < 16) {
      const Tensor& y = g.tensors[g.ops[chain.back()].outputs[0]];
      if (y.consumers.size() != 1 || g.is_output(g.ops[chain.back()].outputs[0]) || !chain_op(y.consumers[0])) break;
      chain.push_back(y.consumers[0]);
      if (chain.size() <= 4)
        for (int tiles : {2, 4, 8}) out.push_back("patch:" + names() + "=" + std::to_string(tiles));
      if (downsamples(chain.back()) && interior_dominates(chain))
        for (const char* grid : {"2x2", "3x3"}) out.push_back("patch:" + names() + "=" + grid);
    }
  }
  return out;
}

std::vector<std::string> msf_candidates(const Graph& g) {
  // msf-CNN's stages: (1) each inverted-residual block, 1x1 expansion -> [PAD ->] depthwise -> 1x1
  // projection [-> the ADD of the block input], over 2 to 10 row bands; (2) MCUNetV2's first
  // stages (patch_candidates' downsampling chains), extended by the 1x1 conv after them, over
  // 2x2 to 5x5 patches: finer grids and deeper stages trade halo MACs for memory, which the
  // MAC cap of the search and pareto_frontier weigh.
  std::vector<std::string> out;
  auto pointwise = [&](OpId o) {
    const Op& op = g.ops[o];
    if (op_family(op.kind) != OpFamily::kConv || op.inputs.size() < 2 || op.outputs.size() != 1 || !spec_safe(op.name) ||
        op.attrs.count("patch_of_stage"))
      return false;
    const Tensor& w = g.tensors[op.inputs[1]];
    return w.shape.size() == 4 && w.shape[1].value == 1 && w.shape[2].value == 1;
  };
  auto sole_reader = [&](TensorId t) -> OpId {
    const Tensor& x = g.tensors[t];
    return x.consumers.size() == 1 && !g.is_output(t) ? x.consumers[0] : -1;
  };
  for (size_t d = 0; d < g.ops.size(); ++d) {
    const Op& dw = g.ops[d];
    if (op_family(dw.kind) != OpFamily::kDepthwiseConv || dw.outputs.size() != 1 || !spec_safe(dw.name) ||
        dw.attrs.count("patch_of_stage"))
      continue;
    std::vector<std::string> names;
    OpId p = g.tensors[dw.inputs[0]].producer;
    if (p >= 0 && (g.ops[p].kind == "pad" || g.ops[p].kind == "padv2") && spec_safe(g.ops[p].name)) {
      names.push_back(g.ops[p].name);
      p = g.tensors[g.ops[p].inputs[0]].producer;
    }
    if (p < 0 || !pointwise(p)) continue;
    names.insert(names.begin(), g.ops[p].name);
    names.push_back(dw.name);
    const OpId j = sole_reader(dw.outputs[0]);
    if (j < 0 || !pointwise(j)) continue;
    names.push_back(g.ops[j].name);
    const OpId a = sole_reader(g.ops[j].outputs[0]);
    if (a >= 0 && is_elementwise_kind(g.ops[a].kind) && spec_safe(g.ops[a].name)) {
      const std::vector<TensorId> acts = activation_inputs(g, g.ops[a]);
      if (acts.size() == 2 && std::find(acts.begin(), acts.end(), g.ops[p].inputs[0]) != acts.end())
        names.push_back(g.ops[a].name);
    }
    const Tensor& y = g.tensors[g.ops[j].outputs[0]];
    if (!nhwc(y)) continue;
    const int64_t rows = y.shape[y.shape.size() - 3].value;
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
    for (int bands : {2, 4, 5, 8, 10})
      if (bands <= rows) out.push_back("msf:" + text + "=" + std::to_string(bands));
  }
  for (const std::string& spec : patch_candidates(g)) {
    const size_t eq = spec.rfind('=');
    if (spec.find('x', eq) == std::string::npos) continue;  // the downsampling stages only
    std::string stage = spec.substr(6, eq - 6);
    const std::string last = stage.substr(stage.rfind(',') + 1);
    const std::optional<OpId> end = g.find_op(last);
    if (!end) continue;
    const OpId next = sole_reader(g.ops[*end].outputs[0]);
    if (next >= 0 && pointwise(next) && activation_inputs(g, g.ops[next]).size() == 1) stage += "," + g.ops[next].name;
    else continue;
    if (spec.compare(eq + 1, std::string::npos, "2x2") != 0) continue;  // one line per stage
    for (const char* grid : {"2x2", "3x3", "4x4", "5x5"}) out.push_back("msf:" + stage + "=" + grid);
  }
  return out;
}

std::vector<std::string> order_candidates(const Graph& g) {
  if (g.ops.size() < 2) return {};
  return {"order:best"};
}

std::vector<std::string> quantize_candidates(const Graph& g) {
  std::vector<std::string> out;
  for (const Tensor& t : g.tensors)
    if (t.producer >= 0 && !t.constant && t.dtype == DType::kFloat32 && spec_safe(t.name))
      out.push_back("quantize:" + t.name + "=int8");
  return out;
}

std::vector<std::string> stream_candidates(const Graph& g) {
  // Each conv with a 1x1 window and each depthwise conv reading its output directly or through a
  // PAD (which foldpad may remove first). Other readers are not a reason to skip: recompute may
  // move them to a copy of the conv. stream_pointwise_depthwise decides the rest.
  std::vector<std::string> out;
  for (const Op& pw : g.ops) {
    if (op_family(pw.kind) != OpFamily::kConv || pw.inputs.size() < 2 || pw.outputs.size() != 1 || !spec_safe(pw.name))
      continue;
    const Tensor& w = g.tensors[pw.inputs[1]];
    if (w.shape.size() != 4 || w.shape[1].value != 1 || w.shape[2].value != 1) continue;
    std::vector<OpId> readers = g.tensors[pw.outputs[0]].consumers;
    for (OpId r : g.tensors[pw.outputs[0]].consumers)
      if ((g.ops[r].kind == "pad" || g.ops[r].kind == "padv2") && g.ops[r].outputs.size() == 1)
        for (OpId next : g.tensors[g.ops[r].outputs[0]].consumers) readers.push_back(next);
    for (OpId r : readers)
      if (op_family(g.ops[r].kind) == OpFamily::kDepthwiseConv && spec_safe(g.ops[r].name))
        out.push_back("stream:" + pw.name + "," + g.ops[r].name);
  }
  return out;
}

// One line per kind. Kernel-level kinds (foldpad, ...) add theirs here.
const std::vector<RewriteKind>& rewrite_kinds() {
  static const std::vector<RewriteKind> kinds = {
      {"fuse", true, false, fuse_candidates, apply_transformation},
      {"inplace", true, false, inplace_candidates, apply_transformation},
      {"recompute", true, true, recompute_candidates, apply_transformation},
      {"patch", true, true, patch_candidates, apply_transformation},
      {"foldpad", true, false, foldpad_candidates, apply_transformation},
      {"view", true, false, view_candidates, apply_transformation},
      {"stream", true, false, stream_candidates, apply_transformation},
      {"callerquant", true, false, callerquant_candidates, apply_transformation},
      {"order", true, false, order_candidates, apply_transformation},
      {"quantize", false, false, quantize_candidates, apply_transformation},
      {"msf", true, true, msf_candidates, apply_transformation, false},
  };
  return kinds;
}

const RewriteKind* find_rewrite_kind(const std::string& name) {
  for (const RewriteKind& k : rewrite_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

std::vector<const RewriteKind*> searched_kinds(const AutoRewriteOptions& options) {
  std::vector<const RewriteKind*> out;
  for (const std::string& name : options.kinds) {
    if (find_rewrite_kind(name)) continue;
    std::string known;
    for (const RewriteKind& k : rewrite_kinds()) known += (known.empty() ? "" : ", ") + std::string(k.name);
    throw InputError("--kinds", "unknown rewrite kind \"" + name + "\"; known: " + known);
  }
  for (const RewriteKind& k : rewrite_kinds()) {
    const bool named = std::find(options.kinds.begin(), options.kinds.end(), k.name) != options.kinds.end();
    if (!options.kinds.empty() && !named) continue;
    if (!k.bit_exact && !options.allow_value_changes) continue;
    if (!named && !k.searched_by_default) continue;
    out.push_back(&k);
  }
  return out;
}

}  // namespace arenaplan
