// Before/after comparison: every step re-plans, re-verifies and re-simulates the graph as it
// stands, and combined savings are measured on the combined graph, never summed.
#include "core/transform/whatif.h"

#include <algorithm>
#include <sstream>

#include "core/graph/op_kinds.h"
#include "core/layout/layout.h"
#include "core/layout/pipeline.h"
#include "core/sim/sim.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

namespace {

// The simulator runs ops it has no kernel for (fused ops, slices) with its generic kernel, whose
// cost is the bytes it touches. Fused ops cost what their parts compute, done once, and a slice
// copies its output's bytes; the traffic stays as the simulator counted it.
void correct_cycles(const Graph& g, const sim::McuProfile& profile, std::vector<sim::OpStats>& per_op) {
  for (sim::OpStats& st : per_op) {
    const Op& op = g.ops[st.op];
    sim::KernelWork w;
    if (op.attrs.count("fused_parts")) w = transform_detail::fused_work(g, st.op);
    else if (op.kind == "slice") w.alu_ops = g.tensors[op.outputs[0]].bytes;
    else continue;
    sim::OpWork work;
    work.kind = sim::cost_kind_of(op.kind, w.pointwise);
    work.macs = w.macs;
    work.alu_ops = w.alu_ops;
    work.flash_bytes_read = st.flash_bytes_read;
    work.sram_bytes_read = st.bytes_read - st.flash_bytes_read;
    work.bytes_written = st.bytes_written;
    st.macs = w.macs;
    st.alu_ops = w.alu_ops;
    st.cycles = sim::op_cycles(profile, work) + st.dma_stall_cycles;
  }
}

Saving saving(Bytes before, Bytes after, const std::vector<WhatIfStep>& steps, Bytes PlanFigures::*field) {
  Saving s;
  s.combined = before - after;
  for (const WhatIfStep& st : steps)
    if (st.applied && st.alone) {
      s.sum_of_separate += before - (*st.alone).*field;
      ++s.steps_measured_alone;
    }
  s.overstated_by = s.sum_of_separate - s.combined;
  return s;
}

}  // namespace

Graph normalized(const Graph& g) {
  const Schedule order = topological_order(g);
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<OpId>(i)) return reorder_ops(g, order).graph;
  return g;
}

PlanFigures measure_graph(const Graph& g, const WhatIfOptions& options) {
  PlanFigures f;
  const Schedule order = topological_order(g);
  PlanOptions po;
  po.planner = options.planner;
  po.time_limit_seconds = options.plan_time_limit_seconds;
  const GraphPlan planned = plan_graph(g, order, po);
  const LiveAnalysis& live = planned.live;
  const ArenaPlan& plan = planned.plan;
  f.order = order_names(g, order, "-");
  f.ops = static_cast<int>(g.ops.size());
  f.tensors = static_cast<int>(g.tensors.size());
  f.peak_bytes = live.peak_bytes;
  f.arena_bytes = plan.arena_bytes;
  f.total_bytes = live.total_bytes;
  f.verified = plan.verified;
  f.proven_optimal = plan.proven_optimal;
  if (options.arena_budget_bytes) f.fits = plan.arena_bytes <= *options.arena_budget_bytes;
  if (!options.simulate) return f;
  try {
    sim::SimOptions so;
    so.profile = sim::find_mcu_profile(options.profile);
    so.seed = options.seed;
    sim::SimReport rep = sim::simulate_layout(g, live, plan, so);
    correct_cycles(g, so.profile, rep.per_op);
    f.cycles = 0;
    for (const sim::OpStats& st : rep.per_op) f.cycles += st.cycles, f.macs += st.macs;
    f.latency_us = sim::cycles_to_us(so.profile, f.cycles);
    f.simulated = true;
    f.sim_ok = rep.ok() && rep.outputs_match_reference;
  } catch (const InputError& e) {
    f.sim_error = e.what();
  }
  return f;
}

