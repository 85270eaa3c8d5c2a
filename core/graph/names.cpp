#include "core/graph/names.h"

#include <string_view>

namespace arenaplan {

std::string common_name_prefix(const std::vector<std::string>& names) {
  if (names.size() < 2) return "";
  size_t shared = names[0].size();
  for (const std::string& n : names) {
    size_t i = 0;
    while (i < shared && i < n.size() && n[i] == names[0][i]) ++i;
    shared = i;
  }
  // Back to a separator: "conv_1", "conv_2" share "conv_", which is a name, not a scope.
  while (shared > 0 && std::string_view("/.:;").find(names[0][shared - 1]) == std::string_view::npos) --shared;
  for (const std::string& n : names)
    if (n.size() == shared) return "";
  return names[0].substr(0, shared);
}

}  // namespace arenaplan
