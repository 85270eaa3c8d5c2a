// The simulated microcontroller: runs a graph inside ONE byte arena at the planned offsets, counts
// cycles with a per-MCU model, and checks with independent oracles that the plan is safe.
//
//   Oracle 1 "outputs":    the graph outputs (and every DMA transfer) equal a reference run in
//                          which no two buffers live at the same time share a byte, bit for bit.
//   Oracle 2 "writes":     after each op, no byte changed except that op's outputs and scratch:
//                          every buffer that still holds needed data (of any session) and lies
//                          under the bytes the op wrote is compared with what it held before, the
//                          bytes around the op's writes too, writes past the arena end are refused
//                          and canaries past the end are checked. Every other byte is compared
//                          with the expected image whenever the ops since the last full compare
//                          wrote as many bytes as the arena holds (every op on small arenas), so
//                          the work per op follows what the op wrote, not the arena size.
//   Oracle 3 "high_water": the highest arena byte any op touched never exceeds the planned arena.
//   Oracle 4 "flash":      no op writes the read-only constants (weights, biases) in flash.
//
// Usage (what the CLI and the browser do):
//   SimRequest req;  req.order = g.file_order();  req.plan = export_plan_options();
//   SimReport rep = simulate(g, req);             // plans, injects faults, runs, compares
//   JsonOut j = simulation_json(g, rep);          // the `arenaplan simulate --json` contract
// Step by step (the browser's simulator panel):
//   ArenaSimulator sim(g, live, layout, options);
//   while (!sim.done()) { const StepRecord& r = sim.step(); /* r.reads, r.writes, sim.region_data(r.region) */ }
//
// Nothing is allocated while ops run except the owner lists of the write oracle (a few entries per
// arena unit): arena, expected image, flash, captures are sized at construction. Memory: the
// planned run holds its arena and the expected image (twice the arena); the reference run holds
// only what it still needs (graph outputs end at their last use there, kept as digests), and
// outputs are kept as bytes only up to SimOptions::max_capture_bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/layout/layout.h"
#include "core/sim/sim_cycles.h"
#include "core/sim/sim_kernels.h"

