#include "core/budget/budget.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "core/graph/graph_json.h"
#include "core/layout/fragmentation.h"

namespace arenaplan {

const char* scratch_policy_name(ScratchPolicy p) {
  return p == ScratchPolicy::kSeparate ? "separate" : "in_arena";
}

std::string fingerprint(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

Bytes add(Bytes a, Bytes b, const char* what) {
  Bytes out;
  if (__builtin_add_overflow(a, b, &out)) throw InputError(what, "byte total overflows 64 bits");
  return out;
}

// Does constraint c select live buffer b?
bool selects(const Graph& g, const LiveBuffer& b, const PlacementConstraint& c) {
  const ConstraintSelector& s = c.select;
  if (b.kind == BufferKind::kScratch) return !s.op_kind.empty() && g.ops[b.scratch_op].kind == s.op_kind;
  for (TensorId t : b.tensors) {
    if (!s.tensor.empty() && g.tensors[t].name == s.tensor) return true;
    for (const Op& op : g.ops) {
      if (!s.op_kind.empty() && op.kind == s.op_kind &&
          (std::find(op.inputs.begin(), op.inputs.end(), t) != op.inputs.end() ||
           std::find(op.outputs.begin(), op.outputs.end(), t) != op.outputs.end()))
        return true;
      if (s.async_read)
        for (const AsyncRead& a : op.async_reads)
          if (a.tensor == t) return true;
    }
  }
  return false;
}

bool region_satisfies(const MemoryMap& m, RegionId r, const PlacementConstraint& c) {
  if (c.region && *c.region != r) return false;
  for (RegionAttribute a : c.requires_attributes)
    if (!m.regions[r].has(a)) return false;
  return true;
}

// Regions a buffer may use, most preferred first: the arena's regions, then the board's order.
std::vector<RegionId> allowed_regions(const MemoryMap& m, const std::vector<int>& constraints) {
  if (constraints.empty()) return m.arena_regions;
  std::vector<RegionId> order = m.arena_regions;
  for (size_t r = 0; r < m.regions.size(); ++r)
    if (std::find(order.begin(), order.end(), static_cast<RegionId>(r)) == order.end())
      order.push_back(static_cast<RegionId>(r));
  std::vector<RegionId> out;
  for (RegionId r : order) {
    bool ok = true;
    for (int c : constraints) ok = ok && region_satisfies(m, r, m.constraints[c]);
    if (ok) out.push_back(r);
  }
  return out;
}

// Plans one region's arena and accounts everything in it.
RegionBudget plan_region(const Graph& g, const LiveAnalysis& live, const LayoutProblem& all,
                         const MemoryMap& m, RegionId r, const std::vector<int>& assigned,
                         ScratchPolicy scratch, const PlanOptions& plan_options) {
  RegionBudget rb;
  rb.region = r;
  std::vector<int> scratch_buffers;
  for (int b : assigned) {
    if (scratch == ScratchPolicy::kSeparate && live.buffers[b].kind == BufferKind::kScratch)
      scratch_buffers.push_back(b);
    else
      rb.buffers.push_back(b);
  }
  for (int b : rb.buffers) rb.problem.buffers.push_back(all.buffers[b]);
  if (!rb.problem.buffers.empty()) {
    ArenaPlan plan = plan_arena(rb.problem, plan_options);
    rb.offsets = plan.offsets;
    rb.planner = plan.planner;
    rb.proven_optimal = plan.proven_optimal;
    rb.arena_bytes = plan.arena_bytes;
    rb.lower_bound_bytes = plan.lower_bound_bytes;
  }
  // Scratch under the separate policy: the lowest hole of the existing layout that holds it
  // during its op (scratch_fit, the Arena view's rule), or a reservation of its own. Scratch of
  // different ops never coexist, so one reservation sized for the largest misfit serves them all.
  Bytes separate_bytes = 0;
  for (int b : scratch_buffers) {
    const LayoutBuffer& s = all.buffers[b];
    const ScratchFit fit = scratch_fit(rb.problem, rb.offsets, rb.arena_bytes, s.first, s.last, s.size, s.alignment);
    if (fit.fits) {
      rb.buffers.push_back(b);
      rb.problem.buffers.push_back(s);
      rb.offsets.push_back(fit.offset);
    } else {
      rb.separate_scratch.push_back(b);
      separate_bytes = std::max(separate_bytes, s.size);
    }
  }
  if (!rb.problem.buffers.empty()) {
    VerifyResult v = verify_plan(rb.problem, rb.offsets, rb.arena_bytes);
    if (!v.ok()) throw std::logic_error("budget: region " + m.regions[r].name + " arena fails verification: " + v.message);
  }

  // Accounting and the region's memory map.
  Bytes always = 0, init_out = 0, init_in = 0, infer = separate_bytes;
  for (const Reservation& res : m.reservations) {
    if (res.region != r) continue;
    const char* what = "reservations";
    if (res.phase == Phase::kAlways) always = add(always, res.bytes, what);
    else if (res.phase == Phase::kInference) infer = add(infer, res.bytes, what);
    else if (res.in_arena) init_in = add(init_in, res.bytes, what);
    else init_out = add(init_out, res.bytes, what);
  }
  const Region& region = m.regions[r];
  const Bytes align = std::max<Bytes>(1, g.alignment);
  // Keep the arena's absolute start aligned like its offsets (TFLM aligns tensor_arena too).
  Bytes misalign = static_cast<Bytes>((region.base + static_cast<uint64_t>(always)) % static_cast<uint64_t>(align));
  Bytes padding = (rb.arena_bytes > 0 && misalign) ? align - misalign : 0;
  rb.arena_offset = add(always, padding, "regions");
  const Bytes overlay = add(rb.arena_offset, rb.arena_bytes, "regions");
  const Bytes init_spill = std::max<Bytes>(0, init_in - rb.arena_bytes);
  const Bytes init_extra = add(init_out, init_spill, "reservations");
  rb.init_bytes = add(overlay, init_extra, "reservations");
  rb.inference_bytes = add(overlay, infer, "reservations");
  rb.used_bytes = std::max(rb.init_bytes, rb.inference_bytes);
  rb.free_bytes = region.size - rb.used_bytes;

  Bytes cursor_always = 0, cursor_init = overlay + init_spill, cursor_infer = overlay;
  for (size_t i = 0; i < m.reservations.size(); ++i) {
    const Reservation& res = m.reservations[i];
    if (res.region != r || res.phase != Phase::kAlways) continue;
    rb.items.push_back({res.owner, reservation_kind_name(res.kind), res.bytes, res.phase, false, static_cast<int>(i), cursor_always});
    cursor_always += res.bytes;
  }
  if (padding > 0) rb.items.push_back({"alignment padding", "padding", padding, Phase::kAlways, false, -1, always});
  if (rb.arena_bytes > 0 || !rb.buffers.empty())
    rb.items.push_back({"tensor arena", "arena", rb.arena_bytes, Phase::kAlways, false, -1, rb.arena_offset});
  if (separate_bytes > 0) {
    std::string names;
    for (int b : rb.separate_scratch) names += (names.empty() ? "" : ", ") + live.buffers[b].name;
    rb.items.push_back({"scratch " + names + " (separate)", "scratch", separate_bytes, Phase::kInference, false, -1, cursor_infer});
    cursor_infer += separate_bytes;
  }
  for (size_t i = 0; i < m.reservations.size(); ++i) {
    const Reservation& res = m.reservations[i];
    if (res.region != r || res.phase == Phase::kAlways) continue;
    Bytes at;
    if (res.phase == Phase::kInference) {
      at = cursor_infer;
      cursor_infer += res.bytes;
    } else if (res.in_arena) {
      at = rb.arena_offset;
    } else {
      at = cursor_init;
      cursor_init += res.bytes;
    }
    rb.items.push_back({res.owner, reservation_kind_name(res.kind), res.bytes, res.phase, res.in_arena, static_cast<int>(i), at});
  }
  return rb;
}

Bytes overflow(const MemoryMap& m, const std::vector<RegionBudget>& regions) {
  Bytes total = 0;
  for (const RegionBudget& rb : regions) total += std::max<Bytes>(0, -rb.free_bytes);
  (void)m;
  return total;
}

std::string list_items(const RegionBudget& rb, Phase phase) {
  std::string out;
  for (const BudgetItem& it : rb.items) {
    if (it.phase != Phase::kAlways && it.phase != phase) continue;
    if (it.in_arena) continue;
    out += (out.empty() ? "" : " + ") + it.owner + " " + format_bytes(it.bytes);
  }
  return out;
}

// The first reason, in board order, that the plan does not fit.
std::string overflow_reason(const Graph& g, const LiveAnalysis& live, const MemoryMap& m, const Budget& b) {
  for (const RegionBudget& rb : b.regions) {
    if (rb.free_bytes >= 0) continue;
    const Region& region = m.regions[rb.region];
    const bool init = rb.init_bytes > rb.inference_bytes;
    std::string out = "region " + region.name + " needs " + format_bytes(rb.used_bytes) + " but has " +
                      format_bytes(region.size) + " (over by " + format_bytes(-rb.free_bytes) + ")" +
                      (init ? " during initialisation" : "") + ": " +
                      list_items(rb, init ? Phase::kInit : Phase::kInference);
    // Name the first constraint that forced buffers into this region, if any did.
    int first = -1;
    std::string pinned;
    for (int buf : rb.buffers) {
      const BufferPlacement& p = b.placements[buf];
      if (p.constraints.empty()) continue;
      if (first < 0 || p.constraints.front() < first) first = p.constraints.front();
      pinned += (pinned.empty() ? "" : ", ") + live.buffers[buf].name;
    }
    if (first >= 0)
      out += "; placed here by constraint " + m.constraints[first].describe(m.regions) + ": " + pinned;
    (void)g;
    return out;
  }
  return "";
}

MeasurementRecord measurement(const Graph& g, const LiveAnalysis& live, const MemoryMap& m,
                              const BudgetOptions& options, const std::vector<RegionBudget>& regions) {
  MeasurementRecord rec;
  rec.model_hash = fingerprint(graph_to_json(g));
  rec.board_hash = fingerprint(board_to_json(m));
  rec.alignment = g.alignment;
  rec.input_policy = g.input_policy == InputPolicy::kCallerOwned ? "caller_owned"
                     : g.input_policy == InputPolicy::kRetained  ? "retained"
                                                                 : "in_arena";
  for (TensorId t : g.inputs) {
    const Tensor& tensor = g.tensors[t];
    MeasurementRecord::Input in{tensor.name, tensor.bytes, ""};
    if (!tensor.shape.empty()) {
      in.shape = "[";
      for (size_t i = 0; i < tensor.shape.size(); ++i) {
        const ShapeDim& d = tensor.shape[i];
        in.shape += (i ? ", " : "") + (d.symbol.empty() ? std::to_string(d.value) : d.symbol + "<=" + std::to_string(d.value));
      }
      in.shape += "]";
      if (tensor.dtype) in.shape += std::string(" ") + dtype_name(*tensor.dtype);
    }
    rec.inputs.push_back(in);
  }
  rec.order = order_names(g, live.order);
  rec.planner = options.plan.planner;
  for (const RegionBudget& rb : regions)
    if (!rb.planner.empty()) rec.planner += "; " + m.regions[rb.region].name + ": " + rb.planner;
  rec.scratch_policy = scratch_policy_name(options.scratch);
  rec.tool_version = ARENAPLAN_VERSION;
  return rec;
}

}  // namespace

Budget plan_budget(const Graph& g, const LiveAnalysis& live, const MemoryMap& m, const BudgetOptions& options) {
  validate_board(m);
  Budget b;
  const LayoutProblem all = layout_problem(g, live);
  const size_t n = live.buffers.size();
  b.placements.resize(n);

  for (size_t c = 0; c < m.constraints.size(); ++c) {
    const PlacementConstraint& pc = m.constraints[c];
    if (pc.select.tensor.empty()) continue;
    auto t = g.find_tensor(pc.select.tensor);
    if (!t)
      b.warnings.push_back("constraint " + pc.where + " names tensor " + pc.select.tensor + ", which graph " + g.name + " does not have");
    else if (live.buffer_of_tensor[*t] < 0)
      b.warnings.push_back("constraint " + pc.where + " names tensor " + pc.select.tensor + ", which is not in the arena (constant or caller-owned)");
  }

  // Allowed regions per buffer; a buffer no region can hold is the first reason it cannot fit.
  std::vector<std::vector<RegionId>> allowed(n);
  std::string unsatisfiable;
  for (size_t i = 0; i < n; ++i) {
    for (size_t c = 0; c < m.constraints.size(); ++c)
      if (selects(g, live.buffers[i], m.constraints[c])) b.placements[i].constraints.push_back(static_cast<int>(c));
    allowed[i] = allowed_regions(m, b.placements[i].constraints);
    if (allowed[i].empty() && unsatisfiable.empty()) {
      std::string why;
      for (int c : b.placements[i].constraints) why += (why.empty() ? "" : " and ") + m.constraints[c].describe(m.regions);
      unsatisfiable = "buffer " + live.buffers[i].name + " has no region: no region of board " + m.name +
                      " satisfies " + why;
    }
  }

  // Start every buffer in its most preferred region; then move buffers with a choice while that
  // shrinks the total overflow (fast planner), and plan the final arenas with the real one.
  std::vector<RegionId> where(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (!allowed[i].empty()) where[i] = allowed[i].front();
  // One time limit for the whole budget (the repair's trial plans and the final one included):
  // each plan gets what is left of it, each region an equal share of that, so a board with
  // several regions on a large graph still answers within the limit the user gave.
  const auto budget_start = std::chrono::steady_clock::now();
  auto seconds_spent = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - budget_start).count();
  };
  auto plan_all = [&](const PlanOptions& whole) {
    const double left = std::max(0.0, options.plan.time_limit_seconds - seconds_spent());
    const auto start = std::chrono::steady_clock::now();
    std::vector<RegionBudget> out;
    for (size_t r = 0; r < m.regions.size(); ++r) {
      PlanOptions po = whole;
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      po.time_limit_seconds = std::max(0.0, left - spent) / static_cast<double>(m.regions.size() - r);
      std::vector<int> assigned;
      for (size_t i = 0; i < n; ++i)
        if (where[i] == static_cast<RegionId>(r)) assigned.push_back(static_cast<int>(i));
      out.push_back(plan_region(g, live, all, m, static_cast<RegionId>(r), assigned, options.scratch, po));
    }
    return out;
  };
  PlanOptions search = options.plan;
  search.planner = options.search_planner;
  std::vector<RegionBudget> regions = plan_all(search);
  // Repair: move one buffer per round out of an overflowing region, chosen among the movable
  // buffers live at that region's busiest step (only those can lower its peak). A move counts when
  // it lowers the overflow, or keeps it and lowers the live-bytes bound of the overflowing regions
  // (a plateau step towards a fit). Rounds are capped so a hopeless board answers quickly.
  // Secondary score: over all steps, the live bytes each region holds beyond what its size leaves
  // for the arena. It falls with every useful move even when several steps tie for the peak.
  // The bytes region r's buffers hold at each step, from their intervals (a difference array):
  // linear in buffers + steps, where walking every step's live set would be quadratic.
  auto region_live_bytes = [&](RegionId r) {
    std::vector<Bytes> sum(live.steps.size() + 1, 0);
    for (size_t i = 0; i < n; ++i)
      if (where[i] == r) {
        sum[static_cast<size_t>(live.buffers[i].first)] += all.buffers[i].size;
        sum[static_cast<size_t>(live.buffers[i].last) + 1] -= all.buffers[i].size;
      }
    for (size_t t = 1; t < sum.size(); ++t) sum[t] += sum[t - 1];
    sum.pop_back();
    return sum;
  };
  auto score = [&](const std::vector<RegionBudget>& rs) {
    Bytes excess = 0;
    for (const RegionBudget& rb : rs) {
      if (rb.free_bytes >= 0) continue;
      const Bytes room = m.regions[rb.region].size - (rb.used_bytes - rb.arena_bytes);
      for (Bytes sum : region_live_bytes(rb.region)) excess += std::max<Bytes>(0, sum - room);
    }
    return std::make_pair(overflow(m, rs), excess);
  };
  const size_t max_rounds = std::min<size_t>(n, 256);
  // Every trial replans all n buffers, so rounds x trials x n bounds the repair's cost. The budget
  // lets small and mid-size graphs run every round (256 rounds x 8 moves x ~2,000 buffers) and
  // keeps a 100,000-op graph to a few rounds instead of minutes; when it runs out, the answer says so.
  // Trials also stop once half the time limit is spent: the final plan with the real planner gets
  // the other half.
  const size_t trial_work_budget = size_t{4} << 20;
  size_t trial_work = 0, trials = 0;
  bool out_of_work = false, out_of_time = false;
  for (size_t round = 0; round < max_rounds && overflow(m, regions) > 0 && !out_of_work; ++round) {
    auto best = score(regions);
    int best_buffer = -1;
    RegionId best_region = -1;
    std::vector<RegionBudget> best_regions;
    for (const RegionBudget& rb : regions) {
      if (rb.free_bytes >= 0) continue;
      const std::vector<Bytes> region_live = region_live_bytes(rb.region);
      const Step busiest = static_cast<Step>(std::max_element(region_live.begin(), region_live.end()) - region_live.begin());
      std::vector<int> movable;
      if (!live.steps.empty())
        for (int i : live.live_at(busiest))
          if (where[i] == rb.region && allowed[i].size() > 1) movable.push_back(i);
      // Largest first, and only a few: each try replans every region.
      std::stable_sort(movable.begin(), movable.end(), [&](int x, int y) { return all.buffers[x].size > all.buffers[y].size; });
      if (movable.size() > 8) movable.resize(8);
      for (int i : movable)
        for (RegionId to : allowed[i]) {
          if (to == rb.region || out_of_work) continue;
          trial_work += std::max<size_t>(n, 1);
          ++trials;
          out_of_time = trials > options.repair_min_trials && seconds_spent() > 0.5 * options.plan.time_limit_seconds;
          out_of_work = trial_work > trial_work_budget || out_of_time;
          where[i] = to;
          std::vector<RegionBudget> trial = plan_all(search);
          auto sc = score(trial);
          where[i] = rb.region;
          if (sc < best) {
            best = sc;
            best_buffer = i;
            best_region = to;
            best_regions = std::move(trial);
          }
        }
    }
    if (best_buffer < 0) break;
    where[best_buffer] = best_region;
    regions = std::move(best_regions);
  }
  if (out_of_work && overflow(m, regions) > 0)
    b.warnings.push_back("the search for a region assignment that fits stopped after " +
                         std::to_string(trial_work / std::max<size_t>(n, 1)) + " trial plans of " +
                         std::to_string(n) + " buffers each" + (out_of_time ? ", at half the time limit" : "") +
                         "; a fitting assignment may still exist");
  if (options.plan.planner != search.planner) regions = plan_all(options.plan);
  b.regions = std::move(regions);

