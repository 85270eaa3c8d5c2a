#include "core/schedule/schedule_generators.h"

#include <algorithm>
#include <random>
#include <string>

namespace arenaplan {

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
};

Bytes kib(double k) { return static_cast<Bytes>(k * 1024); }

// Builds a graph op by op; finish() links, marks unread produced tensors as outputs, validates.
class Builder {
 public:
  explicit Builder(std::string name) { g_.name = std::move(name); }
  // A tensor named `name`, or "t<index>" when no name is given.
  TensorId tensor(Bytes bytes, bool constant = false, std::string name = {}) {
    Tensor t;
    t.name = name.empty() ? "t" + std::to_string(g_.tensors.size()) : std::move(name);
    t.bytes = bytes;
    t.constant = constant;
    g_.tensors.push_back(t);
    return static_cast<TensorId>(g_.tensors.size() - 1);
  }
  TensorId input(Bytes bytes, std::string name = {}) {
    TensorId t = tensor(bytes, false, std::move(name));
    g_.inputs.push_back(t);
    return t;
  }
  TensorId op(const std::string& kind, std::vector<TensorId> inputs, Bytes out_bytes, Bytes scratch = 0) {
    TensorId out = tensor(out_bytes);
    Op o;
    o.name = kind + std::to_string(g_.ops.size());
    o.kind = kind;
    o.inputs = std::move(inputs);
    o.outputs = {out};
    o.scratch_bytes = scratch;
    g_.ops.push_back(o);
    return out;
  }
  // The CNN generators' first layer: an input of `in` bytes through a conv to `out` bytes.
  TensorId stem(Bytes in, Bytes out) { return op("conv", {input(in)}, out); }
  // Their classifier head: a 1 KiB pool after `x`; then finish().
  Graph finish_with_pool(TensorId x) {
    op("pool", {x}, kib(1));
    return finish();
  }
  Graph& graph() { return g_; }
  Graph finish() {
    link_tensors(g_);
    for (size_t t = 0; t < g_.tensors.size(); ++t)
      if (g_.tensors[t].producer >= 0 && g_.tensors[t].consumers.empty() && !g_.is_output(static_cast<TensorId>(t)))
        g_.outputs.push_back(static_cast<TensorId>(t));
    validate_graph(g_);
    return g_;
  }

 private:
  Graph g_;
};

