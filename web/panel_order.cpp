// Graph & order panel: the loaded graph (ops, tensors, sizes) and the order editor. Moves go
// through move_op(), which asks core's check_order(); a refused move leaves the order unchanged.
#include <cstdio>
#include <string>

#include "core/graph/op_kinds.h"
#include "imgui.h"
#include "imgui_internal.h"  // NavMoveRequestCancel: the arrow keys must move the op, not the focus
#include "web/app.h"
#include "web/panel_exercise.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

std::string tensor_list(const Graph& g, const std::vector<TensorId>& ts, const std::string& scope = "") {
  std::string out;
  for (TensorId t : ts) out += (out.empty() ? "" : ", ") + without_scope(g.tensors[t].name, scope);
  return out.empty() ? "-" : out;
}

// A table cell showing `shown`, a name (or names) without the graph's shared scope: the full
// text on hover when they differ.
void scoped_cell(const std::string& shown, const std::string& full) {
  ImGui::TextUnformatted(shown.c_str());
  if (shown != full && ImGui::IsItemHovered()) full_text_tooltip(full);
}

// Says which scope the tables leave out, once above them (nothing for hand-written graphs).
void scope_note(const std::string& scope) {
  if (!scope.empty()) text_wrapped("Names shown without their shared scope \"" + scope + "\" (the full name on hover).");
}

Step step_of(const AppState& s, OpId op) {
  for (size_t i = 0; i < s.order.size(); ++i)
    if (s.order[i] == op) return Step(i);
  return -1;
}

// No auto-repeat: each press is one deliberate edit, even when slow frames make a tap look long.
bool key_pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), false); }

// Alt+Up / Alt+Down move the selected op while this panel has focus.
void handle_move_keys(AppState& s) {
  if (s.selected_op < 0 || !ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) return;
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.KeyAlt || io.KeyCtrl) return;
  const bool up_down = ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_UpArrow)) ||
                       ImGui::IsKeyDown(ImGui::GetKeyIndex(ImGuiKey_DownArrow));
  if (!up_down) return;
  // While Alt+arrow is held the arrow belongs to us: keyboard navigation would otherwise move the
  // focus (and with it the selection) on key repeat, and Alt would toggle the menu layer. Rows
  // are identified by op name, so the focus stays on the moved op's row.
  ImGui::NavMoveRequestCancel();
  ImGui::GetCurrentContext()->NavWindowingToggleLayer = false;
  int delta = 0;
  if (key_pressed(ImGuiKey_UpArrow)) delta = -1;
  if (key_pressed(ImGuiKey_DownArrow)) delta = +1;
  if (delta != 0 && exam_lock_note(s, ExamTool::kReorder).empty()) move_op(s, step_of(s, s.selected_op), delta);
}

