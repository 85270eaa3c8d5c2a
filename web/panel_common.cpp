#include "web/panel_common.h"

#include "imgui.h"
#include "imgui_internal.h"  // NavMoveRequestCancel

namespace arenaplan::web {

std::string kib_text(Bytes b, int decimals) { return format_kib(b, decimals); }

void handle_step_keys(AppState& s) {
  if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) return;
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.KeyAlt || io.KeyCtrl) return;
  const int left = ImGui::GetKeyIndex(ImGuiKey_LeftArrow), right = ImGui::GetKeyIndex(ImGuiKey_RightArrow);
  if (!ImGui::IsKeyDown(left) && !ImGui::IsKeyDown(right)) return;
  ImGui::NavMoveRequestCancel();  // the held arrow is ours, not a focus move (see panel_order.cpp)
  ImGui::GetCurrentContext()->NavWindowingToggleLayer = false;
  // No auto-repeat: slow frames (software WebGL) would turn a tap into several steps.
  if (ImGui::IsKeyPressed(left, false)) set_step(s, s.step - 1);
  if (ImGui::IsKeyPressed(right, false)) set_step(s, s.step + 1);
}

}  // namespace arenaplan::web
