#include "core/tflite/tflite_summary.h"

#include <sstream>

#include "core/graph/op_kinds.h"

namespace arenaplan {
namespace {

std::vector<std::string> npu_op_names(const Graph& g) {
  std::vector<std::string> names;
  for (const Op& op : g.ops)
    if (runs_on_npu(op.kind)) names.push_back(op.name);
  return names;
}

// The file's offline offset of a graph tensor, -1 when planned online or without a plan.
int32_t offline_offset_of(const TfliteModel& m, TensorId t) {
  if (!m.offline_offsets) return -1;
  for (size_t i = 0; i < m.graph_tensor.size() && i < m.offline_offsets->size(); ++i)
    if (m.graph_tensor[i] == t) return (*m.offline_offsets)[i];
  return -1;
}

}  // namespace

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
  j["npu_ops"] = npu_op_names(g);
  JsonOut working = JsonOut::array();
  for (TensorId t : m.working_tensors)
    working.push_back({{"tensor", g.tensors[t].name},
                       {"bytes", g.tensors[t].bytes},
                       {"op", g.ops[g.tensors[t].producer].name},
                       {"offline_offset", offline_offset_of(m, t)}});
  j["working_tensors"] = working;
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
  if (const std::vector<std::string> npu = npu_op_names(m.graph); !npu.empty()) {
    out << "NPU ops             " << npu.size() << " run on the Ethos-U NPU (not on the CPU):";
    for (const std::string& n : npu) out << " " << n;
    out << "\n";
    // Vela nests the NPU's feature maps inside its scratch; the lifetimes above count them apart.
    if (!m.working_tensors.empty())
      out << "  the peak above counts the scratch apart from the feature maps Vela places inside it (an upper "
             "bound); the TFLM arena below, on Vela's own plan, is what the firmware needs\n";
  }
  for (TensorId t : m.working_tensors) {
    const int32_t off = offline_offset_of(m, t);
    out << "  working memory    " << m.graph.tensors[t].name << ": " << with_commas(m.graph.tensors[t].bytes)
        << " B, allocated by TFLM" << (off >= 0 ? " at offset " + std::to_string(off) + " (the model's offline plan)" : "")
        << "\n";
  }
  return out.str();
}

}  // namespace arenaplan
