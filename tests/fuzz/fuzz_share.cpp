// libFuzzer target: share-link fragments (the URL hash a stranger may send).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/teach/share.h"
#include "core/graph/graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  try {
    ShareState s = decode_share_fragment(std::string_view(reinterpret_cast<const char*>(data), size));
    // A decoded state re-encodes and decodes to itself.
    if (share_state_json(decode_share_fragment(encode_share_fragment(s))) != share_state_json(s)) __builtin_trap();
  } catch (const InputError&) {
  }
  return 0;
}
