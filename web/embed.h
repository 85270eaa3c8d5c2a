// Embeds: a share link whose "embed" names one view (live, lifetimes, arena, graph,
// cache, exercise:NAME) shows that view alone, without menus, filling its frame, for an <iframe>
// in slides or a course page. File > Copy embed code makes the snippet for the open view.
#pragma once

#include <string>

#include "web/app.h"

namespace arenaplan::web {

// The panel title an embed view shows ("live" -> "Live bytes", "exercise:X" -> "Exercises").
std::string embed_panel_title(const std::string& view);

// Draws s.embed_view's panel over the whole viewport (no menu bar, tiles or status line).
void draw_embedded_view(AppState& s);

// Copies '<iframe src="PAGE#LINK" ...></iframe>' for the open view to the clipboard (browser) and
// keeps it in s.embed_code (with "{URL}" where the page's address goes).
void copy_embed_code(AppState& s);

}  // namespace arenaplan::web
