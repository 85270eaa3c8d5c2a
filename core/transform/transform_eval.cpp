// The meaning of a (rewritten) graph: one run with every tensor in its own bytes, built from the
// simulator's kernels and fills, so an untransformed graph gives exactly the simulator's outputs
// and a rewritten one can be compared with it bit for bit.
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "core/sim/sim.h"
#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

using Bytes8 = std::vector<uint8_t>;

// Plans one part of a fused op on a graph of its own operands.
sim::KernelPlan plan_part(const std::string& name, const std::string& kind, const std::map<std::string, int64_t>& attrs,
                          const std::vector<Tensor>& inputs, const Tensor& output, Bytes scratch) {
  Graph mini;
  Op op;
  op.name = name;
  op.kind = kind;
  op.attrs = attrs;
  op.scratch_bytes = scratch;
  for (const Tensor& t : inputs) {
    op.inputs.push_back(static_cast<TensorId>(mini.tensors.size()));
    mini.tensors.push_back(t);
  }
  op.outputs.push_back(static_cast<TensorId>(mini.tensors.size()));
  mini.tensors.push_back(output);
  mini.ops.push_back(op);
  return sim::plan_kernel(mini, 0);
}

sim::Operand operand(Bytes8& b) { return {b.data(), static_cast<int64_t>(b.size())}; }

// Runs one kernel; weights the graph gives only by attrs are generated as the simulator's flash
// holds them (named after `op_name`, the op of the untransformed graph).
void run(const sim::KernelPlan& plan, std::vector<sim::Operand> in, std::vector<sim::Operand> out, Bytes scratch,
         const std::string& op_name, uint64_t seed) {
  Bytes8 s(static_cast<size_t>(scratch));
  Bytes8 weights(static_cast<size_t>(plan.implicit_weight_bytes));
  if (!weights.empty()) sim::fill_implicit_weights(op_name, plan.implicit_weight_bytes, seed, weights.data());
  sim::run_kernel(plan, in.data(), in.size(), out.data(), out.size(), {s.data(), scratch},
                  weights.empty() ? nullptr : weights.data());
}

// One part of a fused op: its kernel's operands, where -1 stands for the previous part's result.
struct FusedPart {
  std::string name;  // the op this part was before fusion (names its implicit weights)
  std::vector<Tensor> inputs;
  std::vector<int> input_index;  // into op.inputs, or -1: the previous part's result
  Tensor output;                 // the final output for the last part, else the vanished intermediate
  sim::KernelPlan plan;
  Bytes scratch = 0;
};

// The recorded element type of the intermediate part `k` reads ("k.dtype"), if any.
std::optional<DType> intermediate_dtype(const Op& op, int k) {
  auto it = op.attrs.find(std::to_string(k) + ".dtype");
  if (it == op.attrs.end()) return std::nullopt;
  if (it->second < 0 || it->second > static_cast<int64_t>(DType::kUInt64))
    throw InputError("op " + op.name, "fused op's attr " + it->first + " is not an element type");
  return static_cast<DType>(it->second);
}

