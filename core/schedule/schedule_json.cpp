#include "core/schedule/schedule_json.h"

namespace arenaplan {

JsonOut enumeration_json(const Graph& g, const Enumeration& e) {
  JsonOut out;
  // count is a JSON integer only when exact and below 2^63; otherwise null, and count_text says
  // what is known ("more than 2^128", "unknown (...)") or gives the exact decimal digits.
  if (e.count.exact()) out["count"] = static_cast<int64_t>(e.count.value);
  else out["count"] = nullptr;
  out["count_exact"] = e.count.exact();
  out["count_text"] = e.count.text();
  JsonOut orders = JsonOut::array();
  for (const OrderPeak& o : e.orders)
    orders.push_back({{"order", order_json(g, o.order)}, {"peak_bytes", o.peak_bytes}});
  out["orders"] = orders;
  out["min_peak_bytes"] = e.min_peak_bytes;
  out["max_peak_bytes"] = e.max_peak_bytes;
  out["listed"] = static_cast<int64_t>(e.orders.size());
  out["scanned"] = e.scanned;
  out["peaks_over_all_orders"] = e.scanned_all;
  return out;
}

JsonOut schedule_json(const Graph& g, const ScheduleResult& r) {
  JsonOut out;
  out["order"] = order_json(g, r.order);
  out["peak_bytes"] = r.peak_bytes;
  out["baseline_peak_bytes"] = r.baseline_peak_bytes;
  out["lower_bound_bytes"] = r.lower_bound_bytes;
  out["proven_optimal"] = r.proven_optimal;
  out["states_explored"] = r.states_explored;
  out["seconds"] = r.seconds;
  out["method"] = r.method;
  out["memory_bytes"] = r.memory_bytes;
  out["memory_cap_bytes"] = r.memory_cap_bytes;
  out["memory_cap_hit"] = r.memory_cap_hit;
  out["gap_to_lower_bound"] =
      r.lower_bound_bytes > 0 ? static_cast<double>(r.peak_bytes - r.lower_bound_bytes) / r.lower_bound_bytes : 0.0;
  out["explanation"] = r.explanation;
  return out;
}

}  // namespace arenaplan
