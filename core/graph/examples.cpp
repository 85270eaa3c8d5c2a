#include "core/graph/examples.h"

namespace arenaplan {

const std::string* find_example(const std::string& name) {
  for (const Example& e : builtin_examples())
    if (e.name == name) return &e.json;
  return nullptr;
}

}  // namespace arenaplan
