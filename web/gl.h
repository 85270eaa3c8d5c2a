// One place that knows where OpenGL comes from: WebGL2 (GLES 3.0 headers) in the browser, the
// system libGL with GL 3.3 prototypes on the desktop.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <SDL_opengl.h>
#endif
