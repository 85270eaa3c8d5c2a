// Spec parsing, dispatch and the helpers every rewrite shares.
#include <algorithm>
#include <cstring>

#include "core/schedule/schedule.h"
#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

namespace transform_detail {

std::vector<int64_t> constant_ints(const Tensor& t, const std::string& where, const std::string& what) {
  if (!t.constant || !t.data || !t.dtype || (*t.dtype != DType::kInt32 && *t.dtype != DType::kInt64))
    refuse(where, what + " " + t.name + " is not constant int32/int64 data");
  const int width = dtype_width(*t.dtype);
  std::vector<int64_t> out(t.data->size() / static_cast<size_t>(width));
  for (size_t i = 0; i < out.size(); ++i) {
    if (width == 4) {
      int32_t v;
      std::memcpy(&v, t.data->data() + i * 4, 4);
      out[i] = v;
    } else {
      std::memcpy(&out[i], t.data->data() + i * 8, 8);
    }
  }
  return out;
}

void refuse(const std::string& where, const std::string& reason) {
  throw InputError(where, "refused: " + reason);
}

std::vector<std::string> legal_op_specs(const Graph& g, const std::string& kind, bool (*wanted)(const Op&),
                                        Rewrite (*rewrite)(const Graph&, const std::string&)) {
  std::vector<std::string> out;
  for (const Op& op : g.ops) {
    if (!wanted(op)) continue;
    try {
      rewrite(g, op.name);
      out.push_back(kind + ":" + op.name);
    } catch (const InputError&) {
      // Not legal here.
    }
  }
  return out;
}

TensorId tensor_named(const Graph& g, const std::string& name, const std::string& where) {
  auto t = g.find_tensor(name);
  if (!t) refuse(where, "no tensor named \"" + name + "\"");
  return *t;
}

OpId op_named(const Graph& g, const std::string& name, const std::string& where) {
  auto o = g.find_op(name);
  if (!o) refuse(where, "no op named \"" + name + "\"");
  return *o;
}

void drop_tensors(Graph& g, const std::set<TensorId>& drop) {
  if (drop.empty()) return;
  std::vector<TensorId> remap(g.tensors.size(), -1);
  std::vector<Tensor> kept;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (drop.count(static_cast<TensorId>(t))) continue;
    remap[t] = static_cast<TensorId>(kept.size());
    kept.push_back(std::move(g.tensors[t]));
  }
  g.tensors = std::move(kept);
  auto fix = [&](TensorId& t) {
    if (remap[t] < 0) throw std::logic_error("drop_tensors: tensor still referenced");
    t = remap[t];
  };
  for (Op& op : g.ops) {
    for (TensorId& t : op.inputs) fix(t);
    for (TensorId& t : op.outputs) fix(t);
    for (InPlace& ip : op.in_place) fix(ip.input), fix(ip.output);
    for (AsyncRead& a : op.async_reads) fix(a.tensor);
  }
  for (TensorId& t : g.inputs) fix(t);
  for (TensorId& t : g.outputs) fix(t);
}

Graph finish(Graph g, const std::string& where) {
  try {
    link_tensors(g);
    validate_graph(g);
  } catch (const InputError& e) {
    refuse(where, std::string("the result would not be a valid graph: ") + e.what());
  }
  std::vector<OpId> order = topological_order(g);
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity = identity && order[i] == static_cast<OpId>(i);
  if (!identity) {
    std::vector<Op> ops;
    for (OpId o : order) ops.push_back(std::move(g.ops[o]));
    g.ops = std::move(ops);
    link_tensors(g);
  }
  return g;
}

std::string fresh_tensor_name(const Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 2; g.find_tensor(name); ++i) name = base + "#" + std::to_string(i);
  return name;
}

std::string fresh_op_name(const Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 2; g.find_op(name); ++i) name = base + "#" + std::to_string(i);
  return name;
}

bool depends_on(const Graph& g, OpId to, OpId from) {
  std::vector<bool> seen(g.ops.size(), false);
  std::vector<OpId> stack{from};
  while (!stack.empty()) {
    OpId o = stack.back();
    stack.pop_back();
    for (TensorId t : g.ops[o].outputs)
      for (OpId c : g.tensors[t].consumers) {
        if (c == to) return true;
        if (!seen[c]) seen[c] = true, stack.push_back(c);
      }
  }
  return false;
}

