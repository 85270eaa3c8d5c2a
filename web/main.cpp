// Platform glue, kept as thin as imgui's example_emscripten_opengl3: SDL2 window + GL context,
// ImGui backends, the main loop. Application logic lives in app.cpp and the panels.
// The same file builds natively (SDL2 desktop window, GL 3.3 core) and for the browser (WebGL2).
#include <SDL.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "imgui.h"
#include "imgui_impl_opengl3.h"
#include "imgui_impl_sdl.h"
#include "web/app.h"
#include "web/clear_fills.h"
#include "web/gl.h"
#include "web/js_api.h"
#include "web/page_exports.h"
#include "web/picture_hash.h"
#include "web/rect_renderer.h"
#include "web/ui_style.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>
#endif

namespace {

using arenaplan::web::AppState;

// Startup failures go to stderr and, in the browser, to index.html's HTML message.
int startup_failure(const char* what) {
  std::fprintf(stderr, "arenaplan: %s: %s\n", what, SDL_GetError());
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.onAppFailed) Module.onAppFailed(UTF8ToString($0)); }, what);
#endif
  return 1;
}

struct Platform {
  SDL_Window* window = nullptr;
  SDL_GLContext gl = nullptr;
  float font_scale = 0;  // framebuffer pixels per UI unit the font atlas was built for
  float text_px = 0;     // UI text size (View > Text size) the atlas and style were built for
  bool quit = false;
  uint64_t picture = 0;  // hash of the picture last rasterised onto the canvas (0: none yet)
  bool clear_fills = true;  // big opaque rectangles drawn as clears (web/clear_fills.h)
  bool context_lost = false;  // the WebGL context is lost: no frames until it is restored
  const char* glsl_version = nullptr;  // ImGui's OpenGL3 backend's, to start it again after a restore
};

Platform g_platform;
AppState g_state;

// Rebuilds the font atlas at the framebuffer's pixel density so text stays crisp at any
// devicePixelRatio: glyphs are rasterised at size*scale and drawn at 1/scale.
void update_font_scale(Platform& p) {
  int w = 0, h = 0, fb_w = 0, fb_h = 0;
  SDL_GetWindowSize(p.window, &w, &h);
  SDL_GL_GetDrawableSize(p.window, &fb_w, &fb_h);
  const float scale = w > 0 ? std::max(1.0f, float(fb_w) / float(w)) : 1.0f;
  if (std::fabs(scale - p.font_scale) < 0.01f && g_state.text_px == p.text_px) return;
  if (g_state.text_px != p.text_px) arenaplan::web::apply_style(g_state.text_px / 13.0f);  // paddings grow with the text
  p.text_px = g_state.text_px;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig cfg;
  cfg.SizePixels = std::round(g_state.text_px * scale);
  cfg.OversampleH = cfg.OversampleV = 1;
  cfg.PixelSnapH = true;
  io.Fonts->AddFontDefault(&cfg);
  io.FontGlobalScale = 1.0f / scale;
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  p.font_scale = scale;
}

// True while a mouse button or key is held: ImGui then needs frames (drags, key repeat).
bool input_held() {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsAnyMouseDown()) return true;
  for (bool down : io.KeysDown)
    if (down) return true;
  return false;
}

