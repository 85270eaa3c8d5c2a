// Budget tab, TFLM section: for a graph opened from a .tflite, the whole `tensor_arena_size` TFLM
// needs, with TFLM's own planner and with arenaplan's offline plan for the current order, and the
// breakdown by category. The same core call as `arenaplan budget MODEL --board B` and the figure
// File > Export's C header carries (core/session's tflm_comparison_of, the session's plan policy:
// the offline figure is that of the file the page's tflite-offline export writes). The kernels and
// core chosen here are those of the page's C header and JSON report too.
#include "web/budget_tflm.h"

#include "imgui.h"
#include "web/page_exports.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

// For the current order: the figures of the C header File > Export writes now.
const TflmArenaView& tflm_view(const AppState& s) {
  return s.tflm_arena.get({s.revision, s.tflm_target_version, s.budget.board_version}, [&](TflmArenaView& v) {
    v = TflmArenaView();
    if (!current_model(s)) return;
    try {
      v.comparison = tflm_comparison_of(export_input(s), page_export_request(s, ExportFormat::kCHeader));
    } catch (const std::exception& e) {
      v.error = e.what();
    }
  });
}

void draw_categories(const TflmArena& a) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("tflm_categories", 3, flags)) return;
  ImGui::TableSetupColumn("Persistent (tail)", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Count", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("00000").x);
  ImGui::TableSetupColumn("Used", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("000.0 KiB").x);
  ImGui::TableHeadersRow();
  auto row = [](const std::string& name, int count, Bytes bytes) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    text_elided(name);
    ImGui::TableNextColumn();
    ImGui::Text("%d", count);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(kib_text(bytes).c_str());
    bytes_tooltip(bytes);
  };
  for (const TflmCategory& c : a.categories) row(c.name, c.count, c.used_bytes);
  row("allocator objects, builtin data, padding", 0, a.unrecorded_tail_bytes);
  ImGui::EndTable();
}

// The cores the page offers (the CLI's --core takes these and more); "" = none chosen: the
// board's core, else 32-bit pointers and 4-byte enums (the CLI's default without a board).
constexpr const char* kPageCores[] = {"", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7",
                                      "cortex-m33", "cortex-m55", "cortex-m85"};

void draw_target_choice(AppState& s) {
  int kernels = s.tflm_target.kernels == TflmKernels::kCmsisNn ? 1 : 0;
  int core = 0;
  for (int i = 0; i < IM_ARRAYSIZE(kPageCores); ++i)
    if (s.tflm_target.core == kPageCores[i]) core = i;
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("reference kernels").x + ImGui::GetFrameHeight() * 2);
  changed |= ImGui::Combo("Kernels", &kernels, "reference kernels\0CMSIS-NN\0");
  ImGui::SameLine();
  const std::string none = s.budget.loaded && !s.budget.board.core.empty()
                               ? "the board's (" + s.budget.board.core + ")"
                               : std::string("any 32-bit");
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(none.c_str()).x + ImGui::GetFrameHeight() * 2);
  if (ImGui::BeginCombo("Core", core == 0 ? none.c_str() : kPageCores[core])) {
    for (int i = 0; i < IM_ARRAYSIZE(kPageCores); ++i)
      if (ImGui::Selectable(i == 0 ? none.c_str() : kPageCores[i], i == core)) {
        core = i;
        changed = true;
      }
    ImGui::EndCombo();
  }
  if (!changed) return;
  const TflmKernels k = kernels == 1 ? TflmKernels::kCmsisNn : TflmKernels::kReference;
  TflmTarget t;
  if (core > 0) t = tflm_target_for_core(kPageCores[core], k);
  t.kernels = k;
  set_tflm_target(s, t);
}

// The firmware's flash for the opened model: the same core call and line as `arenaplan budget
// MODEL --board B [--kernels K --core C --opt O]` prints (cheap: a table lookup per op kind).
struct FlashLine {
  FlashEstimate estimate;
  FlashCheck check;
};
FlashLine flash_line(const AppState& s, const OpenedModel& model) {
  const TflmTarget t = page_tflm_target(s);
  const std::string core = t.core.empty() && s.budget.loaded ? s.budget.board.core : t.core;
  FlashLine f{flash_estimate_kinds(model.kernel_kinds, static_cast<Bytes>(model.bytes.size()), {t.kernels, s.flash_opt, core}), {}};
  f.check = check_flash(f.estimate, s.budget.loaded ? s.budget.board.flash_bytes : 0);
  return f;
}

void draw_flash(AppState& s, const OpenedModel& model) {
  int opt = s.flash_opt == FlashOpt::kO2 ? 1 : 0;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("-O2").x + ImGui::GetFrameHeight() * 2);
  if (ImGui::Combo("Optimisation (flash)", &opt, "-Os\0-O2\0")) {
    s.flash_opt = opt == 1 ? FlashOpt::kO2 : FlashOpt::kOs;
    request_redraw(s);
  }
  const FlashLine f = flash_line(s, model);
  std::string line = flash_text(f.estimate, f.check);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  text_wrapped(line, f.check.fits ? nullptr : &kColorError);
}

}  // namespace

TflmTarget page_tflm_target(const AppState& s) {
  if (!s.tflm_target.core.empty() || !s.budget.loaded) return s.tflm_target;
  return tflm_target_for_board_core(s.budget.board.core, s.tflm_target.kernels);
}

