// Big opaque rectangles of a frame (the graph canvas's background, bars, selected rows) filled
// with a scissored glClear instead of two shaded triangles. Software GL (SwiftShader) shades
// every pixel of a triangle through ImGui's fragment shader (a texture fetch and a blend, ~20 ns a
// pixel on this machine: the graph canvas's background alone cost ~4 ms a frame) while a clear
// is a memory fill. The pixels are the same: an opaque colour over anything is that colour, and
// the cleared box is exactly the pixels whose centres the rectangle covers, inside the scissor
// box ImGui's backend would have set.
#pragma once

#include "imgui.h"

namespace arenaplan::web {

struct ClearFillStats {
  int fills = 0;       // rectangles turned into clears in the last rasterised frame
  double pixels = 0;   // framebuffer pixels they cover (before clipping)
};

// Rewrites `dd`'s command lists in place (between ImGui::Render() and the backend's
// RenderDrawData): each axis-aligned, opaque, untextured rectangle of at least `min_pixels`
// framebuffer pixels leaves its draw command, which is split around a callback that clears the
// same pixels in the same place of the drawing order.
ClearFillStats convert_opaque_rects_to_clears(ImDrawData& dd, float min_pixels);

// What the last call converted (state().perf.clear_fills).
ClearFillStats last_clear_fill_stats();

}  // namespace arenaplan::web
