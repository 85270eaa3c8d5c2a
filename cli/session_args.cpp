// What a command asks of core/session, from its arguments: the input, the plan policy, the order
// and the export request. `export`, `tflm-arena`, `budget` and `import` build their requests here,
// so `tflm-arena --plan reordered` sizes the very file `export --format tflite-reordered` writes.
#include <iostream>

#include "cli/command.h"
#include "core/schedule/schedule.h"

namespace arenaplan::cli {

LoadedInput load_session_input(const std::string& path, const TfliteImportOptions& options) {
  if (is_example(path)) return load_input(example_text(path));
  return in_file(path, [&] { return load_input(read_file(path), "", options); });
}

PlanOptions plan_options_from_args(const Args& args) {
  PlanOptions o = export_plan_options();
  if (auto p = args.option("planner")) o.planner = *p;
  // An explicit --time-limit asks for the search to use that time: the node limit that keeps the
  // default plan the same on every machine then goes.
  if (args.option("time-limit")) o.node_limit = 0;
  // --time-limit covers the whole command: reading the input and any schedule search come off it.
  o.time_limit_seconds = args.time_limit_left("time-limit", o.time_limit_seconds, 86400.0);
  return o;
}

Schedule schedule_from_args(const Graph& g, const Args& args, const std::string& fallback) {
  if (args.option("order")) return order_from_args(g, args);
  const std::string which = args.option("schedule").value_or(fallback);
  if (which == "file") return g.file_order();
  if (which == "optimal") {
    // Half of what is left of --time-limit: the layout search after it gets the rest.
    ScheduleResult r = optimize_schedule(g, 0.5 * args.time_limit_left("time-limit", 5.0, 3600.0));
    std::cerr << "schedule: peak " << r.peak_bytes << " B (file order " << r.baseline_peak_bytes << " B, "
              << (r.proven_optimal ? "proven optimal" : "lower bound " + std::to_string(r.lower_bound_bytes) + " B")
              << ", " << r.method << ")\n";
    return r.order;
  }
  throw InputError("--schedule", "expected file or optimal, found \"" + which + "\"");
}

TflmTarget tflm_target_of_args(const Args& args) {
  if (auto board = args.option("board")) {
    const MemoryMap m = load_board(*board);
    return tflm_target_from_args(args, &m.core);
  }
  return tflm_target_from_args(args);
}

ExportRequest export_request_from_args(const LoadedInput& in, const Args& args, ExportFormat format) {
  ExportRequest r;
  r.format = format;
  r.order = schedule_from_args(in.graph, args, format == ExportFormat::kTfliteReordered ? "optimal" : "file");
  r.plan = plan_options_from_args(args);
  r.tflm_target = tflm_target_of_args(args);
  return r;
}

}  // namespace arenaplan::cli
