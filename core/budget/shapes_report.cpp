// The views of a shape check (`arenaplan check-shape`): which validated plans the contract holds,
// which one serves the given input shapes, and every tensor's size there.
#include <sstream>

#include "core/budget/shapes.h"

namespace arenaplan {

JsonOut shape_check_json(const ShapeContract& c, const ShapeCheck& check) {
  const Graph& g = c.graph;
  JsonOut out;
  out["accepted"] = check.accepted;
  if (!check.accepted) out["reason"] = check.message;
  JsonOut binding = JsonOut::object();
  for (const auto& [k, v] : check.binding) binding[k] = v;
  out["binding"] = binding;
  JsonOut plans = JsonOut::array();
  for (size_t i = 0; i < c.plans.size(); ++i) {
    const ContractPlan& p = c.plans[i];
    JsonOut ranges_json = JsonOut::object();
    for (const auto& [k, b] : p.ranges) ranges_json[k] = {{"min", b.min}, {"max", b.max}};
    plans.push_back({{"ranges", ranges_json},
                     {"arena_bytes", p.plan.arena_bytes},
                     {"planner", p.plan.planner},
                     {"verified_bindings", p.verified_bindings},
                     {"exhaustive", p.exhaustive},
                     {"selected", static_cast<int>(i) == check.plan}});
  }
  out["plans"] = plans;
  if (check.accepted) {
    out["selected_plan"] = check.plan;
    out["arena_bytes"] = c.plans[check.plan].plan.arena_bytes;
    JsonOut tensors = JsonOut::array();
    for (size_t t = 0; t < g.tensors.size(); ++t)
      tensors.push_back({{"name", g.tensors[t].name},
                         {"shape", check.instance.shapes[t]},
                         {"bytes", check.instance.bytes[t]},
                         {"planned_bytes", c.plans[check.plan].upper.bytes[t]}});
    out["tensors"] = tensors;
  }
  return out;
}

std::string shape_check_text(const ShapeContract& c, const ShapeCheck& check) {
  std::ostringstream out;
  out << "graph " << c.graph.name << ": " << c.plans.size() << " validated plans\n";
  for (size_t i = 0; i < c.plans.size(); ++i) {
    const ContractPlan& p = c.plans[i];
    out << (static_cast<int>(i) == check.plan ? " -> " : "    ") << ranges_text(p.ranges) << ": arena "
        << format_bytes_exact(p.plan.arena_bytes) << ", verified at " << p.verified_bindings
        << (p.exhaustive ? " bindings (all)" : " bindings (corners)") << "\n";
  }
  if (check.accepted) {
    out << "accepted: ";
    for (const auto& [k, v] : check.binding) out << k << " = " << v << " ";
    if (check.binding.empty()) out << "(no symbolic dims) ";
    out << "-> plan for " << ranges_text(c.plans[check.plan].ranges) << ", arena "
        << format_bytes(c.plans[check.plan].plan.arena_bytes) << "\n";
  } else {
    out << "rejected: " << check.message << "\n";
  }
  return out.str();
}

}  // namespace arenaplan
