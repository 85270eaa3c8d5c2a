// Scale: the linear-time lifetime analysis, views and schedule bound agree with the
// straightforward (quadratic) computations they replaced, on random graphs with every lifetime
// feature, the two scale shapes and the built-in examples. Speed is measured in
// bench/scale_bench.cpp, never here.
#include <algorithm>
#include <sstream>

#include "core/graph/report.h"
#include "core/teach/explain.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"
#include "core/schedule/detail/schedule_model.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

// A few graphs of each kind, with a few valid orders each (the file order when valid first).
struct Case {
  Graph g;
  Schedule order;
};

std::vector<Case> cases() {
  std::vector<Graph> graphs;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RandomGraphFeatures f;
    f.async = seed % 2 == 0;
    f.unread_inputs = seed % 3 == 0;
    graphs.push_back(random_small_graph(seed, 8 + static_cast<int>(seed) * 2, f));
  }
  graphs.push_back(long_residual_chain_graph(40, 2));
  graphs.push_back(many_outputs_chain_graph(40, 12, 2));
  for (const Example& e : builtin_examples())
    if (e.json.find("\"arenaplan-graph\"") != std::string::npos) graphs.push_back(parse_graph_json(e.json));
  std::vector<Case> out;
  for (const Graph& g : graphs) {
    RandomOrderSampler sampler(g, 7);
    for (int i = 0; i < 3; ++i) {
      Schedule order = i == 0 ? topological_order(g) : sampler.next();
      try {
        analyze_lifetimes(g, order);
      } catch (const InputError&) {
        continue;  // an in-place op (overwriting a tensor read later) rules some orders out
      }
      out.push_back({g, order});
    }
  }
  return out;
}

// The per-step live sets as they used to be stored: every buffer whose [first, last] holds s.
std::vector<std::vector<int>> naive_live_sets(const LiveAnalysis& a) {
  std::vector<std::vector<int>> sets(a.steps.size());
  for (size_t b = 0; b < a.buffers.size(); ++b)
    for (Step s = a.buffers[b].first; s <= a.buffers[b].last; ++s) sets[s].push_back(static_cast<int>(b));
  return sets;
}

// The lifetimes as the old tensor_spans computed them (membership and async reads searched per
// tensor): the linear version must give every buffer the same steps.
std::vector<std::pair<Step, Step>> naive_tensor_spans(const Graph& g, const Schedule& order) {
  std::vector<Step> step_of(g.ops.size());
  for (size_t s = 0; s < order.size(); ++s) step_of[order[s]] = static_cast<Step>(s);
  const Step end = static_cast<Step>(order.size()) - 1;
  std::vector<std::pair<Step, Step>> span(g.tensors.size(), {0, -1});
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    const bool input = g.is_input(static_cast<TensorId>(t));
    if (tensor.constant || (input && g.input_policy == InputPolicy::kCallerOwned)) continue;
    if (tensor.persistent) {
      span[t] = {0, end};
      continue;
    }
    if (tensor.producer < 0 && !input) continue;
    Step first = tensor.producer >= 0 ? step_of[tensor.producer] : 0, last = first;
    for (OpId c : tensor.consumers) last = std::max(last, step_of[c]);
    for (size_t o = 0; o < g.ops.size(); ++o)
      for (const AsyncRead& a : g.ops[o].async_reads)
        if (a.tensor == static_cast<TensorId>(t)) last = std::max(last, std::min<Step>(end, step_of[o] + a.extra_steps));
    if (tensor.retained || g.is_output(static_cast<TensorId>(t)) || (input && g.input_policy == InputPolicy::kRetained))
      last = end;
    span[t] = {first, last};
  }
  return span;
}

// The timeline as it used to be drawn: every buffer tested at every step.
std::string naive_timeline(const Graph& g, const LiveAnalysis& a) {
  std::ostringstream out;
  size_t op_width = 4;
  for (OpId o : a.order) op_width = std::max(op_width, g.ops[o].name.size());
  out << std::string(op_width + 7, ' ');
  for (const LiveBuffer& b : a.buffers) out << (b.name.empty() ? '?' : b.name[0]);
  out << "\n";
  for (size_t s = 0; s < a.steps.size(); ++s) {
    std::string name = g.ops[a.order[s]].name;
    out << (s < 10 ? " " : "") << s << "  " << name << std::string(op_width - name.size() + 3, ' ');
    for (const LiveBuffer& b : a.buffers)
      out << ((b.first <= static_cast<Step>(s) && static_cast<Step>(s) <= b.last) ? '#' : '.');
    out << "  " << format_bytes(a.steps[s].live_bytes) << (static_cast<Step>(s) == a.peak_step ? "  <- peak" : "")
        << "\n";
  }
  return out.str();
}

