#include "core/graph/report.h"

namespace arenaplan {

JsonOut order_json(const Graph& g, const Schedule& order) {
  JsonOut names = JsonOut::array();
  for (OpId o : order) names.push_back(g.ops[o].name);
  return names;
}

JsonOut analysis_json(const Graph& g, const LiveAnalysis& a) {
  JsonOut out;
  out["graph"] = g.name;
  out["order"] = order_json(g, a.order);
  JsonOut steps = JsonOut::array();
  for (const StepLive& s : a.steps) {
    JsonOut live = JsonOut::array();
    for (int b : s.buffers) live.push_back(a.buffers[b].name);
    steps.push_back({{"op", g.ops[s.op].name}, {"live", live}, {"live_bytes", s.live_bytes}});
  }
  out["steps"] = steps;
  out["peak_bytes"] = a.peak_bytes;
  out["peak_step"] = a.peak_step;
  JsonOut peak = JsonOut::array();
  if (!a.steps.empty())
    for (int b : a.steps[a.peak_step].buffers) peak.push_back(a.buffers[b].name);
  out["peak_tensors"] = peak;
  out["total_bytes"] = a.total_bytes;
  out["largest_tensor_bytes"] = a.largest_tensor_bytes;
  return out;
}

}  // namespace arenaplan
