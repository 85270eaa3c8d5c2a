// arenaplan export: a verified plan as something a firmware or a tool can use.
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "core/tflite/exports.h"
#include "core/graph/graph_json.h"
#include "core/layout/pipeline.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_sha256.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan::cli {

// Defined in cmd_import.cpp.
TfliteImportOptions tflite_options_from_args(const Args& args, const std::string& path);
TfliteModel load_tflite(const std::string& path, const TfliteImportOptions& options);
std::optional<std::string> out_path(Args& args);

namespace {

// A graph JSON file, example:NAME, or a .tflite model (recognised by its file identifier).
struct Loaded {
  Graph graph;
  std::optional<TfliteModel> model;
  std::string bytes;  // the model file (for the .tflite exports)
  PlanSource source;
};

Loaded load_input(const std::string& path, TfliteImportOptions options) {
  Loaded in;
  std::string text;
  if (is_example(path)) {
    in.graph = load_graph(path);
    in.source.name = in.graph.name;
    return in;
  }
  text = read_file(path);
  if (looks_like_tflite(text)) {
    in.model = load_tflite(path, options);
    in.graph = in.model->graph;
    in.bytes = std::move(text);
    in.source.sha256 = in.model->sha256;
  } else {
    in.graph = load_graph(path);
    in.source.sha256 = sha256_hex(text);
  }
  in.source.name = in.graph.name;
  return in;
}

Schedule schedule_from_args(const Graph& g, const Args& args, const std::string& fallback) {
  if (args.option("order")) return order_from_args(g, args);
  std::string which = args.option("schedule").value_or(fallback);
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

int run_export(const Args& parsed) {
  Args args = parsed;
  std::optional<std::string> out = out_path(args);
  const std::string& path = args.positional_at(0, "GRAPH or MODEL");
  if (args.positional.size() > 1) throw InputError("arguments", "unexpected \"" + args.positional[1] + "\"");
  const std::string format = args.option("format").value_or("");
  const bool tflite_out = format == "tflite-offline" || format == "tflite-reordered";
  if (!tflite_out && format != "c-header" && format != "minimalloc-csv" && format != "trace" && format != "json")
    throw InputError("--format", "expected c-header, tflite-offline, tflite-reordered, minimalloc-csv, trace "
                                 "or json, found \"" + format + "\"");

  TfliteImportOptions options = tflite_options_from_args(args, path);
  // TFLM runs every operator at each invoke: plans written into a .tflite keep them all.
  if (tflite_out) options.fold_constant_ops = false;
  Loaded in = load_input(path, options);
  if (tflite_out && !in.model) throw InputError(path, "--format " + format + " needs a .tflite model");
  if (tflite_out && !out) throw InputError("-o", "a .tflite export needs an output file");
  in.source.model = in.model ? &*in.model : nullptr;

  const Graph& g = in.graph;
  Schedule order = schedule_from_args(g, args, format == "tflite-reordered" ? "optimal" : "file");
  PlanOptions plan_options;
  plan_options.planner = args.option("planner").value_or("best");
  // --time-limit covers the whole export: reading the input and any schedule search come off it.
  plan_options.time_limit_seconds = args.time_limit_left("time-limit", 5.0, 3600.0);
  // Offsets the model's own offline plan fixes stay where they are; the rest is planned around them.
  const GraphPlan planned = plan_graph(g, order, plan_options, [&](LayoutProblem& problem, const LiveAnalysis& live) {
    if (in.model && keep_offline_offsets(problem, *in.model, live) > 0)
      std::cerr << "export: keeping the fixed offsets of the model's OfflineMemoryAllocation\n";
  });
  const LiveAnalysis& live = planned.live;
  const ArenaPlan& plan = planned.plan;
  PlanView view{g, live, planned.problem, plan};
  require_verified(view);

  // The whole TFLM arena next to the plan (C header and JSON report of a model).
  std::optional<TflmArenaComparison> tflm;
  if (in.model && (format == "c-header" || format == "json")) {
    tflm = tflm_arena_comparison(in.bytes, static_cast<int>(args.int_option("pointer-bytes", 4, 4, 8)),
                                 plan_options.planner, plan_options.time_limit_seconds);
    in.source.tflm = &*tflm;
  }

  std::string data;
  const bool streamed = format == "json" || format == "trace";
  if (streamed) {
    // Written to their destination as they are made: on a large graph they are hundreds of MB
    // (the report of a graph with many outputs, gigabytes).
    std::ofstream file;
    if (out) file.open(*out, std::ios::binary);
    std::ostream& sink = out ? static_cast<std::ostream&>(file) : std::cout;
    if (out && !file) throw InputError(*out, "cannot write file");
    if (format == "json") {
      write_plan_report_json(sink, view, in.source);
      sink << "\n";
    } else {
      write_lifetime_trace_json(sink, view, in.source);
    }
    if (!sink.flush()) throw InputError(out.value_or("stdout"), "cannot write the export");
  } else if (format == "c-header") {
    data = c_header(view, in.source);
  } else if (format == "minimalloc-csv") {
    data = plan_minimalloc_csv(view);
  } else if (format == "tflite-offline") {
    data = tflite_with_offline_plan(in.bytes, offline_offsets_for(*in.model, live, plan.offsets));
  } else {
    data = tflite_with_offline_plan(tflite_reordered(in.bytes, file_operator_order(*in.model, order)), [&] {
      // The reordered file also carries the plan, so TFLM uses the arena planned for that order.
      return offline_offsets_for(*in.model, live, plan.offsets);
    }());
  }

  if (tflite_out) {
    // Read back what we wrote: same graph, same offsets, same arena.
    TfliteModel back = import_tflite(data, options);
    if (!back.offline_offsets || back.graph.ops.size() != g.ops.size() ||
        *back.offline_offsets != offline_offsets_for(*in.model, live, plan.offsets))
      throw std::logic_error("the written model does not read back with the planned offsets");
    if (format == "tflite-reordered" &&
        analyze_lifetimes(back.graph, back.graph.file_order()).peak_bytes != live.peak_bytes)
      throw std::logic_error("the reordered model does not run in the planned order");
  }
  if (!streamed) {
    if (out) write_file(*out, data);
    else std::cout << data;
  }
  std::cerr << "export " << format << ": arena " << plan.arena_bytes << " B (" << plan.planner
            << ", lower bound " << plan.lower_bound_bytes << " B, peak " << live.peak_bytes << " B, "
            << g.ops.size() << " ops)" << (out ? ", wrote " + *out : std::string()) << "\n";
  // A rewritten graph's plan assumes its kernels: say which the stock runtime lacks.
  if (const std::vector<CustomKernel> custom = custom_kernels_needed(g); !custom.empty())
    std::cerr << "export: this plan needs " << custom.size()
              << " kernel(s) the stock TFLM runtime does not have; it is valid only on a runtime that has them:\n"
              << custom_kernels_text(custom, "  ");
  if (tflm) std::cerr << "TFLM arena (" << tflm->tflm.pointer_bytes * 8 << "-bit pointers): "
                      << tflm_comparison_sentence(*tflm) << "\n";
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("export",
                  "export GRAPH|MODEL.tflite --format c-header|tflite-offline|tflite-reordered|minimalloc-csv|"
                  "trace|json [-o|--out OUT] [--planner best] [--schedule file|optimal] [--order A,B,...] "
                  "[--time-limit S] [--pointer-bytes 4|8] [--keep-constant-ops] [--no-reshape-alias]",
                  {"keep-constant-ops", "no-reshape-alias"},
                  {"format", "out", "planner", "schedule", "order", "time-limit", "pointer-bytes"}, run_export);

}  // namespace arenaplan::cli
