#version 300 es
// The layer's texels are premultiplied RGBA (rect.frag.glsl writes premultiplied colours and the
// layer blends with ONE, ONE_MINUS_SRC_ALPHA), so drawing them over the window with the same
// blend gives the picture the rectangles would have drawn directly.
precision mediump float;

in vec2 v_uv;
uniform sampler2D u_layer;
out vec4 frag_color;

void main() { frag_color = texture(u_layer, v_uv); }
