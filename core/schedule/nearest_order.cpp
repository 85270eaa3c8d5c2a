// nearest_valid_order: Kahn's algorithm ranked by the preferred order (see the header for why).
#include "core/schedule/nearest_order.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace arenaplan {

Schedule nearest_valid_order(const Graph& g, const std::vector<std::string>& preferred) {
  const size_t n = g.ops.size();
  std::vector<double> rank(n, -1);
  for (size_t i = 0; i < preferred.size(); ++i)
    if (auto op = g.find_op(preferred[i]); op && rank[*op] < 0) rank[*op] = double(i);
  const auto preds = op_predecessors(g);
  // Unranked ops in topological order, so each one's predecessors are ranked before it is.
  for (OpId op : topological_order(g)) {
    if (rank[op] >= 0) continue;
    double after = -0.5;
    for (OpId p : preds[op]) after = std::max(after, rank[p]);
    rank[op] = after + 0.5;  // between the predecessor and the op that followed it
  }
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<OpId>> succs(n);
  for (size_t op = 0; op < n; ++op)
    for (OpId p : preds[op]) {
      ++waiting[op];
      succs[p].push_back(OpId(op));
    }
  auto later = [&](OpId a, OpId b) { return std::make_pair(rank[a], a) > std::make_pair(rank[b], b); };
  std::priority_queue<OpId, std::vector<OpId>, decltype(later)> ready(later);
  for (size_t op = 0; op < n; ++op)
    if (waiting[op] == 0) ready.push(OpId(op));
  Schedule order;
  order.reserve(n);
  while (!ready.empty()) {
    const OpId op = ready.top();
    ready.pop();
    order.push_back(op);
    for (OpId next : succs[op])
      if (--waiting[next] == 0) ready.push(next);
  }
  if (order.size() != n) throw InputError("order", "the graph has a cycle: no valid order exists");
  return order;
}

}  // namespace arenaplan
