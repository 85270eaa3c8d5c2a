// libFuzzer target: board (memory map) JSON. Bad input ends in InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/budget/board.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  try {
    MemoryMap m = parse_board_json(std::string_view(reinterpret_cast<const char*>(data), size));
    validate_board(m);
    parse_board_json(board_to_json(m));  // the writer's output always parses back
  } catch (const InputError&) {
  }
  return 0;
}
