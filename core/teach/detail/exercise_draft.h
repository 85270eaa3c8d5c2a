// What one generator attempt produces (exercise_generate.cpp and exercise_generate_plans.cpp):
// the kind's parameters and question, or nothing (a trivial draw that the next attempt replaces).
// Included only inside core/teach.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/report.h"
#include "core/teach/detail/seeded_rng.h"

namespace arenaplan::exercise_detail {

struct Draft {
  JsonOut params = JsonOut::object();
  std::string question;
  std::vector<std::string> hints;
  std::string reference_answer;
};

// ["A", "B", ...]: an order as an exercise file writes it.
JsonOut names_json(const Graph& g, const Schedule& order);

std::optional<Draft> draft_fit_budget(const Graph& g, int difficulty, SeededRng& rng);
std::optional<Draft> draft_broken_rule(const Graph& g, int difficulty, SeededRng& rng);

}  // namespace arenaplan::exercise_detail
