#version 300 es
// Fills an instanced rectangle and darkens a 1-pixel border so adjacent buffers of the same
// colour stay distinguishable (shape, not colour alone, separates them). The output is
// premultiplied (blended with ONE, ONE_MINUS_SRC_ALPHA) so the rectangles can be drawn into a
// transparent cached layer and that layer composited later with the same result.
precision mediump float;

in vec4 v_color;
in vec2 v_local;
in vec2 v_size;

uniform float u_border;  // border width in framebuffer pixels (0 disables)

out vec4 frag_color;

void main() {
  vec2 d = min(v_local, v_size - v_local);
  bool edge = u_border > 0.0 && min(d.x, d.y) < u_border && min(v_size.x, v_size.y) > 3.0 * u_border;
  vec3 rgb = edge ? v_color.rgb * 0.45 : v_color.rgb;
  frag_color = vec4(rgb * v_color.a, v_color.a);
}
