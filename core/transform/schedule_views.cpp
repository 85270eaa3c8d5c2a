#include "core/transform/schedule_views.h"

#include <sstream>

#include "core/graph/lifetime.h"
#include "core/graph/report.h"

#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"

namespace arenaplan {

std::optional<ViewSchedule> schedule_with_views(const Graph& g, double time_limit_seconds,
                                                const ScheduleOptions& options) {
  ViewSchedule v;
  v.graph = g;
  // Each removal can make another op a view (a CONCATENATION of a SPLIT's only part) or stop one
  // being one (a reader that becomes a graph output), so candidates are found afresh each time;
  // each removes an op, so this ends.
  for (std::vector<std::string> c = view_candidates(v.graph); !c.empty(); c = view_candidates(v.graph)) {
    v.graph = apply_transformation(v.graph, parse_transformation(c.front()), {}).graph;
    v.rewrites.push_back(c.front());
  }
  if (v.rewrites.empty()) return std::nullopt;
  v.result = optimize_schedule(v.graph, time_limit_seconds, options);
  return v;
}

JsonOut view_schedule_json(const ViewSchedule& v, const ScheduleResult& file) {
  JsonOut out;
  out["rewrites"] = v.rewrites;
  out["order"] = order_json(v.graph, v.result.order);
  out["peak_bytes"] = v.result.peak_bytes;
  out["lower_bound_bytes"] = v.result.lower_bound_bytes;
  out["proven_optimal"] = v.result.proven_optimal;
  out["peak_below_file_optimum_bytes"] = file.peak_bytes - v.result.peak_bytes;
  return out;
}

std::string view_schedule_text(const ViewSchedule& v, const ScheduleResult& file, const std::string& graph_arg) {
  std::string listed, applies;
  for (const std::string& r : v.rewrites) listed += (listed.empty() ? "" : ", ") + r, applies += " --apply " + r;
  std::ostringstream out;
  out << "\nwith identity ops as views (" << listed << "): peak " << with_commas(v.result.peak_bytes) << " B, "
      << with_commas(file.peak_bytes - v.result.peak_bytes) << " B below the best order above; lower bound "
      << with_commas(v.result.lower_bound_bytes) << " B; "
      << (v.result.proven_optimal ? "proven optimal" : "not proven optimal") << "\n  order "
      << order_names(v.graph, v.result.order, "-") << "\n  arenaplan transform " << graph_arg << applies
      << " -o OUT.tflite writes that model (stock TFLM runs it)\n";
  return out.str();
}

}  // namespace arenaplan
