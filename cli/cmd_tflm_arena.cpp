// arenaplan tflm-arena: the tensor_arena_size TFLM's MicroInterpreter needs for a .tflite model.
#include <iostream>

#include "cli/command.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan::cli {
namespace {

int run_tflm_arena(const Args& args) {
  const std::string& path = args.positional_at(0, "MODEL.tflite");
  if (args.positional.size() > 1) throw InputError("arguments", "unexpected \"" + args.positional[1] + "\"");
  TflmArenaOptions o;
  o.target = tflm_target_from_args(args);
  o.plan = parse_tflm_plan(args.option("plan").value_or("tflm"));
  o.planner = args.option("planner").value_or("best");
  o.time_limit_seconds = args.time_limit_left("time-limit", 5.0, 3600.0);
  const std::string bytes = read_file(path);
  TflmArena a;
  try {
    a = tflm_arena(bytes, o);
  } catch (const InputError& e) {
    if (e.where().rfind("--", 0) == 0) throw;
    throw InputError(path + ": " + e.where(), std::string(e.what()).substr(e.where().size() + 2));
  }
  if (args.flag("json")) std::cout << tflm_arena_json(a).dump(2) << "\n";
  else std::cout << tflm_arena_text(a);
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("tflm-arena",
                  "tflm-arena MODEL.tflite " + std::string(kTflmTargetUsage) + " [--plan tflm|offline|reordered] "
                  "[--planner best] [--time-limit S] [--json]",
                  {"json"}, with_tflm_target_options({"plan", "planner", "time-limit"}), run_tflm_arena,
                  "The whole tensor_arena_size TFLM needs for a .tflite (head, tail, temporaries), at the pinned TFLM version, with its reference kernels or CMSIS-NN's for a Cortex-M core.",
                  with_tflm_target_help({{"plan", "tflm (the file as it is, default), offline or reordered (the models export writes)"},
                   {"planner", "arenaplan's planner for offline / reordered (default: best)"},
                   {"time-limit", "seconds for the whole command (default: 5)"},
                   {"json", "machine-readable output"}}),
                  {"tflm-arena tests/unit/data/tflm/int8_inception.tflite",
                   "tflm-arena tests/unit/data/tflm/int8_inception.tflite --kernels cmsis-nn --core cortex-m55",
                   "tflm-arena tests/unit/data/tflm/svdf_int8.tflite --pointer-bytes 8 --json"});

}  // namespace arenaplan::cli