WhatIfReport run_whatif(const Graph& input, const std::vector<WhatIfSpec>& specs, const WhatIfOptions& options,
                        const TransformContext& context) {
  const Graph original = normalized(input);
  WhatIfReport r;
  r.graph = input.name;
  r.planner = options.planner;
  r.profile = options.profile;
  r.arena_budget_bytes = options.arena_budget_bytes;
  r.before = measure_graph(original, options);
  Graph cur = original;
  PlanFigures last = r.before;
  bool pooled = false;
  int applied = 0;
  for (const WhatIfSpec& spec : specs) {
    WhatIfStep st;
    st.spec = spec.spec;
    st.enabled = spec.enabled;
    st.after = last;
    if (!spec.enabled) {
      r.steps.push_back(st);
      continue;
    }
    Transformation t;
    Rewrite rw;
    try {
      t = parse_transformation(spec.spec);
      rw = apply_transformation(cur, t, context);
    } catch (const InputError& e) {
      if (options.stop_on_error) throw;
      st.error = e.what();
      r.steps.push_back(st);
      continue;
    }
    if (t.kind == "pool") {
      PoolFigures p;
      WhatIfOptions quick = options;
      quick.simulate = false;
      const Graph& other = context.models.at(t.names[0]);
      p.model_arenas.push_back({cur.name, measure_graph(cur, quick).arena_bytes});
      p.model_arenas.push_back({other.name, measure_graph(normalized(other), quick).arena_bytes});
      for (const auto& m : p.model_arenas) p.partitioned_bytes += m.second;
      r.pool = p;
      pooled = true;
    }
    cur = std::move(rw.graph);
    st.applied = true;
    st.summary = rw.summary;
    st.interface_change = rw.interface_change;
    st.figures = rw.figures;
    st.after = measure_graph(cur, options);
    if (r.pool && t.kind == "pool") r.pool->time_shared_bytes = st.after.arena_bytes;
    last = st.after;
    if (options.measure_alone) {
      if (applied == 0) {
        st.alone = st.after;  // no earlier step changed the graph: alone is the same graph
      } else {
        try {
          st.alone = measure_graph(apply_transformation(original, t, context).graph, options);
        } catch (const InputError& e) {
          st.alone_error = e.what();
        }
      }
    }
    ++applied;
    r.steps.push_back(st);
  }
  r.after = last;
  r.result = cur;
  r.peak = saving(r.before.peak_bytes, r.after.peak_bytes, r.steps, &PlanFigures::peak_bytes);
  r.arena = saving(r.before.arena_bytes, r.after.arena_bytes, r.steps, &PlanFigures::arena_bytes);
  if (pooled) {
    r.outputs_check = "not compared";
    r.outputs_note = "pooled models run under renamed tensors; each plan is still checked by the simulator's oracles";
  } else if (std::any_of(original.ops.begin(), original.ops.end(), [](const Op& op) { return runs_on_npu(op.kind); })) {
    r.outputs_check = "not compared";
    r.outputs_note = "an NPU op (Vela's ethos-u) is not simulated: its outputs and everything computed from them are "
                     "not computed; each plan is still checked by the simulator's oracles";
  } else if (changes_values(cur) && !changes_values(original)) {
    // Quantize ops the steps inserted change values by design; a model's own quantize ops do not
    // stop the comparison below.
    r.outputs_check = "tolerance";
    r.outputs_note = "quantize/dequantize change values by design: every dequantized element is within scale/2 of "
                     "the original (scale = max|x|/127); later kernels see the rounded values";
  } else {
    std::string how;
    const bool same = outputs_match(original, cur, options.seed, &how);
    r.outputs_check = same ? "bit-exact" : "differ";
    r.outputs_note = how + (same ? "graph outputs equal the untransformed graph's, byte for byte"
                                 : "graph outputs changed: a rewrite did not preserve the computation");
  }
  return r;
}

JsonOut plan_figures_json(const PlanFigures& f) {
  JsonOut j;
  j["order"] = f.order;
  j["ops"] = f.ops;
  j["tensors"] = f.tensors;
  j["peak_bytes"] = f.peak_bytes;
  j["arena_bytes"] = f.arena_bytes;
  j["total_bytes"] = f.total_bytes;
  j["verified"] = f.verified;
  j["proven_optimal"] = f.proven_optimal;
  j["simulated"] = f.simulated;
  j["cycles"] = f.cycles;
  j["latency_us"] = f.latency_us;
  j["macs"] = f.macs;
  j["sim_ok"] = f.sim_ok;
  if (!f.sim_error.empty()) j["sim_error"] = f.sim_error;
  j["fits"] = f.fits ? JsonOut(*f.fits) : JsonOut(nullptr);
  return j;
}

