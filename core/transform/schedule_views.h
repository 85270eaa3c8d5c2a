// The best operator order once identity ops are views: `arenaplan schedule` reports it beside the
// file's own optimum, because a one-way SPLIT (SwiftNet's stem) or a CONCATENATION of one tensor
// keeps a second copy of its input live that no order can avoid, and only removing the op can.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/report.h"
#include "core/schedule/schedule.h"

namespace arenaplan {

struct ViewSchedule {
  std::vector<std::string> rewrites;  // the view:OP specs applied, in order
  Graph graph;                        // the graph without those ops (what `transform -o` writes)
  ScheduleResult result;              // its best order, with its lower bound
};

// Every op that only copies its input (view_candidates) removed one after another, each found
// again on the graph the previous ones left, then the best order of what remains. nullopt when
// the graph has no such op.
std::optional<ViewSchedule> schedule_with_views(const Graph& g, double time_limit_seconds,
                                                const ScheduleOptions& options = {});

// `schedule --json`'s "views": {rewrites, order, peak_bytes, lower_bound_bytes, proven_optimal,
// peak_below_file_optimum_bytes}, and the text paragraph `schedule` prints; `file` is the
// original graph's best order, `graph_arg` how the command named the graph.
JsonOut view_schedule_json(const ViewSchedule& v, const ScheduleResult& file);
std::string view_schedule_text(const ViewSchedule& v, const ScheduleResult& file, const std::string& graph_arg);

}  // namespace arenaplan
