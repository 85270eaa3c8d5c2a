// SHA-256 of a model file: the identity recorded in exports and regression tests, so a plan is
// never applied to a different model by accident.
#pragma once

#include <string>
#include <string_view>

namespace arenaplan {

// Lowercase hex digest (64 characters) of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace arenaplan