JsonOut whatif_json(const WhatIfReport& r) {
  JsonOut j;
  j["graph"] = r.graph;
  j["planner"] = r.planner;
  j["profile"] = r.profile;
  j["arena_budget_bytes"] = r.arena_budget_bytes ? JsonOut(*r.arena_budget_bytes) : JsonOut(nullptr);
  j["before"] = plan_figures_json(r.before);
  j["after"] = plan_figures_json(r.after);
  JsonOut steps = JsonOut::array();
  for (const WhatIfStep& s : r.steps) {
    JsonOut js;
    js["spec"] = s.spec;
    js["enabled"] = s.enabled;
    js["applied"] = s.applied;
    js["error"] = s.error;
    js["summary"] = s.summary;
    if (!s.interface_change.empty()) js["interface_change"] = s.interface_change;
    JsonOut figs = JsonOut::object();
    for (const auto& [k, v] : s.figures) figs[k] = v;
    js["figures"] = figs;
    js["after"] = plan_figures_json(s.after);
    js["alone"] = s.alone ? plan_figures_json(*s.alone) : JsonOut(nullptr);
    if (!s.alone_error.empty()) js["alone_error"] = s.alone_error;
    steps.push_back(js);
  }
  j["steps"] = steps;
  auto saving_json = [](const Saving& s) {
    return JsonOut{{"combined", s.combined},
                   {"sum_of_separate", s.sum_of_separate},
                   {"overstated_by", s.overstated_by},
                   {"steps_measured_alone", s.steps_measured_alone}};
  };
  j["savings"] = {{"peak_bytes", saving_json(r.peak)}, {"arena_bytes", saving_json(r.arena)}};
  j["outputs"] = {{"check", r.outputs_check}, {"note", r.outputs_note}};
  if (r.pool) {
    JsonOut models = JsonOut::array();
    for (const auto& [name, bytes] : r.pool->model_arenas) models.push_back({{"model", name}, {"arena_bytes", bytes}});
    j["pool"] = {{"models", models},
                 {"partitioned_bytes", r.pool->partitioned_bytes},
                 {"time_shared_bytes", r.pool->time_shared_bytes}};
  } else {
    j["pool"] = nullptr;
  }
  return j;
}

std::string whatif_text(const WhatIfReport& r) {
  std::ostringstream o;
  auto kib = [](Bytes b) { return format_kib(b, 2); };
  auto fits = [](const PlanFigures& f) { return f.fits ? (*f.fits ? "fits" : "does not fit") : "-"; };
  auto cycles = [](const PlanFigures& f) { return f.cycles >= 0 ? std::to_string(f.cycles) : std::string("-"); };
  o << "what-if for graph " << r.graph << " (planner " << r.planner << ", " << r.profile;
  if (r.arena_budget_bytes) o << ", arena budget " << kib(*r.arena_budget_bytes);
  o << ")\n\n";
  o << std::left << std::setw(34) << "step" << std::right << std::setw(12) << "peak" << std::setw(12) << "arena"
    << std::setw(12) << "cycles" << std::setw(14) << "fits" << "  checks\n";
  auto row = [&](const std::string& name, const PlanFigures& f, const std::string& note) {
    o << std::left << std::setw(34) << name.substr(0, 33) << std::right << std::setw(12) << kib(f.peak_bytes)
      << std::setw(12) << kib(f.arena_bytes) << std::setw(12) << cycles(f) << std::setw(14) << fits(f) << "  "
      << (f.verified ? "verified" : "UNVERIFIED")
      << (f.simulated ? (f.sim_ok ? ", simulated ok" : ", SIMULATION FAILED")
                      : ", not simulated (" + (f.sim_error.empty() ? std::string("simulation off") : f.sim_error) + ")")
      << note << "\n";
  };
  row("before", r.before, "");
  for (const WhatIfStep& s : r.steps) {
    if (!s.enabled) {
      o << "  (off) " << s.spec << "\n";
      continue;
    }
    if (!s.applied) {
      o << "  " << s.spec << ": " << s.error << "\n";
      continue;
    }
    row("+ " + s.spec, s.after, "");
    o << "    " << s.summary << "\n";
  }
  row("after", r.after, "");
  o << "\npeak saving " << kib(r.peak.combined) << " recomputed on the combined graph";
  if (r.peak.steps_measured_alone > 1)
    o << "; the separate savings add up to " << kib(r.peak.sum_of_separate)
      << (r.peak.overstated_by > 0 ? " (the sum overstates it by " + kib(r.peak.overstated_by) + ")" : "");
  o << "\narena saving " << kib(r.arena.combined);
  if (r.arena.steps_measured_alone > 1)
    o << "; the separate savings add up to " << kib(r.arena.sum_of_separate)
      << (r.arena.overstated_by > 0 ? " (the sum overstates it by " + kib(r.arena.overstated_by) + ")" : "");
  if (r.pool)
    o << "\nshared pool: partitioned " << kib(r.pool->partitioned_bytes) << " (one section per model), time-shared "
      << kib(r.pool->time_shared_bytes);
  o << "\noutputs: " << r.outputs_check << " (" << r.outputs_note << ")\n";
  return o.str();
}

}  // namespace arenaplan
