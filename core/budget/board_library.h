// The board library: widely used MCUs/SoCs (examples/boards/*.json, compiled in) with their RAM
// regions cited from datasheets and reference manuals, and default reservations marked as
// editable assumptions. Also resolves what a user names as a board: a library name, an
// "example:NAME" teaching board, or (when neither) a file for the caller to read.
//
// Usage:
//   for (const LibraryBoard& b : board_library()) std::cout << b.name << " " << b.title << "\n";
//   if (const std::string* text = builtin_board_text("stm32h743")) board = parse_board_json(*text);
//   std::cout << board_library_text();   // what `arenaplan budget --list-boards` prints
#pragma once

#include <string>
#include <vector>

#include "core/budget/board.h"
#include "core/graph/graph.h"
#include "core/graph/report.h"  // JsonOut

namespace arenaplan {

struct LibraryBoard {
  std::string name;        // file stem and the name users type: "stm32h743"
  std::string title;       // "STM32H743 (e.g. NUCLEO-H743ZI2)"
  std::string json;        // the file's text
  Bytes total_bytes = 0;   // sum of its region sizes
  Bytes arena_region_bytes = 0;  // sum of the sizes of its arena regions
  Bytes reserved_bytes = 0;      // sum of its default reservations
};

// Every library board, sorted by name; parsed once (a library file that does not parse is a
// build defect caught by the unit tests, and is left out here rather than crashing a caller).
const std::vector<LibraryBoard>& board_library();

// The text of a built-in board: a library name ("stm32h743"), or "example:NAME" / "NAME" for a
// teaching board among the examples ("two_branch_board"). nullptr when there is none.
const std::string* builtin_board_text(const std::string& name);

// Names of every built-in board: the teaching boards from examples/ first, then the library.
std::vector<std::string> builtin_board_names();

// "cortex-m7 at 480 MHz, flash 2 MiB, TFLM kernels cmsis-nn" ("?" for a figure the file lacks).
std::string part_figures_text(const MemoryMap& m);

// The library as a table (name, RAM, regions, title) and as JSON, for `budget --list-boards`.
std::string board_library_text();
JsonOut board_library_json();

}  // namespace arenaplan
