#include "core/layout/verifier_plan.h"

#include <map>
#include <string>

#include "core/layout/minimalloc_csv.h"

namespace arenaplan {
namespace {

PlanFile assemble(const LayoutProblem& problem, const std::map<std::string, Bytes>& by_name, const std::string& where) {
  PlanFile out;
  for (const LayoutBuffer& b : problem.buffers) {
    auto it = by_name.find(b.name);
    if (it == by_name.end()) throw InputError(where, "no offset for buffer " + b.name);
    out.offsets.push_back(it->second);
  }
  if (by_name.size() != problem.buffers.size())
    for (const auto& [name, offset] : by_name) {
      bool known = false;
      for (const LayoutBuffer& b : problem.buffers) known = known || b.name == name;
      if (!known) throw InputError(where, "buffer " + name + " is not in the input");
    }
  return out;
}

}  // namespace

PlanFile parse_plan_file(const LayoutProblem& problem, std::string_view text) {
  std::map<std::string, Bytes> by_name;
  if (looks_like_minimalloc_csv(text)) {
    MiniMallocCsv csv = parse_minimalloc_csv(text);
    if (csv.offsets.empty()) throw InputError("line 1", "the plan has no offset column");
    for (size_t i = 0; i < csv.problem.buffers.size(); ++i) by_name[csv.problem.buffers[i].name] = csv.offsets[i];
    return assemble(problem, by_name, "plan");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // syntax errors and numbers out of range
    throw InputError("plan", std::string("not JSON or MiniMalloc CSV: ") + e.what());
  }
  if (!j.is_object() || !j.contains("buffers") || !j["buffers"].is_array())
    throw InputError("/buffers", "expected an array of {\"name\", \"offset\"}");
  for (size_t i = 0; i < j["buffers"].size(); ++i) {
    const auto& b = j["buffers"][i];
    const std::string at = "/buffers/" + std::to_string(i);
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) throw InputError(at + "/name", "expected a string");
    if (!b.contains("offset") || !b["offset"].is_number_integer()) throw InputError(at + "/offset", "expected an integer");
    if (!by_name.emplace(b["name"].get<std::string>(), b["offset"].get<Bytes>()).second)
      throw InputError(at + "/name", "buffer " + b["name"].get<std::string>() + " appears twice");
  }
  PlanFile out = assemble(problem, by_name, "/buffers");
  if (j.contains("arena_bytes")) {
    if (!j["arena_bytes"].is_number_integer()) throw InputError("/arena_bytes", "expected an integer");
    out.arena_bytes = j["arena_bytes"].get<Bytes>();
  }
  return out;
}

}  // namespace arenaplan