std::vector<Step> file_steps(const Graph& g) {
  std::vector<Step> step(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) step[i] = static_cast<Step>(i);
  return step;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    out.push_back(part);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace transform_detail

using namespace transform_detail;

Rewrite reorder_ops(const Graph& g, const Schedule& order) {
  check_order(g, order);
  Graph out = g;
  out.ops.clear();
  for (OpId o : order) out.ops.push_back(g.ops[o]);
  Rewrite r;
  r.graph = finish(std::move(out), "order");
  r.summary = "ops now run " + order_names(r.graph, r.graph.file_order(), "-");
  return r;
}

namespace {

Rewrite apply_quantize(const Graph& g, const Transformation& t, const TransformContext&) {
  auto d = dtype_from_name(t.value);
  if (!d) refuse(t.text, "unknown dtype \"" + t.value + "\"");
  return quantize_tensor(g, t.names[0], *d);
}

Rewrite apply_order(const Graph& g, const Transformation& t, const TransformContext& context) {
  if (t.names.size() == 1 && t.names[0] == "best") {
    ScheduleOptions options;
    options.max_states = context.order_max_states;
    ScheduleResult s = optimize_schedule(g, context.order_time_limit_seconds, options);
    Rewrite r = reorder_ops(g, s.order);
    r.summary += " (schedule optimiser: " + s.method + (s.proven_optimal ? ", proven optimal)" : ")");
    return r;
  }
  std::string names;
  for (const std::string& n : t.names) names += (names.empty() ? "" : ",") + n;
  Schedule order;
  try {
    order = parse_order(g, names);
  } catch (const InputError& e) {
    refuse(t.text, e.what());
  }
  return reorder_ops(g, order);
}

Rewrite apply_pool(const Graph& g, const Transformation& t, const TransformContext& context) {
  auto it = context.models.find(t.names[0]);
  if (it == context.models.end()) refuse(t.text, "no model named \"" + t.names[0] + "\" was loaded");
  return merge_models({g, it->second});
}

// Every transformation kind once: its spec's shape, its help line and what applies it. Parsing,
// the help text and apply_transformation all read this table (the rewrite search's own table,
// rewrite_kinds(), adds candidates per kind on top).
enum class Value { kNone, kRequired, kOptional };
struct TransformationKind {
  const char* name;
  size_t min_names, max_names;  // how many names the spec lists
  Value value;
  char value_separator;         // '=' or '@' (recompute:T@C)
  const char* names_rule;       // the refusal when the count is wrong
  const char* help;
  Rewrite (*apply)(const Graph& g, const Transformation& t, const TransformContext& context);
};
constexpr size_t kMany = ~size_t{0};

const std::vector<TransformationKind>& transformation_kinds() {
  static const std::vector<TransformationKind> kinds = {
      {"fuse", 2, kMany, Value::kNone, '=', "fuse needs at least two ops",
       "fuse:A,B[,C...]      fuse a chain of ops (B, C elementwise)",
       [](const Graph& g, const Transformation& t, const TransformContext&) { return fuse_ops(g, t.names); }},
      {"inplace", 1, 1, Value::kOptional, '=', "inplace takes one name",
       "inplace:OP[=INPUT]   OP writes its output over INPUT (default: the first legal input)",
       [](const Graph& g, const Transformation& t, const TransformContext&) { return make_in_place(g, t.names[0], t.value); }},
      {"quantize", 1, 1, Value::kRequired, '=', "quantize takes one name",
       "quantize:T=DTYPE     store tensor T as DTYPE (int8, int16, float16 ...) with conversion ops", apply_quantize},
      {"recompute", 1, 1, Value::kRequired, '@', "recompute takes one name",
       "recompute:T@C        recompute tensor T just before its consumer C instead of keeping it",
       [](const Graph& g, const Transformation& t, const TransformContext&) { return recompute_tensor(g, t.names[0], t.value); }},
      {"patch", 1, kMany, Value::kRequired, '=', "",
       "patch:A,B,...=TILES  run the spatial stage A,B,... patch by patch (TILES row bands, or ROWSxCOLS patches)",
       [](const Graph& g, const Transformation& t, const TransformContext&) {
         return patch_stage(g, t.names, parse_patch_grid(t.value, t.text));
       }},
      {"msf", 1, kMany, Value::kRequired, '=', "",
       "msf:A,B,...=TILES    patch the stage A,B,... (as patch:) and stream each 1x1 conv + depthwise inside every patch",
       [](const Graph& g, const Transformation& t, const TransformContext&) {
         return multi_stage_fusion(g, t.names, parse_patch_grid(t.value, t.text));
       }},
      {"order", 1, kMany, Value::kNone, '=', "", "order:A,B,...|best   run the ops in this order (best: the schedule optimiser)",
       apply_order},
      {"foldpad", 1, 1, Value::kNone, '=', "foldpad takes one name",
       "foldpad:PAD          fold PAD/PADV2 into its conv/depthwise/pool consumer (the padded copy disappears)",
       [](const Graph& g, const Transformation& t, const TransformContext&) { return fold_pad(g, t.names[0]); }},
      {"view", 1, 1, Value::kNone, '=', "view takes one name",
       "view:OP              remove OP, which only copies its input (one-way SPLIT, ...): its readers read the input",
       [](const Graph& g, const Transformation& t, const TransformContext&) { return view_of_input(g, t.names[0]); }},
      {"stream", 2, 2, Value::kNone, '=', "stream takes two ops: the pointwise conv, the depthwise",
       "stream:PW,DW         run a 1x1 conv and its depthwise consumer channel by channel (the expanded tensor disappears)",
       [](const Graph& g, const Transformation& t, const TransformContext&) {
         return stream_pointwise_depthwise(g, t.names[0], t.names[1]);
       }},
      {"callerquant", 1, 1, Value::kNone, '=', "callerquant takes one name",
       "callerquant:OP       move the entry QUANTIZE / exit DEQUANTIZE to the caller (firmware feeds int8)",
       [](const Graph& g, const Transformation& t, const TransformContext&) { return quantize_in_caller(g, t.names[0]); }},
      {"pool", 1, 1, Value::kNone, '=', "pool takes one name",
       "pool:MODEL           share one arena with another model that never runs at the same time", apply_pool},
  };
  return kinds;
}

const TransformationKind* find_transformation_kind(const std::string& name) {
  for (const TransformationKind& k : transformation_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace

Transformation parse_transformation(const std::string& spec) {
  Transformation t;
  t.text = spec;
  const size_t colon = spec.find(':');
  auto bad = [&](const std::string& why) -> Transformation {
    throw InputError(spec, why + "; expected one of:\n" + transformation_help());
  };
  if (colon == std::string::npos || colon == 0) return bad("no kind before ':'");
  t.kind = spec.substr(0, colon);
  const TransformationKind* kind = find_transformation_kind(t.kind);
  std::string rest = spec.substr(colon + 1);
  const char value_sep = kind ? kind->value_separator : '=';
  if (size_t v = rest.rfind(value_sep); v != std::string::npos) {
    t.value = rest.substr(v + 1);
    rest.resize(v);
    if (t.value.empty()) return bad(std::string("nothing after '") + value_sep + "'");
  }
  if (rest.empty()) return bad("no names after ':'");
  t.names = split(rest, ',');
  for (const std::string& n : t.names)
    if (n.empty()) return bad("an empty name in the list");
  if (!kind) return bad("unknown transformation \"" + t.kind + "\"");
  if (t.names.size() < kind->min_names || t.names.size() > kind->max_names) return bad(kind->names_rule);
  if (kind->value == Value::kRequired && t.value.empty())
    return bad(t.kind + std::string(" needs a value after '") + value_sep + "'");
  if (kind->value == Value::kNone && !t.value.empty()) return bad(t.kind + " takes no '=' value");
  return t;
}

const char* transformation_help() {
  static const std::string help = [] {
    std::string h;
    for (const TransformationKind& k : transformation_kinds()) h += std::string("  ") + k.help + "\n";
    return h;
  }();
  return help.c_str();
}

Rewrite apply_transformation(const Graph& g, const Transformation& t, const TransformContext& context) {
  if (const TransformationKind* kind = find_transformation_kind(t.kind)) return kind->apply(g, t, context);
  throw InputError(t.text, "unknown transformation \"" + t.kind + "\"");
}

}  // namespace arenaplan
