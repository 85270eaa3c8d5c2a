#include "core/graph/lifetime.h"

#include <algorithm>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace arenaplan {

const char* category_name(ArenaCategory c) {
  switch (c) {
    case ArenaCategory::kHead: return "head";
    case ArenaCategory::kTemp: return "temp";
    case ArenaCategory::kTail: return "tail";
  }
  return "head";
}

void check_order(const Graph& g, const Schedule& order) {
  const size_t n = g.ops.size();
  std::vector<Step> step_of(n, -1);
  for (size_t s = 0; s < order.size(); ++s) {
    OpId o = order[s];
    if (o < 0 || static_cast<size_t>(o) >= n)
      throw InputError("order", "step " + std::to_string(s) + " names no op of this graph");
    if (step_of[o] >= 0)
      throw InputError("order", "op " + g.ops[o].name + " appears twice (steps " +
                                    std::to_string(step_of[o]) + " and " + std::to_string(s) + ")");
    step_of[o] = static_cast<Step>(s);
  }
  for (size_t o = 0; o < n; ++o)
    if (step_of[o] < 0) throw InputError("order", "op " + g.ops[o].name + " is missing from the order");
  for (size_t s = 0; s < order.size(); ++s) {
    const Op& op = g.ops[order[s]];
    for (TensorId t : op.inputs) {
      OpId p = g.tensors[t].producer;
      if (p >= 0 && step_of[p] > static_cast<Step>(s))
        throw InputError("order", "op " + op.name + " runs at step " + std::to_string(s) +
                                      " before its input " + g.tensors[t].name +
                                      " exists (produced by op " + g.ops[p].name + " at step " +
                                      std::to_string(step_of[p]) + ")");
    }
    for (const InPlace& ip : op.in_place)
      for (OpId reader : g.tensors[ip.input].consumers)
        if (step_of[reader] > static_cast<Step>(s))
          throw InputError("order", "op " + op.name + " overwrites " + g.tensors[ip.input].name +
                                        " in place at step " + std::to_string(s) +
                                        " but op " + g.ops[reader].name + " still reads it at step " +
                                        std::to_string(step_of[reader]));
  }
}

Schedule parse_order(const Graph& g, const std::string& names) {
  Schedule order;
  std::stringstream ss(names);
  std::string name;
  while (std::getline(ss, name, ',')) {
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name.empty()) continue;
    auto o = g.find_op(name);
    if (!o) throw InputError("order", "unknown op \"" + name + "\"");
    order.push_back(*o);
  }
  check_order(g, order);
  return order;
}

std::string order_names(const Graph& g, const Schedule& order, const char* sep) {
  std::string out;
  for (size_t i = 0; i < order.size(); ++i) out += (i ? sep : "") + g.ops[order[i]].name;
  return out;
}

namespace {

TensorResidence classify(const Graph& g, TensorId t, bool input, bool output) {
  const Tensor& tensor = g.tensors[t];
  if (tensor.constant) return {};
  if (input && g.input_policy == InputPolicy::kCallerOwned) return {};
  if (tensor.persistent) return {Residence::kWholeRun, false};
  if (tensor.producer < 0 && !input) return {};  // unread, unproduced: nothing to hold
  const bool held = tensor.retained || output || (input && g.input_policy == InputPolicy::kRetained);
  return {input ? Residence::kFromInput : Residence::kFromProducer, held};
}

}  // namespace

TensorResidence tensor_residence(const Graph& g, TensorId t) { return classify(g, t, g.is_input(t), g.is_output(t)); }

std::vector<TensorResidence> tensor_residences(const Graph& g) {
  // Membership once, not a search of the input/output lists per tensor (graphs with thousands of
  // outputs).
  std::vector<char> is_input(g.tensors.size(), 0), is_output(g.tensors.size(), 0);
  for (TensorId t : g.inputs) is_input[t] = 1;
  for (TensorId t : g.outputs) is_output[t] = 1;
  std::vector<TensorResidence> out(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t)
    out[t] = classify(g, static_cast<TensorId>(t), is_input[t], is_output[t]);
  return out;
}

