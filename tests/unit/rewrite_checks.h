// Checks the rewrite tests share: the refusal a rewrite gives, and "every step of a what-if run
// applied, verified and simulated cleanly".
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "core/transform/transform.h"
#include "core/transform/whatif.h"
#include "tests/unit/test_support.h"

namespace arenaplan::test {

// The InputError message `spec` is refused with on `g`, or "" when it applies.
inline std::string refusal(const Graph& g, const std::string& spec) {
  return input_error_of([&] { apply_transformation(g, parse_transformation(spec), {}); });
}

// Every step applied, its plan verified and its simulation free of violations.
inline void check_every_step_safe(const WhatIfReport& r) {
  for (const WhatIfStep& s : r.steps) {
    CAPTURE(s.spec);
    CHECK(s.applied);
    CHECK(s.after.verified);
    CHECK(s.after.sim_ok);
  }
}

}  // namespace arenaplan::test
