#include "core/graph/graph.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <queue>
#include <set>

namespace arenaplan {

namespace {
struct DTypeInfo {
  DType type;
  const char* name;
  int width;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::kInt8, "int8", 1},       {DType::kUInt8, "uint8", 1},   {DType::kInt16, "int16", 2},
    {DType::kInt32, "int32", 4},     {DType::kFloat16, "float16", 2},
    {DType::kFloat32, "float32", 4}, {DType::kInt64, "int64", 8},   {DType::kBool, "bool", 1},
    {DType::kUInt32, "uint32", 4},   {DType::kUInt64, "uint64", 8},
};
const DTypeInfo& info(DType t) {
  for (const auto& d : kDTypes)
    if (d.type == t) return d;
  return kDTypes[0];
}
}  // namespace

int dtype_width(DType t) { return info(t).width; }
const char* dtype_name(DType t) { return info(t).name; }
std::optional<DType> dtype_from_name(const std::string& name) {
  for (const auto& d : kDTypes)
    if (name == d.name) return d.type;
  return std::nullopt;
}

std::optional<TensorId> Graph::find_tensor(const std::string& n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return static_cast<TensorId>(i);
  return std::nullopt;
}

std::optional<OpId> Graph::find_op(const std::string& n) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == n) return static_cast<OpId>(i);
  return std::nullopt;
}

bool Graph::is_input(TensorId t) const {
  return std::find(inputs.begin(), inputs.end(), t) != inputs.end();
}
bool Graph::is_output(TensorId t) const {
  return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
}

std::vector<OpId> Graph::file_order() const {
  std::vector<OpId> order(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) order[i] = static_cast<OpId>(i);
  return order;
}

Bytes align_up(Bytes value, Bytes alignment) {
  if (alignment <= 0) throw InputError("alignment", "must be a positive number of bytes");
  Bytes rem = value % alignment;
  if (rem == 0) return value;
  Bytes pad = alignment - rem;
  if (value > INT64_MAX - pad) throw InputError("size", "overflows 64 bits when aligned");
  return value + pad;
}

std::string format_bytes(Bytes b) {
  if (b != 0 && b % (1 << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b != 0 && b % 1024 == 0) return std::to_string(b / 1024) + " KiB";
  return std::to_string(b) + " B";
}

std::string format_bytes_exact(Bytes b) {
  const std::string text = format_bytes(b);
  return text.find("iB") == std::string::npos ? text : text + " (" + std::to_string(b) + " B)";
}

std::string format_kib(Bytes b, int decimals) {
  char text[48];
  if (b % 1024 == 0) std::snprintf(text, sizeof text, "%lld KiB", static_cast<long long>(b / 1024));
  else std::snprintf(text, sizeof text, "%.*f KiB", decimals, static_cast<double>(b) / 1024);
  return text;
}

std::string format_size(Bytes b, int decimals) {
  const Bytes mag = b < 0 ? -b : b;
  if (mag >= 1024 * 1024) {
    char text[48];
    std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
    return text;
  }
  if (mag < 1024 && b != 0) return std::to_string(b) + " B";
  return format_kib(b, decimals);
}

void link_tensors(Graph& g) {
  for (auto& t : g.tensors) {
    t.producer = -1;
    t.consumers.clear();
  }
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    for (TensorId t : op.outputs) {
      Tensor& tensor = g.tensors[t];
      if (tensor.producer >= 0)
        throw InputError("op " + op.name,
                         "tensor " + tensor.name + " is already produced by op " +
                             g.ops[tensor.producer].name + " (each tensor has one producer)");
      tensor.producer = static_cast<OpId>(o);
    }
    for (TensorId t : op.inputs) {
      auto& c = g.tensors[t].consumers;
      if (c.empty() || c.back() != static_cast<OpId>(o)) c.push_back(static_cast<OpId>(o));
    }
  }
}

std::vector<std::vector<OpId>> op_predecessors(const Graph& g) {
  std::vector<std::set<OpId>> preds(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    for (TensorId t : op.inputs)
      if (g.tensors[t].producer >= 0) preds[o].insert(g.tensors[t].producer);
    // In-place overwrites the input, so every other reader of it must have run already.
    for (const InPlace& ip : op.in_place)
      for (OpId reader : g.tensors[ip.input].consumers)
        if (reader != static_cast<OpId>(o)) preds[o].insert(reader);
  }
  std::vector<std::vector<OpId>> out(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o) out[o].assign(preds[o].begin(), preds[o].end());
  return out;
}

