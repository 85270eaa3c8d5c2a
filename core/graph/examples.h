// The examples/ folder compiled in (see scripts/embed_examples.cmake): graphs, boards and
// exercises by file stem, e.g. "two_branch".
#pragma once

#include <string>
#include <vector>

namespace arenaplan {

struct Example {
  std::string name;  // file stem: "two_branch"
  std::string json;  // the file's text
};

const std::vector<Example>& builtin_examples();

// The board library (examples/boards/*.json) by file stem, e.g. "stm32h743"; parsed and listed by
// core/budget/board_library.h.
const std::vector<Example>& builtin_board_files();

// The text of a built-in example, or nullptr when there is none of that name.
const std::string* find_example(const std::string& name);

}  // namespace arenaplan