// Fused op: part 0 on its own inputs, each later part on the previous result plus its inputs.
std::vector<FusedPart> fused_parts(const Graph& g, const Op& op) {
  const std::vector<std::string> names = split(op.name, '+');
  const std::vector<std::string> kinds = split(op.kind, '+');
  const int parts = static_cast<int>(op.attrs.at("fused_parts"));
  if (static_cast<int>(names.size()) != parts || static_cast<int>(kinds.size()) != parts)
    throw InputError("op " + op.name, "fused op names " + std::to_string(names.size()) + " parts, attrs say " +
                                          std::to_string(parts));
  auto get = [&](int k, const char* key) {
    auto it = op.attrs.find(std::to_string(k) + "." + key);
    if (it == op.attrs.end()) throw InputError("op " + op.name, "fused op lacks attr " + std::to_string(k) + "." + key);
    return it->second;
  };
  std::vector<std::map<std::string, int64_t>> attrs(parts);
  for (const auto& [key, value] : op.attrs) {
    if (key == "fused_parts") continue;
    const size_t dot = key.find('.');
    int k = 0;
    if (dot != std::string::npos && dot > 0 && key.find_first_not_of("0123456789") == dot) k = std::stoi(key.substr(0, dot));
    if (k > 0 && k < parts) attrs[k][key.substr(dot + 1)] = value;
    else attrs[0][key] = value;
  }
  int64_t extra = 0;
  for (int k = 1; k < parts; ++k) extra += get(k, "inputs");
  if (extra < 0 || extra > static_cast<int64_t>(op.inputs.size()))
    throw InputError("op " + op.name, "fused op's part inputs do not add up");
  const int own0 = static_cast<int>(op.inputs.size() - extra);
  const Tensor& final_out = g.tensors[op.outputs.at(0)];
  int next_input = own0;
  std::vector<FusedPart> out(parts);
  for (int k = 0; k < parts; ++k) {
    FusedPart& p = out[k];
    p.name = names[k];
    if (k == 0) {
      for (int i = 0; i < own0; ++i) p.input_index.push_back(i);
    } else {
      const int64_t slot = get(k, "slot"), n = get(k, "inputs");
      for (int64_t i = 0; i < n; ++i) p.input_index.push_back(next_input++);
      if (slot < 0 || slot > n) throw InputError("op " + op.name, "fused op's slot out of range");
      p.input_index.insert(p.input_index.begin() + slot, -1);
    }
    for (int i : p.input_index) p.inputs.push_back(i < 0 ? out[k - 1].output : g.tensors[op.inputs[i]]);
    if (k + 1 == parts) {
      p.output = final_out;
    } else {
      // The vanished intermediate: an elementwise successor keeps its shape, so it has the final's
      // element count; its type is the one fuse_ops recorded (older graphs: the final's, when the
      // sizes agree).
      const Bytes bytes = get(k + 1, "bytes");
      p.output.name = names[k] + ":out";
      p.output.bytes = bytes;
      const std::optional<DType> recorded = intermediate_dtype(op, k + 1);
      const std::optional<DType> type = recorded ? recorded : bytes == final_out.bytes ? final_out.dtype : std::nullopt;
      const bool same_count = type && final_out.dtype
                                  ? bytes * dtype_width(*final_out.dtype) == final_out.bytes * dtype_width(*type)
                                  : bytes == final_out.bytes;
      if (same_count) p.output.shape = final_out.shape, p.output.dtype = type;  // else bytes only
    }
    p.scratch = k == 0 ? op.scratch_bytes : 0;
    p.plan = plan_part(names[k], kinds[k], attrs[k], p.inputs, p.output, p.scratch);
  }
  return out;
}

void run_fused(const Graph& g, const Op& op, std::vector<Bytes8>& data, uint64_t seed) {
  Bytes8 prev;
  const std::vector<FusedPart> parts = fused_parts(g, op);
  for (size_t k = 0; k < parts.size(); ++k) {
    const FusedPart& p = parts[k];
    std::vector<sim::Operand> in;
    for (int i : p.input_index) in.push_back(i < 0 ? operand(prev) : operand(data[op.inputs[i]]));
    Bytes8 result;
    sim::Operand out;
    if (k + 1 == parts.size()) {
      out = operand(data[op.outputs[0]]);
    } else {
      result.assign(static_cast<size_t>(p.output.bytes), 0);
      out = operand(result);
    }
    run(p.plan, in, {out}, p.scratch, p.name, seed);
    prev = std::move(result);
  }
}

