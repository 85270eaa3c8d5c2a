// Share links for the playground: the input state (graph or example, order, step, open panel and
// every registered share section) as a URL fragment built by core/share.h. Opening a link
// recomputes everything; a bad link falls back to the default example with a readable message.
#pragma once

#include <string>

#include "web/app.h"

namespace arenaplan::web {

// The fragment (without '#') describing `s`.
std::string share_fragment(const AppState& s);

// Applies a fragment. On any problem (corrupt, truncated, future version, a graph or section core
// refuses) the default two-branch example is loaded and s.error explains; returns false then.
bool apply_share_fragment(AppState& s, const std::string& fragment);

// File > Copy share link: puts the link in the address bar and the clipboard; past the size chat
// tools keep, also offers the state as a JSON download and says so.
void copy_share_link(AppState& s);

}  // namespace arenaplan::web
