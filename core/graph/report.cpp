#include "core/graph/report.h"

#include <iomanip>
#include <sstream>

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

std::string analysis_text(const Graph& g, const LiveAnalysis& a) {
  std::ostringstream out;
  out << "graph " << g.name << ", order " << order_names(g, a.order, "-") << "\n\n";
  out << "step  op          live bytes   live\n";
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const StepLive& st = a.steps[s];
    std::string live;
    for (int b : st.buffers) live += (live.empty() ? "" : " ") + a.buffers[b].name;
    out << std::setw(4) << s << "  " << std::left << std::setw(10) << g.ops[st.op].name << std::right << std::setw(12)
        << format_bytes(st.live_bytes) << "   " << live << (static_cast<Step>(s) == a.peak_step ? "   <- peak" : "")
        << "\n";
  }
  out << "\npeak " << format_bytes(a.peak_bytes) << " (" << a.peak_bytes << " B) at step " << a.peak_step << " ("
      << g.ops[a.order[a.peak_step]].name << "); all tensors " << format_bytes(a.total_bytes) << ", largest "
      << format_bytes(a.largest_tensor_bytes) << "\n\ntimeline (# = live):\n"
      << timeline_text(g, a);
  return out.str();
}

}  // namespace arenaplan