Graph try_random_small(uint64_t seed, int ops, const RandomGraphFeatures& f) {
  Rng r{seed};
  Builder b("random-" + std::to_string(seed));
  Graph& g = b.graph();
  // Every random draw is its own statement: argument evaluation order differs between compilers,
  // and the native and Wasm builds must generate the same graphs.
  auto size = [&] {
    Bytes base = 16 * (1 + r.below(40));
    Bytes odd = r.chance(30) ? r.below(16) : 0;
    return base + odd;
  };
  std::vector<TensorId> pool;
  const int n_inputs = 1 + r.below(2);
  for (int i = 0; i < n_inputs; ++i) pool.push_back(b.input(size()));
  if (f.unread_inputs && r.chance(50)) b.input(size());
  std::vector<TensorId> constants;
  if (f.constants)
    for (int i = r.below(3); i > 0; --i) constants.push_back(b.tensor(size(), true));
  TensorId state = -1;
  if (f.persistent && r.chance(40)) {
    state = b.tensor(size());
    g.tensors[state].persistent = true;
  }
  std::vector<TensorId> in_place_inputs;
  for (int i = 0; i < ops; ++i) {
    Op op;
    op.name = "op" + std::to_string(i);
    op.kind = "k";
    if (!constants.empty() && r.chance(15)) {
      op.inputs.push_back(constants[r.below(static_cast<int>(constants.size()))]);  // reads only weights
    } else {
      int k = 1 + r.below(3);
      for (int j = 0; j < k; ++j) {
        // Mostly recent tensors, so the graph has depth as well as width.
        int window = std::min<int>(static_cast<int>(pool.size()), 5);
        TensorId t = r.chance(70) ? pool[pool.size() - 1 - r.below(window)] : pool[r.below(static_cast<int>(pool.size()))];
        if (std::find(op.inputs.begin(), op.inputs.end(), t) == op.inputs.end()) op.inputs.push_back(t);
      }
      if (!constants.empty() && r.chance(30)) op.inputs.push_back(constants[r.below(static_cast<int>(constants.size()))]);
      if (state >= 0 && r.chance(20)) op.inputs.push_back(state);
    }
    int n_out = r.chance(20) ? 2 : 1;
    for (int j = 0; j < n_out; ++j) {
      TensorId t = b.tensor(size());
      if (f.persistent && j == 1 && r.chance(20)) g.tensors[t].persistent = true;
      op.outputs.push_back(t);
    }
    if (f.scratch && r.chance(25)) op.scratch_bytes = size();
    if (f.in_place && r.chance(25)) {
      TensorId in = op.inputs[0];
      if (!g.tensors[in].constant && !g.tensors[in].persistent &&
          std::find(in_place_inputs.begin(), in_place_inputs.end(), in) == in_place_inputs.end()) {
        g.tensors[op.outputs[0]].bytes = std::max<Bytes>(1, g.tensors[in].bytes - r.below(20));
        op.in_place.push_back({op.outputs[0], in});
        in_place_inputs.push_back(in);
      }
    }
    if (f.async && r.chance(25)) {
      TensorId t = op.inputs[r.below(static_cast<int>(op.inputs.size()))];
      bool overwritten = false;
      for (const InPlace& ip : op.in_place) overwritten = overwritten || ip.input == t;
      if (!overwritten) op.async_reads.push_back({t, 1 + r.below(3)});
    }
    for (TensorId t : op.outputs) pool.push_back(t);
    g.ops.push_back(op);
  }
  bool input_overwritten = false;
  for (TensorId t : in_place_inputs) input_overwritten = input_overwritten || g.is_input(t);
  if (!input_overwritten && r.chance(20))
    g.input_policy = r.chance(50) ? InputPolicy::kCallerOwned : InputPolicy::kRetained;
  link_tensors(g);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    if (tensor.producer < 0 || tensor.persistent) continue;
    bool protected_input = std::find(in_place_inputs.begin(), in_place_inputs.end(), static_cast<TensorId>(t)) != in_place_inputs.end();
    if (tensor.consumers.empty() && !protected_input) {
      // Unread outputs of multi-output ops may stay unread (live during their op only).
      const Op& p = g.ops[tensor.producer];
      bool other_read = false;
      for (TensorId o : p.outputs) other_read = other_read || !g.tensors[o].consumers.empty();
      if (!other_read || r.chance(50)) g.outputs.push_back(static_cast<TensorId>(t));
    } else if (f.retained && !protected_input && r.chance(10)) {
      if (r.chance(50)) g.tensors[t].retained = true;
      else g.outputs.push_back(static_cast<TensorId>(t));
    }
  }
  validate_graph(g);
  return g;
}

}  // namespace

Graph random_small_graph(uint64_t seed, int ops, RandomGraphFeatures features) {
  for (uint64_t attempt = 0;; ++attempt) {
    try {
      return try_random_small(seed * 1000003 + attempt, ops, features);
    } catch (const InputError&) {
    }
  }
}

Graph residual_chain_graph(int blocks, uint64_t seed) {
  Rng r{seed};
  Builder b("residual-chain-" + std::to_string(blocks));
  Bytes act = kib(96);
  TensorId x = b.stem(act, act);
  for (int i = 0; i < blocks; ++i) {
    Bytes next = act;
    bool down = i > 0 && i % 3 == 0;
    if (down) next = std::max<Bytes>(kib(4), act / 2);
    const Bytes widen = down ? next * (2 + r.below(2)) : next;
    const Bytes scratch = r.chance(30) ? kib(8) : 0;
    TensorId h = b.op("conv", {x}, widen, scratch);
    h = b.op("conv", {h}, next);
    TensorId skip = down ? b.op("conv1x1", {x}, next) : x;
    x = b.op("add", {skip, h}, next);
    act = next;
  }
  return b.finish_with_pool(x);
}

