#include "core/session/session.h"

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>

#include "core/graph/graph_json.h"
#include "core/layout/minimalloc_csv.h"
#include "core/layout/pipeline.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_sha256.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan {
namespace {

struct FormatName {
  ExportFormat format;
  const char* name;
};
constexpr FormatName kFormats[] = {
    {ExportFormat::kCHeader, "c-header"},           {ExportFormat::kTfliteOffline, "tflite-offline"},
    {ExportFormat::kTfliteReordered, "tflite-reordered"}, {ExportFormat::kMinimallocCsv, "minimalloc-csv"},
    {ExportFormat::kTrace, "trace"},                {ExportFormat::kJsonReport, "json"},
};

// `order` of the folded graph as an order of the graph TFLM runs. The file order stays the file
// order; otherwise each op folded at import runs just before the first op that needs its output
// (as late as it can: a dequantized weight then lives no longer than in the file's own order).
Schedule order_of_unfolded(const Graph& folded, const Schedule& order, const Graph& unfolded) {
  if (order == folded.file_order()) return unfolded.file_order();
  std::map<std::string, OpId> by_name;
  for (OpId o = 0; o < static_cast<OpId>(unfolded.ops.size()); ++o) by_name[unfolded.ops[o].name] = o;
  std::vector<bool> scheduled(unfolded.ops.size(), false), emitted(unfolded.ops.size(), false);
  Schedule mapped;
  for (OpId o : order) {
    auto it = by_name.find(folded.ops.at(o).name);
    if (it == by_name.end()) throw InputError("order", "op " + folded.ops[o].name + " is not in the model");
    mapped.push_back(it->second);
    scheduled[it->second] = true;
  }
  Schedule full;
  std::function<void(OpId)> emit = [&](OpId o) {
    if (emitted[o]) return;
    emitted[o] = true;
    for (TensorId t : unfolded.ops[o].inputs) {
      const OpId p = unfolded.tensors[t].producer;
      if (p >= 0 && !scheduled[p]) emit(p);
    }
    full.push_back(o);
  };
  for (OpId o : mapped) emit(o);
  for (OpId o = 0; o < static_cast<OpId>(unfolded.ops.size()); ++o) emit(o);  // folded ops nothing reads
  return full;
}

// The model as TFLM runs it for the request's target: every op kept (TFLM runs them all at each
// invoke), each with the scratch its kernel asks for (so the plan leaves room for it).
TfliteModel as_tflm_runs(const LoadedInput& in, const std::string& file, const ExportRequest& r) {
  TfliteImportOptions o = in.import_options;
  o.fold_constant_ops = false;
  TfliteModel m = import_tflite(file, o);
  add_tflm_kernel_scratch(m, file, r.tflm_target);
  return m;
}

// The model file carrying the plan (and, reordered, the order), read back before it is handed
// out: the same graph, exactly the planned offsets, the planned order's peak, and the offline plan
// proven against the order TFLM runs the written file in.
std::string written_model(const LoadedInput& in, const ExportRequest& r, const ExportPlan& e) {
  const std::vector<int32_t> offsets = offline_offsets_for(*e.unfolded, e.planned.live, e.planned.plan.offsets);
  const bool reorder = writes_operators_reordered(r, e);
  // The reordered file also carries the plan, so TFLM uses the arena planned for that order.
  const std::string data = tflite_with_offline_plan(
      reorder ? tflite_reordered(in.file, file_operator_order(*e.unfolded, e.order)) : in.file, offsets);
  const TfliteModel back = as_tflm_runs(in, data, r);
  if (!back.offline_offsets || back.graph.ops.size() != e.graph.ops.size() || *back.offline_offsets != offsets)
    throw std::logic_error("the written model does not read back with the planned offsets");
  if (reorder && analyze_lifetimes(back.graph, back.graph.file_order()).peak_bytes != e.planned.live.peak_bytes)
    throw std::logic_error("the reordered model does not run in the planned order");
  const VerifyResult proof = verify_offline_plan_as_run(back);
  if (!proof.ok())
    throw std::logic_error(std::string("the written model's offline plan breaks in the order TFLM runs it (") +
                           verify_rule_name(proof.rule) + "): " + proof.message);
  return data;
}

// TFLM's arena for the model a .tflite export of `e` writes (written, read back and proven by
// written_model, then sized): the figure a firmware built from that very file needs.
TflmArena tflm_of_written(const LoadedInput& in, const ExportRequest& r, const ExportPlan& e) {
  TflmArena a = tflm_arena(written_model(in, r, e), {r.tflm_target});
  a.plan = r.format == ExportFormat::kTfliteReordered ? TflmPlan::kReordered : TflmPlan::kOffline;
  return a;
}

// TFLM's whole arena for the model as it is and for the file the request's tflite-offline export
// writes: what a C header or report of `e` sizes tensor_arena with.
TflmArenaComparison tflm_of_plan(const LoadedInput& in, const ExportRequest& r, const ExportPlan& e) {
  TflmArenaComparison c;
  c.tflm = tflm_arena(in.file, {r.tflm_target});
  ExportRequest offline = r;
  offline.format = ExportFormat::kTfliteOffline;
  c.offline = tflm_of_written(in, offline, e);
  return c;
}

}  // namespace

