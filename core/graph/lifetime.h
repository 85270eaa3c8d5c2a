// Lifetimes for one operator order (DESIGN.md "Lifetime semantics"): which buffers exist at each
// step, live bytes per step, the peak and the buffers that make it. Layout, simulation and the UI
// all start from a LiveAnalysis, so every number they show agrees.
#pragma once

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan {

using Schedule = std::vector<OpId>;  // ops in execution order; step t runs schedule[t]

enum class BufferKind { kTensor, kScratch };

// TFLM's arena sections: head = planned activations, temp = per-op scratch, tail = persistent.
enum class ArenaCategory { kHead, kTemp, kTail };
const char* category_name(ArenaCategory c);

// One piece of memory to place: a tensor (or tensors sharing storage through in-place aliasing)
// or an op's scratch. Lifetimes are inclusive steps.
struct LiveBuffer {
  std::string name;              // tensor name (first of an alias group) or "<op>:scratch"
  BufferKind kind = BufferKind::kTensor;
  ArenaCategory category = ArenaCategory::kHead;
  std::vector<TensorId> tensors;  // tensors stored here; empty for scratch
  OpId scratch_op = -1;           // owner op for scratch buffers
  Bytes size = 0;                 // bytes, rounded up to the graph alignment
  Step first = 0;                 // first step the buffer is live
  Step last = 0;                  // last step the buffer is live (inclusive)
};

struct StepLive {
  OpId op = -1;
  std::vector<int> buffers;  // indices into LiveAnalysis::buffers, ascending
  Bytes live_bytes = 0;
};

struct LiveAnalysis {
  Schedule order;
  std::vector<LiveBuffer> buffers;
  std::vector<int> buffer_of_tensor;  // per tensor: buffer index, or -1 (constant, caller-owned)
  std::vector<StepLive> steps;
  Bytes peak_bytes = 0;  // max over steps of live bytes: a lower bound on any arena
  Step peak_step = 0;    // first step reaching the peak
  Bytes total_bytes = 0;           // sum of all arena tensor buffers (no scratch)
  Bytes largest_tensor_bytes = 0;  // largest arena tensor buffer
};

// The lifetime contract of one tensor, known before any order is: whether it is in the arena,
// from when, and whether it is held to the end of the run. analyze_lifetimes and the schedule
// search's incremental model (core/schedule/detail/schedule_model) both classify through this.
enum class Residence {
  kOutside,       // not in the arena: a constant (flash), a caller-owned input, or never produced
  kWholeRun,      // persistent: live from the first step to the last
  kFromInput,     // a graph input held in the arena: live from the first step
  kFromProducer,  // live from the step of its producer
};
struct TensorResidence {
  Residence residence = Residence::kOutside;
  bool held_to_end = false;  // retained, a graph output or a retained input: live to the last step
};
TensorResidence tensor_residence(const Graph& g, TensorId t);

// Throws InputError unless `order` runs every op exactly once after the producers of its inputs;
// the message names the first op that ran before an input existed.
void check_order(const Graph& g, const Schedule& order);

// Parses "A,B,C" (op names) into a schedule and checks it.
Schedule parse_order(const Graph& g, const std::string& comma_separated_names);

std::string order_names(const Graph& g, const Schedule& order, const char* separator = ",");

LiveAnalysis analyze_lifetimes(const Graph& g, const Schedule& order);

// A text timeline, one row per step: live buffers as bars, live bytes at the end.
std::string timeline_text(const Graph& g, const LiveAnalysis& a);

}  // namespace arenaplan