Graph inception_graph(int cells, uint64_t seed) {
  Rng r{seed};
  Builder b("inception-" + std::to_string(cells));
  Bytes act = kib(64);
  TensorId x = b.stem(kib(48), act);
  for (int c = 0; c < cells; ++c) {
    auto ch = [&](int lo, int hi) { return act * (lo + r.below(hi - lo + 1)) / 8; };
    const Bytes c1 = ch(2, 4), c3r = ch(3, 6), c3 = ch(3, 6), c5r = ch(1, 3), c5 = ch(1, 2), cp = ch(1, 2);
    TensorId b1 = b.op("conv1x1", {x}, c1);
    TensorId r3 = b.op("conv1x1", {x}, c3r);
    TensorId b2 = b.op("conv3x3", {r3}, c3, kib(8));
    TensorId r5 = b.op("conv1x1", {x}, c5r);
    TensorId b3 = b.op("conv5x5", {r5}, c5, kib(16));
    TensorId pooled = b.op("maxpool", {x}, act);
    TensorId b4 = b.op("conv1x1", {pooled}, cp);
    Bytes sum = 0;
    for (TensorId t : {b1, b2, b3, b4}) sum += b.graph().tensors[t].bytes;
    x = b.op("concat", {b1, b2, b3, b4}, sum);
    act = sum;
    if (c % 3 == 2) {
      act = std::max<Bytes>(kib(8), act / 2);
      x = b.op("maxpool", {x}, act);
    }
  }
  return b.finish_with_pool(x);
}

Graph nas_cells_graph(int target_ops, uint64_t seed) {
  Rng r{seed};
  Builder b("nas-cells-" + std::to_string(target_ops));
  Bytes act = kib(24);
  TensorId prev2 = b.stem(kib(24), act);
  TensorId prev1 = b.op("conv", {prev2}, act);
  int cell = 0;
  while (static_cast<int>(b.graph().ops.size()) + 16 <= target_ops) {
    const bool reduce = cell % 3 == 2;
    const Bytes node_bytes = reduce ? act / 2 : act;
    std::vector<TensorId> nodes = {prev2, prev1};
    std::vector<int> reads(2, 0);
    const int n_nodes = 4 + r.below(2);
    for (int k = 0; k < n_nodes; ++k) {
      int a = r.below(static_cast<int>(nodes.size()));
      int c = r.below(static_cast<int>(nodes.size()));
      if (c == a) c = (a + 1) % static_cast<int>(nodes.size());
      ++reads[a];
      ++reads[c];
      // Each input goes through its own op (sep-conv, pool, identity-like conv) before the add.
      const char* kinds[] = {"sepconv3x3", "sepconv5x5", "avgpool", "dilconv"};
      Bytes scale = nodes[a] == prev2 || nodes[a] == prev1 ? (reduce ? 2 : 1) : 1;
      const char* kind_a = kinds[r.below(4)];
      const Bytes grow = 1 + r.below(2);
      const Bytes shrink = 1 + r.below(2);
      const Bytes scratch = r.chance(30) ? kib(4) : 0;
      TensorId ta = b.op(kind_a, {nodes[a]}, node_bytes * grow / (scale * shrink) + kib(1), scratch);
      const char* kind_c = kinds[r.below(4)];
      TensorId tc = b.op(kind_c, {nodes[c]}, b.graph().tensors[ta].bytes);
      nodes.push_back(b.op("add", {ta, tc}, b.graph().tensors[ta].bytes));
      reads.push_back(0);
    }
    std::vector<TensorId> unread;
    Bytes sum = 0;
    for (size_t k = 2; k < nodes.size(); ++k)
      if (reads[k] == 0) unread.push_back(nodes[k]), sum += b.graph().tensors[nodes[k]].bytes;
    TensorId out = b.op("concat", unread, sum);
    prev2 = prev1;
    prev1 = out;
    act = node_bytes;
    ++cell;
  }
  return b.finish_with_pool(prev1);
}

Graph wide_random_dag(int ops, uint64_t seed) {
  Rng r{seed};
  Builder b("wide-random-" + std::to_string(ops));
  std::vector<TensorId> made = {b.input(kib(16))};
  // Roughly log-uniform in [1, 64) KiB with integer arithmetic only (libm may differ in Wasm).
  auto size = [&] {
    const int e = r.below(6000);
    const Bytes base = Bytes{1024} << (e / 1000);
    return (base + base * (e % 1000) / 1000) / 16 * 16;
  };
  const int window = std::max(8, ops / 20);
  for (int i = 0; i < ops; ++i) {
    std::vector<TensorId> inputs;
    int k = r.chance(80) ? 2 + r.below(2) : 1;
    for (int j = 0; j < k; ++j) {
      int n = static_cast<int>(made.size());
      TensorId t = r.chance(90) ? made[n - 1 - r.below(std::min(n, window))] : made[r.below(n)];
      if (std::find(inputs.begin(), inputs.end(), t) == inputs.end()) inputs.push_back(t);
    }
    made.push_back(b.op(inputs.size() > 1 ? "add" : "conv", inputs, size()));
  }
  return b.finish();
}

