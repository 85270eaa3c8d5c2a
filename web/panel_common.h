// Small pieces several panels share: the one unit rule for sizes, text that never runs past its
// panel (wrapped or elided with the full text on hover), labels that never overprint, plurals.
#pragma once

#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "imgui.h"
#include "web/app.h"

namespace arenaplan::web {

// The unit rule of the page (core's format_size): below 1 MiB in KiB ("136 KiB", "12.5 KiB" with
// `decimals` places), from 1 MiB in MiB ("3.50 MiB"), below 1 KiB in bytes ("12 B"). Exact bytes go
// in tooltips (bytes_tooltip) so the short form never hides a number.
std::string kib_text(Bytes b, int decimals = 1);
// "196,608 bytes": the exact figure behind a short size.
std::string exact_bytes_text(Bytes b);
// After a widget showing a size: hovering it shows the exact bytes.
void bytes_tooltip(Bytes b);

// "1 hole", "2 holes".
std::string plural(int64_t n, const char* one, const char* many);

// A model's name fit for titles and file names: generated suffixes (".tflite", ".generated")
// and converter prefixes ("keras2tflite_") dropped, long names shortened in the middle.
std::string human_model_title(const std::string& name);

// `text` cut to fit `width` pixels, ending in "..." when cut (whole UTF-8 characters).
std::string elide_to_width(const std::string& text, float width);
// A tooltip with the whole of a text shown shortened (elided, or without its scope).
void full_text_tooltip(const std::string& text);

// The scopes the graph's op names and tensor names share (core's common_name_prefix, by
// graph_revision): a converted model's "model_1/tf.math." would fill every label. Views show
// names without_scope, with the full name on hover.
const NameScopes& name_scopes(AppState& s);
std::string without_scope(const std::string& name, const std::string& scope);

// One line of text that fits the space left on the line: elided with "..." when it would run
// past the panel, the full text then shown on hover. Returns true when it was elided.
bool text_elided(const std::string& text, ImU32 color = 0);
// A long message (a refusal, a reason, a result): wrapped at the panel's edge, never cut.
void text_wrapped(const std::string& text, const ImVec4* color = nullptr);
// Dimmed and wrapped: hints, notes and warnings beside the figures.
void note_wrapped(const std::string& text);

// A label drawn straight into a draw list (bars, charts): drawn only when it fits inside `box`
// and does not overlap a label already in `taken`; recorded for the overprint checks of the
// browser tests (`labels` in the exported state). Returns whether it was drawn.
bool draw_label(AppState& s, ImDrawList* dl, const char* owner, ImVec2 pos, ImU32 color, const std::string& text,
                const ImVec4& box, std::vector<ImVec4>& taken);

// Puts the next widget (about `next_width` wide) on the same line when it fits before the
// panel's right edge, else on a new line: rows of controls reflow at small sizes and big text.
void same_line_if_fits(float next_width, float spacing = -1.0f);

// The width ImGui::Button(label) takes: its text and the frame's padding.
float button_width(const char* label);

// Alt+Left / Alt+Right step through the current order while the calling panel has focus.
void handle_step_keys(AppState& s);

}  // namespace arenaplan::web
