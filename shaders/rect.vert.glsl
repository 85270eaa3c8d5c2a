#version 300 es
// Rectangles for the dense arena and timeline views: two triangles per rectangle (a_corner in
// [0,1]^2 per vertex), each vertex carrying its rectangle's data (web/rect_renderer.cpp: not
// instanced, which software GL runs far slower): the rectangle in "plot units" (x = time step,
// y = bytes, or any units the view chooses) and an RGBA8 colour. u_view maps plot units to clip
// space, so panning and zooming change one uniform, never the rectangles' data.
precision highp float;

layout(location = 0) in vec2 a_corner;  // per vertex: a corner of the unit square
layout(location = 1) in vec4 a_rect;    // per rectangle: x0, y0, x1, y1 in plot units
layout(location = 2) in vec4 a_color;   // per rectangle: RGBA, normalised from unsigned bytes

uniform vec4 u_view;       // plot units -> clip: clip = a_pos * u_view.xy + u_view.zw
uniform vec2 u_pixel;      // size of one framebuffer pixel in clip units (for the 1 px inset)

out vec4 v_color;
out vec2 v_local;          // position inside the rectangle in framebuffer pixels
out vec2 v_size;           // rectangle size in framebuffer pixels

void main() {
  vec2 p = mix(a_rect.xy, a_rect.zw, a_corner);
  vec2 clip = p * u_view.xy + u_view.zw;
  gl_Position = vec4(clip, 0.0, 1.0);
  v_color = a_color;
  vec2 size_clip = abs((a_rect.zw - a_rect.xy) * u_view.xy);
  v_size = size_clip / u_pixel;
  v_local = a_corner * v_size;
}
