#include "web/panel_common.h"

#include <algorithm>
#include <cstdio>

#include "core/graph/names.h"
#include "imgui.h"
#include "imgui_internal.h"  // NavMoveRequestCancel

namespace arenaplan::web {

std::string kib_text(Bytes b, int decimals) { return format_size(b, decimals); }

std::string exact_bytes_text(Bytes b) {
  std::string digits = std::to_string(b < 0 ? -b : b), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (b < 0 ? "-" : "") + out + (b == 1 || b == -1 ? " byte" : " bytes");
}

void bytes_tooltip(Bytes b) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", exact_bytes_text(b).c_str());
}

std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string human_model_title(const std::string& name) {
  std::string t = name;
  for (const char* suffix : {".generated", ".tflite", ".json"})
    for (size_t n = std::char_traits<char>::length(suffix);
         t.size() > n && t.compare(t.size() - n, n, suffix) == 0;)
      t.erase(t.size() - n);
  for (const char* prefix : {"keras2tflite_", "tflite_", "saved_model_"})
    if (t.rfind(prefix, 0) == 0 && t.size() > std::char_traits<char>::length(prefix))
      t.erase(0, std::char_traits<char>::length(prefix));
  constexpr size_t kMax = 32;
  if (t.size() > kMax) t = t.substr(0, 18) + "..." + t.substr(t.size() - 11);
  return t.empty() ? "graph" : t;
}

std::string elide_to_width(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  const float dots = ImGui::CalcTextSize("...").x;
  // Binary search for the longest prefix that fits with the dots.
  size_t lo = 0, hi = text.size();
  while (lo < hi) {
    const size_t mid = (lo + hi + 1) / 2;
    if (ImGui::CalcTextSize(text.c_str(), text.c_str() + mid).x + dots <= width) lo = mid;
    else hi = mid - 1;
  }
  while (lo > 0 && (static_cast<unsigned char>(text[lo]) & 0xC0) == 0x80) --lo;  // whole UTF-8 characters
  return text.substr(0, lo) + "...";
}

void full_text_tooltip(const std::string& text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

bool text_elided(const std::string& text, ImU32 color) {
  const std::string shown = elide_to_width(text, std::max(ImGui::GetContentRegionAvail().x, 10.0f));
  const bool elide = shown.size() != text.size() || shown != text;
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextUnformatted(shown.c_str());
  if (color) ImGui::PopStyleColor();
  if (elide && ImGui::IsItemHovered()) full_text_tooltip(text);
  return elide;
}

const NameScopes& name_scopes(AppState& s) {
  return s.name_scopes.get(s.graph_revision, [&](NameScopes& out) {
    std::vector<std::string> names;
    for (const Op& op : s.graph.ops) names.push_back(op.name);
    out.ops = common_name_prefix(names);
    names.clear();
    for (const Tensor& t : s.graph.tensors) names.push_back(t.name);
    out.tensors = common_name_prefix(names);
  });
}

std::string without_scope(const std::string& name, const std::string& scope) {
  return !scope.empty() && name.size() > scope.size() && name.compare(0, scope.size(), scope) == 0
             ? name.substr(scope.size())
             : name;
}

void text_wrapped(const std::string& text, const ImVec4* color) {
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, *color);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  if (color) ImGui::PopStyleColor();
}

void note_wrapped(const std::string& text) {
  const ImVec4 dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
  text_wrapped(text, &dim);
}

bool draw_label(AppState& s, ImDrawList* dl, const char* owner, ImVec2 pos, ImU32 color, const std::string& text,
                const ImVec4& box, std::vector<ImVec4>& taken) {
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  const ImVec4 r(pos.x, pos.y, pos.x + size.x, pos.y + size.y);
  if (r.x < box.x || r.y < box.y || r.z > box.z || r.w > box.w) return false;
  for (const ImVec4& t : taken)
    if (r.x < t.z && t.x < r.z && r.y < t.w && t.y < r.w) return false;
  taken.push_back(r);
  dl->AddText(pos, color, text.c_str());
  const ImVec4 clip = dl->GetClipRectMax().x > 0 ? ImVec4(dl->GetClipRectMin().x, dl->GetClipRectMin().y,
                                                           dl->GetClipRectMax().x, dl->GetClipRectMax().y)
                                                  : box;
  s.labels_building.push_back({owner, text, {r.x, r.y, r.z, r.w}, {clip.x, clip.y, clip.z, clip.w}});
  return true;
}

void same_line_if_fits(float next_width, float spacing) {
  const float gap = spacing >= 0 ? spacing : ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + next_width <= right) ImGui::SameLine(0, spacing);
}

float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

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
