#version 300 es
// A cached layer (web/rect_renderer.cpp: a rectangle view rendered once into a texture) drawn
// back as one quad filling the viewport: four corners from gl_VertexID, no vertex buffer.
precision highp float;

out vec2 v_uv;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));  // triangle strip 0..3
  v_uv = corner;
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