void draw_graph_summary(const AppState& s) {
  const Graph& g = s.graph;
  // Wrapped: with big text (a projector) or a narrow panel a figure is never cut off.
  ImGui::TextWrapped("Graph: %s", g.name.c_str());
  ImGui::TextWrapped("%d ops, %d tensors, alignment %lld B", int(g.ops.size()), int(g.tensors.size()),
                     (long long)g.alignment);
  ImGui::TextWrapped("All tensors: %s, largest: %s", kib_text(s.live.total_bytes).c_str(),
                     kib_text(s.live.largest_tensor_bytes).c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("all tensors %s, largest %s", exact_bytes_text(s.live.total_bytes).c_str(),
                      exact_bytes_text(s.live.largest_tensor_bytes).c_str());
  ImGui::TextWrapped("Peak live: %s (%lld bytes) at step %d", kib_text(s.live.peak_bytes).c_str(),
                     (long long)s.live.peak_bytes, s.live.peak_step);
}

void draw_order_editor(AppState& s) {
  ImGui::TextUnformatted("Order (select an op, then move it)");
  const NameScopes& scopes = name_scopes(s);
  scope_note(scopes.ops);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("order", 4, flags)) {
    ImGui::TableSetupColumn("Step");
    ImGui::TableSetupColumn("Op");
    ImGui::TableSetupColumn("Reads");
    ImGui::TableSetupColumn("Writes", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < s.order.size(); ++i) {
      const OpId op = s.order[i];
      const Op& o = s.graph.ops[op];
      ImGui::PushID(o.name.c_str());  // ID by name: the row (and its focus) travels with the op
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      // Text marks, not colour alone: ">" for the current step, "*" for the peak step.
      const char* mark = Step(i) == s.step ? ">" : " ";
      const char* peak = Step(i) == s.live.peak_step ? "*" : " ";
      char label[32];
      std::snprintf(label, sizeof label, "%s%s%d", mark, peak, int(i));
      if (ImGui::Selectable(label, s.selected_op == op,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
        s.selected_op = op;
        set_step(s, Step(i));
      }
      // Keyboard focus selects too, so arrows then Alt+arrows work without a click.
      if (ImGui::IsItemFocused() && !ImGui::IsMouseDown(ImGuiMouseButton_Left) && s.selected_op != op &&
          ImGui::GetIO().NavVisible && !ImGui::GetIO().KeyAlt) {
        s.selected_op = op;
        set_step(s, Step(i));
      }
      record_item_rect(s, "order.row." + o.name);
      ImGui::TableNextColumn();
      const std::string npu = runs_on_npu(o.kind) ? "  NPU" : "";
      scoped_cell(without_scope(o.name, scopes.ops) + " (" + o.kind + ")" + npu, o.name + " (" + o.kind + ")" + npu);
      ImGui::TableNextColumn();
      scoped_cell(tensor_list(s.graph, o.inputs, scopes.tensors), tensor_list(s.graph, o.inputs));
      ImGui::TableNextColumn();
      scoped_cell(tensor_list(s.graph, o.outputs, scopes.tensors), tensor_list(s.graph, o.outputs));
      ImGui::PopID();
    }
    ImGui::EndTable();
  }

  if (draw_exam_lock(s, ExamTool::kReorder)) return;
  const Step sel = step_of(s, s.selected_op);
  ImGui::BeginDisabled(sel < 0 || sel == 0);
  if (ImGui::Button("Move up")) move_op(s, sel, -1);
  ImGui::EndDisabled();
  record_item_rect(s, "order.move_up");
  ImGui::SameLine();
  ImGui::BeginDisabled(sel < 0 || sel + 1 >= Step(s.order.size()));
  if (ImGui::Button("Move down")) move_op(s, sel, +1);
  ImGui::EndDisabled();
  record_item_rect(s, "order.move_down");
  ImGui::SameLine();
  if (ImGui::Button("File order")) set_order(s, s.graph.file_order());
  record_item_rect(s, "order.reset");
  note_wrapped("Alt+Up / Alt+Down moves the selected op");
  if (!s.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kColorError);
    ImGui::TextWrapped("Refused: %s", s.error.c_str());
    ImGui::PopStyleColor();
    record_item_rect(s, "order.error");
  }
}

void draw_tensor_table(AppState& s) {
  const Graph& g = s.graph;
  ImGui::TextUnformatted("Tensors");
  const std::string& scope = name_scopes(s).tensors;
  scope_note(scope);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("tensors", 5, flags)) {
    ImGui::TableSetupColumn("Tensor");
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("Role");
    ImGui::TableSetupColumn("Live steps");
    ImGui::TableSetupColumn("Shape", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      const Tensor& x = g.tensors[t];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      scoped_cell(without_scope(x.name, scope), x.name);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_bytes(x.bytes).c_str());
      ImGui::TableNextColumn();
      const char* role = x.constant     ? "constant"
                         : x.persistent ? "persistent"
                         : g.is_input(TensorId(t))  ? "input"
                         : g.is_output(TensorId(t)) ? "output"
                                                    : "activation";
      ImGui::TextUnformatted(role);
      ImGui::TableNextColumn();
      const int b = t < s.live.buffer_of_tensor.size() ? s.live.buffer_of_tensor[t] : -1;
      if (b >= 0)
        ImGui::Text("%d..%d", s.live.buffers[b].first, s.live.buffers[b].last);
      else
        ImGui::TextDisabled("not in arena");
      ImGui::TableNextColumn();
      std::string shape;
      for (const ShapeDim& d : x.shape)
        shape += (shape.empty() ? "" : "x") + (d.symbol.empty() ? std::to_string(d.value) : d.symbol);
      if (x.dtype) shape += std::string(" ") + dtype_name(*x.dtype);
      ImGui::TextUnformatted(shape.empty() ? "-" : shape.c_str());
    }
    ImGui::EndTable();
  }
}

void draw_order_panel(AppState& s) {
  handle_move_keys(s);
  draw_graph_summary(s);
  ImGui::Separator();
  draw_order_editor(s);
  ImGui::Separator();
  draw_tensor_table(s);
}

}  // namespace

ARENAPLAN_PANEL_AT(PanelArea::kSide, 10, "Graph & order", draw_order_panel);

}  // namespace arenaplan::web