Graph skip_chain_graph(int ops, int reach, uint64_t seed) {
  std::mt19937 rng(seed);
  Builder b("random");
  Graph& g = b.graph();
  b.input(1024, "in");
  for (int o = 0; o < ops; ++o) {
    Op op;
    op.name = "op" + std::to_string(o);
    const int reads = 1 + int(rng() % 3);
    for (int r = 0; r < reads; ++r) {
      const int back = 1 + int(rng() % reach);
      const TensorId t = TensorId(std::max<int>(0, int(g.tensors.size()) - back));
      if (std::find(op.inputs.begin(), op.inputs.end(), t) == op.inputs.end()) op.inputs.push_back(t);
    }
    op.outputs.push_back(b.tensor(1024, false, "t" + std::to_string(o)));
    g.ops.push_back(op);
  }
  return b.finish();
}

Graph long_residual_chain_graph(int ops, uint64_t seed) {
  Rng r{seed};
  Builder b("long-residual-chain-" + std::to_string(ops));
  auto act = [&] { return kib(8 * (1 + r.below(8))); };
  TensorId x = b.input(act());
  int left = ops;
  while (left >= 3) {  // one block: x -> conv -> conv -> add(x, .)
    TensorId h = b.op("conv", {x}, act(), r.chance(20) ? kib(4) : 0);
    h = b.op("conv", {h}, act());
    x = b.op("add", {x, h}, act());
    left -= 3;
  }
  for (; left > 0; --left) x = b.op("relu", {x}, act());
  return b.finish();  // the last tensor is the only one nobody reads: the one graph output
}

Graph many_outputs_chain_graph(int ops, int outputs, uint64_t seed) {
  Rng r{seed};
  outputs = std::clamp(outputs, 0, ops / 2);
  Builder b("many-outputs-chain-" + std::to_string(ops));
  TensorId x = b.input(kib(16));
  const int chain = ops - outputs;
  int heads = 0;
  for (int i = 0; i < chain; ++i) {
    x = b.op(r.chance(50) ? "conv" : "add", {x}, kib(16));
    // Head k follows chain op floor((k + 1) * chain / outputs) - 1: evenly spread, last at the end.
    while (heads < outputs && static_cast<int64_t>(heads + 1) * chain / outputs == i + 1) {
      b.op("head", {x}, kib(1));
      ++heads;
    }
  }
  return b.finish();  // every head (and the chain's last tensor) is a graph output
}

Graph recent_reads_graph(int ops, uint64_t seed) {
  constexpr int kWindow = 8;  // an op reads among the last kWindow tensors produced
  Rng r{seed};
  Builder b("recent-reads-" + std::to_string(ops));
  std::vector<TensorId> recent = {b.input(kib(16))};  // the last kWindow tensors, oldest first
  // About log-uniform in [1, 218) KiB (2^7.7), integer arithmetic only (libm may differ in Wasm):
  // the bound puts the 100,000-op graph's peak near 850 MB.
  auto size = [&] {
    const int e = r.below(7700);
    const Bytes base = Bytes{1024} << (e / 1000);
    return (base + base * (e % 1000) / 1000) / 16 * 16;
  };
  for (int i = 0; i < ops; ++i) {
    const int reads = 1 + r.below(2);
    std::vector<TensorId> inputs;
    for (int j = 0; j < reads; ++j) {
      const TensorId t = recent[r.below(static_cast<int>(recent.size()))];
      if (std::find(inputs.begin(), inputs.end(), t) == inputs.end()) inputs.push_back(t);
    }
    const Bytes bytes = size();
    recent.push_back(b.op(inputs.size() > 1 ? "add" : "conv", inputs, bytes));
    if (static_cast<int>(recent.size()) > kWindow) recent.erase(recent.begin());
  }
  return b.finish();  // every tensor nobody read is a graph output
}

}  // namespace arenaplan