// The bound as it used to be computed: an ops x ops ancestor matrix, every tensor tested per op.
LowerBound naive_lower_bound(const Graph& g) {
  using schedule_detail::LiveModel;
  using schedule_detail::Word;
  LiveModel m(g);
  const int n = m.ops(), w = m.words(), nt = static_cast<int>(g.tensors.size());
  std::vector<Word> anc(static_cast<size_t>(n) * w, 0);
  for (OpId o : topological_order(g))
    for (OpId p : m.preds()[o]) {
      for (int i = 0; i < w; ++i) anc[static_cast<size_t>(o) * w + i] |= anc[static_cast<size_t>(p) * w + i];
      schedule_detail::set_bit(&anc[static_cast<size_t>(o) * w], p);
    }
  auto is_anc = [&](OpId a, OpId of) { return schedule_detail::test_bit(&anc[static_cast<size_t>(of) * w], a); };
  LowerBound best;
  auto consider = [&](OpId op, const std::vector<TensorId>& tensors, Bytes extra) {
    std::vector<char> seen(m.groups(), 0);
    Bytes sum = extra;
    std::vector<TensorId> named;
    for (TensorId t : tensors) {
      int grp = m.group(t);
      if (grp < 0 || seen[grp]) continue;
      seen[grp] = 1;
      sum += m.group_bytes(grp);
      named.push_back(t);
    }
    if (sum > best.bytes) best = {sum, op, named};
  };
  std::vector<TensorId> always;
  for (int t = 0; t < nt; ++t)
    if (m.always_live(t)) always.push_back(t);
  for (OpId o = 0; o < n; ++o) {
    std::vector<TensorId> live = always;
    for (TensorId t : g.ops[o].inputs) live.push_back(t);
    for (TensorId t : g.ops[o].outputs) live.push_back(t);
    for (int t = 0; t < nt; ++t) {
      if (m.group(t) < 0 || m.always_live(t)) continue;
      const Tensor& tensor = g.tensors[t];
      if (m.produced(t) && !is_anc(tensor.producer, o)) continue;
      bool needed = m.pinned(t) && m.produced(t);
      for (OpId c : tensor.consumers) needed = needed || is_anc(o, c);
      if (needed) live.push_back(t);
    }
    consider(o, live, m.scratch(o));
  }
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

}  // namespace

TEST_CASE("live_at and LiveSweep list exactly the buffers whose lifetime holds the step, ascending") {
  int checked = 0;
  for (const Case& c : cases()) {
    const LiveAnalysis a = analyze_lifetimes(c.g, c.order);
    const auto sets = naive_live_sets(a);
    LiveSweep sweep(a);
    for (size_t s = 0; s < a.steps.size(); ++s) {
      CHECK(a.live_at(static_cast<Step>(s)) == sets[s]);
      CHECK(sweep.at(static_cast<Step>(s)) == sets[s]);
      Bytes sum = 0;
      for (int b : sets[s]) sum += a.buffers[b].size;
      CHECK(sum == a.steps[s].live_bytes);
      ++checked;
    }
    // A sweep may skip steps (views that only look at some of them).
    LiveSweep skipping(a);
    for (size_t s = 0; s < a.steps.size(); s += 3) CHECK(skipping.at(static_cast<Step>(s)) == sets[s]);
  }
  CHECK(checked > 500);
}

TEST_CASE("buffer lifetimes equal the per-tensor search they replaced (async reads, outputs, inputs)") {
  for (const Case& c : cases()) {
    const LiveAnalysis a = analyze_lifetimes(c.g, c.order);
    const auto spans = naive_tensor_spans(c.g, c.order);
    for (const LiveBuffer& b : a.buffers) {
      if (b.kind == BufferKind::kScratch) continue;
      Step first = b.first, last = b.last;
      Step want_first = spans[b.tensors[0]].first, want_last = spans[b.tensors[0]].second;
      for (TensorId t : b.tensors) {
        want_first = std::min(want_first, spans[t].first);
        want_last = std::max(want_last, spans[t].second);
      }
      CHECK(first == want_first);
      CHECK(last == want_last);
    }
  }
}

