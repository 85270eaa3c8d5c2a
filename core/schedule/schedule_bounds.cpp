// Why no order can do better: a lower bound valid for every order, and for small graphs the case
// argument the article makes ("whichever branch runs first, these tensors coexist").
#include <algorithm>
#include <map>
#include <set>

#include "core/schedule/schedule.h"
#include "core/schedule/detail/schedule_model.h"

namespace arenaplan {

using schedule_detail::LiveModel;
using schedule_detail::Word;

LowerBound schedule_lower_bound(const Graph& g) {
  LiveModel m(g);
  const int n = m.ops();
  const int nt = static_cast<int>(g.tensors.size());
  LowerBound best;

  // Positions in a topological order: an ancestor always comes first, which bounds the searches.
  std::vector<int> pos(n);
  {
    const std::vector<OpId> topo = topological_order(g);
    for (int i = 0; i < n; ++i) pos[topo[i]] = i;
  }

  std::vector<int> seen_at(m.groups(), -1);  // stamp per group: dedup without a per-op array
  int stamp = 0;
  auto consider = [&](OpId op, const std::vector<TensorId>& tensors, Bytes extra) {
    ++stamp;
    Bytes sum = extra;
    std::vector<TensorId> named;
    for (TensorId t : tensors) {
      int grp = m.group(t);
      if (grp < 0 || seen_at[grp] == stamp) continue;
      seen_at[grp] = stamp;
      sum += m.group_bytes(grp);
      named.push_back(t);
    }
    if (sum > best.bytes) best = {sum, op, named};
  };

  std::vector<TensorId> always;
  for (int t = 0; t < nt; ++t)
    if (m.always_live(t)) always.push_back(t);

  // Live while o runs in every order: its inputs and outputs, persistent state, tensors made by
  // an ancestor that a descendant still reads or that are kept to the end, and graph inputs o or
  // a descendant reads. Gathered per tensor by searching only the ops between its producer and
  // its last consumer (in topological position), not by an ops x ops ancestor matrix, so the cost
  // follows the sizes of these sets: linear on chain-like graphs.
  std::vector<std::vector<TensorId>> needed(n);  // per op, ascending tensor ids
  std::vector<int> down_at(n, -1), up_at(n, -1);  // stamps: reached forward / backward for tensor t
  std::vector<OpId> queue;
  for (int t = 0; t < nt; ++t) {
    if (m.group(t) < 0 || m.always_live(t)) continue;
    const Tensor& tensor = g.tensors[t];
    if (m.produced(t) && m.pinned(t)) {  // every strict descendant of the producer
      queue.clear();
      for (OpId s : m.succs()[tensor.producer])
        if (down_at[s] != t) down_at[s] = t, queue.push_back(s);
      for (size_t i = 0; i < queue.size(); ++i)
        for (OpId s : m.succs()[queue[i]])
          if (down_at[s] != t) down_at[s] = t, queue.push_back(s);
      for (OpId o : queue) needed[o].push_back(t);
      continue;
    }
    if (tensor.consumers.empty()) continue;
    int lo = -1, hi = -1;  // an op needing t lies strictly between these positions
    if (m.produced(t)) {
      lo = pos[tensor.producer];
      for (OpId c : tensor.consumers) hi = std::max(hi, pos[c]);
      queue.clear();
      for (OpId s : m.succs()[tensor.producer])
        if (pos[s] < hi && down_at[s] != t) down_at[s] = t, queue.push_back(s);
      for (size_t i = 0; i < queue.size(); ++i)
        for (OpId s : m.succs()[queue[i]])
          if (pos[s] < hi && down_at[s] != t) down_at[s] = t, queue.push_back(s);
    }
    // Strict ancestors of the consumers; for a produced tensor only those below the producer (an
    // op that is not, has no ancestor that is).
    auto admit = [&](OpId o) { return up_at[o] != t && pos[o] > lo && (!m.produced(t) || down_at[o] == t); };
    queue.clear();
    for (OpId c : tensor.consumers)
      for (OpId p : m.preds()[c])
        if (admit(p)) up_at[p] = t, queue.push_back(p);
    for (size_t i = 0; i < queue.size(); ++i)
      for (OpId p : m.preds()[queue[i]])
        if (admit(p)) up_at[p] = t, queue.push_back(p);
    for (OpId o : queue) needed[o].push_back(t);
  }
  for (OpId o = 0; o < n; ++o) {
    std::vector<TensorId> live = always;
    for (TensorId t : g.ops[o].inputs) live.push_back(t);
    for (TensorId t : g.ops[o].outputs) live.push_back(t);
    live.insert(live.end(), needed[o].begin(), needed[o].end());
    consider(o, live, m.scratch(o));
  }
  // The first step holds every graph input in the arena, plus the first op's outputs and scratch.
  std::vector<TensorId> inputs = always;
  for (int t = 0; t < nt; ++t)
    if (m.graph_input(t)) inputs.push_back(t);
  LowerBound first_step;
  first_step.bytes = -1;
  for (OpId o = 0; o < n; ++o) {
    if (!m.preds()[o].empty()) continue;
    std::vector<TensorId> live = inputs;
    for (TensorId t : g.ops[o].outputs) live.push_back(t);
    LowerBound saved = best;
    best = {};
    consider(o, live, m.scratch(o));
    if (first_step.bytes < 0 || best.bytes < first_step.bytes) first_step = best;
    best = saved;
  }
  if (first_step.bytes > best.bytes) best = first_step;
  return best;
}

namespace {

std::string kib(Bytes b) { return format_bytes(b); }

// Why tensor `t`, live while `op` runs at step `s` of `a`, is still there.
std::string reason(const Graph& g, const LiveAnalysis& a, const LiveBuffer& buf, OpId op, Step s) {
  if (buf.category == ArenaCategory::kTail) return "persistent";
  for (TensorId t : buf.tensors) {
    const Op& o = g.ops[op];
    if (std::find(o.inputs.begin(), o.inputs.end(), t) != o.inputs.end()) return "";
    if (std::find(o.outputs.begin(), o.outputs.end(), t) != o.outputs.end()) return "";
  }
  std::string why;
  for (TensorId t : buf.tensors) {
    if (g.is_output(t) || g.tensors[t].retained) return "kept to the end";
    for (OpId c : g.tensors[t].consumers) {
      Step cs = -1;
      for (size_t i = 0; i < a.order.size(); ++i)
        if (a.order[i] == c) cs = static_cast<Step>(i);
      if (cs > s) why += (why.empty() ? "still needed by " : ", ") + g.ops[c].name;
    }
  }
  return why;
}

}  // namespace

std::string explain_optimum(const Graph& g, Bytes optimum, int64_t max_orders) {
  OrderCount count = count_orders(g, 1 << 16);
  if (!count.exact() || count.value > static_cast<unsigned __int128>(max_orders)) return "";
  // Every order's steps at or above the optimum, as (op, live buffers) witnesses; then a greedy
  // cover: the fewest witnesses such that every order contains one of them.
  struct Witness {
    std::string text;
    std::string example;
    Bytes bytes = 0;
    std::set<int64_t> orders;
  };
  std::map<std::string, Witness> witnesses;
  std::vector<std::string> order_names_list;
  OrderEnumerator e(g);
  int64_t index = 0;
  while (e.next()) {
    LiveAnalysis a = analyze_lifetimes(g, e.order());
    order_names_list.push_back(order_names(g, a.order, "-"));
    LiveSweep sweep(a);
    for (size_t s = 0; s < a.steps.size(); ++s) {
      const StepLive& st = a.steps[s];
      if (st.live_bytes < optimum) continue;
      std::string key = g.ops[st.op].name + ":";
      std::string names, why;
      for (int b : sweep.at(static_cast<Step>(s))) {
        const LiveBuffer& buf = a.buffers[b];
        key += buf.name + ",";
        names += (names.empty() ? "" : " + ") + buf.name;
        std::string r = buf.kind == BufferKind::kScratch ? "" : reason(g, a, buf, st.op, static_cast<Step>(s));
        if (!r.empty()) why += (why.empty() ? "" : "; ") + buf.name + " " + r;
      }
      Witness& wi = witnesses[key];
      if (wi.text.empty()) {
        wi.text = "while " + g.ops[st.op].name + " runs, " + names + " = " + kib(st.live_bytes) +
                  (why.empty() ? "" : " (" + why + ")");
        wi.example = order_names_list.back();
        wi.bytes = st.live_bytes;
      }
      wi.orders.insert(index);
    }
    ++index;
  }
  std::set<int64_t> uncovered;
  for (int64_t i = 0; i < index; ++i) uncovered.insert(i);
  std::string out = "No order peaks below " + kib(optimum) + ": each of the " + std::to_string(index) +
                    " orders has one of these steps:\n";
  // Greedy cover, preferring the steps closest to the optimum (they are the binding cases).
  std::vector<std::pair<const Witness*, size_t>> picks;
  while (!uncovered.empty()) {
    const Witness* pick = nullptr;
    size_t gain = 0;
    for (const auto& [key, wi] : witnesses) {
      size_t c = 0;
      for (int64_t o : wi.orders) c += uncovered.count(o);
      if (c > 0 && (!pick || wi.bytes < pick->bytes || (wi.bytes == pick->bytes && c > gain))) gain = c, pick = &wi;
    }
    if (!pick) return "";  // some order stays below the optimum: it was not the optimum
    for (int64_t o : pick->orders) uncovered.erase(o);
    picks.push_back({pick, gain});
  }
  for (const auto& [pick, gain] : picks)
    out += "  - " + pick->text + "; " + std::to_string(gain) + " order" + (gain == 1 ? "" : "s") +
           ", e.g. " + pick->example + "\n";
  return out;
}

}  // namespace arenaplan
