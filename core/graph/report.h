// JSON and text views of core results. The CLI's --json output, the browser's exported state and the tests
// all read these, so a number is computed once and spelled the same everywhere.
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"

namespace arenaplan {

using JsonOut = nlohmann::ordered_json;

// {"order": [...], "steps": [{"op", "live", "live_bytes"}], "peak_bytes", "peak_step",
//  "peak_tensors", "total_bytes", "largest_tensor_bytes"}: the `arenaplan analyze --json` contract.
JsonOut analysis_json(const Graph& g, const LiveAnalysis& a);
// Writes exactly analysis_json(g, a).dump(2), streamed: its per-step live lists are quadratic in
// the graph size on a graph with thousands of outputs, so the document is never held in memory.
void write_analysis_json(std::ostream& out, const Graph& g, const LiveAnalysis& a);
// analysis_json's members ("graph" ... "largest_tensor_bytes", no braces, no line break after the
// last) as dump(2) spells them in an object nested `depth` levels deep (1: the top level's), for
// the documents that embed the analysis (the plan report, the explained analysis) and stream it.
void write_analysis_json_members(std::ostream& out, const Graph& g, const LiveAnalysis& a, int depth);

// value.dump(indent) as it appears `depth` levels deep inside a dump(indent) document (every line
// after the first indented by indent * depth spaces): streamed documents write their small parts
// with it.
void write_json_at_depth(std::ostream& out, const JsonOut& value, int depth, int indent = 2);

// `arenaplan analyze`'s text: per step the op, live bytes and live set (the peak marked), the
// peak with its op, and the timeline picture.
std::string analysis_text(const Graph& g, const LiveAnalysis& a);
// The same, streamed (its timeline is steps x buffers characters).
void write_analysis_text(std::ostream& out, const Graph& g, const LiveAnalysis& a);

// Op names of a schedule as a JSON array.
JsonOut order_json(const Graph& g, const Schedule& order);

}  // namespace arenaplan
