// arenaplan import: a .tflite model into our graph JSON, with a memory summary.
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_summary.h"
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

namespace {

int run_import(const Args& parsed) {
  Args args = parsed;
  std::optional<std::string> out = out_path(args);
  const std::string& path = args.positional_at(0, "MODEL.tflite");
  if (args.positional.size() > 1) throw InputError("arguments", "unexpected \"" + args.positional[1] + "\"");
  const std::string bytes = read_file(path);
  const LoadedInput in = in_file(path, [&] { return load_model(bytes, "", tflite_options_from_args(args, path)); });
  const TfliteModel& m = *in.model;
  LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  if (out) write_file(*out, graph_to_json(m.graph) + "\n");
  const TfliteSummary summary = tflite_summary(m, live);
  JsonOut s = tflite_summary_json(summary);
  // TFLM's whole arena for this model, with its own planner and with arenaplan's offline plan.
  std::optional<TflmArenaComparison> tflm;
  std::string tflm_refused;
  try {
    ExportRequest request;
    request.format = ExportFormat::kCHeader;  // the figures a C header of the file order carries
    request.order = in.graph.file_order();
    request.plan = plan_options_from_args(args);
    request.tflm_target = tflm_target_from_args(args);
    tflm = tflm_comparison_of(in, request);
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
  std::cout << tflite_summary_text(path, summary) << tflm_import_text(tflm ? &*tflm : nullptr, tflm_refused);
  if (out) std::cout << "wrote " << *out << "\n";
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("import",
                  "import MODEL.tflite [-o|--out graph.json] [--json] [--keep-constant-ops] [--no-reshape-alias] "
                  + std::string(kTflmTargetUsage) + " [--planner best] [--time-limit S]",
                  {"json", "keep-constant-ops", "no-reshape-alias"}, with_tflm_target_options({"out", "planner", "time-limit"}),
                  run_import,
                  "Reads a .tflite model: its memory summary and TFLM's whole tensor_arena_size, and writes it as graph JSON with -o.",
                  with_tflm_target_help({{"out", "write the graph JSON here (also -o FILE)"},
                   {"planner", "the planner of arenaplan's offline plan (default: export's policy)"},
                   {"time-limit", "seconds for the whole command (default: 5)"},
                   {"json", "machine-readable output"},
                   {"keep-constant-ops", "keep ops whose inputs are all constant as ops (default: fold them)"},
                   {"no-reshape-alias", "give a RESHAPE's output its own buffer"}}),
                  {"import tests/unit/data/tflm/int8_inception.tflite"});

}  // namespace arenaplan::cli
