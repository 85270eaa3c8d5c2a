// Step-through with reasons: one sentence per step of a schedule, generated from the live set,
// and one per buffer of a layout placed one at a time. `arenaplan analyze --explain` and
// `arenaplan layout --explain` print them
// and the playground reads them aloud (aria-live) when stepping with Alt+Left/Right.
//
//   LiveAnalysis live = analyze_lifetimes(g, order);
//   std::vector<StepExplanation> steps = explain_schedule(g, live);
//   steps[2].sentence  // "Step 2 runs D: A 32 KiB (read by D now), B 96 KiB (read later by C at
//                      //  step 3) and D 64 KiB (made by D now) = 192 KiB live. This is the peak, ..."
//
// Why a buffer is live at step t (the first reason that applies, docs/DESIGN.md "Lifetime semantics"):
//   made now       an output of the op running at t
//   read now       an input of the op running at t
//   scratch        the running op's scratch buffer
//   read later     an op after t still reads it (the next such op is named)
//   async pending  an op that already ran reads it asynchronously until a later step
//   graph output   the application reads it after the run
//   retained       the caller keeps a pointer (a retained tensor, or inputs under the retained policy)
//   persistent     state that lives for the whole run
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/layout/layout.h"

namespace arenaplan {

enum class LiveReason { kMadeNow, kReadNow, kScratch, kReadLater, kAsyncPending, kGraphOutput, kRetained, kPersistent };
// "made now", "read now", "scratch", "read later", "async pending", "graph output", "retained", "persistent".
const char* live_reason_name(LiveReason r);

struct LiveBufferReason {
  int buffer = -1;  // index into LiveAnalysis::buffers
  LiveReason reason = LiveReason::kReadNow;
  std::string why;  // "read later by C at step 3"
};

struct StepExplanation {
  Step step = 0;
  OpId op = -1;
  std::vector<LiveBufferReason> live;  // every buffer live at the step, in buffer order
  std::vector<int> freed;              // buffers whose last step was the step before
  bool peak = false;
  std::string sentence;
};

// Every step with every live buffer's reason: the sum of the live sets, so for small graphs (tests,
// exercises); the CLI streams with the writers below at any size.
std::vector<StepExplanation> explain_schedule(const Graph& g, const LiveAnalysis& live);
// One step only (the page explains the current step each time it changes); step in range.
StepExplanation explain_step(const Graph& g, const LiveAnalysis& live, Step step);

// One buffer's reason over consecutive steps where it stays the same (reason and why): a buffer's
// spans cover its steps first..last in order, and two neighbours always differ. Their number is
// about the buffer's reads and writes, so all of them are linear in the graph size where one
// reason per live buffer per step is quadratic (16 GB of JSON at 100,000 ops with 2,000 outputs).
struct ReasonSpan {
  int buffer = -1;
  Step first = 0, last = 0;
  LiveReason reason = LiveReason::kReadNow;
  std::string why;
};
// Every buffer's spans, by buffer, each buffer's in step order.
std::vector<ReasonSpan> explain_reason_spans(const Graph& g, const LiveAnalysis& live);

// Every step's sentence, one per line: `arenaplan analyze --explain`. Streamed, and a sentence
// looks up only the reasons it names, so it is about linear in the graph size.
void write_schedule_explanation_text(std::ostream& out, const Graph& g, const LiveAnalysis& live);
// Exactly explained_analysis_json(g, live).dump(2), streamed: `analyze --explain --json`.
void write_explained_analysis_json(std::ostream& out, const Graph& g, const LiveAnalysis& live);
// analysis_json(g, live) plus "explanation": schedule_explanation_json(g, live,
// explain_schedule(g, live)) and "reasons": reason_spans_json(live, explain_reason_spans(g, live)),
// held in memory: for small graphs and the tests of the streamed writer.
JsonOut explained_analysis_json(const Graph& g, const LiveAnalysis& live);

// One buffer placed at a time, lowest offset first (ties: earlier first step): where it goes and
// why there (the bottom, or on top of which buffer live at the same time), and the arena so far.
struct PlacementExplanation {
  int buffer = -1;
  Bytes offset = 0;
  Bytes arena_so_far = 0;
  std::string sentence;
};
std::vector<PlacementExplanation> explain_layout(const LayoutProblem& problem, const std::vector<Bytes>& offsets);

// [{"buffer", "offset", "arena_so_far", "sentence"}]: `arenaplan layout --explain --json`.
JsonOut layout_explanation_json(const LayoutProblem& problem, const std::vector<PlacementExplanation>& steps);

// [{"step", "op", "freed", "peak", "sentence"}]: each step's sentence and the buffers freed before it.
JsonOut schedule_explanation_json(const Graph& g, const LiveAnalysis& live, const std::vector<StepExplanation>& steps);
// [{"buffer", "first", "last", "reason", "why"}]: why each buffer is live, step span by step span.
JsonOut reason_spans_json(const LiveAnalysis& live, const std::vector<ReasonSpan>& spans);

}  // namespace arenaplan
