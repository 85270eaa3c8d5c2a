// Cache-lab panel: a fully associative (or set-associative) cache of C lines fed by the stride
// stream k mod s, stepped by the student. The lab itself lives in core (core/teach/cachelab.h); this
// panel keeps only the settings and the prediction the student typed, and rebuilds the lab from
// them, so the same settings always show the same history.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/teach/cachelab.h"
#include "core/teach/exercise.h"
#include "core/graph/graph.h"
#include "imgui.h"
#include "imgui_stdlib.h"
#include "web/app.h"
#include "web/panel_cache.h"
#include "web/panel_common.h"
#include "web/ui_style.h"

namespace arenaplan::web {
namespace {

constexpr ImU32 kHitColor = IM_COL32(0x00, 0x9E, 0x73, 0xFF);   // bluish green, plus "H"
constexpr ImU32 kMissColor = IM_COL32(0xD5, 0x5E, 0x00, 0xFF);  // vermillion, plus "M"
constexpr ImU32 kHiddenColor = IM_COL32(0x60, 0x60, 0x60, 0xFF);
constexpr int kPolicies = 3;
const char* const kPolicyLabels[kPolicies] = {"LRU", "FIFO", "OPT (Belady)"};

void rebuild(CachePanelState& v) {
  try {
    CacheConfig c{v.capacity, v.ways, static_cast<ReplacementPolicy>(v.policy)};
    v.lab = CacheLab(c, v.blocks.empty() ? RequestStream::strided(v.stride) : RequestStream::list(v.blocks));
    v.error.clear();
  } catch (const std::exception& e) {
    v.error = e.what();  // keep the previous lab
  }
  v.revealed = false;
  v.guesses.assign(static_cast<size_t>(v.predict_n), CacheGuess::kNone);
}

// "[-] label = value [+]" with buttons a test (or a student) can click.
bool stepper(AppState& s, const char* key, const char* label, int& value, int lo, int hi) {
  bool changed = false;
  ImGui::PushID(key);
  if (ImGui::Button("-") && value > lo) value--, changed = true;
  record_item_rect(s, std::string("cache.") + key + ".dec");
  ImGui::SameLine();
  ImGui::Text("%s = %d", label, value);
  ImGui::SameLine();
  if (ImGui::Button("+") && value < hi) value++, changed = true;
  record_item_rect(s, std::string("cache.") + key + ".inc");
  ImGui::PopID();
  return changed;
}

// Width of a stepper ("-  C (lines) = 64  +") and of a labelled widget, to reflow the row.
float stepper_width(const char* label) {
  const ImGuiStyle& st = ImGui::GetStyle();
  return 2 * ImGui::GetFrameHeight() + ImGui::CalcTextSize(label).x + ImGui::CalcTextSize(" = 00").x + 2 * st.ItemSpacing.x;
}
float labelled_width(float field, const char* label) {
  return field + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

// The requests as a typed list; empty goes back to the stride stream. A list core refuses
// leaves the lab as it was and says which entry.
bool draw_block_list(AppState& s, CachePanelState& v) {
  ImGui::SetNextItemWidth(-ImGui::CalcTextSize("requests (list)").x - ImGui::GetStyle().ItemInnerSpacing.x);
  const bool enter = ImGui::InputTextWithHint("requests (list)", "blocks, like 0 1 2 0 1 3 (empty: block k mod s)",
                                              &v.blocks_draft, ImGuiInputTextFlags_EnterReturnsTrue);
  record_item_rect(s, "cache.blocks");
  if (!enter && !ImGui::IsItemDeactivatedAfterEdit()) return false;
  try {
    v.blocks = parse_block_list(v.blocks_draft, kMaxExerciseRequests);
    v.question.clear();
    return true;
  } catch (const std::exception& e) {
    v.error = e.what();
    return false;
  }
}

void draw_settings(AppState& s, CachePanelState& v) {
  bool changed = stepper(s, "capacity", "C (lines)", v.capacity, 1, kMaxExerciseCacheLines);
  if (v.blocks.empty()) {
    same_line_if_fits(stepper_width("s (stride)"), 24);
    changed |= stepper(s, "stride", "s (stride)", v.stride, 1, 64);
  }
  const float policy_w = ImGui::CalcTextSize("OPT (Belady)").x + 40;
  same_line_if_fits(labelled_width(policy_w, "policy"), 24);
  ImGui::SetNextItemWidth(policy_w);
  changed |= ImGui::Combo("policy", &v.policy, kPolicyLabels, kPolicies);
  same_line_if_fits(labelled_width(ImGui::GetFontSize() * 6, "ways (0 = fully assoc.)"), 24);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::InputInt("ways (0 = fully assoc.)", &v.ways)) {
    v.ways = std::clamp(v.ways, 0, v.capacity);
    changed = true;
  }
  changed |= draw_block_list(s, v);
  if (changed) rebuild(v);
  if (!v.error.empty()) ImGui::TextColored(kColorError, "Refused: %s", v.error.c_str());
}

bool hidden(const CachePanelState& v, int64_t k) { return v.predicting && !v.revealed && k < v.predict_n; }

// What a run did, for the aria-live region; outcomes still to be predicted stay unsaid.
std::string cache_announcement(const CachePanelState& v) {
  const auto& h = v.lab.history();
  if (h.empty()) return "Cache lab: no requests yet.";
  const CacheAccess& a = h.back();
  if (hidden(v, a.k)) return "Cache lab: " + std::to_string(h.size()) + " requests run; outcomes hidden until you reveal them.";
  return "Cache lab: request " + std::to_string(a.k) + " (block " + std::to_string(a.block) + ") " +
         (a.hit ? "hit" : "missed") + (a.evicted ? ", evicting block " + std::to_string(*a.evicted) : std::string()) + "; " +
         std::to_string(h.size()) + " requests, " + std::to_string(v.lab.hits()) + " hits, " +
         std::to_string(v.lab.misses()) + " misses.";
}

void draw_controls(AppState& s, CachePanelState& v) {
  if (ImGui::Button("Reset")) {
    rebuild(v);
    s.announcement = cache_announcement(v);
  }
  record_item_rect(s, "cache.reset");
  ImGui::SameLine();
  if (ImGui::Button("Step")) {
    v.lab.step();
    s.announcement = cache_announcement(v);
  }
  record_item_rect(s, "cache.step");
  ImGui::SameLine();
  char label[32];
  std::snprintf(label, sizeof label, "Run %d", v.run_count);
  if (ImGui::Button(label)) {
    v.lab.run(v.run_count);
    s.announcement = cache_announcement(v);
  }
  record_item_rect(s, "cache.run");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::InputInt("##run_count", &v.run_count);
  v.run_count = std::clamp(v.run_count, 1, 100000);
  same_line_if_fits(ImGui::CalcTextSize("requests 0000   hits 0000   misses 0000   hit rate 100 %").x, 24);
  const auto n = static_cast<long long>(v.lab.history().size());
  ImGui::Text("requests %lld   hits %lld   misses %lld   hit rate %.0f %%", n, (long long)v.lab.hits(),
              (long long)v.lab.misses(), n ? 100.0 * double(v.lab.hits()) / double(n) : 0.0);
}

// The cache lines after the last request, most recent first, one row per set.
void draw_lines(const CachePanelState& v) {
  const CacheLab& lab = v.lab;
  const float box = ImGui::GetFontSize() * 2.4f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const bool last_hidden = !lab.history().empty() && hidden(v, lab.history().back().k);
  ImGui::Text("Cache lines (most recent first):");
  std::vector<Block> contents = lab.history().empty() ? std::vector<Block>{} : lab.history().back().contents;
  size_t at = 0;
  for (int set = 0; set < lab.sets(); ++set) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    if (lab.sets() > 1) dl->AddText(ImVec2(origin.x, origin.y + box * 0.3f), kTextColor, ("set " + std::to_string(set)).c_str());
    const float x0 = origin.x + (lab.sets() > 1 ? ImGui::CalcTextSize("set 00 ").x : 0);
    // Lines of this set are the next entries of `contents` whose block maps to it.
    int drawn = 0;
    for (; at < contents.size() && contents[at] % lab.sets() == set; ++at, ++drawn) {
      const ImVec2 p0(x0 + float(drawn) * (box + 6), origin.y);
      dl->AddRect(p0, ImVec2(p0.x + box, p0.y + box), kTextColor, 3, 0, 1.5f);
      const std::string label = last_hidden ? "?" : std::to_string(contents[at]);
      const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
      dl->AddText(ImVec2(p0.x + (box - ts.x) / 2, p0.y + (box - ts.y) / 2), kTextColor, label.c_str());
    }
    for (; drawn < lab.config().ways; ++drawn) {
      const ImVec2 p0(x0 + float(drawn) * (box + 6), origin.y);
      dl->AddRect(p0, ImVec2(p0.x + box, p0.y + box), kGridColor, 3, 0, 1.0f);
    }
    ImGui::Dummy(ImVec2(x0 - origin.x + float(lab.config().ways) * (box + 6), box + 4));
  }
}

// The request tape: the latest requests as boxes, block number plus H or M (hidden ones as "?").
void draw_tape(CachePanelState& v) {
  const auto& h = v.lab.history();
  const float box = ImGui::GetFontSize() * 2.0f;
  const int fit = std::max(1, int(ImGui::GetContentRegionAvail().x / (box + 4)));
  const int first = std::max(0, int(h.size()) - fit);
  ImGui::Text("Request tape (k: block, H = hit, M = miss):");
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int i = first; i < int(h.size()); ++i) {
    const CacheAccess& a = h[i];
    const bool hide = hidden(v, a.k);
    const ImVec2 p0(origin.x + float(i - first) * (box + 4), origin.y);
    dl->AddRectFilled(p0, ImVec2(p0.x + box, p0.y + box * 1.5f), hide ? kHiddenColor : a.hit ? kHitColor : kMissColor, 3);
    dl->AddText(ImVec2(p0.x + 3, p0.y + 2), kTextColor, std::to_string(a.block).c_str());
    dl->AddText(ImVec2(p0.x + 3, p0.y + box * 0.75f), kTextColor, hide ? "?" : a.hit ? "H" : "M");
  }
  ImGui::Dummy(ImVec2(float(fit) * (box + 4), box * 1.5f + 4));
}

