// Reading a plan someone else made (the `arenaplan verify INPUT PLAN` file) so the independent
// verifier can judge it: our `layout --json` output, or a MiniMalloc CSV with an offset column.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan {

struct PlanFile {
  std::vector<Bytes> offsets;        // per problem buffer, matched by name
  std::optional<Bytes> arena_bytes;  // when the file states one ("arena_bytes")
};

// Throws InputError naming the place: a JSON pointer ("/buffers/3/offset"), a CSV line and column,
// or the buffer the file forgot.
PlanFile parse_plan_file(const LayoutProblem& problem, std::string_view text);

}  // namespace arenaplan