// A patch cut: rows [begin, begin + size) along `axis` and, for a rows x columns grid, columns
// [begin_w, begin_w + size_w) along `axis_w` (transform_patch.cpp).
void run_slice(const Graph& g, const Op& op, std::vector<Bytes8>& data) {
  const Tensor& x = g.tensors[op.inputs.at(0)];
  if (!x.dtype) throw InputError("op " + op.name, "slice needs a shaped input and an axis inside it");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> dims = dims_of(x), begin(rank, 0), size = dims;
  auto cut = [&](const char* axis_attr, const char* begin_attr, const char* size_attr) {
    const int64_t axis = op.attrs.at(axis_attr), b = op.attrs.at(begin_attr), n = op.attrs.at(size_attr);
    if (axis < 0 || axis >= rank) throw InputError("op " + op.name, "slice needs a shaped input and an axis inside it");
    if (b < 0 || n < 0 || b + n > dims[axis]) throw InputError("op " + op.name, "slice rows outside the input");
    begin[axis] = b, size[axis] = n;
  };
  cut("axis", "begin", "size");
  if (op.attrs.count("axis_w")) cut("axis_w", "begin_w", "size_w");
  // Copy contiguous runs of the innermost dims that are taken whole.
  const int64_t width = dtype_width(*x.dtype);
  int64_t split = rank;  // dims [split, rank) are copied whole
  int64_t run = width;
  while (split > 0 && begin[split - 1] == 0 && size[split - 1] == dims[split - 1]) run *= dims[--split];
  if (split > 0) run *= size[split - 1];
  const int64_t outer_rank = split > 0 ? split - 1 : 0;
  std::vector<int64_t> idx(outer_rank, 0), stride(rank, width);
  for (int64_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * dims[d];
  int64_t runs = 1;
  for (int64_t d = 0; d < outer_rank; ++d) runs *= size[d];
  const uint8_t* src = data[op.inputs[0]].data();
  uint8_t* y = data[op.outputs.at(0)].data();
  for (int64_t r = 0; r < runs; ++r, y += run) {
    int64_t offset = split > 0 ? begin[split - 1] * stride[split - 1] : 0;
    for (int64_t d = 0; d < outer_rank; ++d) offset += (begin[d] + idx[d]) * stride[d];
    std::memcpy(y, src + offset, static_cast<size_t>(run));
    for (int64_t d = outer_rank; d-- > 0;) {  // odometer over the outer dims
      if (++idx[d] < size[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

namespace transform_detail {
sim::KernelWork fused_work(const Graph& g, OpId o) {
  sim::KernelWork w;
  for (const FusedPart& p : fused_parts(g, g.ops[o])) {
    w.macs += p.plan.work.macs;
    w.alu_ops += p.plan.work.alu_ops;
  }
  return w;
}
}  // namespace transform_detail

namespace {

// Runs op `o` of `g` on `data` (its outputs allocated). `named` is `g` with recomputed ops under
// their original names (their kernels' salt); `scales` carries the quantize rewrite's scales.
void run_op(const Graph& g, const Graph& named, OpId o, std::vector<Bytes8>& data, std::map<TensorId, float>& scales,
            uint64_t seed) {
  const Op& op = g.ops[o];
  if (op.attrs.count("fused_parts")) {
    run_fused(g, op, data, seed);
    return;
  }
  // The patch rewrite's cuts carry their rows as attrs; a model's SLICE (begin and size operands)
  // runs its model kernel below.
  if (op.kind == "slice" && op.inputs.size() == 1 && op.attrs.count("axis")) {
    run_slice(g, op, data);
    return;
  }
  const bool quant = op.kind == "quantize", dequant = op.kind == "dequantize";
  if ((quant || dequant) && op.inputs.size() == 1 && op.outputs.size() == 1) {
    const Tensor& x = g.tensors[op.inputs[0]];
    const Tensor& y = g.tensors[op.outputs[0]];
    // The quantize rewrite's own ops choose their scale from the data; a model's quantize op
    // (its output carries quantization) runs its model kernel below.
    if (quant && x.dtype == DType::kFloat32 && y.dtype == DType::kInt8 && !y.quant) {
      const int64_t n = y.bytes;
      std::vector<float> v(static_cast<size_t>(n));
      std::memcpy(v.data(), data[op.inputs[0]].data(), static_cast<size_t>(n * 4));
      const float s = quantize_scale(v.data(), n);
      scales[op.outputs[0]] = s;
      quantize_values(v.data(), n, s, reinterpret_cast<int8_t*>(data[op.outputs[0]].data()));
      return;
    }
    if (dequant && x.dtype == DType::kInt8 && y.dtype == DType::kFloat32 && !x.quant) {
      const int64_t n = x.bytes;
      std::vector<float> v(static_cast<size_t>(n));
      const float s = scales.count(op.inputs[0]) ? scales[op.inputs[0]] : 1.0f;
      dequantize_values(reinterpret_cast<const int8_t*>(data[op.inputs[0]].data()), n, s, v.data());
      std::memcpy(data[op.outputs[0]].data(), v.data(), static_cast<size_t>(n * 4));
      return;
    }
  }
  std::vector<sim::Operand> in, out;
  for (TensorId t : op.inputs) in.push_back(operand(data[t]));
  for (TensorId t : op.outputs) out.push_back(operand(data[t]));
  run(sim::plan_kernel(named, o), in, out, op.scratch_bytes, named.ops[o].name, seed);
}

// The bytes of the tensors `keep` names after one run (the rest are empty: each is freed after its
// last reader, so a long graph needs only what is live at once, as on the device). Graph inputs
// named in `fed` take those bytes instead of the simulator's fill.
std::vector<Bytes8> run_graph(const Graph& g, uint64_t seed, const std::map<std::string, const Bytes8*>& fed,
                              const std::function<bool(TensorId)>& keep) {
  const std::vector<OpId> order = topological_order(g);
  std::vector<size_t> last_read(g.tensors.size(), 0);
  for (size_t i = 0; i < order.size(); ++i)
    for (TensorId t : g.ops[order[i]].inputs) last_read[t] = i;
  std::vector<Bytes8> data(g.tensors.size());
  auto produced = [&](TensorId t) { data[t].assign(static_cast<size_t>(g.tensors[t].bytes), 0); };
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& T = g.tensors[t];
    const bool input = g.is_input(static_cast<TensorId>(t));
    if (!input && !T.constant && !T.persistent) continue;  // allocated when its producer runs
    produced(static_cast<TensorId>(t));
    auto given = fed.find(T.name);
    if (input && given != fed.end() && given->second->size() == data[t].size())
      data[t] = *given->second;
    else if (input) sim::fill_tensor(T, seed, 1, data[t].data());
    // A model's constants are its own bytes (weights, biases), as in the simulator's flash, so
    // the comparison runs the model's arithmetic rather than seeded stand-in weights.
    else if (T.constant && T.data && static_cast<Bytes>(T.data->size()) == T.bytes)
      std::memcpy(data[t].data(), T.data->data(), T.data->size());
    else sim::fill_tensor(T, seed, 0, data[t].data());
  }
  // Recomputed ops salt their kernels with the original op's name, as the original run did.
  Graph named = g;
  for (Op& op : named.ops)
    if (op.attrs.count("recompute")) {
      op.name = op.name.substr(0, op.name.rfind('@'));
      op.attrs.erase("recompute");
    }
  std::map<TensorId, float> scales;  // quantized tensors: the scale their quantize op chose
  for (size_t i = 0; i < order.size(); ++i) {
    const OpId o = order[i];
    const Op& op = g.ops[o];
    for (TensorId t : op.outputs)
      if (data[t].empty()) produced(t);
    run_op(g, named, o, data, scales, seed);
    for (TensorId t : op.inputs)
      if (last_read[t] == i && !keep(t) && !g.tensors[t].persistent) Bytes8().swap(data[t]);
  }
  return data;
}


}  // namespace

std::vector<uint8_t> evaluate_outputs(const Graph& g, uint64_t seed) {
  const std::vector<Bytes8> data = run_graph(g, seed, {}, [&](TensorId t) { return g.is_output(t); });
  std::vector<uint8_t> result;
  for (TensorId t : g.outputs) result.insert(result.end(), data[t].begin(), data[t].end());
  return result;
}

bool outputs_match(const Graph& original, const Graph& rewritten, uint64_t seed, std::string* note) {
  // The original run keeps what the comparison reads: its outputs, and the tensors the rewritten
  // graph names as inputs (fed) or outputs (compared by name).
  std::set<std::string> named_by_rewrite;
  for (const std::vector<TensorId>* list : {&rewritten.inputs, &rewritten.outputs})
    for (TensorId t : *list) named_by_rewrite.insert(rewritten.tensors[t].name);
  const std::vector<Bytes8> before = run_graph(original, seed, {}, [&](TensorId t) {
    return original.is_output(t) || named_by_rewrite.count(original.tensors[t].name) > 0;
  });
  auto original_tensor = [&](TensorId t) -> const Bytes8* {
    auto id = original.find_tensor(rewritten.tensors[t].name);
    return id ? &before[*id] : nullptr;
  };
  std::map<std::string, const Bytes8*> fed;
  std::string fed_names, inner_outputs;
  for (TensorId t : rewritten.inputs) {
    auto id = original.find_tensor(rewritten.tensors[t].name);
    if (id && !original.is_input(*id)) {
      fed[rewritten.tensors[t].name] = &before[*id];
      fed_names += (fed_names.empty() ? "" : ", ") + rewritten.tensors[t].name;
    }
  }
  const std::vector<Bytes8> after = run_graph(rewritten, seed, fed, [&](TensorId t) { return rewritten.is_output(t); });
  bool same = rewritten.outputs.size() == original.outputs.size();
  for (size_t i = 0; same && i < rewritten.outputs.size(); ++i) {
    const TensorId t = rewritten.outputs[i];
    // By name; an output a rewrite renamed compares with the original output in its place.
    const Bytes8* want = original_tensor(t);
    if (!want) want = &before[original.outputs[i]];
    same = *want == after[t];
    if (auto id = original.find_tensor(rewritten.tensors[t].name); id && !original.is_output(*id))
      inner_outputs += (inner_outputs.empty() ? "" : ", ") + rewritten.tensors[t].name;
  }
  if (note) {
    *note = "";
    if (!fed_names.empty()) *note += "inputs " + fed_names +
                                    " fed the original graph's values of them (quantize(original input) for a QUANTIZE "
                                    "moved to the caller); ";
    if (!inner_outputs.empty()) *note += "outputs " + inner_outputs + " compared with the original graph's tensors of that name; ";
  }
  return same;
}

}  // namespace arenaplan