void draw_hit_rate(const CachePanelState& v) {
  const auto rate = hit_rate_series(v.lab.history());
  if (rate.size() < 2 || hidden(v, 0)) return;
  std::vector<float> values(rate.begin(), rate.end());
  ImGui::PlotLines("hit rate over time", values.data(), int(values.size()), 0, nullptr, 0.0f, 1.0f,
                   ImVec2(ImGui::GetContentRegionAvail().x * 0.6f, ImGui::GetFontSize() * 4));
}

void draw_prediction(AppState& s, CachePanelState& v) {
  if (ImGui::Checkbox("Prediction mode: hide outcomes, predict first", &v.predicting)) rebuild(v);
  record_item_rect(s, "cache.predict");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::InputInt("requests##predict_n", &v.predict_n)) {
    v.predict_n = std::clamp(v.predict_n, 1, 64);
    rebuild(v);
  }
  if (!v.predicting) return;
  ImGui::TextWrapped("Click each request to cycle your guess (? -> H -> M), run the lab, then reveal.");
  for (int k = 0; k < v.predict_n; ++k) {
    ImGui::PushID(k);
    const CacheGuess g = v.guesses[k];
    char label[32];
    std::snprintf(label, sizeof label, "%d:%s", k, g == CacheGuess::kHit ? "H" : g == CacheGuess::kMiss ? "M" : "?");
    if (ImGui::Button(label) && !v.revealed) v.guesses[k] = CacheGuess((int(g) + 1) % 3);
    record_item_rect(s, "cache.guess." + std::to_string(k));
    ImGui::PopID();
    if ((k + 1) % 16 != 0) same_line_if_fits(button_width("00:M"));
  }
  if (ImGui::GetCursorPosX() > ImGui::GetCursorStartPos().x) ImGui::NewLine();
  const bool enough = int64_t(v.lab.history().size()) >= v.predict_n;
  ImGui::BeginDisabled(!enough || v.revealed);
  if (ImGui::Button("Reveal and score")) v.revealed = true;
  ImGui::EndDisabled();
  record_item_rect(s, "cache.reveal");
  if (!enough) {
    ImGui::SameLine();
    ImGui::TextDisabled("(run at least %d requests first)", v.predict_n);
  }
  if (v.revealed) {
    std::vector<bool> predicted;
    for (CacheGuess g : v.guesses) predicted.push_back(g == CacheGuess::kHit);
    const PredictionScore score = score_prediction(v.lab.history(), predicted);
    ImGui::SameLine();
    ImGui::Text("Score: %lld / %lld correct", (long long)score.correct, (long long)score.total);
  }
}

