#include "web/rect_renderer.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "ap_shaders.h"
#include "web/gl.h"
#include "web/rect_lod.h"

namespace arenaplan::web {
namespace {

struct Batch {
  ImVec2 screen_min, screen_max;
  PlotView view;
  float border_px;
  std::vector<RectInstance> rects;
  bool opaque = false;  // every colour has alpha 255: drawn without blending
};

// One corner of one rectangle: the rectangle's data repeated on each of its 6 vertices (two
// triangles), drawn with one glDrawArrays. Not instanced: software GL (SwiftShader) drew the
// 10,000-rectangle stress view at ~10 fps instanced (bench/page_bench.mjs), the same vertex
// shader and data expanded per vertex cost far less there.
struct RectVertex {
  float corner_x, corner_y;  // (0,0) .. (1,1) inside the rectangle
  RectInstance rect;
};

struct Renderer {
  bool tried = false;
  bool ok = false;
  std::string error;
  GLuint program = 0, vao = 0, vertex_vbo = 0;
  std::vector<RectVertex> vertices;  // reused every draw
  GLint u_view = -1, u_pixel = -1, u_border = -1;
  std::deque<Batch> batches;  // deque: callbacks hold pointers that must stay valid
  int batch_frame = -1;
  RectRendererStats stats, last_stats;
};

Renderer& renderer() {
  static Renderer r;
  return r;
}

// The sources are GLSL ES 3.0; desktop GL 3.3 core accepts them once the version line changes
// (precision qualifiers are legal, and ignored, there).
std::string for_this_gl(const char* source) {
  std::string s = source;
#ifndef __EMSCRIPTEN__
  const auto eol = s.find('\n');
  if (s.rfind("#version 300 es", 0) == 0) s.replace(0, eol, "#version 330 core");
#endif
  return s;
}

GLuint compile(GLenum type, const char* source, std::string& error) {
  const std::string text = for_this_gl(source);
  const char* p = text.c_str();
  GLuint sh = glCreateShader(type);
  glShaderSource(sh, 1, &p, nullptr);
  glCompileShader(sh);
  GLint ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(sh, sizeof log, nullptr, log);
    error += std::string(type == GL_VERTEX_SHADER ? "rect.vert: " : "rect.frag: ") + log;
    glDeleteShader(sh);
    return 0;
  }
  return sh;
}

bool init(Renderer& r) {
  if (r.tried) return r.ok;
  r.tried = true;
  GLuint vs = compile(GL_VERTEX_SHADER, ap_shader_rect_vert, r.error);
  GLuint fs = compile(GL_FRAGMENT_SHADER, ap_shader_rect_frag, r.error);
  if (!vs || !fs) return false;
  r.program = glCreateProgram();
  glAttachShader(r.program, vs);
  glAttachShader(r.program, fs);
  glLinkProgram(r.program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint linked = 0;
  glGetProgramiv(r.program, GL_LINK_STATUS, &linked);
  if (!linked) {
    char log[1024] = {};
    glGetProgramInfoLog(r.program, sizeof log, nullptr, log);
    r.error = std::string("rect program: ") + log;
    return false;
  }
  r.u_view = glGetUniformLocation(r.program, "u_view");
  r.u_pixel = glGetUniformLocation(r.program, "u_pixel");
  r.u_border = glGetUniformLocation(r.program, "u_border");

  GLint prev_vao = 0, prev_buf = 0;  // leave ImGui's bindings as we found them
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &prev_vao);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &prev_buf);
  glGenVertexArrays(1, &r.vao);
  glBindVertexArray(r.vao);
  glGenBuffers(1, &r.vertex_vbo);
  glBindBuffer(GL_ARRAY_BUFFER, r.vertex_vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(RectVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(RectVertex), reinterpret_cast<void*>(offsetof(RectVertex, rect)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(RectVertex),
                        reinterpret_cast<void*>(offsetof(RectVertex, rect) + offsetof(RectInstance, color)));
  glBindVertexArray(GLuint(prev_vao));
  glBindBuffer(GL_ARRAY_BUFFER, GLuint(prev_buf));
  r.ok = true;
  return true;
}

void draw_batch(const ImDrawList*, const ImDrawCmd* cmd) {
  Renderer& r = renderer();
  const Batch& b = *static_cast<const Batch*>(cmd->UserCallbackData);
  if (b.rects.empty()) return;
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 scale = io.DisplayFramebufferScale;
  const float fb_h = io.DisplaySize.y * scale.y;
  // GL's origin is bottom-left; ImGui's is top-left.
  const int vx = int(b.screen_min.x * scale.x);
  const int vy = int(fb_h - b.screen_max.y * scale.y);
  const int vw = int((b.screen_max.x - b.screen_min.x) * scale.x);
  const int vh = int((b.screen_max.y - b.screen_min.y) * scale.y);
  if (vw <= 0 || vh <= 0) return;
  const ImVec4 clip = cmd->ClipRect;  // the window's clip rectangle: never draw outside the panel
  glEnable(GL_SCISSOR_TEST);
  glScissor(int(clip.x * scale.x), int(fb_h - clip.w * scale.y), int((clip.z - clip.x) * scale.x),
            int((clip.w - clip.y) * scale.y));
  glViewport(vx, vy, vw, vh);
  glUseProgram(r.program);
  // Plot units -> clip space; y flipped so plot y grows downwards like the screen.
  const float sx = 2.0f / (b.view.x1 - b.view.x0), sy = -2.0f / (b.view.y1 - b.view.y0);
  glUniform4f(r.u_view, sx, sy, -1.0f - b.view.x0 * sx, 1.0f - b.view.y0 * sy);
  glUniform2f(r.u_pixel, 2.0f / float(vw), 2.0f / float(vh));
  glUniform1f(r.u_border, b.border_px * scale.x);
  // Opaque rectangles need no blending: software GL then writes each pixel without reading it
  // back first (ImDrawCallback_ResetRenderState turns blending on again for ImGui).
  if (b.opaque) glDisable(GL_BLEND);
  static const float kCorners[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0, 1}, {1, 0}, {1, 1}};
  r.vertices.clear();
  r.vertices.reserve(b.rects.size() * 6);
  for (const RectInstance& rect : b.rects)
    for (const auto& c : kCorners) r.vertices.push_back({c[0], c[1], rect});
  glBindVertexArray(r.vao);
  glBindBuffer(GL_ARRAY_BUFFER, r.vertex_vbo);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(r.vertices.size() * sizeof(RectVertex)), r.vertices.data(), GL_STREAM_DRAW);
  glDrawArrays(GL_TRIANGLES, 0, GLsizei(r.vertices.size()));
  r.stats.draw_calls++;
  r.stats.drawn_rects += int(b.rects.size());
}

}  // namespace

