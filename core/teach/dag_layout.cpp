#include "core/teach/dag_layout.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace arenaplan {

namespace {

// Producer op of each tensor, read from the ops themselves so the layout never depends on the
// caller having linked the graph.
std::vector<OpId> producers(const Graph& g) {
  std::vector<OpId> p(g.tensors.size(), -1);
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (TensorId t : g.ops[o].outputs) p[t] = OpId(o);
  return p;
}

// Longest path from the sources: graph inputs are layer 0, an op reading one is at least layer 1,
// and every op sits one layer below the deepest producer of its inputs (Kahn's algorithm).
std::vector<int> op_layers(const Graph& g, const std::vector<OpId>& producer) {
  const size_t n = g.ops.size();
  std::vector<int> layer(n, 0), waiting(n, 0);
  std::vector<std::vector<OpId>> successors(n);
  for (size_t o = 0; o < n; ++o)
    for (TensorId t : g.ops[o].inputs) {
      if (producer[t] >= 0) {
        successors[producer[t]].push_back(OpId(o));
        ++waiting[o];
      } else if (g.is_input(t)) {
        layer[o] = 1;
      }
    }
  std::vector<OpId> ready;
  for (size_t o = 0; o < n; ++o)
    if (waiting[o] == 0) ready.push_back(OpId(o));
  size_t done = 0;
  while (!ready.empty()) {
    const OpId o = ready.back();
    ready.pop_back();
    ++done;
    for (OpId s : successors[o]) {
      layer[s] = std::max(layer[s], layer[o] + 1);
      if (--waiting[s] == 0) ready.push_back(s);
    }
  }
  if (done != n) throw InputError("ops", "the graph has a cycle, so it cannot be drawn in layers");
  return layer;
}

class Builder {
 public:
  Builder(const Graph& g, const DagLayoutOptions& opt) : g_(g), opt_(opt) {}

  DagLayout build() {
    const std::vector<OpId> producer = producers(g_);
    const std::vector<int> layer = op_layers(g_, producer);
    add_nodes(layer);
    std::vector<std::vector<OpId>> readers(g_.tensors.size());
    for (size_t o = 0; o < g_.ops.size(); ++o)
      for (TensorId t : g_.ops[o].inputs) readers[t].push_back(OpId(o));
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      const int from = producer[t] >= 0 ? out_.node_of_op[producer[t]] : out_.node_of_input[t];
      if (from >= 0 && !readers[t].empty()) route_tensor(TensorId(t), from, readers[t]);
    }
    index_segments();
    order_layers();
    place_nodes();
    return std::move(out_);
  }

 private:
  int add_node(DagNodeKind kind, OpId op, TensorId tensor, int layer) {
    if (size_t(layer) >= out_.layers.size()) out_.layers.resize(layer + 1);
    DagNode n;
    n.kind = kind;
    n.op = op;
    n.tensor = tensor;
    n.layer = layer;
    n.pos = int(out_.layers[layer].size());
    n.width = kind == DagNodeKind::kJoint ? kJointWidth : 1.0;
    out_.layers[layer].push_back(int(out_.nodes.size()));
    out_.nodes.push_back(n);
    return int(out_.nodes.size()) - 1;
  }

  // Inputs first, then ops in file order: the first order within a layer follows the file, which
  // for imported models is the execution order.
  void add_nodes(const std::vector<int>& layer) {
    out_.node_of_input.assign(g_.tensors.size(), -1);
    for (TensorId t : g_.inputs) out_.node_of_input[t] = add_node(DagNodeKind::kInput, -1, t, 0);
    out_.node_of_op.resize(g_.ops.size());
    for (size_t o = 0; o < g_.ops.size(); ++o)
      out_.node_of_op[o] = add_node(DagNodeKind::kOp, OpId(o), -1, layer[o]);
  }

  void add_segment(int upper, int lower, TensorId t, bool& first) {
    DagSegment s{upper, lower, t, first};
    first = false;
    if (out_.nodes[lower].layer == out_.nodes[upper].layer + 1) out_.segments.push_back(s);
    else out_.long_segments.push_back(s);
  }