void draw_cache_lab(AppState& s) {
  CachePanelState& v = s.cache;
  ImGui::TextWrapped(
      "A cache is not an arena: there is no tensor graph, no offsets, no scratch and no "
      "asynchronous consumer here. A block is in one of C lines or not, and the replacement "
      "policy decides which block leaves. Request k touches block k mod s, or the k-th block of a typed list.");
  if (!v.question.empty()) ImGui::TextWrapped("Loaded from the question \"%s\": its cache and its requests.", v.question.c_str());
  ImGui::Separator();
  draw_settings(s, v);
  draw_controls(s, v);
  ImGui::Separator();
  draw_lines(v);
  draw_tape(v);
  draw_hit_rate(v);
  ImGui::Separator();
  draw_prediction(s, v);
}

JsonOut export_cache_lab(const AppState& s) {
  const CachePanelState& v = s.cache;
  JsonOut out = cache_report_json(v.lab);
  out.erase("trace");  // the tape is long; tests read the counters and the last contents
  out["stride"] = v.stride;
  out["blocks"] = v.blocks;
  out["question"] = v.question;
  out["contents"] = v.lab.history().empty() ? JsonOut::array() : JsonOut(v.lab.history().back().contents);
  out["predicting"] = v.predicting;
  out["revealed"] = v.revealed;
  if (v.revealed) {
    std::vector<bool> predicted;
    for (CacheGuess g : v.guesses) predicted.push_back(g == CacheGuess::kHit);
    out["score"] = score_prediction(v.lab.history(), predicted).correct;
  }
  return out;
}

