#include "web/share_link.h"

#include <exception>

#include "core/graph/examples.h"
#include "core/teach/share.h"
#include "web/js_api.h"
#include "web/panel_exercise.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {

std::vector<ShareSection>& share_section_registry() {
  static std::vector<ShareSection> sections;
  return sections;
}

namespace {

ShareState capture(const AppState& s) {
  ShareState st;
  // A built-in example travels by name (short links); anything edited travels inline.
  const std::string* example = s.example_name.empty() ? nullptr : find_example(s.example_name);
  if (example && *example == s.graph_json) st.example = s.example_name;
  else st.graph_json = s.graph_json;
  if (s.order != s.graph.file_order())
    for (OpId o : s.order) st.order.push_back(s.graph.ops[o].name);
  st.current_step = s.step;
  st.panel = s.active_panel;
  st.embed = s.embed_view;
  st.assignment = current_assignment(s);  // before the sections: their progress names its exercises
  for (const ShareSection& sec : share_section_registry()) st.panels[sec.key] = sec.save(s);
  return st;
}

// Applies a decoded state; throws on the first part that is refused.
void apply(AppState& s, const ShareState& st) {
  const bool loaded = st.example.empty() ? load_graph_json(s, st.graph_json) : load_example(s, st.example);
  if (!loaded) throw std::runtime_error(s.error);
  if (!st.order.empty()) {
    std::string csv;
    for (const std::string& name : st.order) csv += (csv.empty() ? "" : ",") + name;
    if (!set_order_csv(s, csv)) throw std::runtime_error(s.error);
  }
  set_step(s, st.current_step);
  open_assignment(s, st.assignment);  // an assignment's questions, before the progress naming them
  s.embed_view = st.embed;
  if (st.embed.rfind("exercise:", 0) == 0) open_exercise_by_name(s, st.embed.substr(9));
  for (const ShareSection& sec : share_section_registry())
    if (st.panels.contains(sec.key)) sec.load(s, st.panels[sec.key]);
  restore_saved_work(s);
  s.requested_panel = st.panel;
}

}  // namespace

std::string share_fragment(const AppState& s) { return encode_share_fragment(capture(s)); }

bool apply_share_fragment(AppState& s, const std::string& fragment) {
  try {
    apply(s, decode_share_fragment(fragment));
    s.error.clear();
    return true;
  } catch (const std::exception& e) {
    const std::string why = e.what();
    load_example(s, "two_branch");
    s.error = "Share link refused (" + why + "); showing the two-branch example instead";
    return false;
  }
}

void copy_share_link(AppState& s) {
  const std::string fragment = share_fragment(s);
#ifdef __EMSCRIPTEN__
  EM_ASM({ if (Module.showShareLink) Module.showShareLink(UTF8ToString($0)); }, fragment.c_str());
  copy_to_clipboard(s, page_address() + "#" + fragment, "link");
#endif
  if (fragment.size() > kShareLinkWarnBytes) {
    offer_download((s.graph.name.empty() ? "graph" : s.graph.name) + ".arenaplan.json",
                   share_state_json(decode_share_fragment(fragment)).dump(2));
    s.error = "The link is " + std::to_string(fragment.size() / 1024) +
              " KB, longer than chat tools keep (~8 KB): the state was also offered as a JSON download";
  }
}

}  // namespace arenaplan::web
