// Graph tab, the editor beside the canvas: every change is a core/graph/graph_edit.h function
// (which names the op or tensor when it refuses) handed to apply_graph_edit(), so undo/redo and
// share links see it; a refusal is shown next to the field that caused it and changes nothing.
// Tabs: Op (the selected op's fields, its tensors' sizes, removal), Tensors (a filterable table),
// Add (a new op or tensor). Its state lives in AppState::graph_editor.
#include <algorithm>
#include <string>
#include <vector>

#include "core/graph/graph_edit.h"
#include "core/graph/graph_json.h"
#include "imgui.h"
#include "imgui_internal.h"  // ActiveId: which text field owns the draft being typed
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/graph_view.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web::graph_tab {
namespace {

bool error_shown_for(const AppState& s, const std::string& field) {
  return !s.graph_editor.error.empty() && s.graph_editor.error_field == field && s.graph_editor.error_revision == s.revision;
}

// Runs one core edit. Accepted: the app takes the new graph (undoable, share link). Refused by
// core: the message goes next to `field` and into the status line; the state does not change.
template <class MakeGraph>
bool edit_graph(AppState& s, const std::string& field, const std::string& what, MakeGraph make,
                const std::string& select_after = "") {
  const std::string keep = select_after.empty() ? s.graph_editor.selected_name : select_after;
  std::string refusal;
  try {
    const Graph edited = make(s.graph);
    if (apply_graph_edit(s, edited, what)) {
      s.graph_editor.error.clear();
      s.graph_editor.selected_name = keep;
      s.selected_op = -1;
      keep_selection(s);
      return true;
    }
    refusal = s.error;
  } catch (const std::exception& e) {
    refusal = e.what();
    s.error = "Edit (" + what + ") refused: " + refusal;
  }
  s.graph_editor.error = refusal;
  s.graph_editor.error_field = field;
  s.graph_editor.error_revision = s.revision;
  request_redraw(s);
  return false;
}

// A text field showing `value` that hands back the typed text once the user is done (Enter, Tab
// or a click elsewhere) and it differs; Escape reverts. Returns true with `out` set then.
bool commit_field(AppState& s, const char* label, const std::string& value, std::string& out,
                  const std::string& rect_key, float width, const char* hint = nullptr) {
  GraphEditorState& e = s.graph_editor;
  const ImGuiID id = ImGui::GetID(label);
  const ImGuiContext& ctx = *GImGui;
  const bool mine = e.draft_id == id && (ctx.ActiveId == id || ctx.ActiveIdPreviousFrame == id);
  std::string shown = mine ? e.draft_text : value;
  ImGui::SetNextItemWidth(width);
  if (hint) ImGui::InputTextWithHint(label, hint, &shown, ImGuiInputTextFlags_AutoSelectAll);
  else ImGui::InputText(label, &shown, ImGuiInputTextFlags_AutoSelectAll);
  record_item_rect(s, rect_key);
  if (error_shown_for(s, rect_key))  // the field that caused the refusal is framed as well
    ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                        ImGui::GetColorU32(kColorError), 3.0f, 0, 2.0f);
  if (ImGui::IsItemActive()) e.draft_id = id, e.draft_text = shown;
  if (!ImGui::IsItemDeactivated() || e.draft_id != id) return false;
  // `shown`, not the draft: Enter may arrive in the same frame as the last characters typed, and
  // ImGui has written them (or, on Escape, the original text) into `shown` by now.
  out = shown;
  e.draft_id = 0;
  e.draft_text.clear();
  return out != value;
}

// The refusal under the field that caused it, wrapped at the editor's right edge (also inside a
// table row, where it spans the columns).
void inline_error(AppState& s, const std::string& field) {
  if (!error_shown_for(s, field)) return;
  ImGui::PushStyleColor(ImGuiCol_Text, kColorError);
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x);
  ImGui::Text("Refused: %s", s.graph_editor.error.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  record_item_rect(s, "graph.error");
}

// ---- Editor ---------------------------------------------------------------------------------

Bytes new_tensor_bytes(const AppState& s) {
  try {
    return parse_byte_size(s.graph_editor.new_bytes, "new tensor size");
  } catch (const InputError&) {
    return 0;  // the edit then refuses with "size must be positive", next to the field
  }
}

void draw_history_buttons(AppState& s) {
  ImGui::BeginDisabled(!can_undo(s));
  if (ImGui::SmallButton("Undo")) undo(s);
  ImGui::EndDisabled();
  record_item_rect(s, "graph.undo");
  if (can_undo(s) && ImGui::IsItemHovered()) ImGui::SetTooltip("Undo %s (Ctrl+Z)", s.undo_stack.back().what.c_str());
  ImGui::SameLine();
  ImGui::BeginDisabled(!can_redo(s));
  if (ImGui::SmallButton("Redo")) redo(s);
  ImGui::EndDisabled();
  record_item_rect(s, "graph.redo");
  if (can_redo(s) && ImGui::IsItemHovered()) ImGui::SetTooltip("Redo %s (Ctrl+Shift+Z)", s.redo_stack.back().what.c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Reset to example")) reset_to_example(s);
  record_item_rect(s, "graph.reset");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to %s (undoable)", s.base_example.c_str());
}

// Lets keyboard users (and big graphs) pick the op from a list in schedule order.
void draw_op_picker(AppState& s) {
  const std::string& scope = name_scopes(s).ops;  // the list reads names without the shared scope
  const std::string preview =
      s.selected_op >= 0 ? without_scope(s.graph.ops[s.selected_op].name, scope) : "(click an op or pick one)";
  ImGui::SetNextItemWidth(-FLT_MIN);
  const bool open = ImGui::BeginCombo("##pick_op", preview.c_str(), ImGuiComboFlags_HeightLarge);
  record_item_rect(s, "graph.pick_op");
  if (!open) return;
  ImGuiListClipper clip;
  clip.Begin(int(s.order.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const Op& op = s.graph.ops[s.order[i]];
      const std::string label = std::to_string(i) + ": " + without_scope(op.name, scope) + " (" + op.kind + ")";
      if (ImGui::Selectable(label.c_str(), s.order[i] == s.selected_op)) {
        select_op(s, s.order[i]);
        center_on_op(s, s.order[i]);
      }
    }
  ImGui::EndCombo();
}

// A field label in a left column, so the inspector stays one line per field.
void field_label(const char* label, const char* tooltip = nullptr) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  ImGui::SameLine(64);
}

void draw_op_fields(AppState& s, OpId o) {
  const Op op = s.graph.ops[o];  // a copy: an accepted edit replaces s.graph under our feet
  const float w = -FLT_MIN;
  std::string typed;
  field_label("Name");
  if (commit_field(s, "##op_name", op.name, typed, "graph.sel.name", w))
    edit_graph(s, "graph.sel.name", "rename op " + op.name + " to " + typed,
               [&](const Graph& g) { return rename_op(g, op.name, typed); }, typed);
  inline_error(s, "graph.sel.name");
  field_label("Kind");
  if (commit_field(s, "##op_kind", op.kind, typed, "graph.sel.kind", w))
    edit_graph(s, "graph.sel.kind", "set kind of " + op.name, [&](const Graph& g) { return set_op_kind(g, op.name, typed); });
  inline_error(s, "graph.sel.kind");
  field_label("Reads", "Tensor names, comma-separated");
  if (commit_field(s, "##op_inputs", join_names(s.graph, op.inputs), typed, "graph.sel.inputs", w))
    edit_graph(s, "graph.sel.inputs", "set inputs of " + op.name,
               [&](const Graph& g) { return set_op_inputs(g, op.name, split_names(typed)); });
  inline_error(s, "graph.sel.inputs");
  field_label("Writes", "Tensor names, comma-separated; a new name creates a tensor of the size set in the Add tab");
  if (commit_field(s, "##op_outputs", join_names(s.graph, op.outputs), typed, "graph.sel.outputs", w))
    edit_graph(s, "graph.sel.outputs", "set outputs of " + op.name,
               [&](const Graph& g) { return set_op_outputs(g, op.name, split_names(typed), new_tensor_bytes(s)); });
  inline_error(s, "graph.sel.outputs");
  field_label("Scratch", "Temporary buffer live only while this op runs (0 for none)");
  if (commit_field(s, "##op_scratch", format_bytes(op.scratch_bytes), typed, "graph.sel.scratch", w))
    edit_graph(s, "graph.sel.scratch", "set scratch of " + op.name, [&](const Graph& g) {
      return set_op_scratch(g, op.name, parse_byte_size(typed, "op " + op.name + " scratch"));
    });
  inline_error(s, "graph.sel.scratch");
}

void draw_op_tensor_sizes(AppState& s, OpId o) {
  const Op op = s.graph.ops[o];
  const std::vector<bool> live = live_tensors(s);
  ImGui::TextDisabled("Sizes of its tensors");
  const uint64_t revision = s.revision;
  for (const std::vector<TensorId>* list : {&op.inputs, &op.outputs})
    for (TensorId t : *list) {
      if (s.revision != revision) return;  // an accepted edit renumbered the tensors: next frame
      const Tensor x = s.graph.tensors[t];
      const std::string key = "graph.sel.tensor." + x.name + ".bytes";
      ImGui::PushID(key.c_str());
      ImGui::AlignTextToFramePadding();
      ImGui::Text("%s %s", list == &op.inputs ? "in " : "out", x.name.c_str());
      ImGui::SameLine();
      if (ImGui::GetCursorPosX() < 110) ImGui::SetCursorPosX(110);  // sizes in one column, long names pushing
      std::string typed;
      if (commit_field(s, "##bytes", format_bytes(x.bytes), typed, key, 110))
        edit_graph(s, key, "resize " + x.name + " to " + typed,
                   [&](const Graph& g) { return set_tensor_bytes(g, x.name, parse_byte_size(typed, "tensor " + x.name)); });
      if (live[t]) {
        ImGui::SameLine();
        ImGui::TextColored(kLiveText, "LIVE");
      }
      ImGui::PopID();
      inline_error(s, key);
    }
}

// downstream_ops walks the graph: once per revision and op, not per frame.
const std::vector<std::string>& downstream_cached(AppState& s, OpId o) {
  return s.graph_editor.downstream.get({s.revision, o}, [&](std::vector<std::string>& names) {
    names = downstream_ops(s.graph, s.graph.ops[o].name);
  });
}

void draw_op_removal(AppState& s, OpId o) {
  const std::string name = s.graph.ops[o].name;
  const std::vector<std::string> down = downstream_cached(s, o);  // before any edit renumbers `o`
  if (ImGui::Button("Remove op")) {
    edit_graph(s, "graph.sel.remove", "remove op " + name, [&](const Graph& g) { return remove_op(g, name); });
  }
  record_item_rect(s, "graph.sel.remove");
  if (down.size() > 1) {
    ImGui::SameLine();
    const std::string label = "Remove with " + std::to_string(down.size() - 1) + " downstream";
    if (ImGui::Button(label.c_str()))
      edit_graph(s, "graph.sel.remove", "remove op " + name + " and downstream",
                 [&](const Graph& g) { return remove_op(g, name, RemoveMode::kCascade); });
    record_item_rect(s, "graph.sel.remove_cascade");
    if (ImGui::IsItemHovered()) {
      std::string list;
      for (size_t i = 1; i < down.size() && i < 40; ++i) list += (i > 1 ? ", " : "") + down[i];
      ImGui::SetTooltip("Also removes: %s%s (undo with Ctrl+Z)", list.c_str(), down.size() > 40 ? ", ..." : "");
    }
  }
  inline_error(s, "graph.sel.remove");
}

void draw_op_tab(AppState& s) {
  draw_op_picker(s);
  const OpId o = s.selected_op;
  if (o < 0 || size_t(o) >= s.graph.ops.size()) {
    ImGui::TextWrapped("Click an op in the graph (or pick one above) to edit it.");
    return;
  }
  const Step st = step_of(s, o);
  ImGui::Text("Op %s at step %d%s", s.graph.ops[o].name.c_str(), st, o == running_op(s) ? "  RUNNING" : "");
  const uint64_t revision = s.revision;
  draw_op_removal(s, o);
  if (s.revision != revision) return;  // an accepted edit may have renumbered ops: next frame
  draw_op_fields(s, o);
  if (s.revision != revision) return;
  ImGui::Separator();
  draw_op_tensor_sizes(s, o);
}

void draw_tensor_row(AppState& s, TensorId t, const std::vector<bool>& live) {
  const Tensor x = s.graph.tensors[t];  // a copy: an accepted edit replaces the graph
  const std::string key = "graph.tensor." + x.name;
  ImGui::PushID(x.name.c_str());
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  // The field holds the name without the graph's shared scope (a converter's "model_1/tf.math."
  // would fill it); a rename keeps the scope. The full name is on hover.
  const std::string& scope = name_scopes(s).tensors;
  const std::string shown = without_scope(x.name, scope);
  const std::string kept_scope = shown.size() == x.name.size() ? "" : scope;
  std::string typed;
  if (commit_field(s, "##name", shown, typed, key + ".name", -FLT_MIN)) {
    const std::string renamed = kept_scope + typed;
    edit_graph(s, key + ".name", "rename tensor " + x.name + " to " + renamed,
               [&](const Graph& g) { return rename_tensor(g, x.name, renamed); });
  } else if (!kept_scope.empty() && ImGui::IsItemHovered()) {
    full_text_tooltip(x.name);
  }
  ImGui::TableNextColumn();
  if (commit_field(s, "##bytes", format_bytes(x.bytes), typed, key + ".bytes", -FLT_MIN))
    edit_graph(s, key + ".bytes", "resize " + x.name + " to " + typed,
               [&](const Graph& g) { return set_tensor_bytes(g, x.name, parse_byte_size(typed, "tensor " + x.name)); });
  ImGui::TableNextColumn();
  bool in = s.graph.is_input(t), out = s.graph.is_output(t);
  if (ImGui::Checkbox("##in", &in))
    edit_graph(s, key + ".input", std::string(in ? "mark " : "unmark ") + x.name + " as graph input",
               [&](const Graph& g) { return set_graph_input(g, x.name, in); });
  record_item_rect(s, key + ".input");
  ImGui::TableNextColumn();
  if (ImGui::Checkbox("##out", &out))
    edit_graph(s, key + ".output", std::string(out ? "mark " : "unmark ") + x.name + " as graph output",
               [&](const Graph& g) { return set_graph_output(g, x.name, out); });
  record_item_rect(s, key + ".output");
  ImGui::TableNextColumn();
  if (size_t(t) < live.size() && live[t]) ImGui::TextColored(kLiveText, "LIVE");
  else if (x.constant) ImGui::TextDisabled("const");
  else if (x.persistent) ImGui::TextDisabled("state");
  ImGui::TableNextColumn();
  if (ImGui::SmallButton("x"))
    edit_graph(s, key + ".remove", "remove tensor " + x.name, [&](const Graph& g) { return remove_tensor(g, x.name); });
  record_item_rect(s, key + ".remove");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove tensor %s", x.name.c_str());
  ImGui::PopID();
  // The refusal goes right under the row it belongs to (the table does not clip it to a column).
  for (const char* field : {".name", ".bytes", ".input", ".output", ".remove"})
    if (error_shown_for(s, key + field)) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      inline_error(s, key + field);
    }
}

void draw_tensor_tab(AppState& s) {
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputTextWithHint("##tensor_filter", "filter tensors by name", &s.graph_editor.tensor_filter);
  record_item_rect(s, "graph.tensor_filter");
  if (const std::string& scope = name_scopes(s).tensors; !scope.empty())
    text_wrapped("Names without their shared scope \"" + scope + "\" (kept by a rename; the full name on hover).");
  std::vector<TensorId> rows;
  for (size_t t = 0; t < s.graph.tensors.size(); ++t)
    if (s.graph_editor.tensor_filter.empty() || contains_ci(s.graph.tensors[t].name, s.graph_editor.tensor_filter))
      rows.push_back(TensorId(t));
  const std::vector<bool> live = live_tensors(s);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_NoClip | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("graph_tensors", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Tensor", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, 74);
  ImGui::TableSetupColumn("In", ImGuiTableColumnFlags_WidthFixed, 20);
  ImGui::TableSetupColumn("Out", ImGuiTableColumnFlags_WidthFixed, 22);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 32);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 14);
  ImGui::TableHeadersRow();
  // After an accepted edit the rows (ids) are stale: finish the clipper without drawing them.
  const uint64_t revision = s.revision;
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd && s.revision == revision; ++i) draw_tensor_row(s, rows[i], live);
  ImGui::EndTable();
}

