// Shared look: a colour-blind-safe palette (Okabe-Ito) and the ImGui style. Every colour that
// carries meaning is paired with a text mark in the panels, never colour alone.
#pragma once

#include "imgui.h"

namespace arenaplan::web {

inline const ImVec4 kColorError(0.94f, 0.89f, 0.26f, 1.0f);  // yellow: readable on dark, with "Refused:"
inline constexpr ImU32 kBarColor = IM_COL32(0x56, 0xB4, 0xE9, 0xFF);      // sky blue
inline constexpr ImU32 kPeakColor = IM_COL32(0xE6, 0x9F, 0x00, 0xFF);     // orange, plus "PEAK"
inline constexpr ImU32 kCurrentColor = IM_COL32(0xFF, 0xFF, 0xFF, 0xFF);  // outline, plus "^ now"
inline constexpr ImU32 kGridColor = IM_COL32(0x80, 0x80, 0x80, 0x60);
inline constexpr ImU32 kTextColor = IM_COL32(0xE8, 0xE8, 0xE8, 0xFF);

// Dark style with slightly rounder, roomier widgets, paddings and spacings multiplied by `scale`
// (the text size over the 13 px default, View > Text size); called after CreateContext and on
// every text-size change.
void apply_style(float scale = 1.0f);

// The colour the canvas is cleared to: the tiles' window background (drawn with NoBackground,
// web/shell.cpp) as it looked composited over the page's old clear colour, so the clear paints
// the background once and nothing changes on screen.
ImVec4 canvas_clear_color();

}  // namespace arenaplan::web