bool writes_operators_reordered(const ExportRequest& r, const ExportPlan& e) {
  return r.format == ExportFormat::kTfliteReordered ||
         (r.format == ExportFormat::kTfliteOffline && e.order != e.graph.file_order());
}

VerifyResult verify_offline_plan_as_run(const TfliteModel& m) {
  const LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  LayoutProblem all = layout_problem(m.graph, live);
  keep_offline_offsets(all, m, live);
  // Only the fixed buffers are the file's promise; TFLM plans the others around them itself.
  LayoutProblem fixed;
  std::vector<Bytes> offsets;
  Bytes arena = 0;
  for (const LayoutBuffer& b : all.buffers) {
    if (!b.fixed_offset) continue;
    fixed.buffers.push_back(b);
    offsets.push_back(*b.fixed_offset);
    arena = std::max(arena, *b.fixed_offset + b.size);
  }
  return verify_plan(fixed, offsets, arena);
}

LoadedInput load_model(std::string file, const std::string& name, const TfliteImportOptions& options) {
  LoadedInput in;
  in.import_options = options;
  in.model = import_tflite(file, options);
  in.graph = in.model->graph;
  in.sha256 = in.model->sha256;
  if (!name.empty()) in.graph.name = name;
  in.name = in.graph.name;
  in.file = std::move(file);
  return in;
}

LoadedInput load_input(std::string file, const std::string& name, const TfliteImportOptions& options) {
  if (looks_like_tflite(file)) return load_model(std::move(file), name, options);
  LoadedInput in;
  in.graph = parse_graph_json(file);
  in.sha256 = sha256_hex(file);
  if (!name.empty()) in.graph.name = name;
  in.name = in.graph.name;
  in.file = std::move(file);
  return in;
}

LayoutInput load_layout_input(std::string file) {
  LayoutInput in;
  if (!looks_like_tflite(file) && looks_like_minimalloc_csv(file)) in.csv = parse_minimalloc_csv(file).problem;
  else in.graph = load_input(std::move(file)).graph;
  return in;
}

LayoutProblem layout_problem_of(const LayoutInput& in, const Schedule& order) {
  if (!in.graph) return in.csv;
  return layout_problem(*in.graph, analyze_lifetimes(*in.graph, order));
}

BufferPlan plan_layout_input(const LayoutInput& in, const Schedule& order, const PlanOptions& options) {
  BufferPlan out;
  out.problem = layout_problem_of(in, order);
  out.plan = plan_arena(out.problem, options);
  return out;
}

LoadedInput loaded_graph(Graph graph, std::string json_text) {
  LoadedInput in;
  in.graph = std::move(graph);
  in.name = in.graph.name;
  in.sha256 = sha256_hex(json_text);
  in.file = std::move(json_text);
  return in;
}

ExportFormat parse_export_format(const std::string& name) {
  std::string all;
  for (const FormatName& f : kFormats) {
    if (name == f.name) return f.format;
    all += std::string(all.empty() ? "" : ", ") + f.name;
  }
  throw InputError("--format", "expected one of " + all + ", found \"" + name + "\"");
}