namespace {

struct Span {
  Step first = 0, last = -1;  // last < first: not in the arena
};

// The lifetime each tensor would have on its own, before in-place merging. Linear in the graph:
// membership and asynchronous reads are gathered once, not searched per tensor.
std::vector<Span> tensor_spans(const Graph& g, const std::vector<Step>& step_of, Step end) {
  const std::vector<TensorResidence> residence = tensor_residences(g);
  std::vector<Step> async_last(g.tensors.size(), -1);  // latest step an asynchronous read reaches
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (const AsyncRead& a : g.ops[o].async_reads)
      async_last[a.tensor] = std::max(async_last[a.tensor], std::min<Step>(end, step_of[o] + a.extra_steps));
  std::vector<Span> span(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    const TensorResidence& r = residence[t];
    if (r.residence == Residence::kOutside) continue;
    if (r.residence == Residence::kWholeRun) {
      span[t] = {0, end};
      continue;
    }
    Step first = tensor.producer >= 0 ? step_of[tensor.producer] : 0;
    Step last = std::max(first, async_last[t]);
    for (OpId c : tensor.consumers) last = std::max(last, step_of[c]);
    if (r.held_to_end) last = end;
    span[t] = {first, last};
  }
  return span;
}

int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

LiveAnalysis analyze_lifetimes(const Graph& g, const Schedule& order) {
  check_order(g, order);
  LiveAnalysis a;
  a.order = order;
  const Step n = static_cast<Step>(order.size());
  if (n == 0) {  // no step runs, so nothing is ever live (e.g. a model folded to constants)
    a.buffer_of_tensor.assign(g.tensors.size(), -1);
    return a;
  }
  std::vector<Step> step_of(g.ops.size());
  for (Step s = 0; s < n; ++s) step_of[order[s]] = s;
  const std::vector<Span> span = tensor_spans(g, step_of, n - 1);

  // In-place outputs share their input's buffer; the input must die exactly where it is overwritten.
  std::vector<int> parent(g.tensors.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (Step s = 0; s < n; ++s) {
    const Op& op = g.ops[order[s]];
    for (const InPlace& ip : op.in_place) {
      const Span& in = span[ip.input];
      if (in.last < in.first) continue;  // caller-owned input: the output gets its own buffer
      if (in.last != s)
        throw InputError("op " + op.name + " in_place",
                         "input " + g.tensors[ip.input].name + " is still live at step " +
                             std::to_string(in.last) + ", after this op (step " + std::to_string(s) +
                             "), so it cannot be overwritten");
      parent[find_root(parent, ip.output)] = find_root(parent, ip.input);
    }
  }

  a.buffer_of_tensor.assign(g.tensors.size(), -1);
  std::vector<int> buffer_of_root(g.tensors.size(), -1);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Span& sp = span[t];
    if (sp.last < sp.first) continue;
    int root = find_root(parent, static_cast<int>(t));
    int& b = buffer_of_root[root];
    Bytes size = align_up(g.tensors[t].bytes, g.alignment);
    if (b < 0) {
      b = static_cast<int>(a.buffers.size());
      LiveBuffer buf;
      buf.name = g.tensors[t].name;
      buf.category = g.tensors[t].persistent ? ArenaCategory::kTail : ArenaCategory::kHead;
      buf.first = sp.first;
      buf.last = sp.last;
      a.buffers.push_back(buf);
    }
    LiveBuffer& buf = a.buffers[b];
    buf.tensors.push_back(static_cast<TensorId>(t));
    buf.size = std::max(buf.size, size);
    buf.first = std::min(buf.first, sp.first);
    buf.last = std::max(buf.last, sp.last);
    a.buffer_of_tensor[t] = b;
  }
  for (const LiveBuffer& b : a.buffers) {
    if (__builtin_add_overflow(a.total_bytes, b.size, &a.total_bytes))
      throw InputError("tensors", "total size overflows 64 bits");
    a.largest_tensor_bytes = std::max(a.largest_tensor_bytes, b.size);
  }
  for (Step s = 0; s < n; ++s) {
    const Op& op = g.ops[order[s]];
    if (op.scratch_bytes <= 0) continue;
    LiveBuffer buf;
    buf.name = op.name + ":scratch";
    buf.kind = BufferKind::kScratch;
    buf.category = ArenaCategory::kTemp;
    buf.scratch_op = order[s];
    buf.size = align_up(op.scratch_bytes, g.alignment);
    buf.first = buf.last = s;
    a.buffers.push_back(buf);
  }

  // Live bytes per step by a difference array: O(steps + buffers); live sets are derived on demand.
  std::vector<Bytes> delta(n + 1, 0);
  a.steps.resize(n);
  for (const LiveBuffer& buf : a.buffers) {
    delta[buf.first] += buf.size;
    delta[buf.last + 1] -= buf.size;
  }
  Bytes live = 0;
  for (Step s = 0; s < n; ++s) {
    if (__builtin_add_overflow(live, delta[s], &live))
      throw InputError("tensors", "live bytes overflow 64 bits");
    a.steps[s].op = order[s];
    a.steps[s].live_bytes = live;
    if (live > a.peak_bytes) {
      a.peak_bytes = live;
      a.peak_step = s;
    }
  }
  return a;
}

std::vector<int> LiveAnalysis::live_at(Step s) const {
  std::vector<int> live;
  for (size_t b = 0; b < buffers.size(); ++b)
    if (buffers[b].first <= s && s <= buffers[b].last) live.push_back(static_cast<int>(b));
  return live;
}

LiveSweep::LiveSweep(const LiveAnalysis& a) : a_(a), by_first_(a.buffers.size()) {
  std::iota(by_first_.begin(), by_first_.end(), 0);
  std::stable_sort(by_first_.begin(), by_first_.end(),
                   [&](int x, int y) { return a.buffers[x].first < a.buffers[y].first; });
  lasts_.reserve(a.buffers.size());
  for (const LiveBuffer& b : a.buffers) lasts_.push_back(b.last);
  std::sort(lasts_.begin(), lasts_.end());
}

const std::vector<int>& LiveSweep::at(Step s) {
  if (s < step_) throw std::logic_error("LiveSweep::at: steps must not go backwards");
  step_ = s;
  // Drop what ended before s (one pass, only when something did), then merge in what starts.
  bool any_ended = false;
  for (; ended_ < lasts_.size() && lasts_[ended_] < s; ++ended_) any_ended = true;
  auto ended = [&](int b) { return a_.buffers[b].last < s; };
  if (any_ended) live_.erase(std::remove_if(live_.begin(), live_.end(), ended), live_.end());
  starting_.clear();
  for (; next_ < by_first_.size() && a_.buffers[by_first_[next_]].first <= s; ++next_)
    if (a_.buffers[by_first_[next_]].last >= s) starting_.push_back(by_first_[next_]);
  if (!starting_.empty()) {
    std::sort(starting_.begin(), starting_.end());
    const size_t middle = live_.size();
    live_.insert(live_.end(), starting_.begin(), starting_.end());
    if (middle > 0 && live_[middle - 1] > live_[middle])  // new buffers usually come last already
      std::inplace_merge(live_.begin(), live_.begin() + static_cast<std::ptrdiff_t>(middle), live_.end());
  }
  return live_;
}

std::string timeline_text(const Graph& g, const LiveAnalysis& a) {
  std::ostringstream out;
  write_timeline_text(out, g, a);
  return out.str();
}

void write_timeline_text(std::ostream& out, const Graph& g, const LiveAnalysis& a) {
  // One column per buffer: '#' where live, '.' where not; compact enough for logs and tests.
  // The row is kept between steps and only the buffers starting or ending change it, so building
  // it costs O(buffers) in all; printing it is the output's own size, which the column cap keeps
  // linear in the steps (a 100,000-op graph drawn whole was 10 GB of text no one can read).
  if (a.buffers.size() > kTimelineMaxColumns) {
    out << "(not drawn: " << a.buffers.size() << " buffers, one column each, and at most " << kTimelineMaxColumns
        << " are drawn; the JSON view lists each buffer's first and last step)\n";
    return;
  }
  size_t op_width = 4;
  for (OpId o : a.order) op_width = std::max(op_width, g.ops[o].name.size());
  std::string row(op_width + 7, ' ');
  for (const LiveBuffer& b : a.buffers) row += b.name.empty() ? '?' : b.name[0];
  out << row << "\n";
  const Step n = static_cast<Step>(a.steps.size());
  std::vector<std::vector<int>> starts(n), ends(n);
  for (size_t b = 0; b < a.buffers.size(); ++b) {
    starts[a.buffers[b].first].push_back(static_cast<int>(b));
    ends[a.buffers[b].last].push_back(static_cast<int>(b));
  }
  std::string bars(a.buffers.size(), '.');
  for (Step s = 0; s < n; ++s) {
    for (int b : starts[s]) bars[b] = '#';
    const std::string& name = g.ops[a.order[s]].name;
    out << (s < 10 ? " " : "") << s << "  " << name << std::string(op_width - name.size() + 3, ' ');
    out.write(bars.data(), static_cast<std::streamsize>(bars.size()));
    out << "  " << format_bytes(a.steps[s].live_bytes) << (s == a.peak_step ? "  <- peak" : "") << "\n";
    for (int b : ends[s]) bars[b] = '.';
  }
}

}  // namespace arenaplan
