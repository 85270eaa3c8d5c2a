// Draws many rectangles in one draw call (two triangles each, not instanced: see
// rect_renderer.cpp) with the GLSL ES 3.0 shaders in shaders/ (embedded at build time), from
// inside an ImGui frame: queue() records the rectangles and adds
// an ImDrawList callback, so they are drawn in order with the window's other contents.
// For the dense arena and timeline views, where thousands of ImDrawList rectangles would cost
// thousands of vertices rebuilt every frame on the CPU.
//
//   std::vector<RectInstance> rects = {{0, 0, 2, 1, 0xFF00A0E6}};  // plot units, ABGR colour
//   queue_rects(ImGui::GetWindowDrawList(), screen_min, screen_max, {0, 0, steps, rows}, rects);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "imgui.h"

namespace arenaplan::web {

struct RectInstance {
  float x0, y0, x1, y1;  // in plot units (the `view` of queue_rects maps them to the screen)
  uint32_t color;        // ImU32 (IM_COL32), i.e. RGBA bytes in memory order
};

struct PlotView {
  float x0, y0, x1, y1;  // plot units shown at the left/top and right/bottom edges; y grows down
};

// Queues `rects` to be drawn inside the screen rectangle [screen_min, screen_max] (ImGui screen
// coordinates) at the current point of `draw_list`. Returns false (and draws nothing) when the
// shaders could not be built; error text in rect_renderer_error().
bool queue_rects(ImDrawList* draw_list, ImVec2 screen_min, ImVec2 screen_max, PlotView view,
                 std::vector<RectInstance> rects, float border_px = 1.0f);

const std::string& rect_renderer_error();

// Forgets every GL object the renderer holds (programs, buffers, cached layers) without deleting
// them: call it when the GL context is lost, which took them all. The next queue_rects builds
// them anew on the restored context and renders every layer again.
void forget_rect_renderer_gl_objects();

// What decides the pixels of a draw command queued by queue_rects (its rectangles, view, size and
// place), 0 for any other command: the frame's picture hash (main.cpp) uses it, since the
// command's callback data is a pointer that changes every frame.
uint64_t rect_callback_signature(const ImDrawCmd& cmd);

// Rectangles queued in the current frame, and the draw calls onto the canvas and rectangles
// (after merging sub-pixel ones) of the last rasterised frame (exported to the browser tests as
// proof the GPU path ran): one draw call per batch. A batch's rectangles are rendered, in one
// draw call, into a cached layer that is drawn onto the canvas as one quad and re-rendered only
// when they change; layer_renders counts those renders since the start.
struct RectRendererStats {
  int frame_rects = 0;
  int draw_calls = 0;
  int drawn_rects = 0;
  int layer_renders = 0;
};
RectRendererStats rect_renderer_stats();

}  // namespace arenaplan::web
