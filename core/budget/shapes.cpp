#include "core/budget/shapes.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/graph/op_kinds.h"
#include "core/layout/pipeline.h"

namespace arenaplan {

namespace {

using Dims = std::vector<int64_t>;

int64_t mul(int64_t a, int64_t b, const std::string& where) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) throw InputError(where, "size overflows 64 bits");
  return out;
}

int64_t elements(const Dims& d, const std::string& where) {
  int64_t n = 1;
  for (int64_t x : d) n = mul(n, x, where);
  return n;
}

std::string binding_text(const DimBinding& b) {
  std::string out;
  for (const auto& [k, v] : b) out += (out.empty() ? "" : ", ") + k + " = " + std::to_string(v);
  return out.empty() ? "" : " (at " + out + ")";
}

int64_t attr(const Op& op, const char* name, int64_t fallback) {
  auto it = op.attrs.find(name);
  return it == op.attrs.end() ? fallback : it->second;
}

// First input that is not a constant (weights, biases): the activation an op transforms.
int activation_input(const Graph& g, const Op& op) {
  for (TensorId t : op.inputs)
    if (!g.tensors[t].constant) return t;
  return op.inputs.empty() ? -1 : op.inputs[0];
}

// A constant 4-D weight tensor among the inputs (TFLite OHWI layout), if any.
const Dims* weights4(const Graph& g, const Op& op, const std::vector<Dims>& shapes) {
  for (TensorId t : op.inputs)
    if (g.tensors[t].constant && shapes[t].size() == 4) return &shapes[t];
  return nullptr;
}
const Dims* weights2(const Graph& g, const Op& op, const std::vector<Dims>& shapes) {
  for (TensorId t : op.inputs)
    if (g.tensors[t].constant && shapes[t].size() == 2) return &shapes[t];
  return nullptr;
}

// Spatial output size of a window op along one axis: "same" (hand-written attr padding 1), else
// explicit padding before and after (imported models and folded PADs pad asymmetrically).
int64_t window_out(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, bool same, int64_t pad_before,
                   int64_t pad_after, const std::string& where) {
  if (kernel < 1 || stride < 1 || dilation < 1 || pad_before < 0 || pad_after < 0)
    throw InputError(where, "kernel, stride and dilation must be >= 1 and padding >= 0");
  if (same) return (in + stride - 1) / stride;
  int64_t effective = (kernel - 1) * dilation + 1;
  int64_t span = in + pad_before + pad_after - effective;
  if (span < 0)
    throw InputError(where, "window of " + std::to_string(effective) + " does not fit input size " + std::to_string(in) +
                                " with padding " + std::to_string(pad_before) + " + " + std::to_string(pad_after));
  return span / stride + 1;
}

Dims window_op(const Graph& g, const Op& op, const std::vector<Dims>& shapes, const std::string& where) {
  int in_t = activation_input(g, op);
  if (in_t < 0 || shapes[in_t].size() != 4)
    throw InputError(where, "expects a 4-D NHWC input with a shape");
  const Dims& in = shapes[in_t];
  const Dims* w = weights4(g, op, shapes);
  const OpFamily family = op_family(op.kind);
  const bool depthwise = family == OpFamily::kDepthwiseConv, pool = is_pool_family(family);
  int64_t kh = attr(op, "kernel_h", attr(op, "kernel", w && !pool ? (*w)[1] : -1));
  int64_t kw = attr(op, "kernel_w", attr(op, "kernel", w && !pool ? (*w)[2] : -1));
  if (kh < 0 || kw < 0) throw InputError(where, "needs attrs kernel (or kernel_h, kernel_w) or a constant OHWI weight tensor");
  int64_t sh = attr(op, "stride_h", attr(op, "stride", 1)), sw = attr(op, "stride_w", attr(op, "stride", 1));
  int64_t dh = attr(op, "dilation_h", attr(op, "dilation", 1)), dw = attr(op, "dilation_w", attr(op, "dilation", 1));
  int64_t padding = attr(op, "padding", 0);
  // Explicit pads: top = pad_h (or pad), bottom = pad_bottom (default: the top), likewise left/right.
  int64_t pt = attr(op, "pad_h", attr(op, "pad", 0)), pl = attr(op, "pad_w", attr(op, "pad", 0));
  int64_t pb = attr(op, "pad_bottom", pt), pr = attr(op, "pad_right", pl);
  // A folded PAD widens a pool's input by its border (fold_pad_*), read as the pad value.
  int64_t ih = in[1] + attr(op, "fold_pad_top", 0) + attr(op, "fold_pad_bottom", 0);
  int64_t iw = in[2] + attr(op, "fold_pad_left", 0) + attr(op, "fold_pad_right", 0);
  if (padding != 0 && padding != 1) throw InputError(where, "attr padding must be 0 (valid) or 1 (same)");
  int64_t channels;
  if (pool) channels = in[3];
  else if (depthwise) channels = attr(op, "filters", w ? (*w)[3] : mul(in[3], attr(op, "depth_multiplier", 1), where));
  else channels = attr(op, "filters", w ? (*w)[0] : -1);
  if (channels < 1) throw InputError(where, "needs attr filters or a constant OHWI weight tensor");
  return {in[0], window_out(ih, kh, sh, dh, padding == 1, pt, pb, where + " (height)"),
          window_out(iw, kw, sw, dw, padding == 1, pl, pr, where + " (width)"), channels};
}