const char* export_format_name(ExportFormat format) {
  for (const FormatName& f : kFormats)
    if (f.format == format) return f.name;
  return "?";
}

bool export_needs_model(ExportFormat f) { return f == ExportFormat::kTfliteOffline || f == ExportFormat::kTfliteReordered; }

PlanOptions export_plan_options() {
  PlanOptions o;
  o.planner = "best";
  o.time_limit_seconds = 5.0;
  o.node_limit = kExportNodeLimit;
  return o;
}

ExportPlan export_plan(const LoadedInput& in, const ExportRequest& r) {
  if (export_needs_model(r.format) && !in.model)
    throw InputError(in.name, std::string("--format ") + export_format_name(r.format) + " needs a .tflite model");
  ExportPlan e;
  if (in.model) {
    e.unfolded = as_tflm_runs(in, in.file, r);
    e.unfolded->graph.name = in.graph.name;
    e.graph = e.unfolded->graph;
    e.order = order_of_unfolded(in.graph, r.order, e.graph);
  } else {
    e.graph = in.graph;
    e.order = r.order;
  }
  const TfliteModel* model = e.unfolded ? &*e.unfolded : nullptr;
  // Offsets the model's own offline plan fixes (Vela's, or an earlier export's) stay put.
  e.planned = plan_graph(e.graph, e.order, r.plan, [&](LayoutProblem& problem, const LiveAnalysis& live) {
    if (model) keep_offline_offsets(problem, *model, live);
  });
  require_verified(PlanView{e.graph, e.planned.live, e.planned.problem, e.planned.plan});
  if (model && (r.format == ExportFormat::kCHeader || r.format == ExportFormat::kJsonReport))
    e.tflm = tflm_of_plan(in, r, e);
  return e;
}

TflmArenaComparison tflm_comparison_of(const LoadedInput& in, const ExportRequest& r) {
  if (!in.model) throw InputError(in.name, "TFLM's arena needs a .tflite model");
  TflmArenaComparison c;
  std::string npu_op;
  if (const std::optional<std::string> kept = npu_plan_kept(*in.model, &npu_op)) {
    c.tflm = c.offline = tflm_arena(in.file, {r.tflm_target});
    c.offline_kept = npu_op + " " + *kept;
    return c;
  }
  ExportRequest header = r;
  header.format = ExportFormat::kCHeader;
  return *export_plan(in, header).tflm;
}

TflmArena tflm_arena_of(const LoadedInput& in, TflmPlan plan, const ExportRequest& r) {
  if (!in.model) throw InputError(in.name, "TFLM's arena needs a .tflite model");
  if (plan == TflmPlan::kTflm) return tflm_arena(in.file, {r.tflm_target});
  ExportRequest written = r;
  written.format = plan == TflmPlan::kReordered ? ExportFormat::kTfliteReordered : ExportFormat::kTfliteOffline;
  return tflm_of_written(in, written, export_plan(in, written));
}

void write_export(std::ostream& out, const LoadedInput& in, const ExportRequest& r, const ExportPlan& e) {
  const PlanView view{e.graph, e.planned.live, e.planned.problem, e.planned.plan};
  const PlanSource source{in.name, in.sha256, e.unfolded ? &*e.unfolded : nullptr, e.tflm ? &*e.tflm : nullptr};
  switch (r.format) {
    case ExportFormat::kJsonReport:
      write_plan_report_json(out, view, source);
      out << "\n";
      return;
    case ExportFormat::kTrace: write_lifetime_trace_json(out, view, source); return;
    case ExportFormat::kCHeader: out << c_header(view, source); return;
    case ExportFormat::kMinimallocCsv: out << plan_minimalloc_csv(view); return;
    case ExportFormat::kTfliteOffline:
    case ExportFormat::kTfliteReordered: out << written_model(in, r, e); return;
  }
}

std::string export_artifact(const LoadedInput& in, const ExportRequest& r) {
  std::ostringstream out;
  write_export(out, in, r, export_plan(in, r));
  return out.str();
}

}  // namespace arenaplan