std::vector<OpId> topological_order(const Graph& g) {
  const size_t n = g.ops.size();
  const auto preds = op_predecessors(g);
  std::vector<int> missing(n, 0);
  std::vector<std::vector<OpId>> successors(n);
  for (size_t o = 0; o < n; ++o) {
    missing[o] = static_cast<int>(preds[o].size());
    for (OpId p : preds[o]) successors[p].push_back(static_cast<OpId>(o));
  }
  std::priority_queue<OpId, std::vector<OpId>, std::greater<>> ready;
  for (size_t o = 0; o < n; ++o)
    if (missing[o] == 0) ready.push(static_cast<OpId>(o));
  std::vector<OpId> order;
  while (!ready.empty()) {
    OpId o = ready.top();
    ready.pop();
    order.push_back(o);
    for (OpId s : successors[o])
      if (--missing[s] == 0) ready.push(s);
  }
  return order;  // shorter than ops.size() when there is a cycle
}

namespace {

void check_cycles(const Graph& g) {
  auto order = topological_order(g);
  if (order.size() == g.ops.size()) return;
  std::vector<bool> done(g.ops.size(), false);
  for (OpId o : order) done[o] = true;
  std::string names;
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (!done[o]) names += (names.empty() ? "" : ", ") + g.ops[o].name;
  throw InputError("ops", "the graph has a cycle through ops " + names);
}

// An op whose outputs reach no graph output and no persistent state does nothing observable.
void check_reachable(const Graph& g) {
  std::vector<bool> useful(g.ops.size(), false);
  std::vector<TensorId> stack;
  for (TensorId t : g.outputs) stack.push_back(t);
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].persistent || g.tensors[t].retained) stack.push_back(static_cast<TensorId>(t));
  // Persistent state written by an op keeps that op useful.
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (TensorId t : g.ops[o].outputs)
      if (g.tensors[t].persistent) useful[o] = true;
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (useful[o])
      for (TensorId t : g.ops[o].inputs) stack.push_back(t);
  while (!stack.empty()) {
    TensorId t = stack.back();
    stack.pop_back();
    OpId p = g.tensors[t].producer;
    if (p < 0 || useful[p]) continue;
    useful[p] = true;
    for (TensorId in : g.ops[p].inputs) stack.push_back(in);
  }
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (!useful[o])
      throw InputError("op " + g.ops[o].name,
                       "is unreachable: none of its outputs leads to a graph output");
}

void check_in_place(const Graph& g, const Op& op) {
  for (const InPlace& ip : op.in_place) {
    const std::string where = "op " + op.name + " in_place";
    if (std::find(op.outputs.begin(), op.outputs.end(), ip.output) == op.outputs.end())
      throw InputError(where, g.tensors[ip.output].name + " is not an output of this op");
    if (std::find(op.inputs.begin(), op.inputs.end(), ip.input) == op.inputs.end())
      throw InputError(where, g.tensors[ip.input].name + " is not an input of this op");
    const Tensor& in = g.tensors[ip.input];
    const Tensor& out = g.tensors[ip.output];
    if (out.bytes > in.bytes)
      throw InputError(where, "output " + out.name + " (" + std::to_string(out.bytes) +
                                  " B) does not fit in input " + in.name + " (" +
                                  std::to_string(in.bytes) + " B)");
    if (in.constant || in.persistent || in.retained || g.is_output(ip.input))
      throw InputError(where, "input " + in.name +
                                  " must stay intact (constant, persistent, retained or output)");
    for (const AsyncRead& a : op.async_reads)
      if (a.tensor == ip.input && a.extra_steps > 0)
        throw InputError(where, "input " + in.name + " is still read asynchronously");
  }
}

}  // namespace

void validate_graph(const Graph& g) {
  for (const Tensor& t : g.tensors) {
    if (t.bytes <= 0) throw InputError("tensor " + t.name, "size must be positive");
    if (t.producer < 0 && !t.constant && !t.persistent && !g.is_input(
            static_cast<TensorId>(&t - g.tensors.data())) && !t.consumers.empty())
      throw InputError("tensor " + t.name,
                       "is read but never produced (declare it a graph input, constant or "
                       "persistent)");
    if (t.constant && t.producer >= 0)
      throw InputError("tensor " + t.name, "is constant but produced by op " +
                                               g.ops[t.producer].name);
  }
  for (TensorId t : g.inputs)
    if (g.tensors[t].producer >= 0)
      throw InputError("inputs", "graph input " + g.tensors[t].name + " is produced by op " +
                                     g.ops[g.tensors[t].producer].name);
  for (const Op& op : g.ops) {
    if (op.outputs.empty()) throw InputError("op " + op.name, "has no outputs");
    for (const AsyncRead& a : op.async_reads) {
      if (std::find(op.inputs.begin(), op.inputs.end(), a.tensor) == op.inputs.end())
        throw InputError("op " + op.name + " async",
                         g.tensors[a.tensor].name + " is not an input of this op");
      if (a.extra_steps < 0)
        throw InputError("op " + op.name + " async", "steps must be >= 0");
    }
    check_in_place(g, op);
  }
  check_cycles(g);
  check_reachable(g);
}

}  // namespace arenaplan