Dims dense_op(const Graph& g, const Op& op, const std::vector<Dims>& shapes, const std::string& where) {
  int in_t = activation_input(g, op);
  if (in_t < 0 || shapes[in_t].empty()) throw InputError(where, "expects an input with a shape");
  const Dims& in = shapes[in_t];
  const Dims* w = weights2(g, op, shapes);
  int64_t units = attr(op, "units", w ? (*w)[0] : -1);
  if (units < 1) throw InputError(where, "needs attr units or a constant [units, K] weight tensor");
  // TFLite keeps the batch and flattens the rest into K.
  Dims rest(in.begin() + 1, in.end());
  int64_t k = elements(rest, where);
  if (w && (*w)[1] != k)
    throw InputError(where, "weights expect K = " + std::to_string((*w)[1]) + " but the input has " + std::to_string(k) +
                                " features per batch row");
  return {in[0], units};
}

Dims concat_op(const Graph& g, const Op& op, const std::vector<Dims>& shapes, const std::string& where) {
  if (op.inputs.empty() || shapes[op.inputs[0]].empty()) throw InputError(where, "expects inputs with shapes");
  Dims out = shapes[op.inputs[0]];
  int64_t rank = static_cast<int64_t>(out.size());
  int64_t axis = attr(op, "axis", rank - 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw InputError(where, "attr axis is outside the rank " + std::to_string(rank));
  for (size_t i = 1; i < op.inputs.size(); ++i) {
    const Dims& s = shapes[op.inputs[i]];
    const std::string& name = g.tensors[op.inputs[i]].name;
    if (s.size() != out.size()) throw InputError(where, "input " + name + " has rank " + std::to_string(s.size()) + ", expected " + std::to_string(rank));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) {
        if (__builtin_add_overflow(out[d], s[d], &out[d])) throw InputError(where, "size overflows 64 bits");
      } else if (s[d] != out[d]) {
        throw InputError(where, "input " + name + " dim " + std::to_string(d) + " is " + std::to_string(s[d]) +
                                    ", expected " + std::to_string(out[d]) + " (only axis " + std::to_string(axis) + " may differ)");
      }
    }
  }
  return out;
}