// Everything that decides the frame's pixels: ImGui's vertices, indices and commands, the
// rectangle batches behind its callbacks (their data pointers change every frame, their content
// need not), the clear colour and the framebuffer size.
uint64_t picture_hash(const ImDrawData& dd, const ImVec4& clear) {
  arenaplan::web::PictureHash h;
  h.value(dd.DisplayPos);
  h.value(dd.DisplaySize);
  h.value(dd.FramebufferScale);
  h.value(clear);
  for (int i = 0; i < dd.CmdListsCount; ++i) {
    const ImDrawList& list = *dd.CmdLists[i];
    h.bytes(list.VtxBuffer.Data, size_t(list.VtxBuffer.Size) * sizeof(ImDrawVert));
    h.bytes(list.IdxBuffer.Data, size_t(list.IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      h.value(cmd.ClipRect);
      h.value(cmd.TextureId);
      h.value(cmd.VtxOffset);
      h.value(cmd.IdxOffset);
      h.value(cmd.ElemCount);
      h.value(cmd.UserCallback);
      if (cmd.UserCallback) h.value(arenaplan::web::rect_callback_signature(cmd));
    }
  }
  return h.get();
}

// Returns false when the frame was skipped because nothing changed.
bool frame() {
  Platform& p = g_platform;
  // GL objects made now would belong to the lost context; input waits in SDL's queue.
  if (p.context_lost) return false;
  const uint64_t start = SDL_GetPerformanceCounter();
  SDL_Event event;
  bool had_input = false;
  while (SDL_PollEvent(&event)) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    if (event.type == SDL_QUIT) p.quit = true;
    had_input = true;
  }
  // A few frames after any input let hover, focus and menus settle before going idle.
  if (had_input || input_held()) arenaplan::web::request_redraw(g_state, 4);
  if (g_state.redraw_frames <= 0) return false;  // idle: the canvas keeps its last picture
  --g_state.redraw_frames;
  update_font_scale(p);
  ImGui::GetIO().ConfigInputTextCursorBlink = !g_state.reduced_motion;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
  arenaplan::web::draw_app(g_state);
  ImGui::Render();

  const ImGuiIO& io = ImGui::GetIO();
  const uint64_t ui_done = SDL_GetPerformanceCounter();
  const ImVec4 clear = arenaplan::web::canvas_clear_color();  // also the tiles' background
  // A frame whose picture equals the one on the canvas is not rasterised again: the canvas keeps
  // showing it (WebGL presents only frames that drew). Software GL spends most of a frame
  // shading pixels, so an unchanged frame (idle redraws, a static 10,000-rectangle view) then
  // costs only the UI pass. A PNG export needs the drawing buffer filled in this very frame.
  const uint64_t picture = picture_hash(*ImGui::GetDrawData(), clear);
  const bool unchanged = g_state.skip_unchanged_frames && p.picture != 0 && picture == p.picture &&
                         g_state.png_export_frames == 0;
  if (!unchanged) {
    SDL_GL_MakeCurrent(p.window, p.gl);
    glViewport(0, 0, int(io.DisplaySize.x * io.DisplayFramebufferScale.x),
               int(io.DisplaySize.y * io.DisplayFramebufferScale.y));
    glClearColor(clear.x, clear.y, clear.z, clear.w);
    glClear(GL_COLOR_BUFFER_BIT);
    // Rectangles of at least ~32x32 pixels: below that the clear's own cost is not worth it.
    // Off (tests comparing pictures): no rectangle is big enough, so none is converted.
    arenaplan::web::convert_opaque_rects_to_clears(*ImGui::GetDrawData(), p.clear_fills ? 1024.0f : INFINITY);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    SDL_GL_SwapWindow(p.window);
    p.picture = picture;
    ++g_state.rasterized_frames;
  }
  arenaplan::web::deliver_png_if_due(g_state);
#ifdef __EMSCRIPTEN__
  // Time to the first drawn frame, read by bench/page_bench.mjs (the page's load-time goal).
  if (g_state.frame == 1) EM_ASM({ window.arenaplanFirstFrameMs = performance.now(); });
#endif
  arenaplan::web::publish_summary(g_state);
  const double ms_per_tick = 1000.0 / double(SDL_GetPerformanceFrequency());
  g_state.frame_cpu_ms = double(SDL_GetPerformanceCounter() - start) * ms_per_tick;
  g_state.frame_ui_ms = double(ui_done - start) * ms_per_tick;
  g_state.fps = io.Framerate;
  return true;
}

#ifdef __EMSCRIPTEN__
void frame_callback(void*) { frame(); }

// A lost WebGL context (GPU reset, driver update, too many contexts) takes every GL object with it:
// ImGui's shaders, buffers and font texture, the rectangle renderer's programs and cached layers.
// The restored context starts blank while the picture hash still names the last picture, so
// without this the canvas would stay blank until the picture changed. The handles are forgotten
// while the context is lost (its GL calls do nothing then); the first frame after the restore
// makes them anew and is rasterised whatever its hash.
EM_BOOL on_webgl_context_lost(int, const void*, void*) {
  Platform& p = g_platform;
  p.context_lost = true;
  // The whole backend, not just DestroyDeviceObjects: imgui 1.86 keeps the sizes of its vertex
  // and index buffers across that, and would then update the new, empty buffers past their end.
  ImGui_ImplOpenGL3_Shutdown();
  arenaplan::web::forget_rect_renderer_gl_objects();
  p.picture = 0;
  return EM_TRUE;  // preventDefault: without it the browser never restores the context
}

EM_BOOL on_webgl_context_restored(int, const void*, void*) {
  Platform& p = g_platform;
  ImGui_ImplOpenGL3_Init(p.glsl_version);  // its objects are made on the next frame
  p.context_lost = false;
  p.picture = 0;
  arenaplan::web::request_redraw(g_state);
  return EM_TRUE;
}
#endif

}  // namespace