namespace arenaplan::sim {

// Where each LiveAnalysis buffer sits (offsets[i] for live.buffers[i]) and how big the firmware's
// tensor_arena[] is (arena_bytes): the planner's plan as plan_graph returns it, run as is. Faults
// (shift_buffer, a smaller arena_bytes) edit a copy; the simulator reads only offsets and arena_bytes.
using ArenaLayout = ArenaPlan;

// Every buffer at its own bytes, one after another (the old reference layout: the arena is the
// sum of all buffers, ~3.5 GB on a 100,000-op graph). Kept to check reference_layout against.
ArenaLayout separate_layout(const LiveAnalysis& live, Bytes alignment);
// The reference run's layout: no two buffers live at the same time share a byte, by construction
// and without any planner: each buffer takes a free lane of its power-of-two size class (a lane is
// free once its last buffer's last step has passed), lanes sit one after another. The arena is at
// most about twice the peak per size class, so the reference allocates only what is live.
ArenaLayout reference_layout(const LiveAnalysis& live, Bytes alignment);
// The reference run's lifetimes: `live` with each graph output's buffer ending at its last use
// (its producer or last reader) instead of the end of the run, unless another rule holds it
// (persistent, retained). The reference captures each output then, so it never holds the outputs
// all at once: on a graph with thousands of outputs they are most of the arena.
LiveAnalysis reference_lifetimes(const Graph& g, const LiveAnalysis& live);

struct SimOptions {
  McuProfile profile = find_mcu_profile("cortex-m4");
  uint64_t seed = 1;          // weights, inputs (new inputs every run and session)
  int runs = 1;               // invocations one after another
  int sessions = 1;           // model instances interleaved op by op
  bool shared_arena = false;  // sessions share one arena (unsafe) instead of one arena each
  bool oracles = true;        // per-op write checks and guard canaries; false = a plain run
  size_t max_reports = 64;    // violations / foreign writes kept (all are counted)
  // The graph outputs (and DMA transfers) of every run and session are kept as bytes up to this
  // total; beyond it only their 64-bit digests are (captured() is then null, and the outputs
  // oracle compares digests).
  Bytes max_capture_bytes = Bytes{64} << 20;
  // Per graph input (Graph::inputs order): its raw bytes (exactly the tensor's size), or empty
  // for seeded bytes. The same bytes every run and session.
  std::vector<std::vector<uint8_t>> inputs;
  // Faults standing in for a kernel bug: right after `op` runs (every run and session), the arena
  // byte at `offset` of its region is flipped, whatever the plan.
  struct StrayWrite {
    OpId op = -1;
    Bytes offset = 0;
  };
  std::vector<StrayWrite> stray_writes;
};

// A byte range of a simulated region (arena index) touched by an op.
struct ByteRange {
  Bytes offset = 0;
  Bytes bytes = 0;
  int buffer = -1;       // LiveAnalysis buffer
  TensorId tensor = -1;  // -1 for scratch
};

struct Violation {
  std::string oracle;  // "outputs", "writes", "high_water"
  std::string message;
  int run = 0, session = 0;
  Step step = -1;  // -1: not tied to one op
};

struct ForeignWrite {
  int run = 0, session = 0;
  Step step = 0;
  OpId op = -1;
  int region = 0;
  Bytes offset = 0, bytes = 0;  // region bytes [offset, offset + bytes) that changed
  std::string victim;           // "tensor B", "tensor B of session 1", "free bytes", "guard zone"
};

// Model figures of one op (one step of one inference).
struct OpStats {
  OpId op = -1;
  const char* kernel = "mix";
  std::string note;  // why a known kind ran mix or a stand-in, else empty
  bool stand_in = false;  // a byte-level stand-in ran: this op's output bytes are not the model's
  bool on_npu = false;    // runs on an NPU: not simulated, its outputs are not computed
  CostKind cost_kind = CostKind::kOther;  // what the cycle model charged it as
  int64_t macs = 0, alu_ops = 0;
  int64_t bytes_read = 0, bytes_written = 0;  // arena + flash + caller memory
  int64_t flash_bytes_read = 0;
  int64_t dma_bytes = 0;          // asynchronous reads this op starts
  int64_t dma_stall_cycles = 0;   // waiting for a DMA that completes at this step
  int64_t cycles = 0;             // including overhead and stall
};

struct StepRecord {
  int run = 0, session = 0, region = 0;
  Step step = 0;
  OpId op = -1;
  const std::vector<ByteRange>* reads = nullptr;   // arena bytes this op read (region `region`)
  const std::vector<ByteRange>* writes = nullptr;  // arena bytes it wrote (outputs, scratch, loads)
  const OpStats* stats = nullptr;
  size_t first_violation = 0, end_violation = 0;  // violations() found by this step
};

class ArenaSimulator {
 public:
  // Throws InputError for kernels whose shapes do not match, or a layout that does not fit the
  // analysis (wrong count, negative offsets).
  ArenaSimulator(const Graph& g, LiveAnalysis live, ArenaLayout layout, SimOptions options);

  bool done() const { return run_ >= options_.runs || steps_ == 0; }  // a graph without ops has nothing to run
  const StepRecord& step();  // one op of one session; sessions interleave, runs follow each other
  void run_all();
  // Progress: steps taken over every run and session so far, and how many there are in all (a
  // caller that runs a big model a slice at a time shows these).
  int64_t steps_taken() const { return (int64_t(run_) * options_.sessions) * steps_ + cursor_; }
  int64_t steps_total() const { return (int64_t(options_.runs) * options_.sessions) * steps_; }
  // After each run, outputs are compared with this (finished) simulator's run of the same inputs.
  void compare_with(const ArenaSimulator* reference) { reference_ = reference; }
  const ArenaSimulator* compared_with() const { return reference_; }
  // Once every run is done, frees all but the captures (what compare_with reads): a reference
  // nobody steps through any more gives its memory to the planned run (~100 MB at 100,000 ops).
  void keep_only_captures();

