// arenaplan tflm-arena: the tensor_arena_size TFLM's MicroInterpreter needs for a .tflite model.
#include <iostream>

#include "cli/command.h"

namespace arenaplan::cli {
namespace {

int run_tflm_arena(const Args& args) {
  const std::string& path = args.positional_at(0, "MODEL.tflite");
  if (args.positional.size() > 1) throw InputError("arguments", "unexpected \"" + args.positional[1] + "\"");
  const TflmPlan plan = parse_tflm_plan(args.option("plan").value_or("tflm"));
  const TflmTarget target = tflm_target_of_args(args);  // a bad target is named before the model is read
  const std::string bytes = read_file(path);
  const TflmArena a = in_file(path, [&] {
    if (plan == TflmPlan::kTflm) return tflm_arena(bytes, {target});
    // The file `export --format tflite-offline|tflite-reordered` writes with the same options:
    // the same request, written, read back and sized.
    const LoadedInput in = load_model(bytes, "", tflite_options_from_args(args, path));
    const ExportFormat written = plan == TflmPlan::kReordered ? ExportFormat::kTfliteReordered : ExportFormat::kTfliteOffline;
    return tflm_arena_of(in, plan, export_request_from_args(in, args, written));
  });
  if (args.flag("json")) std::cout << tflm_arena_json(a).dump(2) << "\n";
  else std::cout << tflm_arena_text(a);
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("tflm-arena",
                  "tflm-arena MODEL.tflite [--board NAME] " + std::string(kTflmTargetUsage) +
                      " [--plan tflm|offline|reordered] [--order A,B,...] [--planner best] [--time-limit S] [--json]",
                  {"json"}, with_tflm_target_options({"plan", "board", "order", "schedule", "planner", "time-limit"}),
                  run_tflm_arena,
                  "The whole tensor_arena_size TFLM needs for a .tflite (head, tail, temporaries), at the pinned TFLM version, with its reference kernels or CMSIS-NN's for a Cortex-M core.",
                  with_tflm_target_help({{"plan", "tflm (the file as it is, default), offline or reordered: the file export --format tflite-offline|tflite-reordered writes with the same options, written and sized"},
                   {"board", "a library board (or board JSON): TFLM for its core when --core is not given"},
                   {"order", "offline / reordered: the operator order to plan (as export --order)"},
                   {"schedule", "offline / reordered: file or optimal (default: file for offline, optimal for reordered)"},
                   {"planner", "arenaplan's planner for offline / reordered (default: export's policy)"},
                   {"time-limit", "seconds for the whole command (default: 5)"},
                   {"json", "machine-readable output"}}),
                  {"tflm-arena tests/unit/data/tflm/int8_inception.tflite",
                   "tflm-arena tests/unit/data/tflm/int8_inception.tflite --kernels cmsis-nn --core cortex-m55",
                   "tflm-arena tests/unit/data/tflm/svdf_int8.tflite --pointer-bytes 8 --json"});

}  // namespace arenaplan::cli
