#include "web/embed.h"

#include "core/teach/share.h"
#include "imgui.h"
#include "web/panel_exercise.h"
#include "web/share_link.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {

namespace {

struct EmbedView {
  const char* key;    // the link's "embed" value
  const char* panel;  // the panel it shows
};
constexpr EmbedView kViews[] = {{"live", "Live bytes"}, {"lifetimes", "Lifetimes"}, {"arena", "Arena"},
                                {"graph", "Graph"},     {"cache", "Cache lab"},     {"exercise", "Exercises"}};

// The embed key of the open main tab (the exercise's when one is open), "live" when it has none.
std::string view_of_open_panel(const AppState& s) {
  if (s.active_panel == "Exercises") {
    const std::string open = open_exercise_name(s);
    return open.empty() ? "live" : "exercise:" + open;
  }
  for (const EmbedView& v : kViews)
    if (s.active_panel == v.panel) return v.key;
  return "live";
}

JsonOut export_embed(const AppState& s) {
  return {{"view", s.embed_view}, {"panel", embed_panel_title(s.embed_view)}, {"code", s.embed_code}};
}

}  // namespace

std::string embed_panel_title(const std::string& view) {
  const std::string key = view.substr(0, view.find(':'));
  for (const EmbedView& v : kViews)
    if (key == v.key) return v.panel;
  return "";
}

void draw_embedded_view(AppState& s) {
  const std::string title = embed_panel_title(s.embed_view);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->Pos);
  ImGui::SetNextWindowSize(vp->Size);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin("##embed", nullptr, flags)) {
    s.ui_rects_building["embed.view"] = {vp->Pos.x, vp->Pos.y, vp->Pos.x + vp->Size.x, vp->Pos.y + vp->Size.y};
    for (const Panel& p : panel_registry()) {
      if (title != p.title) continue;
      if (p.area == PanelArea::kMain) s.active_panel = p.title;
      p.draw(s);
    }
  }
  ImGui::End();
}

void copy_embed_code(AppState& s) {
  ShareState st = decode_share_fragment(share_fragment(s));
  st.embed = view_of_open_panel(s);
  const std::string title = "arenaplan: " + embed_panel_title(st.embed);
  s.embed_code = "<iframe src=\"{URL}#" + encode_share_fragment(st) + "\" width=\"720\" height=\"420\" " +
                 "style=\"border:0\" loading=\"lazy\" title=\"" + title + "\"></iframe>";
#ifdef __EMSCRIPTEN__
  std::string code = s.embed_code;
  code.replace(code.find("{URL}"), 5, page_address());
  EM_ASM({ window.arenaplanLastEmbed = UTF8ToString($0); }, code.c_str());  // for tests
  copy_to_clipboard(s, code, "embed code");
#endif
}

ARENAPLAN_STATE_EXPORT("embed", export_embed);

}  // namespace arenaplan::web