  const Graph& graph() const { return g_; }
  const LiveAnalysis& live() const { return live_; }
  const ArenaLayout& layout() const { return layout_; }
  const SimOptions& options() const { return options_; }
  int regions() const { return regions_; }
  Bytes region_bytes() const { return region_bytes_; }  // arena plus guard zone
  const uint8_t* region_data(int r) const { return memory_.data() + static_cast<size_t>(r) * region_bytes_; }
  Bytes high_water_bytes() const { return high_water_; }
  const std::vector<OpStats>& op_stats() const { return stats_; }  // per step of one inference
  int64_t cycles_per_inference() const;
  int64_t macs_per_inference() const;
  const std::vector<Violation>& violations() const { return violations_; }
  size_t violation_count() const { return violation_count_; }
  const std::vector<ForeignWrite>& foreign_writes() const { return foreign_writes_; }
  size_t foreign_write_count() const { return foreign_write_count_; }
  bool outputs_match() const { return outputs_match_; }
  // Graph outputs then DMA transfers of one finished (run, session), back to back; null when
  // they are kept as digests only (SimOptions::max_capture_bytes).
  const uint8_t* captured(int run, int session) const;
  Bytes capture_bytes() const { return capture_bytes_; }
  bool keeps_capture_bytes() const { return keep_capture_bytes_; }
  // The digest of capture item `item` (graph outputs in Graph::outputs order, then DMA transfers).
  uint64_t capture_digest(int run, int session, size_t item) const;

 private:
  struct BoundStep {
    size_t in_begin = 0, in_end = 0, out_begin = 0, out_end = 0;  // into operands_ of a session
    Operand scratch;
  };
  struct DmaRead {
    TensorId tensor = -1;
    Step issued = 0, completes = 0;
    OpId op = -1;
    Bytes capture_offset = 0;
  };

  // The write oracle's index: per arena unit of claim_unit_ bytes, the buffers written there that
  // may still hold needed data, so an op's writes are checked against those buffers only. Units
  // are 64 bytes, or larger on big arenas so that there are at most kMaxClaimUnits per region
  // (one list per 64 bytes of an 850 MB arena took 700 MB).
  static constexpr Bytes kMinClaimUnit = 64;
  static constexpr Bytes kMaxClaimUnits = Bytes{1} << 16;
  // Bytes an overrun or underrun of an op's writes is looked for right away, on each side.
  static constexpr Bytes kGuardBytes = 64;
  // Bytes of full compare each op earns besides what it touched: arenas up to this size are
  // compared whole after every op.
  static constexpr Bytes kFullCompareAllowance = 16 * 1024;
  struct Claim {
    int run = 0, session = 0, buffer = -1;
  };

  void bind();
  void compute_stats();
  void load_inputs(int session);
  void run_op(int session, Step t);
  void capture(int session, size_t item);
  void finish_session(int session);
  // Oracles (sim_oracles.cpp).
  void check_op(int session, Step t, bool loading);
  void check_before_writes(int session, Step t, bool loading);
  void check_overwritten(int session, Step t, bool loading, const std::string& doing);
  void check_outside(int session, Step t, const std::vector<ByteRange>& allowed, bool full, const std::string& doing);
  void claim(int session, const std::vector<ByteRange>& allowed);
  bool still_needed(const Claim& c, int exec_session, Step exec_step) const;
  // Who else may have made a difference a full compare finds: "", " or the op before it", ...
  std::string ops_before_full_compare() const;
  void check_run_end(int session, Step t);
  void check_guards();
  void check_flash(int session, Step t, bool full);
  void compare_capture(int session);
  void note_high_water(Step t, int session, Bytes end, const char* what);
  void report(Violation v);
  void report_write(ForeignWrite w);
  std::string victim_at(int region, Bytes offset, int exec_session, Step exec_step) const;
  std::string tensor_label(int buffer, int session) const;