#ifdef __EMSCRIPTEN__
// window.arenaplan.setSkipUnchangedFrames(on) (index.html): page_bench turns the skip off to
// measure what rasterising every frame costs.
extern "C" EMSCRIPTEN_KEEPALIVE void ap_set_skip_unchanged_frames(int on) {
  g_state.skip_unchanged_frames = on != 0;
  g_platform.picture = 0;
  arenaplan::web::request_redraw(g_state);
}

// window.arenaplan.setClearFills(on): tests compare the picture with and without it.
extern "C" EMSCRIPTEN_KEEPALIVE void ap_set_clear_fills(int on) {
  g_platform.clear_fills = on != 0;
  g_platform.picture = 0;  // rasterise the next frame
  arenaplan::web::request_redraw(g_state);
}
#endif

int main(int argc, char** argv) {
  // Desktop only: `--frames N` draws N frames and exits (a smoke run, e.g. with
  // SDL_VIDEODRIVER=offscreen on a machine without a display).
  long max_frames = -1;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--frames") max_frames = std::strtol(argv[i + 1], nullptr, 10);
  if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) return startup_failure("SDL_Init failed");
#ifdef __EMSCRIPTEN__
  (void)max_frames;  // the browser decides when the page ends
#else
  // Without a display SDL may fall back to an invisible driver: say so instead of running unseen.
  const std::string driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
  if ((driver == "offscreen" || driver == "dummy") && max_frames < 0 && !SDL_getenv("SDL_VIDEODRIVER")) {
    std::fprintf(stderr, "arenaplan: no display (SDL video driver \"%s\"); use --frames N for a headless run\n",
                 driver.c_str());
    SDL_Quit();
    return 2;
  }
#endif
#ifdef __EMSCRIPTEN__
  const char* glsl_version = "#version 300 es";  // WebGL2
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
#else
  const char* glsl_version = "#version 330 core";
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
#endif
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  // ImGui draws 2D with blending only: no depth or stencil buffer for the (software) GL to
  // allocate and clear every frame.
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  // RESIZABLE + ALLOW_HIGHDPI: in the browser SDL then follows the canvas' CSS size and sizes
  // its backing store at devicePixelRatio.
  const auto flags = SDL_WindowFlags(SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  Platform& p = g_platform;
  p.window = SDL_CreateWindow("arenaplan", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 720, flags);
  p.gl = p.window ? SDL_GL_CreateContext(p.window) : nullptr;
  if (!p.gl) return startup_failure("cannot create an OpenGL/WebGL2 context");
  SDL_GL_MakeCurrent(p.window, p.gl);
  SDL_GL_SetSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.IniFilename = nullptr;  // fixed layout: nothing to remember, and no file system in the browser
  arenaplan::web::apply_style();
  ImGui_ImplSDL2_InitForOpenGL(p.window, p.gl);
  ImGui_ImplOpenGL3_Init(glsl_version);
  p.glsl_version = glsl_version;

  arenaplan::web::load_example(g_state, "two_branch");
  arenaplan::web::bind_js_api(&g_state);

#ifdef __EMSCRIPTEN__
  emscripten_set_webglcontextlost_callback("#canvas", nullptr, EM_FALSE, on_webgl_context_lost);
  emscripten_set_webglcontextrestored_callback("#canvas", nullptr, EM_FALSE, on_webgl_context_restored);
  // Tell the page the module is live before the first frame, so window.arenaplan appears.
  EM_ASM({ if (Module.onAppReady) Module.onAppReady(); });
  emscripten_set_main_loop_arg(frame_callback, nullptr, 0, true);
#else
  for (long drawn = 0; !p.quit && (max_frames < 0 || drawn < max_frames);) {
    if (max_frames >= 0) arenaplan::web::request_redraw(g_state, 1);  // smoke runs draw every frame
    if (frame())
      ++drawn;
    else
      SDL_WaitEventTimeout(nullptr, 50);  // idle: sleep until input
  }
  if (max_frames >= 0)
    std::printf("arenaplan-desktop: drew %ld frames of %s, peak %lld bytes, %s\n", max_frames, g_state.graph.name.c_str(),
                (long long)g_state.live.peak_bytes,
                arenaplan::web::rect_renderer_error().empty() ? "rect shaders ok" : arenaplan::web::rect_renderer_error().c_str());
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  SDL_GL_DeleteContext(p.gl);
  SDL_DestroyWindow(p.window);
  SDL_Quit();
#endif
  return 0;
}