  // One chain of joints per tensor, from the producer's layer down to its deepest reader; each
  // reader hangs off the joint just above it.
  void route_tensor(TensorId t, int from, const std::vector<OpId>& readers) {
    const int top = out_.nodes[from].layer;
    int deepest = top;
    for (OpId r : readers) deepest = std::max(deepest, out_.nodes[out_.node_of_op[r]].layer);
    const int needed = std::max(0, deepest - top - 1);
    const bool with_joints = out_.joints + int64_t(needed) <= opt_.max_joints;
    bool first = true;
    std::vector<int> chain{from};  // chain[i] is the node at layer top + i
    if (with_joints) {
      for (int l = top + 1; l < deepest; ++l) {
        chain.push_back(add_node(DagNodeKind::kJoint, -1, t, l));
        add_segment(chain[chain.size() - 2], chain.back(), t, first);
      }
      out_.joints += needed;
    }
    for (OpId r : readers) {
      DagEdge e;
      e.tensor = t;
      e.from = from;
      e.to = out_.node_of_op[r];
      const int span = out_.nodes[e.to].layer - top;
      e.direct = span > 1 && !with_joints;
      const int upper = e.direct ? from : chain[span - 1];
      e.path.assign(chain.begin(), e.direct ? chain.begin() + 1 : chain.begin() + span);
      e.path.push_back(e.to);
      add_segment(upper, e.to, t, first);
      out_.edges.push_back(std::move(e));
    }
  }

  void index_segments() {
    std::stable_sort(out_.segments.begin(), out_.segments.end(), [&](const DagSegment& a, const DagSegment& b) {
      return out_.nodes[a.upper].layer < out_.nodes[b.upper].layer;
    });
    const size_t layers = out_.layers.size();
    out_.layer_segments.assign(layers + 1, 0);
    for (const DagSegment& s : out_.segments) ++out_.layer_segments[out_.nodes[s.upper].layer + 1];
    for (size_t l = 0; l < layers; ++l) out_.layer_segments[l + 1] += out_.layer_segments[l];
    up_.assign(out_.nodes.size(), {});
    down_.assign(out_.nodes.size(), {});
    for (const DagSegment& s : out_.segments) {
      up_[s.lower].push_back(s.upper);
      down_[s.upper].push_back(s.lower);
    }
  }

  void renumber(int layer) {
    const std::vector<int>& ids = out_.layers[layer];
    for (size_t i = 0; i < ids.size(); ++i) out_.nodes[ids[i]].pos = int(i);
  }

  // Sorts a layer by the mean position of each node's neighbours in the adjacent layer; a node
  // without such neighbours keeps its relative place (scaled to the neighbour layer's width).
  void sort_by_barycenter(int layer, const std::vector<std::vector<int>>& adj, int adj_layer) {
    std::vector<int>& ids = out_.layers[layer];
    const double scale = double(out_.layers[adj_layer].size()) / double(std::max<size_t>(1, ids.size()));
    std::vector<std::pair<double, int>> keyed;
    keyed.reserve(ids.size());
    for (int v : ids) {
      double key = (out_.nodes[v].pos + 0.5) * scale - 0.5;
      if (!adj[v].empty()) {
        double sum = 0;
        for (int u : adj[v]) sum += out_.nodes[u].pos;
        key = sum / double(adj[v].size());
      }
      keyed.emplace_back(key, v);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = keyed[i].second;
    renumber(layer);
  }

  void sweep(bool down) {
    const int n = int(out_.layers.size());
    if (down)
      for (int l = 1; l < n; ++l) sort_by_barycenter(l, up_, l - 1);
    else
      for (int l = n - 2; l >= 0; --l) sort_by_barycenter(l, down_, l + 1);
  }

  void order_layers() {
    out_.crossings_initial = out_.crossings = count_crossings(out_);
    std::vector<std::vector<int>> best = out_.layers;
    for (int s = 0; s < opt_.sweeps && out_.crossings > 0; ++s) {
      sweep(s % 2 == 0);
      const int64_t c = count_crossings(out_);
      if (c < out_.crossings) {
        out_.crossings = c;
        best = out_.layers;
      }
    }
    out_.layers = std::move(best);
    for (size_t l = 0; l < out_.layers.size(); ++l) renumber(int(l));
  }

  // Places one layer as close to `target` as the order and the gaps allow: with c_i the packed
  // offsets, x_i - c_i must be non-decreasing, so the least-squares answer is the isotonic
  // regression of target_i - c_i (pool adjacent violators), then + c_i.
  void place_layer(int layer, const std::vector<double>& target) {
    const std::vector<int>& ids = out_.layers[layer];
    const size_t k = ids.size();
    std::vector<double> offset(k, 0.0);
    for (size_t i = 1; i < k; ++i)
      offset[i] = offset[i - 1] + (out_.nodes[ids[i - 1]].width + out_.nodes[ids[i]].width) / 2;
    struct Block {
      double sum;
      int count;
      double mean() const { return sum / count; }
    };
    std::vector<Block> blocks;
    for (size_t i = 0; i < k; ++i) {
      blocks.push_back({target[i] - offset[i], 1});
      while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
        blocks[blocks.size() - 2].sum += blocks.back().sum;
        blocks[blocks.size() - 2].count += blocks.back().count;
        blocks.pop_back();
      }
    }
    size_t i = 0;
    for (const Block& b : blocks)
      for (int j = 0; j < b.count; ++j, ++i) out_.nodes[ids[i]].x = b.mean() + offset[i];
  }

