#include "web/clear_fills.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "web/gl.h"

namespace arenaplan::web {
namespace {

struct ClearFill {
  ImVec2 min, max;  // the rectangle, ImGui display coordinates
  ImU32 color;
};

ClearFillStats& last_stats() {
  static ClearFillStats stats;
  return stats;
}

// The fills of the frame being drawn; callbacks point into it (a deque keeps them in place).
std::deque<ClearFill>& frame_fills() {
  static std::deque<ClearFill> fills;
  return fills;
}

// The half-open range of pixels whose centres lie in [a, b) (framebuffer pixels): the pixels a
// triangle edge at a and b covers under GL's rasterisation rule.
void pixel_span(float a, float b, int& lo, int& hi) {
  lo = int(std::ceil(a - 0.5f));
  hi = int(std::ceil(b - 0.5f));
}

void draw_clear_fill(const ImDrawList*, const ImDrawCmd* cmd) {
  const ClearFill& f = *static_cast<const ClearFill*>(cmd->UserCallbackData);
  const ImDrawData& dd = *ImGui::GetDrawData();
  const ImVec2 off = dd.DisplayPos, scale = dd.FramebufferScale;
  const int fb_height = int(dd.DisplaySize.y * scale.y);
  // The scissor box exactly as imgui_impl_opengl3 computes it for a draw command (GL y up).
  const ImVec2 clip_min((cmd->ClipRect.x - off.x) * scale.x, (cmd->ClipRect.y - off.y) * scale.y);
  const ImVec2 clip_max((cmd->ClipRect.z - off.x) * scale.x, (cmd->ClipRect.w - off.y) * scale.y);
  if (clip_max.x <= clip_min.x || clip_max.y <= clip_min.y) return;
  const int sx0 = int(clip_min.x), sy0 = int(float(fb_height) - clip_max.y);
  const int sx1 = sx0 + int(clip_max.x - clip_min.x), sy1 = sy0 + int(clip_max.y - clip_min.y);
  // The rectangle's pixels (rows counted from the top, then flipped to GL's bottom-up rows).
  int x0, x1, top, bottom;
  pixel_span((f.min.x - off.x) * scale.x, (f.max.x - off.x) * scale.x, x0, x1);
  pixel_span((f.min.y - off.y) * scale.y, (f.max.y - off.y) * scale.y, top, bottom);
  const int y0 = fb_height - bottom, y1 = fb_height - top;
  const int bx0 = std::max(x0, sx0), bx1 = std::min(x1, sx1), by0 = std::max(y0, sy0), by1 = std::min(y1, sy1);
  if (bx1 <= bx0 || by1 <= by0) return;
  glEnable(GL_SCISSOR_TEST);  // ImGui's state has it on; the next draw command sets its own box
  glScissor(bx0, by0, bx1 - bx0, by1 - by0);
  const ImVec4 c = ImGui::ColorConvertU32ToFloat4(f.color);
  glClearColor(c.x, c.y, c.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

// True when the six indices at `idx` are ImDrawList::PrimRect's two triangles of one
// axis-aligned, opaque rectangle sampling only the font atlas's white pixel.
bool opaque_rect_at(const ImDrawList& list, const ImDrawCmd& cmd, unsigned idx, ClearFill& out) {
  const ImDrawIdx* i = list.IdxBuffer.Data + idx;
  const unsigned a = i[0];
  if (i[1] != a + 1 || i[2] != a + 2 || i[3] != a || i[4] != a + 2 || i[5] != a + 3) return false;
  if (cmd.VtxOffset + a + 3 >= unsigned(list.VtxBuffer.Size)) return false;
  const ImDrawVert* v = list.VtxBuffer.Data + cmd.VtxOffset + a;
  const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
  for (int k = 0; k < 4; ++k)
    if (v[k].col != v[0].col || v[k].uv.x != white.x || v[k].uv.y != white.y) return false;
  if ((v[0].col & IM_COL32_A_MASK) != IM_COL32_A_MASK) return false;
  const bool axis_aligned = v[0].pos.y == v[1].pos.y && v[1].pos.x == v[2].pos.x && v[2].pos.y == v[3].pos.y &&
                            v[3].pos.x == v[0].pos.x && v[0].pos.x < v[1].pos.x && v[0].pos.y < v[3].pos.y;
  if (!axis_aligned) return false;
  out = {v[0].pos, v[2].pos, v[0].col};
  return true;
}

}  // namespace

ClearFillStats convert_opaque_rects_to_clears(ImDrawData& dd, float min_pixels) {
  ClearFillStats stats;
  std::deque<ClearFill>& fills = frame_fills();
  fills.clear();
  const ImTextureID atlas = ImGui::GetIO().Fonts->TexID;
  const float px_per_unit = dd.FramebufferScale.x * dd.FramebufferScale.y;
  for (int l = 0; l < dd.CmdListsCount; ++l) {
    ImDrawList& list = *dd.CmdLists[l];
    ImVector<ImDrawCmd> out;
    out.reserve(list.CmdBuffer.Size);
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback || cmd.TextureId != atlas || cmd.ElemCount < 6) {
        out.push_back(cmd);
        continue;
      }
      const unsigned end = cmd.IdxOffset + cmd.ElemCount;
      unsigned run = cmd.IdxOffset;  // start of the triangles not yet emitted
      auto emit_run = [&](unsigned upto) {
        if (upto <= run) return;
        ImDrawCmd part = cmd;
        part.IdxOffset = run;
        part.ElemCount = upto - run;
        out.push_back(part);
      };
      for (unsigned i = cmd.IdxOffset; i + 6 <= end;) {
        ClearFill fill;
        if (!opaque_rect_at(list, cmd, i, fill) ||
            (fill.max.x - fill.min.x) * (fill.max.y - fill.min.y) * px_per_unit < min_pixels) {
          i += 3;  // next triangle
          continue;
        }
        emit_run(i);
        fills.push_back(fill);
        ImDrawCmd clear = cmd;
        clear.ElemCount = 0;
        clear.UserCallback = draw_clear_fill;
        clear.UserCallbackData = &fills.back();
        out.push_back(clear);
        ++stats.fills;
        stats.pixels += double((fill.max.x - fill.min.x) * (fill.max.y - fill.min.y) * px_per_unit);
        i += 6;
        run = i;
      }
      emit_run(end);
    }
    list.CmdBuffer.swap(out);
  }
  last_stats() = stats;
  return stats;
}

ClearFillStats last_clear_fill_stats() { return last_stats(); }

}  // namespace arenaplan::web
