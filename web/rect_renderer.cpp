#include "web/rect_renderer.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "ap_shaders.h"
#include "web/gl.h"
#include "web/picture_hash.h"
#include "web/rect_lod.h"

namespace arenaplan::web {
namespace {

struct Batch {
  ImVec2 screen_min, screen_max;
  PlotView view;
  float border_px;
  std::vector<RectInstance> rects;
  bool opaque = false;  // every colour has alpha 255: drawn without blending
  int slot = 0;         // its place among this frame's batches: the cached layer it uses
  uint64_t key = 0;     // hash of everything that decides its pixels (rectangles, view, size)
};

// A batch's rectangles rendered once into a texture of the plot's size, drawn back as one quad
// while the batch's key is unchanged. Software GL (SwiftShader) shades every pixel of every
// rectangle each frame otherwise: 10,000 overlapping rectangles cost ~23 ms of GPU-process time
// per frame there, the cached quad about what one window background costs.
struct Layer {
  uint64_t key = 0;
  bool valid = false;
  GLuint fbo = 0, texture = 0;
  int w = 0, h = 0;  // texture size (framebuffer pixels)
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
  GLuint layer_program = 0, layer_vao = 0;  // draws a cached layer (no attributes)
  std::vector<RectVertex> vertices;  // reused every draw
  GLint u_view = -1, u_pixel = -1, u_border = -1, u_layer = -1;
  std::vector<Layer> layers;  // by batch slot
  int layer_renders = 0;      // layers (re)rendered since start (tests: a static view renders once)
  std::deque<Batch> batches;  // deque: callbacks hold pointers that must stay valid
  int batch_frame = -1;
  int queued_rects = 0;      // queued in the current ImGui frame
  int draw_frame = -1;       // ImGui frame of the last rasterised batches
  RectRendererStats drawn;   // draw_calls and drawn_rects of that frame
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

GLuint compile(GLenum type, const char* name, const char* source, std::string& error) {
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
    error += std::string(name) + ": " + log;
    glDeleteShader(sh);
    return 0;
  }
  return sh;
}

// Links a program from two embedded shaders; 0 (and the reason appended to `error`) on failure.
GLuint link(const char* vs_name, const char* vs_source, const char* fs_name, const char* fs_source, std::string& error) {
  GLuint vs = compile(GL_VERTEX_SHADER, vs_name, vs_source, error);
  GLuint fs = compile(GL_FRAGMENT_SHADER, fs_name, fs_source, error);
  if (!vs || !fs) return 0;
  GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint linked = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (!linked) {
    char log[1024] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    error += std::string(vs_name) + " + " + fs_name + ": " + log;
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

bool init(Renderer& r) {
  if (r.tried) return r.ok;
  r.tried = true;
  r.program = link("rect.vert", ap_shader_rect_vert, "rect.frag", ap_shader_rect_frag, r.error);
  r.layer_program = link("layer.vert", ap_shader_layer_vert, "layer.frag", ap_shader_layer_frag, r.error);
  if (!r.program || !r.layer_program) return false;
  r.u_view = glGetUniformLocation(r.program, "u_view");
  r.u_pixel = glGetUniformLocation(r.program, "u_pixel");
  r.u_border = glGetUniformLocation(r.program, "u_border");
  r.u_layer = glGetUniformLocation(r.layer_program, "u_layer");

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
  glGenVertexArrays(1, &r.layer_vao);
  glBindVertexArray(GLuint(prev_vao));
  glBindBuffer(GL_ARRAY_BUFFER, GLuint(prev_buf));
  r.ok = true;
  return true;
}

// (Re)allocates the layer's texture and framebuffer for a w x h plot.
void size_layer(Layer& layer, int w, int h) {
  if (layer.fbo && layer.w == w && layer.h == h) return;
  if (!layer.fbo) {
    glGenFramebuffers(1, &layer.fbo);
    glGenTextures(1, &layer.texture);
  }
  glBindTexture(GL_TEXTURE_2D, layer.texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  // One texel per framebuffer pixel: nearest sampling copies the picture exactly.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindFramebuffer(GL_FRAMEBUFFER, layer.fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, layer.texture, 0);
  layer.w = w;
  layer.h = h;
  layer.valid = false;
}

// Renders the batch's rectangles into its layer: transparent where no rectangle is, premultiplied
// colours blended with ONE, ONE_MINUS_SRC_ALPHA (opaque batches without blending).
void render_layer(Renderer& r, Layer& layer, const Batch& b, int w, int h, float border_px) {
  size_layer(layer, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, layer.fbo);
  glViewport(0, 0, layer.w, layer.h);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  glUseProgram(r.program);
  // Plot units -> clip space; y flipped so plot y grows downwards like the screen.
  const float sx = 2.0f / (b.view.x1 - b.view.x0), sy = -2.0f / (b.view.y1 - b.view.y0);
  glUniform4f(r.u_view, sx, sy, -1.0f - b.view.x0 * sx, 1.0f - b.view.y0 * sy);
  glUniform2f(r.u_pixel, 2.0f / float(layer.w), 2.0f / float(layer.h));
  glUniform1f(r.u_border, border_px);
  if (b.opaque) {
    glDisable(GL_BLEND);  // software GL then writes each pixel without reading it back first
  } else {
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  }
  static const float kCorners[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0, 1}, {1, 0}, {1, 1}};
  r.vertices.clear();
  r.vertices.reserve(b.rects.size() * 6);
  for (const RectInstance& rect : b.rects)
    for (const auto& c : kCorners) r.vertices.push_back({c[0], c[1], rect});
  glBindVertexArray(r.vao);
  glBindBuffer(GL_ARRAY_BUFFER, r.vertex_vbo);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(r.vertices.size() * sizeof(RectVertex)), r.vertices.data(), GL_STREAM_DRAW);
  glDrawArrays(GL_TRIANGLES, 0, GLsizei(r.vertices.size()));
  glBindFramebuffer(GL_FRAMEBUFFER, 0);  // the canvas (ImGui's reset does not rebind it)
  layer.key = b.key;
  layer.valid = true;
  r.layer_renders++;
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
  if (size_t(b.slot) >= r.layers.size()) r.layers.resize(size_t(b.slot) + 1);
  Layer& layer = r.layers[size_t(b.slot)];
  if (!layer.valid || layer.key != b.key || layer.w != vw || layer.h != vh)
    render_layer(r, layer, b, vw, vh, b.border_px * scale.x);
  if (ImGui::GetFrameCount() != r.draw_frame) {  // the first batch rasterised in this frame
    r.drawn = {};
    r.draw_frame = ImGui::GetFrameCount();
  }
  const ImVec4 clip = cmd->ClipRect;  // the window's clip rectangle: never draw outside the panel
  glEnable(GL_SCISSOR_TEST);
  glScissor(int(clip.x * scale.x), int(fb_h - clip.w * scale.y), int((clip.z - clip.x) * scale.x),
            int((clip.w - clip.y) * scale.y));
  glViewport(vx, vy, vw, vh);
  glUseProgram(r.layer_program);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, layer.texture);
  glUniform1i(r.u_layer, 0);
  if (b.opaque) {
    glDisable(GL_BLEND);  // ImDrawCallback_ResetRenderState turns blending on again for ImGui
  } else {
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  }
  glBindVertexArray(r.layer_vao);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  r.drawn.draw_calls++;
  r.drawn.drawn_rects += int(b.rects.size());
}

}  // namespace

bool queue_rects(ImDrawList* dl, ImVec2 screen_min, ImVec2 screen_max, PlotView view, std::vector<RectInstance> rects,
                 float border_px) {
  Renderer& r = renderer();
  if (!init(r)) return false;
  const int frame = ImGui::GetFrameCount();
  if (frame != r.batch_frame) {  // batches of the previous frame were drawn (or skipped) by now
    r.batches.clear();
    r.queued_rects = 0;
    r.batch_frame = frame;
  }
  r.queued_rects += int(rects.size());
  // Thin rectangles merge at pixel resolution (rect_lod.h): what is drawn is what the screen shows.
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  const double px_w = double(screen_max.x - screen_min.x) * scale.x, px_h = double(screen_max.y - screen_min.y) * scale.y;
  if (px_w >= 1 && px_h >= 1)
    rects = merge_subpixel_rects(rects, view.x0, view.y0, (view.x1 - view.x0) / px_w, (view.y1 - view.y0) / px_h);
  const bool opaque = std::all_of(rects.begin(), rects.end(), [](const RectInstance& x) { return (x.color >> IM_COL32_A_SHIFT) == 0xFF; });
  PictureHash key;  // everything that decides the layer's pixels
  key.value(view);
  key.value(border_px);
  key.value(scale);
  key.value(ImVec2(screen_max.x - screen_min.x, screen_max.y - screen_min.y));
  key.bytes(rects.data(), rects.size() * sizeof(RectInstance));
  const int slot = int(r.batches.size());
  r.batches.push_back(Batch{screen_min, screen_max, view, border_px, std::move(rects), opaque, slot, key.get()});
  dl->AddCallback(draw_batch, &r.batches.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);  // give ImGui's GL state back
  return true;
}

const std::string& rect_renderer_error() { return renderer().error; }

void forget_rect_renderer_gl_objects() {
  Renderer& r = renderer();
  r.tried = r.ok = false;
  r.error.clear();
  r.program = r.vao = r.vertex_vbo = r.layer_program = r.layer_vao = 0;
  r.u_view = r.u_pixel = r.u_border = r.u_layer = -1;
  r.layers.clear();  // their textures and framebuffers are gone: every batch renders its layer again
}

uint64_t rect_callback_signature(const ImDrawCmd& cmd) {
  if (cmd.UserCallback != draw_batch) return 0;
  const Batch& b = *static_cast<const Batch*>(cmd.UserCallbackData);
  PictureHash h;
  h.value(b.key);
  h.value(b.screen_min);
  return h.get();
}

RectRendererStats rect_renderer_stats() {
  const Renderer& r = renderer();
  // Queued counts of this frame, draw counts of the last rasterised one.
  return {r.queued_rects, r.drawn.draw_calls, r.drawn.drawn_rects, r.layer_renders};
}

}  // namespace arenaplan::web
