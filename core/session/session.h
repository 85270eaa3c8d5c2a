// One loaded input and the files made from it: the entry point both front ends call, so a page
// download and `arenaplan export` of the same state are the same bytes.
//
// Usage:
//   LoadedInput in = load_input(file_bytes);                 // graph JSON or a .tflite
//   ExportRequest r{ExportFormat::kCHeader, in.graph.file_order(), export_plan_options()};
//   std::string header = export_artifact(in, r);
//
// A .tflite keeps its file: exports of it plan the graph as TFLM runs it (every op at each invoke,
// nothing folded), keep the offsets the file's own offline plan fixes, and write the real model
// back (offline plan, reordered operators). Every plan is verified before anything is written.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "core/layout/layout.h"
#include "core/layout/pipeline.h"
#include "core/tflite/exports.h"
#include "core/tflite/tflite_import.h"

namespace arenaplan {

struct LoadedInput {
  Graph graph;                        // what the views show (a model's constant ops folded)
  std::optional<TfliteModel> model;   // set when the input is a .tflite
  TfliteImportOptions import_options;  // what `model` was imported with
  std::string file;                   // the bytes read: the model, or the graph JSON text
  std::string name;
  std::string sha256;                 // of `file`
};

// Graph JSON text or .tflite bytes (recognised by the file identifier); InputError naming the
// place otherwise. `name`, when given, replaces the graph's own name.
LoadedInput load_input(std::string file, const std::string& name = "", const TfliteImportOptions& options = {});
// The same for a command that takes only a .tflite: InputError naming "model" for anything else.
LoadedInput load_model(std::string file, const std::string& name = "", const TfliteImportOptions& options = {});
// A graph that exists only in memory (an example, or a graph edited in the page), with the JSON
// text it is saved as (its hash is the report's sha256).
LoadedInput loaded_graph(Graph graph, std::string json_text);

// What `arenaplan layout` and `verify` place: a MiniMalloc CSV's buffers as the file gives them,
// or the buffers of graph JSON or a .tflite (read as load_input reads it) in an operator order.
struct LayoutInput {
  std::optional<Graph> graph;  // unset for a CSV
  LayoutProblem csv;           // a CSV's buffers
};
LayoutInput load_layout_input(std::string file);  // InputError naming the place
// The buffers of the input in `order` (of its graph; ignored for a CSV, whose buffers have their
// own lifetimes). InputError for an order analyze_lifetimes refuses.
LayoutProblem layout_problem_of(const LayoutInput& in, const Schedule& order);
// Those buffers placed by a planner and verified: `arenaplan layout`'s answer.
struct BufferPlan {
  LayoutProblem problem;
  ArenaPlan plan;
};
BufferPlan plan_layout_input(const LayoutInput& in, const Schedule& order, const PlanOptions& options);

enum class ExportFormat { kJsonReport, kCHeader, kMinimallocCsv, kTrace, kTfliteOffline, kTfliteReordered };
ExportFormat parse_export_format(const std::string& name);  // InputError naming --format
const char* export_format_name(ExportFormat f);             // "json", "c-header", ...
bool export_needs_model(ExportFormat f);                     // the two .tflite formats

// The plan policy of every figure and file a user acts on, in the CLI and the page alike: the
// portfolio of greedy planners, then the exact search for at most kExportNodeLimit nodes (well
// under a second natively on models of hundreds of ops) within 5 s. The node limit, not the clock,
// ends the search, so the page, the CLI and every machine write the same bytes, and the plan is
// never worse than the portfolio's. (`--planner P`, `--time-limit S` ask for another search.)
constexpr int64_t kExportNodeLimit = 200000;
PlanOptions export_plan_options();

struct ExportRequest {
  ExportFormat format = ExportFormat::kJsonReport;
  Schedule order;                         // of `in.graph`
  PlanOptions plan = export_plan_options();
  TflmTarget tflm_target;                 // the build TFLM's figures in a model's C header and report are for
};

// The plan an export of `in` writes, and what the writers name with it.
struct ExportPlan {
  std::optional<TfliteModel> unfolded;  // a model imported as TFLM runs it; its graph is `graph`
  Graph graph;
  Schedule order;                       // of `graph`
  GraphPlan planned;                    // verified
  std::optional<TflmArenaComparison> tflm;  // a model's C header / report: TFLM's planner vs this plan
};
// InputError for a request the input cannot satisfy (a .tflite format without a model).
ExportPlan export_plan(const LoadedInput& in, const ExportRequest& request);

// TFLM's whole arena for what `r` describes: the model as it is (`tflm`) and the file the request's
// tflite-offline export writes for `r.order` (`offline`: written, read back, proven and sized, so the
// figure is the file's). `budget`, `import`, the page's Budget tab and a C header all take this one.
// A model whose offline plan an NPU's command stream depends on keeps it (offline_kept says why).
TflmArenaComparison tflm_comparison_of(const LoadedInput& in, const ExportRequest& r);
// `arenaplan tflm-arena --plan P`: kTflm sizes the file as it is; kOffline and kReordered size the
// file `export --format tflite-offline|tflite-reordered` writes for the same request.
TflmArena tflm_arena_of(const LoadedInput& in, TflmPlan plan, const ExportRequest& r);

// Whether a .tflite export of `plan` writes the operators in the planned order: always for
// tflite-reordered, and for tflite-offline when the order is not the file's (TFLM runs a file's
// operators in the order they are written, so offsets for another order need that order).
bool writes_operators_reordered(const ExportRequest& request, const ExportPlan& plan);

// The written model's own offline plan against the order its runtime executes it: the buffers of
// `m` (imported as TFLM runs it: no op folded) live over its operators in file order, and every
// buffer the file's OfflineMemoryAllocation fixes is checked pairwise by the independent verifier.
// A failure names the first two buffers (tensors) that share bytes while both are live.
VerifyResult verify_offline_plan_as_run(const TfliteModel& m);

// The artifact, written to `out` as it is made (a report of 100,000 ops is tens of MB). A written
// .tflite is read back first: it must carry exactly the planned offsets (and order), and its offline
// plan must hold in the order TFLM runs the written operators (verify_offline_plan_as_run). A
// tflite-offline export of an order other than the file's writes the operators in that order.
void write_export(std::ostream& out, const LoadedInput& in, const ExportRequest& request, const ExportPlan& plan);
std::string export_artifact(const LoadedInput& in, const ExportRequest& request);

}  // namespace arenaplan
