#include "core/budget/budget_report.h"

#include <cstdio>
#include <sstream>

namespace arenaplan {

namespace {

std::string percent(Bytes part, Bytes whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}

}  // namespace

std::string address_text(uint64_t address) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(address));
  return buf;
}

BudgetCoexist budget_coexist(const Graph& g, const LiveAnalysis& live) {
  BudgetCoexist c;
  c.peak_bytes = live.peak_bytes;
  if (live.steps.empty()) return c;
  c.peak_step = live.peak_step;
  c.peak_op = g.ops[live.order[live.peak_step]].name;
  for (int i : live.live_at(live.peak_step)) c.peak_buffers.push_back(live.buffers[i].name);
  return c;
}

std::string peak_buffers_text(const BudgetCoexist& c) {
  std::string out;
  for (const std::string& n : c.peak_buffers) out += (out.empty() ? "" : " + ") + n;
  return out;
}

BudgetRoom budget_room(const MemoryMap& m, const Budget& b) {
  BudgetRoom room;
  for (const RegionBudget& rb : b.regions) {
    room.total_bytes += m.regions[rb.region].size;
    room.free_bytes += rb.free_bytes;
  }
  return room;
}

JsonOut budget_json(const Graph& g, const LiveAnalysis& live, const MemoryMap& m, const Budget& b) {
  JsonOut out;
  out["fits"] = b.fits;
  JsonOut regions = JsonOut::array();
  for (const RegionBudget& rb : b.regions) {
    const Region& region = m.regions[rb.region];
    JsonOut items = JsonOut::array();
    for (const BudgetItem& it : rb.items) {
      JsonOut ji = {{"owner", it.owner}, {"bytes", it.bytes}, {"kind", it.kind}, {"phase", phase_name(it.phase)},
                    {"offset", it.offset}};
      if (it.in_arena) ji["in_arena"] = true;
      items.push_back(ji);
    }
    JsonOut attrs = JsonOut::array();
    for (RegionAttribute a : region.attributes) attrs.push_back(attribute_name(a));
    regions.push_back({{"name", region.name},
                       {"size_bytes", region.size},
                       {"used_bytes", rb.used_bytes},
                       {"free_bytes", rb.free_bytes},
                       {"items", items},
                       {"base", address_text(region.base)},
                       {"attributes", attrs},
                       {"arena_bytes", rb.arena_bytes},
                       {"arena_lower_bound_bytes", rb.lower_bound_bytes},
                       {"arena_offset", rb.arena_offset},
                       {"init_bytes", rb.init_bytes},
                       {"inference_bytes", rb.inference_bytes},
                       {"fits", rb.free_bytes >= 0}});
  }
  out["regions"] = regions;
  out["arena_bytes"] = b.arena_bytes;
  out["outside_arena_bytes"] = b.outside_arena_bytes;
  if (!b.fits) out["reason"] = b.reason;

  // Answer 1: which data coexist (lifetimes only, independent of any placement).
  const BudgetCoexist c = budget_coexist(g, live);
  JsonOut coexist;
  coexist["peak_bytes"] = c.peak_bytes;
  if (c.peak_step >= 0) {
    coexist["peak_step"] = c.peak_step;
    coexist["peak_op"] = c.peak_op;
    coexist["peak_buffers"] = c.peak_buffers;
  }
  JsonOut steps = JsonOut::array();
  for (const StepLive& s : live.steps) steps.push_back({{"op", g.ops[s.op].name}, {"live_bytes", s.live_bytes}});
  coexist["steps"] = steps;
  out["coexist"] = coexist;

  // Answer 2: where they are placed.
  JsonOut placement = JsonOut::array();
  for (size_t i = 0; i < live.buffers.size(); ++i) {
    const LiveBuffer& lb = live.buffers[i];
    const BufferPlacement& p = b.placements[i];
    JsonOut jp = {{"name", lb.name},
                  {"region", p.region >= 0 ? JsonOut(m.regions[p.region].name) : JsonOut(nullptr)},
                  {"offset", p.offset},
                  {"address", address_text(p.address)},
                  {"size", lb.size},
                  {"first", lb.first},
                  {"last", lb.last}};
    if (p.separate) jp["separate"] = true;
    if (!p.constraints.empty()) {
      JsonOut cs = JsonOut::array();
      for (int c : p.constraints) cs.push_back(m.constraints[c].where);
      jp["constraints"] = cs;
    }
    placement.push_back(jp);
  }
  out["placement"] = placement;

  // Answer 3: how much room is left for the system.
  const BudgetRoom room = budget_room(m, b);
  out["room"] = {{"total_bytes", room.total_bytes}, {"free_bytes", room.free_bytes}};

  JsonOut caller = JsonOut::array();
  for (TensorId t : b.caller_owned) caller.push_back({{"tensor", g.tensors[t].name}, {"bytes", g.tensors[t].bytes}});
  out["caller_owned"] = {{"bytes", b.caller_owned_bytes},
                         {"tensors", caller},
                         {"note", "owned by the application, outside every arena; not counted in any region"}};

  const MeasurementRecord& r = b.measurement;
  JsonOut inputs = JsonOut::array();
  for (const auto& in : r.inputs) inputs.push_back({{"name", in.name}, {"bytes", in.bytes}, {"shape", in.shape}});
  out["measurement"] = {{"model_hash", r.model_hash},  {"board_hash", r.board_hash},
                        {"alignment", r.alignment},    {"input_policy", r.input_policy},
                        {"inputs", inputs},            {"order", r.order},
                        {"planner", r.planner},        {"scratch_policy", r.scratch_policy},
                        {"tool_version", r.tool_version}};
  out["warnings"] = b.warnings;
  return out;
}