bool queue_rects(ImDrawList* dl, ImVec2 screen_min, ImVec2 screen_max, PlotView view, std::vector<RectInstance> rects,
                 float border_px) {
  Renderer& r = renderer();
  if (!init(r)) return false;
  const int frame = ImGui::GetFrameCount();
  if (frame != r.batch_frame) {  // batches of the previous frame were drawn by now
    r.batches.clear();
    r.last_stats = r.stats;
    r.stats = {};
    r.batch_frame = frame;
  }
  r.stats.frame_rects += int(rects.size());
  // Thin rectangles merge at pixel resolution (rect_lod.h): what is drawn is what the screen shows.
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  const double px_w = double(screen_max.x - screen_min.x) * scale.x, px_h = double(screen_max.y - screen_min.y) * scale.y;
  if (px_w >= 1 && px_h >= 1)
    rects = merge_subpixel_rects(rects, view.x0, view.y0, (view.x1 - view.x0) / px_w, (view.y1 - view.y0) / px_h);
  const bool opaque = std::all_of(rects.begin(), rects.end(), [](const RectInstance& x) { return (x.color >> IM_COL32_A_SHIFT) == 0xFF; });
  r.batches.push_back(Batch{screen_min, screen_max, view, border_px, std::move(rects), opaque});
  dl->AddCallback(draw_batch, &r.batches.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);  // give ImGui's GL state back
  return true;
}

const std::string& rect_renderer_error() { return renderer().error; }

RectRendererStats rect_renderer_stats() {
  const Renderer& r = renderer();
  // Queued counts of this frame, draw counts of the last completed frame.
  return {r.stats.frame_rects, r.last_stats.draw_calls, r.last_stats.drawn_rects};
}

}  // namespace arenaplan::web