  const Graph& g_;
  LiveAnalysis live_;
  ArenaLayout layout_;
  SimOptions options_;
  std::vector<KernelPlan> kernels_;  // per op
  std::vector<const uint8_t*> implicit_weights_;  // per op: generated weights in flash, or null
  std::vector<std::vector<std::vector<uint8_t>>> op_state_;  // [session][op]: a stateful kernel's own state
  Step steps_ = 0;
  int regions_ = 1;
  Bytes region_bytes_ = 0;
  std::vector<uint8_t> memory_, flash_, caller_;
  // What the arena should hold: synced with the op's outputs and scratch after each op, so any
  // other difference from memory_ is a write outside them (the write oracle compares the two).
  std::vector<uint8_t> expected_;
  std::vector<uint8_t> flash_image_;  // flash as loaded: the flash oracle's reference
  std::vector<std::vector<uint8_t*>> tensor_ptr_;  // [session][tensor]
  std::vector<std::vector<Operand>> operands_;     // [session]
  std::vector<std::vector<BoundStep>> bound_;      // [session][step]
  std::vector<std::vector<ByteRange>> reads_, writes_;  // [step]; writes_ of step 0 exclude loads
  std::vector<ByteRange> loads_;                        // inputs and state written before step 0
  std::vector<Step> kept_from_;                         // per buffer: first step before which it holds needed data
  std::vector<std::vector<int>> written_;               // [step] buffers the op writes
  std::vector<std::vector<Claim>> claims_;              // [region * units + unit]: who wrote it and may need it
  Bytes units_ = 0;                                     // claim units per region
  Bytes written_since_full_ = 0;                        // bytes the ops wrote since the last full compare (+ allowance)
  int64_t ops_since_full_ = 0;                          // ops run since then (1: only the current one)
  std::vector<std::pair<int, int>> victims_;            // scratch of check_overwritten: (session, buffer)
  std::vector<Bytes> data_bytes_;                       // per buffer: bytes that carry data
  std::vector<DmaRead> dma_;                           // by completion step
  std::vector<OpStats> stats_;
  Bytes capture_bytes_ = 0;
  bool keep_capture_bytes_ = true;
  std::vector<uint8_t> captures_;  // [run][session] capture_bytes_ each (when kept)
  // Capture items: graph outputs (Graph::outputs order), then DMA transfers (dma_ order).
  std::vector<TensorId> capture_tensor_;   // per item
  std::vector<Bytes> capture_offset_;      // per item: where in a capture
  std::vector<uint64_t> digests_;          // [run][session][item]
  std::vector<std::vector<size_t>> outputs_captured_at_;  // [step]: output items captured after it
  Bytes claim_unit_ = kMinClaimUnit;
  std::vector<Step> next_step_;    // per session within the current run
  int run_ = 0;
  int64_t cursor_ = 0;  // position within the current run: session = cursor % sessions
  const ArenaSimulator* reference_ = nullptr;
  StepRecord record_;
  std::vector<Violation> violations_;
  size_t violation_count_ = 0;
  std::vector<ForeignWrite> foreign_writes_;
  size_t foreign_write_count_ = 0;
  Bytes high_water_ = 0;
  bool high_water_reported_ = false;
  bool outputs_match_ = true;
};

// ---- One call for the CLI and the browser -----------------------------------------------------

inline constexpr Bytes kDefaultSimMemoryLimit = Bytes{1} << 30;  // 1 GiB

struct SimRequest {
  Schedule order;                    // empty: the file order
  // plan_arena's planner and its limits: the CLI and the page pass core/session's plan policy
  // (export_plan_options), so both simulate the plan they export.
  PlanOptions plan;
  std::string profile = "cortex-m4";
  // A board's profile (profile_for_board: its core, kernel library and clock), used instead of `profile`.
  std::optional<McuProfile> board_profile;
  std::optional<double> clock_mhz;  // replaces the profile's clock (--clock-mhz)
  int runs = 1, sessions = 1;
  bool shared_arena = false;
  uint64_t seed = 1;
  // Faults: "shift:TENSOR", "shift:TENSOR:BYTES", "ignore-async", "stray:OP:OFFSET" (a kernel bug:
  // op OP flips the arena byte at OFFSET).
  std::vector<std::string> inject;
  // Raw bytes of graph inputs, by tensor name (each exactly the tensor's size); inputs not named
  // get seeded bytes.
  std::map<std::string, std::vector<uint8_t>> input_bytes;
  // The most memory the simulation may hold (every session's arena and the constants): a model
  // beyond it is refused with its figures before anything is allocated.
  Bytes memory_limit_bytes = kDefaultSimMemoryLimit;
  // Outputs kept as bytes up to this total over runs and sessions (SimOptions::max_capture_bytes);
  // raise it to have SimReport::outputs on a graph with more output bytes.
  Bytes max_capture_bytes = SimOptions{}.max_capture_bytes;
};

struct SimReport {
  std::string graph, planner;
  McuProfile profile;
  Schedule order;
  int runs = 1, sessions = 1;
  bool shared_arena = false;
  uint64_t seed = 1;
  std::vector<std::string> injected;  // faults applied, in words
  Bytes arena_bytes = 0, high_water_bytes = 0, lower_bound_bytes = 0;
  int64_t cycles_total = 0;  // one inference
  double latency_us = 0;
  std::vector<OpStats> per_op;
  bool outputs_match_reference = true;
  bool outputs_by_digest = false;  // compared as 64-bit digests (SimRequest::max_capture_bytes), not byte for byte
  std::vector<ForeignWrite> foreign_writes;
  std::vector<Violation> violations;
  size_t violation_count = 0, foreign_write_count = 0;
  // Each graph output's raw bytes after run 0 of session 0 (Graph::outputs order); empty when the
  // outputs are kept as digests only (SimRequest::max_capture_bytes).
  std::vector<std::vector<uint8_t>> outputs;
  // The same for runs 1..runs-1 of session 0 (later_outputs[k - 1] is run k), so that every
  // invoke of a stateful model (an LSTM's carried state) can be compared with a reference.
  std::vector<std::vector<std::vector<uint8_t>>> later_outputs;
  std::vector<std::string> fed_inputs;  // graph inputs given as raw bytes (the rest were seeded)
  // Ops that ran the byte-level stand-in, with the reason: their output bytes (and everything
  // computed from them) are not the model's. The plan oracles hold regardless.
  std::vector<std::pair<std::string, std::string>> stand_ins;
  // Ops that run on an NPU (Vela's ethos-u), refused by name ("ethos-u: runs on the Ethos-U NPU,
  // not simulated"). Placeholder bytes fill their outputs so the plan oracles still run; those
  // outputs and every tensor computed from them are not computed (`not_computed`, tensor names in
  // schedule order), and a graph output among them is never presented as the model's.
  std::vector<std::pair<std::string, std::string>> not_simulated;
  std::vector<std::string> not_computed;
  std::vector<char> output_computed;  // per graph output (Graph::outputs order): 0 if not computed
  // Constant tensors whose bytes the simulator generated (the graph holds no data for them).
  std::vector<std::string> generated_constants;
  bool ok() const { return violation_count == 0; }
};

// What simulate() runs, for callers that step through it (the browser panel): the lifetimes, the
// layout with the requested faults applied, and the options.
struct SimSetup {
  LiveAnalysis live;
  ArenaLayout layout;
  SimOptions options;
  std::vector<std::string> injected;  // faults applied, in words
};
SimSetup prepare_simulation(const Graph& g, const SimRequest& request);

// The graph's input bytes as SimOptions::inputs wants them (Graph::inputs order); InputError for
// an unknown name, a name that is not a graph input, or a wrong size.
std::vector<std::vector<uint8_t>> input_buffers(const Graph& g, const std::map<std::string, std::vector<uint8_t>>& by_name);

// Reference run with separate buffers, then the planned run compared with it.
SimReport simulate_layout(const Graph& g, const LiveAnalysis& live, const ArenaLayout& layout,
                          const SimOptions& options);
// The reference simulator of `options` (separate buffers, no oracles, one arena per session), not
// yet run. A caller that both reports a whole run and steps through it (the browser panel) runs
// one reference and hands it to simulate_setup and to its stepper, so nothing runs twice.
std::unique_ptr<ArenaSimulator> reference_simulator(const Graph& g, const LiveAnalysis& live, const SimOptions& options);
// The planned run of `setup` compared with `reference` (finished: run_all() done), reported like
// simulate() (planner left empty).
SimReport simulate_setup(const Graph& g, const SimSetup& setup, const ArenaSimulator& reference);
// The report of `planned`, a simulator of `setup` compared with a reference, once it has finished
// (done()): what simulate_setup returns, for a caller that ran it a slice at a time.
SimReport planned_run_report(const Graph& g, const SimSetup& setup, const ArenaSimulator& planned);
// Lifetimes, plan (verified), faults, simulation. Throws InputError for bad requests.
SimReport simulate(const Graph& g, const SimRequest& request);

// Fault injection (each also reachable through SimRequest::inject).
// Moves one tensor's buffer: by `delta` bytes, or (delta 0) onto the start of the nearest buffer
// that is live at the same time, so two live buffers overlap. Throws InputError if none exists.
ArenaLayout shift_buffer(const Graph& g, const LiveAnalysis& live, ArenaLayout layout,
                         const std::string& tensor, Bytes delta);
// A plan made as if asynchronous reads finished when their op runs, mapped onto the true buffers.
ArenaLayout plan_ignoring_async(const Graph& g, const Schedule& order, const PlanOptions& plan);
// The verified plan of `plan` for a live analysis.
ArenaLayout plan_layout(const Graph& g, const LiveAnalysis& live, const PlanOptions& plan);

// {"profile", "cycles_total", "latency_us", "per_op": [{"op","cycles","macs","bytes_read",
//  "bytes_written"}], "arena_bytes", "high_water_bytes", "outputs_match_reference",
//  "foreign_writes", "violations", ...}: the `arenaplan simulate --json` contract.
JsonOut simulation_json(const Graph& g, const SimReport& r);
// `arenaplan simulate`'s text: the per-op table, then simulation_summary_text.
std::string simulation_text(const Graph& g, const SimReport& r);
// Cycles and latency (ms), arena, runs, every oracle's verdict, whether the outputs are the
// model's, the stand-ins and violations: what the Simulator tab shows under its table.
std::string simulation_summary_text(const SimReport& r);
// True when no op ran a stand-in or on an NPU and no constant holds generated bytes.
bool outputs_are_the_model(const SimReport& r);

// Deterministic fill for weights and inputs: the same (seed, stream, name) gives the same bytes.
void fill_tensor(const Tensor& t, uint64_t seed, uint64_t stream, uint8_t* data);
// The weights of an op the graph describes only by attrs (KernelPlan::implicit_weight_bytes),
// generated like any constant and named after the op, so every run of that op sees the same bytes.
void fill_implicit_weights(const std::string& op_name, Bytes bytes, uint64_t seed, uint8_t* data);
// The value a persistent (variable) tensor starts every run with: real zero for a model's tensors
// (quantized or float32), seeded bytes for hand-written state.
void initial_state(const Tensor& t, uint64_t seed, uint8_t* data);

}  // namespace arenaplan::sim