std::string budget_text(const Graph& g, const LiveAnalysis& live, const MemoryMap& m, const Budget& b) {
  std::ostringstream out;
  out << "graph " << g.name << " on board " << m.name << ", order " << order_names(g, live.order, "-") << "\n";
  out << (b.fits ? "FITS" : "DOES NOT FIT") << ": arena " << format_bytes(b.arena_bytes) << " + outside the arena "
      << format_bytes(b.outside_arena_bytes) << "\n";
  if (!b.fits) out << "reason: " << b.reason << "\n";

  const BudgetCoexist c = budget_coexist(g, live);
  out << "\n1. which data coexist: peak " << format_bytes(c.peak_bytes);
  if (c.peak_step >= 0) out << " during " << c.peak_op << " (" << peak_buffers_text(c) << ")";
  out << "\n\n2. where they are placed:\n";
  for (size_t i = 0; i < live.buffers.size(); ++i) {
    const BufferPlacement& p = b.placements[i];
    char line[256];
    std::snprintf(line, sizeof line, "   %-14s %-8s %s  offset %-8lld %-9s steps %d..%d%s\n", live.buffers[i].name.c_str(),
                  p.region >= 0 ? m.regions[p.region].name.c_str() : "-", address_text(p.address).c_str(),
                  static_cast<long long>(p.offset), format_bytes(live.buffers[i].size).c_str(), live.buffers[i].first,
                  live.buffers[i].last, p.separate ? "  (separate reservation)" : "");
    out << line;
  }
  out << "\n3. how much room is left:\n";
  for (const RegionBudget& rb : b.regions) {
    const Region& region = m.regions[rb.region];
    out << "   region " << region.name << " (" << format_bytes(region.size) << " at " << address_text(region.base) << "): used "
        << format_bytes(rb.used_bytes) << " (" << percent(rb.used_bytes, region.size) << "), "
        << (rb.free_bytes >= 0 ? "free " + format_bytes(rb.free_bytes) : "OVER by " + format_bytes(-rb.free_bytes));
    if (rb.init_bytes != rb.inference_bytes)
      out << "; init " << format_bytes(rb.init_bytes) << ", inference " << format_bytes(rb.inference_bytes);
    out << "\n";
    for (const BudgetItem& it : rb.items)
      out << "     " << format_bytes(it.bytes) << "  " << it.owner << " [" << it.kind
          << (it.phase != Phase::kAlways ? std::string(", ") + phase_name(it.phase) + " only" : "")
          << (it.in_arena ? ", inside the arena" : "") << "]\n";
  }
  if (!b.caller_owned.empty()) {
    out << "\ncaller-owned inputs (the application's bytes, not counted): ";
    for (TensorId t : b.caller_owned) out << g.tensors[t].name << " " << format_bytes(g.tensors[t].bytes) << " ";
    out << "\n";
  }
  for (const std::string& w : b.warnings) out << "warning: " << w << "\n";
  const MeasurementRecord& r = b.measurement;
  out << "\nmeasurement record: model " << r.model_hash << ", board " << r.board_hash << ", alignment " << r.alignment
      << ", inputs " << r.input_policy;
  for (const auto& in : r.inputs) out << " " << in.name << "=" << format_bytes(in.bytes) << (in.shape.empty() ? "" : " " + in.shape);
  out << ", planner " << r.planner << ", scratch " << r.scratch_policy << ", arenaplan " << r.tool_version << "\n";
  return out.str();
}

}  // namespace arenaplan
