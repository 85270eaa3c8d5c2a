// One memory pool for several models that never run at the same time (a keyword spotter and a
// person detector on one MCU): merged into one graph that runs them one after the other, so one
// planned arena serves both (time-shared), instead of one section per model side by side
// (partitioned, the sum of their arenas).
#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

Rewrite merge_models(const std::vector<Graph>& models) {
  const std::string where = "pool";
  if (models.size() < 2) refuse(where, "a shared pool needs at least two models");
  Graph out;
  std::string names;
  std::set<std::string> prefixes;
  for (const Graph& m : models) {
    const std::string prefix = m.name + "/";
    if (!prefixes.insert(prefix).second) refuse(where, "two models are named \"" + m.name + "\"; rename one");
    if (m.input_policy != models[0].input_policy)
      refuse(where, "models " + models[0].name + " and " + m.name + " place their inputs differently");
    names += (names.empty() ? "" : " and ") + m.name;
    const TensorId base = static_cast<TensorId>(out.tensors.size());
    for (Tensor t : m.tensors) {
      t.name = prefix + t.name;
      out.tensors.push_back(t);
    }
    for (Op op : m.ops) {
      op.name = prefix + op.name;
      for (TensorId& t : op.inputs) t += base;
      for (TensorId& t : op.outputs) t += base;
      for (InPlace& ip : op.in_place) ip.input += base, ip.output += base;
      for (AsyncRead& a : op.async_reads) a.tensor += base;
      out.ops.push_back(op);
    }
    for (TensorId t : m.inputs) out.inputs.push_back(t + base);
    for (TensorId t : m.outputs) out.outputs.push_back(t + base);
    for (const auto& [dim, bound] : m.dims) {
      auto it = out.dims.find(dim);
      if (it != out.dims.end() && (it->second.min != bound.min || it->second.max != bound.max))
        refuse(where, "symbolic dim " + dim + " has different bounds in the models");
      out.dims[dim] = bound;
    }
    out.alignment = std::max(out.alignment, m.alignment);
  }
  out.name = "pool(" + names + ")";
  out.input_policy = models[0].input_policy;
  Rewrite r;
  r.graph = finish(std::move(out), where);
  r.summary = names + " share one arena, running one after the other";
  return r;
}

}  // namespace arenaplan