// The lab's settings and how many requests ran: the history is rebuilt from them on load.
JsonOut save_cache_lab(const AppState& s) {
  const CachePanelState& v = s.cache;
  JsonOut out = {{"capacity", v.capacity}, {"stride", v.stride}, {"ways", v.ways}, {"policy", policy_name(ReplacementPolicy(v.policy))},
                 {"requests", static_cast<int64_t>(v.lab.history().size())}, {"run_count", v.run_count}};
  if (!v.blocks.empty()) out["blocks"] = block_list_text(v.blocks);
  return out;
}

void load_cache_lab(AppState& s, const JsonOut& j) {
  auto get = [&](const char* key, int lo, int hi, int fallback) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < lo || j[key].get<int64_t>() > hi)
      throw InputError(std::string("share link /panels/cache/") + key,
                       "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return j[key].get<int>();
  };
  CachePanelState v;
  v.capacity = get("capacity", 1, kMaxExerciseCacheLines, 4);
  v.stride = get("stride", 1, 64, 4);
  v.ways = get("ways", 0, v.capacity, 0);
  v.run_count = get("run_count", 1, 100000, 16);
  if (j.contains("policy")) {
    if (!j["policy"].is_string()) throw InputError("share link /panels/cache/policy", "expected lru, fifo or opt");
    v.policy = int(policy_from_name(j["policy"].get<std::string>(), "share link /panels/cache/policy"));
  }
  if (j.contains("blocks")) {
    if (!j["blocks"].is_string()) throw InputError("share link /panels/cache/blocks", "expected a list of blocks as text, like \"0 1 2 0\"");
    try {
      v.blocks = parse_block_list(j["blocks"].get<std::string>(), kMaxExerciseRequests);
    } catch (const InputError& e) {
      throw InputError("share link /panels/cache/blocks", e.what());
    }
    v.blocks_draft = block_list_text(v.blocks);
  }
  const int requests = get("requests", 0, 100000, 0);
  rebuild(v);
  if (!v.error.empty()) throw InputError("share link /panels/cache", v.error);
  v.lab.run(requests);
  s.cache = std::move(v);  // only a fully valid section replaces the lab
}

}  // namespace

void load_cache_question(AppState& s, const Exercise& ex) {
  CachePanelState v;
  v.capacity = ex.cache.lines;
  v.ways = ex.cache.ways;
  v.policy = static_cast<int>(ex.cache.policy);
  if (ex.stride > 0) {
    v.stride = static_cast<int>(ex.stride);
  } else {
    v.blocks = ex.blocks;
    v.blocks_draft = block_list_text(ex.blocks);
  }
  v.run_count = static_cast<int>(std::min<int64_t>(ex.requests, 100000));
  v.question = ex.title;
  rebuild(v);
  if (!v.error.empty()) {
    s.cache.error = "The question's cache could not be loaded: " + v.error;
    return;
  }
  s.cache = std::move(v);
  s.requested_panel = "Cache lab";
}

ARENAPLAN_SHARE_SECTION("cache", save_cache_lab, load_cache_lab);
ARENAPLAN_PANEL_AT(PanelArea::kMain, 900, "Cache lab", draw_cache_lab);
ARENAPLAN_STATE_EXPORT("cache", export_cache_lab);

}  // namespace arenaplan::web
