// One simulation as the CLI and the browser ask for it: plan, inject faults, run the reference
// and the planned arena, and report in the `simulate --json` shape.
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/graph/report.h"
#include "core/layout/pipeline.h"
#include "core/sim/sim.h"

namespace arenaplan::sim {
namespace {

// "stray:OP:OFFSET": the op by name, a non-negative arena offset.
SimOptions::StrayWrite parse_stray_write(const Graph& g, const std::string& fault) {
  const std::string body = fault.substr(6);
  const size_t colon = body.rfind(':');
  if (colon == std::string::npos) throw InputError("inject " + fault, "expected stray:OP:OFFSET");
  const std::string name = body.substr(0, colon), num = body.substr(colon + 1);
  const std::optional<OpId> op = g.find_op(name);
  if (!op) throw InputError("inject " + fault, "unknown op \"" + name + "\"");
  char* end = nullptr;
  const long long offset = std::strtoll(num.c_str(), &end, 10);
  if (num.empty() || *end != '\0' || offset < 0)
    throw InputError("inject " + fault, "expected a non-negative arena offset after the last ':'");
  return {*op, static_cast<Bytes>(offset)};
}

}  // namespace

ArenaLayout plan_layout(const Graph& g, const LiveAnalysis& live, const PlanOptions& plan) {
  return plan_arena(layout_problem(g, live), plan);
}

ArenaLayout plan_ignoring_async(const Graph& g, const Schedule& order, const PlanOptions& plan) {
  Graph blind = g;
  bool any = false;
  for (Op& op : blind.ops) {
    any = any || !op.async_reads.empty();
    op.async_reads.clear();
  }
  if (!any) throw InputError("inject", "ignore-async: the graph has no asynchronous reads to ignore");
  LiveAnalysis truth = analyze_lifetimes(g, order);
  LiveAnalysis blind_live = analyze_lifetimes(blind, order);
  ArenaLayout blind_layout = plan_layout(blind, blind_live, plan);
  // Same tensors, same in-place groups: the buffers correspond one to one, only lifetimes differ.
  ArenaLayout out = blind_layout;
  out.verified = false;  // verified for the blind lifetimes, not the true ones
  out.offsets.assign(truth.buffers.size(), 0);
  for (size_t b = 0; b < truth.buffers.size(); ++b) {
    if (b >= blind_live.buffers.size() || blind_live.buffers[b].name != truth.buffers[b].name)
      throw std::logic_error("plan_ignoring_async: buffers do not correspond");
    out.offsets[b] = blind_layout.offsets[b];
  }
  return out;
}

ArenaLayout shift_buffer(const Graph& g, const LiveAnalysis& live, ArenaLayout layout, const std::string& tensor,
                         Bytes delta) {
  const std::string where = "inject shift:" + tensor;
  auto t = g.find_tensor(tensor);
  if (!t) throw InputError(where, "unknown tensor \"" + tensor + "\"");
  const int b = live.buffer_of_tensor[*t];
  if (b < 0) throw InputError(where, "tensor " + tensor + " has no arena buffer (constant or caller-owned)");
  const LiveBuffer& me = live.buffers[b];
  if (delta == 0) {
    // Onto the start of the nearest buffer live at the same time: two live buffers now overlap.
    int best = -1;
    for (size_t o = 0; o < live.buffers.size(); ++o) {
      const LiveBuffer& other = live.buffers[o];
      if (static_cast<int>(o) == b || other.first > me.last || me.first > other.last) continue;
      if (best < 0 || std::llabs(layout.offsets[o] - layout.offsets[b]) < std::llabs(layout.offsets[best] - layout.offsets[b]))
        best = static_cast<int>(o);
    }
    if (best < 0)
      throw InputError(where, "tensor " + tensor + " is never live together with another buffer; give a byte count: shift:" +
                                  tensor + ":BYTES");
    delta = layout.offsets[best] - layout.offsets[b];
  }
  if (layout.offsets[b] + delta < 0)
    throw InputError(where, "would move " + tensor + " to a negative offset " + std::to_string(layout.offsets[b] + delta));
  layout.offsets[b] += delta;
  layout.verified = false;  // no longer the planner's verified plan
  return layout;
}

std::unique_ptr<ArenaSimulator> reference_simulator(const Graph& g, const LiveAnalysis& live, const SimOptions& options) {
  SimOptions ref_options = options;
  ref_options.oracles = false;
  ref_options.shared_arena = false;
  ref_options.stray_writes.clear();  // the reference is the clean run
  LiveAnalysis ref_live = reference_lifetimes(g, live);
  ArenaLayout ref_layout = reference_layout(ref_live, g.alignment);
  return std::make_unique<ArenaSimulator>(g, std::move(ref_live), std::move(ref_layout), ref_options);
}

namespace {

// An NPU op's outputs, and in schedule order every output of an op reading one, are not computed.
void mark_not_computed(const Graph& g, SimReport& r) {
  std::vector<char> tainted(g.tensors.size(), 0);
  for (const OpStats& s : r.per_op) {
    const Op& op = g.ops[s.op];
    bool taint = s.on_npu;
    for (TensorId t : op.inputs) taint = taint || tainted[t];
    if (s.on_npu) r.not_simulated.emplace_back(op.name, s.note);
    if (!taint) continue;
    for (TensorId t : op.outputs)
      if (!tainted[t]) {
        tainted[t] = 1;
        r.not_computed.push_back(g.tensors[t].name);
      }
  }
  for (TensorId y : g.outputs) r.output_computed.push_back(!tainted[y]);
}

// The report of a finished planned run.
SimReport report_of(const Graph& g, const ArenaSimulator& planned) {
  const LiveAnalysis& live = planned.live();
  const ArenaLayout& layout = planned.layout();
  const SimOptions& options = planned.options();
  SimReport r;
  r.graph = g.name;
  r.profile = options.profile;
  r.order = live.order;
  r.runs = options.runs;
  r.sessions = options.sessions;
  r.shared_arena = options.shared_arena;
  r.seed = options.seed;
  r.arena_bytes = layout.arena_bytes;
  r.lower_bound_bytes = live.peak_bytes;
  r.high_water_bytes = planned.high_water_bytes();
  r.cycles_total = planned.cycles_per_inference();
  r.latency_us = cycles_to_us(options.profile, r.cycles_total);
  r.per_op = planned.op_stats();
  r.outputs_match_reference = planned.outputs_match();
  const ArenaSimulator* reference = planned.compared_with();
  r.outputs_by_digest = !planned.keeps_capture_bytes() || (reference && !reference->keeps_capture_bytes());
  r.foreign_writes = planned.foreign_writes();
  r.foreign_write_count = planned.foreign_write_count();
  r.violations = planned.violations();
  r.violation_count = planned.violation_count();
  if (const uint8_t* cap = planned.captured(0, 0))  // null: kept as digests only (max_capture_bytes)
    for (TensorId y : g.outputs) {
      const Bytes n = g.tensors[y].bytes;
      r.outputs.emplace_back(cap, cap + n);
      cap += n;
    }
  for (int run = 1; run < options.runs; ++run)
    if (const uint8_t* cap = planned.captured(run, 0)) {
      std::vector<std::vector<uint8_t>>& outs = r.later_outputs.emplace_back();
      for (TensorId y : g.outputs) {
        const Bytes n = g.tensors[y].bytes;
        outs.emplace_back(cap, cap + n);
        cap += n;
      }
    }
  for (size_t i = 0; i < g.inputs.size() && i < options.inputs.size(); ++i)
    if (!options.inputs[i].empty()) r.fed_inputs.push_back(g.tensors[g.inputs[i]].name);
  for (const OpStats& s : r.per_op)
    if (s.stand_in) r.stand_ins.emplace_back(g.ops[s.op].name, s.note);
  mark_not_computed(g, r);
  // In a graph that carries model data (an imported network), a constant without data (the output
  // of an op folded at import, weights past a 2 GB file) was generated: say so.
  const bool carries_data = std::any_of(g.tensors.begin(), g.tensors.end(), [](const Tensor& t) { return t.data != nullptr; });
  for (const Tensor& t : g.tensors)
    if (carries_data && t.constant && !t.data && !t.consumers.empty()) r.generated_constants.push_back(t.name);
  return r;
}

SimReport run_planned(const Graph& g, const LiveAnalysis& live, const ArenaLayout& layout, const SimOptions& options,
                      const ArenaSimulator& reference) {
  ArenaSimulator planned(g, live, layout, options);
  planned.compare_with(&reference);
  planned.run_all();
  return report_of(g, planned);
}

}  // namespace

std::vector<std::vector<uint8_t>> input_buffers(const Graph& g, const std::map<std::string, std::vector<uint8_t>>& by_name) {
  std::vector<std::vector<uint8_t>> out(g.inputs.size());
  for (const auto& [name, bytes] : by_name) {
    auto t = g.find_tensor(name);
    if (!t || !g.is_input(*t)) {
      std::string known;
      for (TensorId i : g.inputs) known += (known.empty() ? "" : ", ") + g.tensors[i].name;
      throw InputError("input " + name, "is not a graph input (inputs: " + known + ")");
    }
    const Tensor& tensor = g.tensors[*t];
    if (static_cast<Bytes>(bytes.size()) != tensor.bytes)
      throw InputError("input " + name, "has " + std::to_string(bytes.size()) + " bytes; tensor " + name + " holds " +
                                            std::to_string(tensor.bytes));
    const size_t index = static_cast<size_t>(std::find(g.inputs.begin(), g.inputs.end(), *t) - g.inputs.begin());
    out[index] = bytes;
  }
  return out;
}

SimReport simulate_layout(const Graph& g, const LiveAnalysis& live, const ArenaLayout& layout, const SimOptions& options) {
  const std::unique_ptr<ArenaSimulator> reference = reference_simulator(g, live, options);
  reference->run_all();
  reference->keep_only_captures();  // nobody steps through this one
  return run_planned(g, live, layout, options, *reference);
}

SimReport simulate_setup(const Graph& g, const SimSetup& setup, const ArenaSimulator& reference) {
  SimReport r = run_planned(g, setup.live, setup.layout, setup.options, reference);
  r.injected = setup.injected;
  return r;
}

SimReport planned_run_report(const Graph& g, const SimSetup& setup, const ArenaSimulator& planned) {
  if (!planned.done()) throw std::logic_error("planned_run_report before the planned run finished");
  SimReport r = report_of(g, planned);
  r.injected = setup.injected;
  return r;
}

namespace {

// The simulator holds every session's arena and every constant in this process's memory (a Wasm
// page has at most 2 GiB): a model far beyond any MCU, such as one with a corrupt shape, is
// refused with its figures instead of running out of memory.
// `what` names arena_bytes: the planned arena, or the live bytes that bound it from below.
void require_simulable(const Graph& g, Bytes arena_bytes, const SimRequest& req, const std::string& what) {
  if (g.ops.empty()) throw InputError("model", "has no operators: nothing to simulate");
  const Bytes limit = req.memory_limit_bytes;
  Bytes constants = 0;
  for (const Tensor& t : g.tensors)
    if (t.constant) constants += t.bytes;
  const Bytes arenas = arena_bytes * (req.shared_arena ? 1 : std::max(1, req.sessions));
  if (arenas > limit || constants > limit || arenas + constants > limit)
    throw InputError("model", what + " (" + with_commas(arenas) + " B) and the constants (" +
                                  with_commas(constants) + " B) are more than the simulator's memory limit (" +
                                  with_commas(limit) + " B, --memory-limit); check the tensor shapes");
}

// Runs `first` here and `second` on a thread beside it, then rethrows the first exception either
// raised. In Wasm (built without threads) and where no thread can be started, one after the other.
void run_beside(const std::function<void()>& first, const std::function<void()>& second) {
#ifndef __EMSCRIPTEN__
  std::exception_ptr second_error;
  std::thread beside;
  try {
    beside = std::thread([&] {
      try {
        second();
      } catch (...) {
        second_error = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    first();
    second();
    return;
  }
  std::exception_ptr first_error;
  try {
    first();
  } catch (...) {
    first_error = std::current_exception();
  }
  beside.join();
  if (first_error) std::rethrow_exception(first_error);
  if (second_error) std::rethrow_exception(second_error);
#else
  first();
  second();
#endif
}

// Hands memory freed by the plan search and the reference run back to the system before the
// planned run takes two copies of the arena: the thread's malloc arena otherwise keeps its free
// pages (+60 MB on a 100,000-op graph). glibc only; elsewhere nothing to do.
void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// The part of a simulation's setup that needs no plan: the lifetimes of the order and the options.
SimSetup unplanned_setup(const Graph& g, const SimRequest& req) {
  SimSetup setup;
  const Schedule order = req.order.empty() ? g.file_order() : req.order;
  setup.live = analyze_lifetimes(g, order);
  SimOptions& options = setup.options;
  options.profile = req.board_profile ? *req.board_profile : find_mcu_profile(req.profile);
  if (req.clock_mhz) {
    if (!(*req.clock_mhz > 0) || *req.clock_mhz > 100000)
      throw InputError("--clock-mhz", "expected a clock in MHz (a positive number)");
    options.profile.clock_mhz = *req.clock_mhz;
  }
  options.runs = req.runs;
  options.sessions = req.sessions;
  options.shared_arena = req.shared_arena;
  options.seed = req.seed;
  options.inputs = input_buffers(g, req.input_bytes);
  options.max_capture_bytes = req.max_capture_bytes;
  if (req.shared_arena && req.sessions < 2) throw InputError("shared-arena", "needs --sessions 2 or more");
  return setup;
}

// Plans setup.live's arena (or the fault's) and applies the requested faults.
void plan_setup(const Graph& g, const SimRequest& req, SimSetup& setup) {
  const Schedule order = setup.live.order;
  SimOptions& options = setup.options;
  const bool ignore_async = std::find(req.inject.begin(), req.inject.end(), "ignore-async") != req.inject.end();
  if (ignore_async) {
    setup.layout = plan_ignoring_async(g, order, req.plan);
    setup.injected.push_back("plan made as if asynchronous reads finished when their op runs");
  } else {
    GraphPlan plan = plan_graph(g, std::move(setup.live), req.plan);
    setup.live = std::move(plan.live);
    setup.layout = std::move(plan.plan);  // the planner's verified plan, run as is
  }
  require_simulable(g, setup.layout.arena_bytes, req, "the planned arena");
  const LiveAnalysis& live = setup.live;
  ArenaLayout& layout = setup.layout;
  for (const std::string& f : req.inject) {
    if (f == "ignore-async") continue;
    if (f.rfind("stray:", 0) == 0) {
      options.stray_writes.push_back(parse_stray_write(g, f));
      setup.injected.push_back("op " + g.ops[options.stray_writes.back().op].name + " flips arena byte " +
                               std::to_string(options.stray_writes.back().offset) + " (a kernel bug)");
      continue;
    }
    if (f.rfind("shift:", 0) != 0)
      throw InputError("inject", "unknown fault \"" + f +
                                     "\"; expected shift:TENSOR, shift:TENSOR:BYTES, stray:OP:OFFSET or ignore-async");
    std::string name = f.substr(6);
    Bytes delta = 0;
    if (auto colon = name.rfind(':'); colon != std::string::npos) {
      const std::string num = name.substr(colon + 1);
      char* end = nullptr;
      delta = std::strtoll(num.c_str(), &end, 10);
      if (num.empty() || *end != '\0' || delta == 0)
        throw InputError("inject " + f, "expected a non-zero byte count after the last ':'");
      name.resize(colon);
    }
    const int b = g.find_tensor(name) ? live.buffer_of_tensor[*g.find_tensor(name)] : -1;
    const Bytes before = b >= 0 ? layout.offsets[b] : 0;
    layout = shift_buffer(g, live, layout, name, delta);
    setup.injected.push_back("moved " + name + " from offset " + std::to_string(before) + " to " +
                             std::to_string(layout.offsets[b]));
  }
}

}  // namespace

SimSetup prepare_simulation(const Graph& g, const SimRequest& req) {
  SimSetup setup = unplanned_setup(g, req);
  plan_setup(g, req, setup);
  return setup;
}

SimReport simulate(const Graph& g, const SimRequest& req) {
  SimSetup setup = unplanned_setup(g, req);
  // The reference run needs only the order, not the plan: it runs on a thread beside the plan
  // search, whose time limit is wall time (on a 100,000-op graph each takes about 2 s), reading
  // its own copy of the lifetimes and options, which the plan search moves and extends. The live
  // bytes bound every arena from below: a model beyond the memory limit is refused before the
  // reference allocates anything.
  require_simulable(g, setup.live.peak_bytes, req, "the live bytes at the peak");
  std::unique_ptr<ArenaSimulator> reference;
  {  // the copies go before the planned run takes two copies of the arena
    const LiveAnalysis order_live = setup.live;
    const SimOptions options = setup.options;
    run_beside([&] { plan_setup(g, req, setup); },
               [&] {
                 reference = reference_simulator(g, order_live, options);
                 reference->run_all();
                 reference->keep_only_captures();  // nobody steps through this one
               });
  }
  release_free_memory();
  SimReport r = run_planned(g, setup.live, setup.layout, setup.options, *reference);
  r.planner = req.plan.planner;
  r.injected = setup.injected;
  return r;
}

JsonOut simulation_json(const Graph& g, const SimReport& r) {
  JsonOut j;
  j["graph"] = r.graph;
  j["profile"] = r.profile.name;
  j["clock_mhz"] = r.profile.clock_mhz;
  j["core"] = r.profile.core;
  j["kernels"] = r.profile.kernels;
  j["profile_basis"] = r.profile.basis;
  j["latency_band"] = r.profile.error_band;
  j["latency_text"] = latency_text(r.profile, r.latency_us);
  j["model_note"] = cycle_model_note();
  j["planner"] = r.planner;
  j["order"] = order_json(g, r.order);
  j["cycles_total"] = r.cycles_total;
  j["latency_us"] = r.latency_us;
  JsonOut per_op = JsonOut::array();
  for (const OpStats& s : r.per_op)
    per_op.push_back({{"op", g.ops[s.op].name},
                      {"cycles", s.cycles},
                      {"macs", s.macs},
                      {"bytes_read", s.bytes_read},
                      {"bytes_written", s.bytes_written}});
  j["per_op"] = per_op;
  j["arena_bytes"] = r.arena_bytes;
  j["high_water_bytes"] = r.high_water_bytes;
  j["lower_bound_bytes"] = r.lower_bound_bytes;
  j["outputs_match_reference"] = r.outputs_match_reference;
  j["outputs_compared_by"] = r.outputs_by_digest ? "digest" : "bytes";
  JsonOut writes = JsonOut::array();
  for (const ForeignWrite& w : r.foreign_writes)
    writes.push_back({{"run", w.run},
                      {"session", w.session},
                      {"step", w.step},
                      {"op", g.ops[w.op].name},
                      {"arena", w.region},
                      {"offset", w.offset},
                      {"bytes", w.bytes},
                      {"victim", w.victim}});
  j["foreign_writes"] = writes;
  JsonOut violations = JsonOut::array();
  for (const Violation& v : r.violations)
    violations.push_back({{"oracle", v.oracle}, {"message", v.message}, {"run", v.run}, {"session", v.session}, {"step", v.step}});
  j["violations"] = violations;
  j["violation_count"] = r.violation_count;
  j["ok"] = r.ok();
  j["runs"] = r.runs;
  j["sessions"] = r.sessions;
  j["shared_arena"] = r.shared_arena;
  j["seed"] = r.seed;
  j["injected"] = r.injected;
  JsonOut stand_ins = JsonOut::array();
  for (const auto& [op, why] : r.stand_ins) stand_ins.push_back({{"op", op}, {"why", why}});
  j["stand_ins"] = stand_ins;
  JsonOut not_simulated = JsonOut::array();
  for (const auto& [op, why] : r.not_simulated) not_simulated.push_back({{"op", op}, {"why", why}});
  j["not_simulated"] = not_simulated;
  j["not_computed"] = r.not_computed;
  JsonOut outputs_not_computed = JsonOut::array();
  for (size_t i = 0; i < g.outputs.size() && i < r.output_computed.size(); ++i)
    if (!r.output_computed[i]) outputs_not_computed.push_back(g.tensors[g.outputs[i]].name);
  j["outputs_not_computed"] = outputs_not_computed;
  j["generated_constants"] = r.generated_constants;
  j["fed_inputs"] = r.fed_inputs;
  j["outputs_are_the_model"] = outputs_are_the_model(r);
  return j;
}

}  // namespace arenaplan::sim