Dims broadcast_op(const Graph& g, const Op& op, const std::vector<Dims>& shapes, const std::string& where) {
  Dims out;
  for (TensorId t : op.inputs) {
    const Dims& s = shapes[t];
    if (s.empty()) continue;
    if (out.empty()) {
      out = s;
      continue;
    }
    // Numpy broadcasting, right-aligned.
    Dims r(std::max(out.size(), s.size()), 1);
    for (size_t i = 0; i < r.size(); ++i) {
      int64_t a = i < r.size() - out.size() ? 1 : out[i - (r.size() - out.size())];
      int64_t b = i < r.size() - s.size() ? 1 : s[i - (r.size() - s.size())];
      if (a != b && a != 1 && b != 1)
        throw InputError(where, "cannot broadcast " + shape_text(out) + " with " + g.tensors[t].name + " " + shape_text(s));
      r[i] = std::max(a, b);
    }
    out = r;
  }
  if (out.empty()) throw InputError(where, "expects inputs with shapes");
  return out;
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

std::string ranges_text(const DimRanges& ranges) {
  std::string out;
  for (const auto& [k, b] : ranges)
    out += (out.empty() ? "" : ", ") + k + " in [" + std::to_string(b.min) + ", " + std::to_string(b.max) + "]";
  return out.empty() ? "all shapes" : out;
}

DimBinding lower_binding(const Graph& g) {
  DimBinding b;
  for (const auto& [k, v] : g.dims) b[k] = v.min;
  return b;
}

DimBinding upper_binding(const Graph& g) {
  DimBinding b;
  for (const auto& [k, v] : g.dims) b[k] = v.max;
  return b;
}

ShapeInstance propagate_shapes(const Graph& g, const DimBinding& binding) {
  ShapeInstance s;
  s.binding = binding;
  s.shapes.resize(g.tensors.size());
  s.bytes.resize(g.tensors.size());
  const std::string at = binding_text(binding);
  // Declared shapes at this binding: inputs, constants and the check for every computed output.
  std::vector<Dims> declared(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    for (const ShapeDim& d : g.tensors[t].shape) {
      int64_t v = d.value;
      if (!d.symbol.empty()) {
        auto it = binding.find(d.symbol);
        if (it == binding.end()) throw InputError("tensor " + g.tensors[t].name, "symbol " + d.symbol + " is not bound");
        v = it->second;
      }
      declared[t].push_back(v);
    }
    s.shapes[t] = declared[t];
  }
  for (OpId o : topological_order(g)) {
    const Op& op = g.ops[o];
    const std::string where = "op " + op.name;
    Dims out;
    // Window and concat geometry lives in attrs; an op without any (e.g. imported from .tflite,
    // whose stride and axis we do not carry) keeps its declared output rather than guessing.
    const OpFamily family = op_family(op.kind);
    const bool geometric = is_window_family(family) || family == OpFamily::kConcat;
    if (geometric && op.attrs.empty() && !op.outputs.empty() && !declared[op.outputs[0]].empty()) continue;
    if (is_window_family(family)) out = window_op(g, op, s.shapes, where);
    else if (family == OpFamily::kDense) out = dense_op(g, op, s.shapes, where);
    else if (family == OpFamily::kConcat) out = concat_op(g, op, s.shapes, where);
    else if (family == OpFamily::kElementwise) out = broadcast_op(g, op, s.shapes, where);
    else if (family == OpFamily::kReshape) {
      int in_t = activation_input(g, op);
      if (in_t < 0 || s.shapes[in_t].empty() || op.outputs.size() != 1 || declared[op.outputs[0]].empty())
        throw InputError(where, "reshape needs an input with a shape and one output with a declared shape");
      int64_t a = elements(s.shapes[in_t], where), b = elements(declared[op.outputs[0]], where);
      if (a != b)
        throw InputError(where, "reshape of " + shape_text(s.shapes[in_t]) + " (" + std::to_string(a) + " elements) into " +
                                    g.tensors[op.outputs[0]].name + " " + shape_text(declared[op.outputs[0]]) + " (" +
                                    std::to_string(b) + " elements)" + at);
      continue;  // the declared output is the result
    } else {
      continue;  // unknown kind: declared shapes (or byte sizes) stand
    }
    // Known kinds have one activation output; extra outputs keep their declarations.
    const TensorId t = op.outputs[0];
    const Dims& d = declared[t];
    if (!d.empty()) {
      if (d.size() != out.size())
        throw InputError(where, "output " + g.tensors[t].name + " is declared " + shape_text(d) + " but the op computes " +
                                    shape_text(out) + at);
      for (size_t i = 0; i < d.size(); ++i)
        if (d[i] != out[i]) {
          const ShapeDim& sd = g.tensors[t].shape[i];
          throw InputError(where, "output " + g.tensors[t].name + " dim " + std::to_string(i) +
                                      (sd.symbol.empty() ? "" : " (" + sd.symbol + ")") + " is declared " +
                                      std::to_string(d[i]) + " but the op computes " + std::to_string(out[i]) + at);
        }
    }
    s.shapes[t] = out;
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    if (!s.shapes[t].empty() && tensor.dtype)
      s.bytes[t] = mul(elements(s.shapes[t], "tensor " + tensor.name), dtype_width(*tensor.dtype), "tensor " + tensor.name);
    else
      s.bytes[t] = tensor.bytes;  // sized in bytes: a constant
  }
  return s;
}

Graph graph_at(const Graph& g, const ShapeInstance& s) {
  Graph out = g;
  for (size_t t = 0; t < out.tensors.size(); ++t) {
    Tensor& tensor = out.tensors[t];
    tensor.bytes = s.bytes[t];
    for (ShapeDim& d : tensor.shape)
      if (!d.symbol.empty()) d.value = s.binding.at(d.symbol);
  }
  for (auto& [k, b] : out.dims) b.min = b.max = s.binding.at(k);
  return out;
}

bool ContractPlan::covers(const DimBinding& b) const {
  for (const auto& [k, r] : ranges) {
    auto it = b.find(k);
    if (it == b.end() || it->second < r.min || it->second > r.max) return false;
  }
  return true;
}

std::vector<DimRanges> default_ranges(const Graph& g) {
  std::vector<DimRanges> out{DimRanges{}};
  for (const auto& [k, bound] : g.dims) {
    std::vector<DimBound> buckets{{bound.min, bound.min}};
    for (int64_t lo = bound.min + 1; lo <= bound.max;) {
      int64_t hi = lo;
      while (hi < bound.max && (hi & (hi - 1)) != 0) ++hi;  // up to the next power of two
      buckets.push_back({lo, hi});
      lo = hi + 1;
    }
    if (out.size() * buckets.size() > 64) buckets = {bound};  // keep the contract small
    std::vector<DimRanges> next;
    for (const DimRanges& r : out)
      for (const DimBound& b : buckets) {
        DimRanges x = r;
        x[k] = b;
        next.push_back(x);
      }
    out = next;
  }
  return out;
}

ShapeContract build_contract(const Graph& g, const Schedule& order, const std::vector<DimRanges>& ranges,
                             const PlanOptions& options) {
  ShapeContract c;
  c.graph = g;
  c.order = order;
  check_order(g, order);
  for (size_t i = 0; i < ranges.size(); ++i) {
    ContractPlan p;
    for (const auto& [k, b] : ranges[i]) {
      const std::string where = "ranges/" + std::to_string(i) + "/" + k;
      auto bound = g.dims.find(k);
      if (bound == g.dims.end()) throw InputError(where, "graph " + g.name + " has no symbolic dim " + k);
      if (b.min > b.max) throw InputError(where, "min " + std::to_string(b.min) + " > max " + std::to_string(b.max));
      if (b.min < bound->second.min || b.max > bound->second.max)
        throw InputError(where, "[" + std::to_string(b.min) + ", " + std::to_string(b.max) + "] leaves the graph's bound " +
                                    std::to_string(bound->second.min) + " <= " + k + " <= " + std::to_string(bound->second.max));
    }
    p.ranges = ranges[i];
    for (const auto& [k, b] : g.dims)
      if (!p.ranges.count(k)) p.ranges[k] = b;
    DimBinding top;
    for (const auto& [k, b] : p.ranges) top[k] = b.max;
    p.upper = propagate_shapes(g, top);
    Graph sized = graph_at(g, p.upper);
    GraphPlan planned = plan_graph(sized, order, options);
    p.live = std::move(planned.live);
    p.problem = std::move(planned.problem);
    p.plan = std::move(planned.plan);

    // Validate at every binding of the range (or every corner when there are too many): the
    // same offsets must verify with that binding's sizes.
    int64_t count = 1;
    for (const auto& [k, b] : p.ranges) count = std::min<int64_t>(count * (b.max - b.min + 1), 1 << 20);
    p.exhaustive = count <= 4096;
    std::vector<DimBinding> bindings{DimBinding{}};
    for (const auto& [k, b] : p.ranges) {
      std::vector<int64_t> values;
      if (p.exhaustive)
        for (int64_t v = b.min; v <= b.max; ++v) values.push_back(v);
      else
        values = b.min == b.max ? std::vector<int64_t>{b.min} : std::vector<int64_t>{b.min, b.max};
      std::vector<DimBinding> next;
      for (const DimBinding& x : bindings)
        for (int64_t v : values) {
          DimBinding y = x;
          y[k] = v;
          next.push_back(y);
        }
      bindings = next;
    }
    for (const DimBinding& b : bindings) {
      Graph at = graph_at(g, propagate_shapes(g, b));
      LayoutProblem problem = layout_problem(at, analyze_lifetimes(at, order));
      VerifyResult v = verify_plan(problem, p.plan.offsets, p.plan.arena_bytes);
      if (!v.ok())
        throw InputError("ranges/" + std::to_string(i), "the plan for " + ranges_text(p.ranges) + " fails at" +
                                                            binding_text(b) + ": " + v.message);
      ++p.verified_bindings;
    }
    c.plans.push_back(std::move(p));
  }
  std::stable_sort(c.plans.begin(), c.plans.end(),
                   [](const ContractPlan& a, const ContractPlan& b) { return a.plan.arena_bytes < b.plan.arena_bytes; });
  return c;
}

ShapeCheck check_input_shapes(const ShapeContract& c, const std::map<std::string, std::vector<int64_t>>& inputs) {
  const Graph& g = c.graph;
  ShapeCheck r;
  auto reject = [&](std::string msg) {
    r.accepted = false;
    r.message = std::move(msg);
    return r;
  };
  std::map<std::string, std::string> bound_by;  // symbol -> "input x dim 0", for messages
  for (const auto& [name, dims] : inputs) {
    auto t = g.find_tensor(name);
    if (!t || !g.is_input(*t)) throw InputError("--input " + name, "graph " + g.name + " has no input named " + name);
    const Tensor& tensor = g.tensors[*t];
    if (tensor.shape.empty()) {
      if (!dims.empty()) return reject("input " + name + " is sized in bytes (" + std::to_string(tensor.bytes) + " B) and has no shape to check");
      continue;
    }
    if (dims.size() != tensor.shape.size())
      return reject("input " + name + " has rank " + std::to_string(dims.size()) + ", the contract expects rank " +
                    std::to_string(tensor.shape.size()));
    for (size_t i = 0; i < dims.size(); ++i) {
      const ShapeDim& d = tensor.shape[i];
      const std::string place = "input " + name + " dim " + std::to_string(i);
      if (d.symbol.empty()) {
        if (dims[i] != d.value)
          return reject(place + " is " + std::to_string(dims[i]) + ", the contract fixes it at " + std::to_string(d.value));
        continue;
      }
      const DimBound& b = g.dims.at(d.symbol);
      if (dims[i] > b.max)
        return reject(place + " (" + d.symbol + ") is " + std::to_string(dims[i]) + ", above the contract's bound " + d.symbol +
                      " <= " + std::to_string(b.max));
      if (dims[i] < b.min)
        return reject(place + " (" + d.symbol + ") is " + std::to_string(dims[i]) + ", below the contract's bound " + d.symbol +
                      " >= " + std::to_string(b.min));
      auto it = r.binding.find(d.symbol);
      if (it != r.binding.end() && it->second != dims[i])
        return reject(place + " (" + d.symbol + ") is " + std::to_string(dims[i]) + " but " + bound_by[d.symbol] + " set " +
                      d.symbol + " = " + std::to_string(it->second));
      r.binding[d.symbol] = dims[i];
      bound_by[d.symbol] = place;
    }
  }
  // Symbols no input fixes can take any value in their bound: plan for the worst.
  for (const auto& [k, b] : g.dims)
    if (!r.binding.count(k)) r.binding[k] = b.max;
  for (size_t i = 0; i < c.plans.size(); ++i)
    if (c.plans[i].covers(r.binding)) {
      r.accepted = true;
      r.plan = static_cast<int>(i);
      r.instance = propagate_shapes(g, r.binding);
      return r;
    }
  std::string bound, plans;
  for (const auto& [k, v] : r.binding) bound += (bound.empty() ? "" : ", ") + k + " = " + std::to_string(v);
  for (const ContractPlan& p : c.plans) plans += (plans.empty() ? "" : "; ") + ranges_text(p.ranges);
  return reject("no validated plan covers " + bound + " (plans: " + plans + ")");
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& where) {
  std::string s;
  for (char ch : text)
    if (ch != ' ' && ch != '[' && ch != ']' && ch != '(' && ch != ')') s += (ch == 'x' || ch == 'X') ? ',' : ch;
  std::vector<int64_t> out;
  std::stringstream ss(s);
  std::string part;
  const std::string expect = "expected a shape like 2x16x16x3 or [2,16,16,3], found \"" + text + "\"";
  while (std::getline(ss, part, ',')) {
    if (part.empty() || part.size() > 18 || part.find_first_not_of("0123456789") != std::string::npos) throw InputError(where, expect);
    int64_t v = std::stoll(part);
    if (v < 1) throw InputError(where, "dims must be positive");
    out.push_back(v);
  }
  if (out.empty()) throw InputError(where, expect);
  return out;
}

DimRanges parse_ranges(const std::string& text, const std::string& where) {
  DimRanges out;
  std::stringstream ss(text);
  std::string part;
  const std::string expect = "expected ranges like N=1..2 or N=3..8,M=1..4, found \"" + text + "\"";
  while (std::getline(ss, part, ',')) {
    size_t eq = part.find('='), dots = part.find("..");
    if (eq == std::string::npos || eq == 0) throw InputError(where, expect);
    std::string name = part.substr(0, eq);
    std::string lo = dots == std::string::npos ? part.substr(eq + 1) : part.substr(eq + 1, dots - eq - 1);
    std::string hi = dots == std::string::npos ? lo : part.substr(dots + 2);
    for (const std::string* n : {&lo, &hi})
      if (n->empty() || n->size() > 18 || n->find_first_not_of("0123456789") != std::string::npos) throw InputError(where, expect);
    if (out.count(name)) throw InputError(where, "dim " + name + " given twice");
    out[name] = {std::stoll(lo), std::stoll(hi)};
  }
  if (out.empty()) throw InputError(where, expect);
  return out;
}

}  // namespace arenaplan