void set_tflm_target(AppState& s, const TflmTarget& t) {
  check_tflm_target(t);
  s.tflm_target = t;
  ++s.tflm_target_version;
  request_redraw(s);
}

const TflmArena* tflm_offline_arena(const AppState& s) {
  const TflmArenaView& v = tflm_view(s);
  return current_model(s) && v.comparison ? &v.comparison->offline : nullptr;
}

namespace {

// What a share link made with a model open could not carry, while its graph is open.
const std::string* carried_note(const AppState& s) {
  if (s.carried_tflm_note.empty() || s.carried_tflm_revision != s.graph_revision) return nullptr;
  return &s.carried_tflm_note;
}

// The share link's "tflm" section: the TFLM target always; with a model open, the model and the
// figures the sender saw. The file itself never travels (a link holds the graph), so the receiver
// is told what is missing instead of being shown figures of another model.
JsonOut save_tflm(const AppState& s) {
  JsonOut out = {{"kernels", tflm_kernels_name(s.tflm_target.kernels)}, {"core", s.tflm_target.core}};
  const OpenedModel* model = current_model(s);
  const TflmArenaView& v = tflm_view(s);
  if (model && v.comparison) {
    const TflmArenaComparison& c = *v.comparison;
    out["model"] = model->graph.name;
    out["tflm_planner_arena_bytes"] = c.tflm.min_arena_bytes;
    out["offline_plan_arena_bytes"] = c.offline.min_arena_bytes;
    out["persistent_bytes"] = tflm_persistent_bytes(c.offline);
    out["target"] = tflm_target_text(c.offline.target);
  }
  return out;
}

void load_tflm(AppState& s, const JsonOut& j) {
  TflmTarget t;
  const std::string core = j.at("core").get<std::string>();
  const TflmKernels kernels = parse_tflm_kernels(j.at("kernels").get<std::string>());
  if (!core.empty()) t = tflm_target_for_core(core, kernels);
  t.kernels = kernels;
  set_tflm_target(s, t);
  s.carried_tflm_note.clear();
  if (!j.contains("model")) return;
  const auto bytes = [&](const char* key) { return exact_bytes_text(j.at(key).get<Bytes>()); };
  s.carried_tflm_note = "This link was made with the model " + j.at("model").get<std::string>() +
                        " open. A link carries its graph, not the .tflite, so TFLM's figures are not recomputed "
                        "here, and the board keeps its own persistent reservation: the sender saw tensor_arena_size " +
                        bytes("offline_plan_arena_bytes") + " with arenaplan's offline plan (TFLM's own planner " +
                        bytes("tflm_planner_arena_bytes") + ", persistent part " + bytes("persistent_bytes") + ", " +
                        j.at("target").get<std::string>() + "). Open the .tflite to see them here.";
  s.carried_tflm_revision = s.graph_revision;
  show_notice(s, "The link's model file is not in the link: see the Budget tab");
}

}  // namespace

void draw_tflm_arena(AppState& s) {
  const TflmArenaView& v = tflm_view(s);
  if (!current_model(s)) {  // only a graph opened from a .tflite has a TFLM arena
    if (const std::string* note = carried_note(s)) {
      ImGui::Separator();
      note_wrapped(*note);
    }
    return;
  }
  ImGui::Separator();
  if (!ImGui::CollapsingHeader("TFLM: the whole tensor_arena_size", ImGuiTreeNodeFlags_DefaultOpen)) return;
  draw_target_choice(s);
  draw_flash(s, *current_model(s));
  if (!v.comparison) {
    text_wrapped("TFLM cannot run this model: " + v.error);
    return;
  }
  const TflmArenaComparison& c = *v.comparison;
  text_wrapped(tflm_comparison_sentence(c));
  const TflmArena& a = c.offline;
  text_wrapped("With the offline plan: head (the plan, " + std::to_string(a.scratch_buffers) + " scratch buffers) " +
               kib_text(a.head_bytes) + " + tail (persistent) " + kib_text(a.tail_bytes) + " = arena_used_bytes " +
               kib_text(a.arena_used_bytes) + "; minimum tensor_arena_size " + exact_bytes_text(a.min_arena_bytes) +
               " (" + tflm_target_text(a.target) + ", " + a.tflm_version + ").");
  text_wrapped("The board's persistent reservation is replaced by the model's " + kib_text(tflm_persistent_bytes(a)) +
               " (tail + AllocateTensors temporaries), as `arenaplan budget` does.");
  draw_categories(a);
  if (!a.estimated_ops.empty())
    note_wrapped("Estimated (kernels not modelled, rounded up): " + std::to_string(a.estimated_ops.size()) +
                 " ops, e.g. " + a.estimated_ops.front());
}

JsonOut export_flash(const AppState& s) {
  const OpenedModel* model = current_model(s);
  if (!model) return nullptr;
  const FlashLine f = flash_line(s, *model);
  return flash_json(f.estimate, f.check);
}

JsonOut export_tflm_arena(const AppState& s) {
  const TflmArenaView& v = tflm_view(s);
  if (!current_model(s)) {
    if (const std::string* note = carried_note(s)) return {{"not_carried", *note}};
    return nullptr;
  }
  if (!v.comparison) return {{"error", v.error}};
  return tflm_comparison_json(*v.comparison);
}

ARENAPLAN_SHARE_SECTION("tflm", save_tflm, load_tflm);

}  // namespace arenaplan::web
