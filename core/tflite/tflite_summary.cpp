#include "core/tflite/tflite_summary.h"

#include <sstream>

namespace arenaplan {

TfliteSummary tflite_summary(const TfliteModel& m, const LiveAnalysis& live) {
  const Graph& g = m.graph;
  int64_t activations = 0;
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (live.buffer_of_tensor[t] >= 0 && !g.tensors[t].persistent) ++activations;
  return {m, live, activations, g.ops.empty() ? "" : g.ops[live.order[live.peak_step]].name, io_lower_bound_bytes(g)};
}

JsonOut tflite_summary_json(const TfliteSummary& s) {
  const TfliteModel& m = s.model;
  const Graph& g = m.graph;
  JsonOut j;
  j["name"] = g.name;
  j["sha256"] = m.sha256;
  j["file_bytes"] = m.file_bytes;
  j["schema_version"] = m.schema_version;
  JsonOut sgs = JsonOut::array();
  for (const TfliteSubgraphInfo& sg : m.subgraphs)
    sgs.push_back({{"name", sg.name}, {"tensors", sg.tensors}, {"operators", sg.operators}});
  j["subgraphs"] = sgs;
  j["ops"] = g.ops.size();
  j["folded_ops"] = m.folded_ops.size();
  j["custom_ops"] = m.custom_ops;
  j["activation_tensors"] = s.activation_tensors;
  j["constant_bytes"] = m.constant_bytes;
  j["folded_bytes"] = m.folded_bytes;
  j["variable_bytes"] = m.variable_bytes;
  j["peak_bytes"] = s.live.peak_bytes;
  j["peak_step"] = s.live.peak_step;
  j["peak_op"] = s.peak_op;
  j["lower_bound_bytes"] = s.lower_bound_bytes;
  j["has_offline_plan"] = m.offline_offsets.has_value();
  return j;
}

std::string tflite_summary_text(const std::string& label, const TfliteSummary& s) {
  const TfliteModel& m = s.model;
  std::ostringstream out;
  out << "model " << label << " (sha256 " << m.sha256 << ", " << m.file_bytes << " B)\n";
  for (size_t i = 0; i < m.subgraphs.size(); ++i)
    out << "  subgraph " << i << (m.subgraphs[i].name.empty() ? "" : " " + m.subgraphs[i].name) << ": "
        << m.subgraphs[i].operators << " operators, " << m.subgraphs[i].tensors << " tensors"
        << (i == 0 ? " (imported)" : " (not imported)") << "\n";
  out << "ops                 " << static_cast<int64_t>(m.graph.ops.size()) << " (+" << m.folded_ops.size()
      << " folded at initialisation)\n"
      << "activation tensors  " << s.activation_tensors << "\n"
      << "constant bytes      " << m.constant_bytes << " (" << format_bytes(m.constant_bytes) << ")"
      << (m.folded_bytes ? ", +" + std::to_string(m.folded_bytes) + " made by folded ops" : "") << "\n"
      << "variable bytes      " << m.variable_bytes << "\n"
      << "peak (file order)   " << s.live.peak_bytes << " (" << format_bytes(s.live.peak_bytes) << ") at step "
      << s.live.peak_step << " (" << s.peak_op << ")\n"
      << "lower bound         " << s.lower_bound_bytes << " (" << format_bytes(s.lower_bound_bytes)
      << ", largest op's inputs + outputs)\n";
  if (!m.custom_ops.empty()) {
    out << "custom ops         ";
    for (const std::string& c : m.custom_ops) out << " " << c;
    out << "\n";
  }
  return out.str();
}

}  // namespace arenaplan
