// JSON and text views of core results. The CLI's --json output, the browser's exported state and the tests
// all read these, so a number is computed once and spelled the same everywhere.
#pragma once

#include <functional>
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"

namespace arenaplan {

using JsonOut = nlohmann::ordered_json;

// {"graph", "order": [...], "buffers": [{"name", "size", "first", "last", "category"}],
//  "steps": [{"op", "live_bytes", "live_count"}], "peak_bytes", "peak_step", "peak_tensors",
//  "total_bytes", "largest_tensor_bytes"}: the `arenaplan analyze --json` contract. Each buffer is
// live at the steps first..last; the live set of a step is not listed (on a graph with thousands
// of outputs the lists were quadratic: 1.8 GB at 100,000 ops), only counted.
JsonOut analysis_json(const Graph& g, const LiveAnalysis& a);
// Writes exactly analysis_json(g, a).dump(2), streamed one element at a time.
void write_analysis_json(std::ostream& out, const Graph& g, const LiveAnalysis& a);
// analysis_json's members ("graph" ... "largest_tensor_bytes", no braces, no line break after the
// last) as dump(2) spells them in an object nested `depth` levels deep (1: the top level's), for
// the documents that embed the analysis (the plan report, the explained analysis) and stream it.
void write_analysis_json_members(std::ostream& out, const Graph& g, const LiveAnalysis& a, int depth);

// `"key": [element(0), ..., element(count - 1)]` as dump(2) spells that member of an object nested
// `depth` levels deep (no comma or line break after it), one element built at a time: streamed
// documents write their long lists with it.
void write_json_array_member(std::ostream& out, const std::string& key, size_t count,
                             const std::function<JsonOut(size_t)>& element, int depth);
// The same with the elements drawn from `next`, which sets its argument and returns true while
// there is one more (for lists whose length is known only once written).
void write_json_array_member(std::ostream& out, const std::string& key, const std::function<bool(JsonOut&)>& next,
                             int depth);

// value.dump(indent) as it appears `depth` levels deep inside a dump(indent) document (every line
// after the first indented by indent * depth spaces): streamed documents write their small parts
// with it.
void write_json_at_depth(std::ostream& out, const JsonOut& value, int depth, int indent = 2);

// A text view lists at most this many buffers of one step (then "+N more"): a line per step stays
// readable, and the view stays linear in the graph when thousands of buffers are live at once.
constexpr size_t kMaxNamesListed = 12;

// `arenaplan analyze`'s text: per step the op, live bytes and live set (its first kMaxNamesListed
// buffers, then "+N more"; the peak marked), the peak with its op, and the timeline picture.
std::string analysis_text(const Graph& g, const LiveAnalysis& a);
// The same, streamed (its timeline is steps x buffers characters).
void write_analysis_text(std::ostream& out, const Graph& g, const LiveAnalysis& a);

// Op names of a schedule as a JSON array.
JsonOut order_json(const Graph& g, const Schedule& order);

// One unit rule for text: whole numbers with thousands separators ("82,296"); times in ms with
// three decimals and separators ("2,225.382 ms"), whatever their size.
std::string with_commas(int64_t v);
std::string milliseconds_text(double microseconds);

}  // namespace arenaplan
