// Exports of a verified plan that a firmware or a tool can use: a C header with the arena and the
// offset table, a Chrome-trace/Perfetto JSON of lifetimes with memory on one axis, MiniMalloc's
// CSV and the JSON report. Every export re-runs the independent verifier first: an unverified
// plan is never written (std::logic_error, an internal error).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan {

// What the plan is of. With a model, tensors and operators are numbered as in the .tflite
// (subgraph 0), so the tables index like TFLite's own.
struct PlanSource {
  std::string name;                    // graph or model name
  std::string sha256;                  // of the input file (model, or graph JSON text)
  const TfliteModel* model = nullptr;  // set when the graph came from a .tflite
  // TFLM's whole arena for that model (core/session's tflm_comparison_of): the C header then sizes
  // tensor_arena with what MicroInterpreter needs, and the JSON report carries both figures.
  const TflmArenaComparison* tflm = nullptr;
};

// A plan and what it was computed from (live.buffers[i] <-> problem.buffers[i] <-> plan.offsets[i]).
struct PlanView {
  const Graph& graph;
  const LiveAnalysis& live;
  const LayoutProblem& problem;
  const ArenaPlan& plan;
};

// `alignas(16) static uint8_t tensor_arena[N]`, the offset of every tensor (-1: not in the arena),
// the operator order, and a comment block: model hash, tool version, planner, alignment, input
// sizes, arena size. N is the plan's arena, or with source.tflm the tensor_arena_size TFLM's
// MicroInterpreter needs (the larger of TFLM's own planner and the offline plan, so the header
// works with the model as it is and with the exported tflite-offline model);
// ARENAPLAN_PLAN_HEAD_BYTES then names the plan's (head) size apart.
std::string c_header(const PlanView& v, const PlanSource& source);

// Chrome trace events (chrome://tracing, ui.perfetto.dev): one step = 1 ms; one track per arena
// offset, sorted by offset, so memory runs down the screen and time across; a "live bytes" counter
// and the schedule as a track of op slices.
std::string lifetime_trace_json(const PlanView& v, const PlanSource& source);
// The same, written event by event (`export --format trace`: one event per step and per buffer).
void write_lifetime_trace_json(std::ostream& out, const PlanView& v, const PlanSource& source);

// MiniMalloc's CSV with the solution column (offsets).
std::string plan_minimalloc_csv(const PlanView& v);

// {"source", "analysis" (analysis_json), "layout" (layout_json)} plus, for models, the file
// numbering of tensors and operators, and with source.tflm "tflm_arena" (tflm_comparison_json).
JsonOut plan_report_json(const PlanView& v, const PlanSource& source);
// Writes exactly plan_report_json(v, source).dump(2), streamed: at 100,000 ops the report is tens
// of MB, which need not be held twice (`arenaplan export --format json`).
void write_plan_report_json(std::ostream& out, const PlanView& v, const PlanSource& source);

// A kernel a rewritten graph needs that the stock TFLM runtime does not have (export_kernels.cpp):
// an op with a folded PAD (explicit asymmetric padding, or a pool reading the border as the pad
// value), a patch of a patched stage padding only the sides where it touches the image border
// (a conv or pool whose pads are not SAME for its input), or an op running in place (depthwise
// channel by channel, pointwise pixel by pixel). The plan is valid only on a runtime whose kernel
// does that; the exports say so.
struct CustomKernel {
  std::string op;      // the op's name
  std::string kernel;  // "depthwise_conv_2d_in_place", "conv_2d_explicit_padding", ...
  std::string why;     // what it does that the stock kernel does not
};
std::vector<CustomKernel> custom_kernels_needed(const Graph& g);
// One line per kernel, each starting with `prefix`: "op NAME: KERNEL (why)".
std::string custom_kernels_text(const std::vector<CustomKernel>& kernels, const std::string& prefix);

// Throws std::logic_error naming the broken rule unless the plan verifies.
void require_verified(const PlanView& v);

}  // namespace arenaplan
