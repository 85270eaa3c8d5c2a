// arenaplan export: a verified plan as something a firmware or a tool can use.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/command.h"

namespace arenaplan::cli {

// Defined in cmd_import.cpp.
std::optional<std::string> out_path(Args& args);

namespace {

int run_export(const Args& parsed) {
  Args args = parsed;
  std::optional<std::string> out = out_path(args);
  const std::string& path = args.positional_at(0, "GRAPH or MODEL");
  if (args.positional.size() > 1) throw InputError("arguments", "unexpected \"" + args.positional[1] + "\"");
  const ExportFormat format = parse_export_format(args.option("format").value_or(""));
  const bool tflite_out = export_needs_model(format);
  if (tflite_out && !out) throw InputError("-o", "a .tflite export needs an output file");

  const LoadedInput in = load_session_input(path, tflite_options_from_args(args, path));
  if (tflite_out && !in.model)
    throw InputError(path, std::string("--format ") + export_format_name(format) + " needs a .tflite model");
  const ExportRequest request = export_request_from_args(in, args, format);
  const ExportPlan e = export_plan(in, request);
  if (in.model && in.model->offline_offsets &&
      std::any_of(in.model->offline_offsets->begin(), in.model->offline_offsets->end(), [](int32_t o) { return o >= 0; }))
    std::cerr << "export: keeping the fixed offsets of the model's OfflineMemoryAllocation\n";

  // Written to the destination as it is made: a report of a large graph is tens of MB.
  std::ofstream file;
  if (out) file.open(*out, std::ios::binary);
  std::ostream& sink = out ? static_cast<std::ostream&>(file) : std::cout;
  if (out && !file) throw InputError(*out, "cannot write file");
  write_export(sink, in, request, e);
  if (!sink.flush()) throw InputError(out.value_or("stdout"), "cannot write the export");

  const ArenaPlan& plan = e.planned.plan;
  std::cerr << "export " << export_format_name(request.format) << ": arena " << plan.arena_bytes << " B ("
            << plan.planner << ", lower bound " << plan.lower_bound_bytes << " B, peak " << e.planned.live.peak_bytes
            << " B, " << e.graph.ops.size() << " ops)" << (out ? ", wrote " + *out : std::string()) << "\n";
  // A rewritten graph's plan assumes its kernels: say which the stock runtime lacks.
  if (const std::vector<CustomKernel> custom = custom_kernels_needed(e.graph); !custom.empty())
    std::cerr << "export: this plan needs " << custom.size()
              << " kernel(s) the stock TFLM runtime does not have; it is valid only on a runtime that has them:\n"
              << custom_kernels_text(custom, "  ");
  if (request.format == ExportFormat::kTfliteOffline && writes_operators_reordered(request, e))
    std::cerr << "export: the plan is for an order other than the file's, so the operators are written in that order "
                 "too (TFLM runs a file's operators in the order they are written)\n";
  if (e.tflm) std::cerr << "TFLM arena (" << tflm_target_text(e.tflm->tflm.target) << "): "
                        << tflm_comparison_sentence(*e.tflm) << "\n";
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("export",
                  "export GRAPH|MODEL.tflite --format c-header|tflite-offline|tflite-reordered|minimalloc-csv|"
                  "trace|json [-o|--out OUT] [--planner best] [--schedule file|optimal] [--order A,B,...] "
                  "[--time-limit S] [--board NAME] " + std::string(kTflmTargetUsage) + " [--keep-constant-ops] [--no-reshape-alias]",
                  {"keep-constant-ops", "no-reshape-alias"},
                  with_tflm_target_options({"format", "out", "planner", "schedule", "order", "time-limit", "board"}), run_export,
                  "Writes a verified plan as a file: C header, the .tflite with an offline plan or reordered, MiniMalloc CSV, lifetime trace or JSON report. The page's File > Export writes the same bytes.",
                  with_tflm_target_help({{"format", "c-header, tflite-offline, tflite-reordered, minimalloc-csv, trace or json (required)"},
                   {"out", "output file (also -o FILE; default: stdout; required for .tflite formats)"},
                   {"planner", "the arena planner (default: best within a fixed node limit, the policy the page uses too, so both write the same bytes)"},
                   {"schedule", "file (default) or optimal: the operator order to plan (tflite-reordered: optimal)"},
                   {"order", "an explicit operator order instead of --schedule"},
                   {"time-limit", "seconds for the whole command (default: 5; given, the search uses them with no node limit)"},
                   {"board", "a library board (or board JSON): a model's C header sizes TFLM for its core, as `budget --board`"},
                   {"keep-constant-ops", "import: keep ops whose inputs are all constant as ops (default: fold them)"},
                   {"no-reshape-alias", "import: give a RESHAPE's output its own buffer"}}),
                  {"export example:two_branch --format c-header", "export tests/unit/data/tflm/int8_inception.tflite --format json"});

}  // namespace arenaplan::cli