  for (const RegionBudget& rb : b.regions) {
    const Region& region = m.regions[rb.region];
    for (size_t k = 0; k < rb.buffers.size(); ++k) {
      BufferPlacement& p = b.placements[rb.buffers[k]];
      p.region = rb.region;
      p.offset = rb.offsets[k];
      p.address = region.base + static_cast<uint64_t>(rb.arena_offset + rb.offsets[k]);
    }
    for (int s : rb.separate_scratch) {
      BufferPlacement& p = b.placements[s];
      p.region = rb.region;
      p.separate = true;
      p.offset = 0;
      for (const BudgetItem& it : rb.items)
        if (it.kind == std::string("scratch")) p.address = region.base + static_cast<uint64_t>(it.offset);
    }
    b.arena_bytes = add(b.arena_bytes, rb.arena_bytes, "arena");
    b.outside_arena_bytes = add(b.outside_arena_bytes, rb.used_bytes - rb.arena_bytes, "reservations");
  }
  for (TensorId t : g.inputs)
    if (live.buffer_of_tensor[t] < 0 && !g.tensors[t].constant) {
      b.caller_owned.push_back(t);
      b.caller_owned_bytes = add(b.caller_owned_bytes, g.tensors[t].bytes, "inputs");
    }

  b.reason = !unsatisfiable.empty() ? unsatisfiable : overflow_reason(g, live, m, b);
  b.fits = b.reason.empty();
  b.measurement = measurement(g, live, m, options, b.regions);
  return b;
}

}  // namespace arenaplan