TEST_CASE("the streamed analysis JSON is byte for byte analysis_json().dump(2)") {
  for (const Case& c : cases()) {
    const LiveAnalysis a = analyze_lifetimes(c.g, c.order);
    std::ostringstream streamed;
    write_analysis_json(streamed, c.g, a);
    CHECK(streamed.str() == analysis_json(c.g, a).dump(2));
  }
  // Names that need escaping, and an empty live list.
  Graph g = parse_graph_json(R"({"tensors": {"in \"q\"": {"bytes": 16}, "w": {"bytes": 8, "constant": true},
      "out\\é": {"bytes": 16}, "k": {"bytes": 16}},
    "ops": [{"name": "c\tonst", "inputs": ["w"], "outputs": ["k"]},
            {"name": "op", "inputs": ["in \"q\"", "k"], "outputs": ["out\\é"]}],
    "inputs": ["in \"q\""], "outputs": ["out\\é"], "input_policy": "caller_owned"})");
  const LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  std::ostringstream streamed;
  write_analysis_json(streamed, g, a);
  CHECK(streamed.str() == analysis_json(g, a).dump(2));
}

TEST_CASE("the streamed timeline draws the same rows as testing every buffer at every step") {
  for (const Case& c : cases()) {
    const LiveAnalysis a = analyze_lifetimes(c.g, c.order);
    REQUIRE(a.buffers.size() <= kTimelineMaxColumns);
    CHECK(timeline_text(c.g, a) == naive_timeline(c.g, a));
  }
}

TEST_CASE("the analysis JSON counts each step's live buffers and lists each buffer's interval") {
  for (const Case& c : cases()) {
    const LiveAnalysis a = analyze_lifetimes(c.g, c.order);
    const JsonOut j = analysis_json(c.g, a);
    const std::vector<std::vector<int>> sets = naive_live_sets(a);
    REQUIRE(j["steps"].size() == sets.size());
    for (size_t s = 0; s < sets.size(); ++s) CHECK(j["steps"][s]["live_count"] == sets[s].size());
    REQUIRE(j["buffers"].size() == a.buffers.size());
    for (size_t b = 0; b < a.buffers.size(); ++b) {
      CHECK(j["buffers"][b]["name"] == a.buffers[b].name);
      CHECK(j["buffers"][b]["first"] == a.buffers[b].first);
      CHECK(j["buffers"][b]["last"] == a.buffers[b].last);
    }
  }
}

TEST_CASE("the analyze views grow linearly with a graph's outputs, where per-step live lists grew quadratically") {
  // Ten times the ops (and outputs, each live to the end): a linear view is about ten times
  // longer, one listing every live buffer at every step a hundred times.
  auto sizes = [](int ops) {
    const Graph g = many_outputs_chain_graph(ops, ops / 2, 1);
    const LiveAnalysis a = analyze_lifetimes(g, topological_order(g));
    std::ostringstream text, json, explained_text, explained_json;
    write_analysis_text(text, g, a);
    write_analysis_json(json, g, a);
    write_schedule_explanation_text(explained_text, g, a);
    write_explained_analysis_json(explained_json, g, a);
    return std::vector<double>{double(text.str().size()), double(json.str().size()), double(explained_text.str().size()),
                               double(explained_json.str().size())};
  };
  const std::vector<double> small = sizes(300), large = sizes(3000);
  for (size_t v = 0; v < small.size(); ++v) {
    INFO("view " << v << ": " << small[v] << " -> " << large[v] << " bytes");
    CHECK(large[v] / small[v] < 20);
  }
  const Graph g = many_outputs_chain_graph(600, 300, 1);
  const std::string timeline = timeline_text(g, analyze_lifetimes(g, topological_order(g)));
  CHECK(timeline.find("not drawn") != std::string::npos);
  CHECK(timeline.size() < 200);
}

TEST_CASE("the schedule lower bound equals the ancestor-matrix computation it replaced") {
  int graphs = 0;
  for (const Case& c : cases()) {
    const LowerBound fast = schedule_lower_bound(c.g), naive = naive_lower_bound(c.g);
    CHECK(fast.bytes == naive.bytes);
    CHECK(fast.op == naive.op);
    CHECK(fast.tensors == naive.tensors);
    ++graphs;
  }
  CHECK(graphs > 20);
}

}  // namespace arenaplan