  double mean_x(int v, bool up, bool down) const {
    double sum = 0;
    int n = 0;
    if (up) for (int u : up_[v]) sum += out_.nodes[u].x, ++n;
    if (down) for (int u : down_[v]) sum += out_.nodes[u].x, ++n;
    return n ? sum / n : out_.nodes[v].x;
  }

  void align_layer(int layer, bool up, bool down) {
    std::vector<double> target;
    for (int v : out_.layers[layer]) target.push_back(mean_x(v, up, down));
    place_layer(layer, target);
  }

  void place_nodes() {
    const int n = int(out_.layers.size());
    for (int l = 0; l < n; ++l) {  // packed and centred on 0 to start
      std::vector<double> zero(out_.layers[l].size(), 0.0);
      place_layer(l, zero);
    }
    for (int p = 0; p < opt_.coordinate_passes; ++p) {
      if (p % 2 == 0)
        for (int l = 1; l < n; ++l) align_layer(l, true, false);
      else
        for (int l = n - 2; l >= 0; --l) align_layer(l, false, true);
    }
    for (int l = 0; l < n; ++l) align_layer(l, true, true);  // balance between both sides
    double left = 0, right = 0;
    bool any = false;
    for (const DagNode& v : out_.nodes) {
      left = any ? std::min(left, v.x - v.width / 2) : v.x - v.width / 2;
      right = any ? std::max(right, v.x + v.width / 2) : v.x + v.width / 2;
      any = true;
    }
    for (DagNode& v : out_.nodes) v.x -= left;
    out_.width = right - left;
  }

  const Graph& g_;
  const DagLayoutOptions& opt_;
  DagLayout out_;
  std::vector<std::vector<int>> up_, down_;  // neighbours through segments between adjacent layers
};

// Fenwick tree over positions: counts how many earlier segments end right of the current one.
int64_t crossings_between(const DagLayout& d, int layer) {
  std::vector<std::pair<int, int>> ends;
  for (int i = d.layer_segments[layer]; i < d.layer_segments[layer + 1]; ++i)
    ends.emplace_back(d.nodes[d.segments[i].upper].pos, d.nodes[d.segments[i].lower].pos);
  std::sort(ends.begin(), ends.end());
  const size_t width = d.layers[layer + 1].size();
  std::vector<int> tree(width + 1, 0);
  int64_t crossings = 0, seen = 0;
  for (const auto& [upper, lower] : ends) {
    int64_t not_right = 0;  // earlier segments ending at or left of `lower`
    for (int i = lower + 1; i > 0; i -= i & -i) not_right += tree[i];
    crossings += seen - not_right;
    for (size_t i = size_t(lower) + 1; i <= width; i += i & -i) ++tree[i];
    ++seen;
  }
  return crossings;
}

}  // namespace

int64_t count_crossings(const DagLayout& d) {
  int64_t total = 0;
  for (int l = 0; l + 1 < int(d.layers.size()); ++l) total += crossings_between(d, l);
  return total;
}

DagLayout layout_dag(const Graph& g, const DagLayoutOptions& options) {
  return Builder(g, options).build();
}

}  // namespace arenaplan
