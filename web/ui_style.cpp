#include "web/ui_style.h"

namespace arenaplan::web {

void apply_style(float scale) {
  ImGuiStyle& st = ImGui::GetStyle();
  st = ImGuiStyle();  // sizes from scratch: ScaleAllSizes multiplies what is there
  ImGui::StyleColorsDark();
  st.WindowRounding = 0.0f;  // tiles touch each other: square corners avoid gaps
  st.FrameRounding = 3.0f;
  st.TabRounding = 3.0f;
  st.FramePadding = ImVec2(6, 4);
  st.ItemSpacing = ImVec2(8, 5);
  st.WindowBorderSize = 1.0f;
  if (scale > 1.0f) st.ScaleAllSizes(scale);
}

ImVec4 canvas_clear_color() {
  const ImVec4 under(0.08f, 0.09f, 0.10f, 1.0f);  // the clear colour before the tiles lost their background
  const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  auto over = [&](float top, float bottom) { return top * bg.w + bottom * (1.0f - bg.w); };
  return ImVec4(over(bg.x, under.x), over(bg.y, under.y), over(bg.z, under.z), 1.0f);
}

}  // namespace arenaplan::web
