// arenaplan import: a .tflite model into our graph JSON, with a memory summary.
#include <iostream>

#include "cli/command.h"
#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan::cli {

// Shared with cmd_export.cpp: the import options every command that reads a model accepts.
TfliteImportOptions tflite_options_from_args(const Args& args, const std::string& path) {
  TfliteImportOptions o;
  o.fold_constant_ops = !args.flag("keep-constant-ops");
  o.reshape_in_place = !args.flag("no-reshape-alias");
  std::string stem = path.substr(path.find_last_of('/') + 1);
  o.name = stem.substr(0, stem.rfind('.'));
  return o;
}

// Reads a model file; errors name the path (the core names the place inside the file).
TfliteModel load_tflite(const std::string& path, const TfliteImportOptions& options) {
  std::string bytes = read_file(path);
  try {
    return import_tflite(bytes, options);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.where(), std::string(e.what()).substr(e.where().size() + 2));
  }
}

// `-o OUT` arrives as two positionals (the parser only knows --options): take it out of the list.
std::optional<std::string> out_path(Args& args) {
  std::optional<std::string> out = args.option("out");
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (args.positional[i] != "-o") continue;
    if (i + 1 >= args.positional.size()) throw InputError("-o", "needs a value");
    out = args.positional[i + 1];
    args.positional.erase(args.positional.begin() + static_cast<long>(i),
                          args.positional.begin() + static_cast<long>(i) + 2);
    break;
  }
  return out;
}

JsonOut tflite_summary_json(const TfliteModel& m, const LiveAnalysis& live) {
  const Graph& g = m.graph;
  int64_t activations = 0;
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (live.buffer_of_tensor[t] >= 0 && !g.tensors[t].persistent) ++activations;
  JsonOut j;
  j["name"] = g.name;
  j["sha256"] = m.sha256;
  j["file_bytes"] = m.file_bytes;
  j["schema_version"] = m.schema_version;
  JsonOut sgs = JsonOut::array();
  for (const TfliteSubgraphInfo& s : m.subgraphs)
    sgs.push_back({{"name", s.name}, {"tensors", s.tensors}, {"operators", s.operators}});
  j["subgraphs"] = sgs;
  j["ops"] = g.ops.size();
  j["folded_ops"] = m.folded_ops.size();
  j["custom_ops"] = m.custom_ops;
  j["activation_tensors"] = activations;
  j["constant_bytes"] = m.constant_bytes;
  j["folded_bytes"] = m.folded_bytes;
  j["variable_bytes"] = m.variable_bytes;
  j["peak_bytes"] = live.peak_bytes;
  j["peak_step"] = live.peak_step;
  j["peak_op"] = g.ops.empty() ? "" : g.ops[live.order[live.peak_step]].name;
  j["lower_bound_bytes"] = io_lower_bound_bytes(g);
  j["has_offline_plan"] = m.offline_offsets.has_value();
  return j;
}

namespace {

int run_import(const Args& parsed) {
  Args args = parsed;
  std::optional<std::string> out = out_path(args);
  const std::string& path = args.positional_at(0, "MODEL.tflite");
  if (args.positional.size() > 1) throw InputError("arguments", "unexpected \"" + args.positional[1] + "\"");
  TfliteModel m = load_tflite(path, tflite_options_from_args(args, path));
  LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  if (out) write_file(*out, graph_to_json(m.graph) + "\n");
  JsonOut s = tflite_summary_json(m, live);
  // TFLM's whole arena for this model, with its own planner and with arenaplan's offline plan.
  std::optional<TflmArenaComparison> tflm;
  std::string tflm_refused;
  try {
    tflm = tflm_arena_comparison(read_file(path), static_cast<int>(args.int_option("pointer-bytes", 4, 4, 8)),
                                 args.option("planner").value_or("best"),
                                 args.double_option("time-limit", 5.0, 0.0, 3600.0));
    s["tflm_arena"] = tflm_comparison_json(*tflm);
  } catch (const InputError& e) {
    if (e.where().rfind("--", 0) == 0) throw;
    tflm_refused = e.what();  // a model TFLM cannot run (e.g. dynamic shapes): say so, import anyway
    s["tflm_arena"] = {{"error", tflm_refused}};
  }
  if (args.flag("json")) {
    std::cout << s.dump(2) << "\n";
    return 0;
  }
  std::cout << "model " << path << " (sha256 " << m.sha256 << ", " << m.file_bytes << " B)\n";
  for (size_t i = 0; i < m.subgraphs.size(); ++i)
    std::cout << "  subgraph " << i << (m.subgraphs[i].name.empty() ? "" : " " + m.subgraphs[i].name)
              << ": " << m.subgraphs[i].operators << " operators, " << m.subgraphs[i].tensors
              << " tensors" << (i == 0 ? " (imported)" : " (not imported)") << "\n";
  std::cout << "ops                 " << s["ops"].get<int64_t>() << " (+" << m.folded_ops.size()
            << " folded at initialisation)\n"
            << "activation tensors  " << s["activation_tensors"].get<int64_t>() << "\n"
            << "constant bytes      " << m.constant_bytes << " (" << format_bytes(m.constant_bytes) << ")"
            << (m.folded_bytes ? ", +" + std::to_string(m.folded_bytes) + " made by folded ops" : "") << "\n"
            << "variable bytes      " << m.variable_bytes << "\n"
            << "peak (file order)   " << live.peak_bytes << " (" << format_bytes(live.peak_bytes)
            << ") at step " << live.peak_step << " (" << s["peak_op"].get<std::string>() << ")\n"
            << "lower bound         " << s["lower_bound_bytes"].get<int64_t>() << " ("
            << format_bytes(s["lower_bound_bytes"].get<int64_t>()) << ", largest op's inputs + outputs)\n";
  if (tflm && tflm->tflm.offline_plan) {
    const TflmOfflinePlanInfo& p = *tflm->tflm.offline_plan;
    std::cout << "offline plan        " << p.offsets << " offsets in the file: " << p.fixed << " fixed, " << p.online
              << " planned online by TFLM (version word " << p.version << ", subgraph word " << p.subgraph
              << "; TFLM reads only the count and the offsets)\n";
  }
  if (tflm) {
    std::cout << "TFLM arena          " << tflm_comparison_sentence(*tflm) << " (tensor_arena_size, "
              << tflm->tflm.pointer_bytes * 8 << "-bit pointers, " << tflm->tflm.tflm_version << ")\n";
    if (!tflm->tflm.estimated_ops.empty())
      std::cout << "  estimated (kernels not modelled, rounded up): " << tflm->tflm.estimated_ops.size()
                << " ops, e.g. " << tflm->tflm.estimated_ops.front() << "\n";
  } else {
    std::cout << "TFLM arena          not available: " << tflm_refused << "\n";
  }
  if (!m.custom_ops.empty()) {
    std::cout << "custom ops         ";
    for (const std::string& c : m.custom_ops) std::cout << " " << c;
    std::cout << "\n";
  }
  if (out) std::cout << "wrote " << *out << "\n";
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("import",
                  "import MODEL.tflite [-o|--out graph.json] [--json] [--keep-constant-ops] [--no-reshape-alias] "
                  "[--pointer-bytes 4|8] [--planner best] [--time-limit S]",
                  {"json", "keep-constant-ops", "no-reshape-alias"}, {"out", "pointer-bytes", "planner", "time-limit"},
                  run_import);

}  // namespace arenaplan::cli