void draw_add_op(AppState& s) {
  ImGui::TextUnformatted("Add op");
  const float w = -FLT_MIN;
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_name", "name", &s.graph_editor.add_name);
  record_item_rect(s, "graph.add.name");
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_kind", "kind (conv2d, add, ...)", &s.graph_editor.add_kind);
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_inputs", "reads: tensor names, comma-separated", &s.graph_editor.add_inputs);
  record_item_rect(s, "graph.add.inputs");
  ImGui::SetNextItemWidth(w);
  ImGui::InputTextWithHint("##add_outputs", "writes: new or existing tensor names", &s.graph_editor.add_outputs);
  record_item_rect(s, "graph.add.outputs");
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("new tensor size", &s.graph_editor.new_bytes);
  record_item_rect(s, "graph.add.bytes");
  ImGui::Checkbox("new outputs are graph outputs", &s.graph_editor.add_outputs_are_results);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("A new op whose outputs nothing reads would be unreachable");
  if (ImGui::Button("Add op")) {
    const OpSpec spec{s.graph_editor.add_name, s.graph_editor.add_kind, split_names(s.graph_editor.add_inputs), split_names(s.graph_editor.add_outputs), 0};
    const bool results = s.graph_editor.add_outputs_are_results;
    if (edit_graph(s, "graph.add_op", "add op " + spec.name,
                   [&](const Graph& g) { return add_op(g, spec, new_tensor_bytes(s), results); }, spec.name)) {
      select_op(s, s.selected_op);
      s.graph_editor.add_name.clear();
    }
  }
  record_item_rect(s, "graph.add_op");
  inline_error(s, "graph.add_op");
}

