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

}  // namespace arenaplan::web
