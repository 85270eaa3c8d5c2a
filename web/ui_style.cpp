#include "web/ui_style.h"

namespace arenaplan::web {

void apply_style() {
  ImGui::StyleColorsDark();
  ImGuiStyle& st = ImGui::GetStyle();
  st.WindowRounding = 0.0f;  // tiles touch each other: square corners avoid gaps
  st.FrameRounding = 3.0f;
  st.TabRounding = 3.0f;
  st.FramePadding = ImVec2(6, 4);
  st.ItemSpacing = ImVec2(8, 5);
  st.WindowBorderSize = 1.0f;
}

}  // namespace arenaplan::web