void draw_add_tensor(AppState& s) {
  ImGui::TextUnformatted("Add tensor");
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputTextWithHint("##tensor_name", "name", &s.graph_editor.tensor_name);
  record_item_rect(s, "graph.add_tensor.name");
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("size##tensor", &s.graph_editor.tensor_bytes);
  record_item_rect(s, "graph.add_tensor.bytes");
  ImGui::SameLine();
  ImGui::Checkbox("graph input", &s.graph_editor.tensor_is_input);
  if (ImGui::Button("Add tensor")) {
    const std::string name = s.graph_editor.tensor_name, bytes = s.graph_editor.tensor_bytes;
    const bool input = s.graph_editor.tensor_is_input;
    if (edit_graph(s, "graph.add_tensor", "add tensor " + name, [&](const Graph& g) {
          return add_tensor(g, name, parse_byte_size(bytes, "tensor " + name + " size"), input);
        }))
      s.graph_editor.tensor_name.clear();
  }
  record_item_rect(s, "graph.add_tensor");
  inline_error(s, "graph.add_tensor");
}

void draw_add_tab(AppState& s) {
  if (ImGui::IsWindowAppearing() && s.graph_editor.add_inputs.empty() && s.selected_op >= 0)
    s.graph_editor.add_inputs = join_names(s.graph, s.graph.ops[s.selected_op].outputs);  // append after the selection
  draw_add_op(s);
  ImGui::Separator();
  draw_add_tensor(s);
}

void editor_tab(AppState& s, const char* title, void (*draw)(AppState&)) {
  const bool requested = s.graph_editor.request_tab && std::string(s.graph_editor.request_tab) == title;
  const bool open = ImGui::BeginTabItem(title, nullptr, requested ? ImGuiTabItemFlags_SetSelected : 0);
  record_item_rect(s, std::string("graph.editor.tab.") + title);
  if (requested) s.graph_editor.request_tab = nullptr;
  if (!open) return;
  ImGui::BeginChild(title, ImVec2(0, 0), false);
  draw(s);
  ImGui::EndChild();
  ImGui::EndTabItem();
}

}  // namespace

void draw_editor(AppState& s) {
  draw_history_buttons(s);
  if (ImGui::BeginTabBar("graph_editor_tabs")) {
    editor_tab(s, "Op", draw_op_tab);
    editor_tab(s, "Tensors", draw_tensor_tab);
    editor_tab(s, "Add", draw_add_tab);
    ImGui::EndTabBar();
  }
}

}  // namespace arenaplan::web::graph_tab
