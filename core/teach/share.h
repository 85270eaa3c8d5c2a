// Share links: the whole input state of the playground in a URL fragment, versioned and compact
// ("v1." + base64url(zlib(JSON))). Derived results are never stored: the page recomputes them.
// A corrupt, truncated or future-version link is an InputError("share link", ...).
#pragma once

#include <string>
#include <string_view>

#include "core/graph/report.h"

namespace arenaplan {

constexpr int kShareVersion = 1;
constexpr size_t kShareLinkWarnBytes = 8 * 1024;     // chat tools cut links around here
constexpr size_t kShareMaxDecodedBytes = 4 << 20;    // refuse to inflate anything bigger

struct ShareState {
  std::string example;     // a built-in example by name, or empty when graph_json is used
  std::string graph_json;  // an inline graph (edited or opened from a file)
  std::vector<std::string> order;  // op names; empty means the file's order
  std::string panel;       // the open panel's title
  int current_step = 0;
  JsonOut panels = JsonOut::object();  // per-panel settings by panel key (planner, budget, cache lab, ...)
  // Classroom: an assignment set (core/teach/assignment.h), null when the link has none.
  JsonOut assignment;
  // One view alone, without menus, for an <iframe>: "live", "lifetimes", "arena",
  // "graph", "cache" or "exercise:NAME"; "" for the whole playground.
  std::string embed;
};

// Throws InputError("share link /embed", ...) unless `view` is "" or one of ShareState::embed's.
void check_embed_view(const std::string& view);

JsonOut share_state_json(const ShareState& s);
ShareState share_state_from_json(const JsonOut& j);  // throws InputError naming the field

// The fragment text without '#'.
std::string encode_share_fragment(const ShareState& s);
ShareState decode_share_fragment(std::string_view fragment);

// RFC 4648 base64url without padding; decode throws InputError on a character outside the alphabet.
std::string base64url_encode(std::string_view bytes);
std::string base64url_decode(std::string_view text);

// zlib (RFC 1950) so a truncated or altered link fails its checksum instead of decoding garbage.
std::string zlib_compress(std::string_view bytes);
std::string zlib_decompress(std::string_view bytes, size_t max_bytes);

}  // namespace arenaplan
