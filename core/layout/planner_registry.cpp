// The planner registry: one line per planner, in the order the UI shows them side by side.
#include <algorithm>
#include <stdexcept>

#include "core/layout/detail/planner_entries.h"
#include "core/layout/planner.h"

namespace arenaplan {

const std::vector<Planner>& planners() {
  static const std::vector<Planner> all = {
      planner::naive_planner(),        //
      planner::linear_planner(),       //
      planner::tflm_greedy_planner(),  //
      planner::portfolio_planner(),    //
      planner::exact_planner(),        //
      planner::best_planner(),         //
  };
  return all;
}

const Planner* find_planner(const std::string& name) {
  const auto& all = planners();
  auto it = std::find_if(all.begin(), all.end(), [&](const Planner& p) { return p.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::string planner_list_text(const std::string& separator, const std::string& last_separator) {
  const auto& all = planners();
  std::string out;
  for (size_t i = 0; i < all.size(); ++i)
    out += (i == 0 ? "" : i + 1 == all.size() ? last_separator : separator) + all[i].name;
  return out;
}

const std::vector<std::string>& planner_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Planner& p : planners()) out.push_back(p.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& interactive_planner_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Planner& p : planners())
      if (p.interactive) out.push_back(p.name);
    return out;
  }();
  return names;
}

const Planner& anytime_planner() {
  for (const Planner& p : planners())
    if (p.start_search) return p;
  throw std::logic_error("no anytime planner registered");
}

}  // namespace arenaplan
