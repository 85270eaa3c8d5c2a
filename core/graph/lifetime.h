// Lifetimes for one operator order (docs/DESIGN.md "Lifetime semantics"): which buffers exist at each
// step, live bytes per step, the peak and the buffers that make it. Layout, simulation and the UI
// all start from a LiveAnalysis, so every number they show agrees.
#pragma once

#include <iosfwd>
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

// One step's figures. Its live buffers are not stored (on a graph with thousands of outputs they
// would be quadratic in the graph size): LiveAnalysis::live_at(step) or LiveSweep derive them from
// the buffers' lifetimes.
struct StepLive {
  OpId op = -1;
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

  // Indices into `buffers` live during step `s`, ascending. O(buffers): for one step (the peak,
  // the step a UI shows); to visit every step in order use LiveSweep.
  std::vector<int> live_at(Step s) const;
};

// Walks the steps in order with the buffers live at each, ascending, in O(buffers log buffers +
// the sizes of the live sets visited) time and O(buffers) memory: the views that list every step's
// live set use it instead of one stored copy per step.
//   LiveSweep sweep(a);
//   for (Step s = 0; s < steps; ++s) for (int b : sweep.at(s)) ...
class LiveSweep {
 public:
  explicit LiveSweep(const LiveAnalysis& a);
  // The buffers live during step `s` (>= the previous call's step), ascending.
  const std::vector<int>& at(Step s);

 private:
  const LiveAnalysis& a_;
  std::vector<int> by_first_;  // buffer indices by first step
  size_t next_ = 0;            // by_first_[next_] is the next buffer to start
  std::vector<Step> lasts_;    // every buffer's last step, ascending
  size_t ended_ = 0;           // lasts_[ended_] is the next end not yet removed
  std::vector<int> live_;      // live at step_, ascending
  std::vector<int> starting_;  // scratch for the buffers starting at a step
  Step step_ = -1;
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
// The same for every tensor (index = TensorId), in time linear in the graph.
std::vector<TensorResidence> tensor_residences(const Graph& g);

// Throws InputError unless `order` runs every op exactly once after the producers of its inputs;
// the message names the first op that ran before an input existed.
void check_order(const Graph& g, const Schedule& order);

// Parses "A,B,C" (op names) into a schedule and checks it.
Schedule parse_order(const Graph& g, const std::string& comma_separated_names);

std::string order_names(const Graph& g, const Schedule& order, const char* separator = ",");

LiveAnalysis analyze_lifetimes(const Graph& g, const Schedule& order);

// A text timeline, one row per step: live buffers as bars, live bytes at the end. A graph with
// more than kTimelineMaxColumns buffers gets one line saying why it is not drawn.
constexpr size_t kTimelineMaxColumns = 256;
std::string timeline_text(const Graph& g, const LiveAnalysis& a);
// The same text written to `out` row by row (it is steps x buffers characters: never held whole).
void write_timeline_text(std::ostream& out, const Graph& g, const LiveAnalysis& a);

}  // namespace arenaplan
