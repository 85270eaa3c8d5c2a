#include "core/graph/graph_json.h"

#include "core/graph/json_read.h"
#include "core/graph/node_link_import.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <unordered_map>

namespace arenaplan {


namespace {

using namespace json_read;

Bytes parse_size_value(const Json& j, const std::string& where) {
  Bytes b;
  if (j.is_string()) b = parse_byte_size(j.get<std::string>(), where);
  else if (j.is_number_integer() || j.is_number_unsigned()) b = get_int(j, where);
  else throw InputError(where, "expected a byte count (integer or \"16KiB\"), found " + kind_of(j));
  return b;
}

// The declared tensors by name: a graph of 100,000 tensors resolves its references in linear time.
struct TensorNames {
  const Graph& g;
  std::unordered_map<std::string_view, TensorId> index;
  explicit TensorNames(const Graph& graph) : g(graph) {
    index.reserve(g.tensors.size());
    for (size_t t = 0; t < g.tensors.size(); ++t) index.emplace(g.tensors[t].name, static_cast<TensorId>(t));
  }
};

TensorId tensor_ref(const TensorNames& names, const Json& j, const std::string& where) {
  std::string name = get_string(j, where);
  auto t = names.index.find(name);
  if (t == names.index.end()) throw InputError(where, "unknown tensor \"" + name + "\" (not declared in /tensors)");
  return t->second;
}

std::vector<TensorId> tensor_list(const TensorNames& names, const Json& j, const std::string& where) {
  const Graph& g = names.g;
  if (!j.is_array()) throw InputError(where, "expected an array of tensor names, found " + kind_of(j));
  std::vector<TensorId> out;
  for (size_t i = 0; i < j.size(); ++i) {
    TensorId t = tensor_ref(names, j[i], ptr(where, i));
    if (std::find(out.begin(), out.end(), t) != out.end())
      throw InputError(ptr(where, i), "tensor \"" + g.tensors[t].name + "\" is listed twice");
    out.push_back(t);
  }
  return out;
}

void parse_dims(Graph& g, const Json& dims) {
  if (!dims.is_object()) throw InputError("/dims", "expected an object of {\"min\", \"max\"}");
  for (auto it = dims.begin(); it != dims.end(); ++it) {
    const std::string where = ptr("/dims", it.key());
    if (!it->is_object()) throw InputError(where, "expected {\"min\": N, \"max\": N}");
    expect_keys(*it, where, {"min", "max"});
    DimBound b;
    b.min = it->contains("min") ? get_int((*it)["min"], ptr(where, "min")) : 1;
    b.max = get_int(require(*it, "max", where), ptr(where, "max"));
    if (b.min < 1) throw InputError(ptr(where, "min"), "must be at least 1");
    if (b.max < b.min) throw InputError(ptr(where, "max"), "must be >= min");
    g.dims[it.key()] = b;
  }
}

Tensor parse_tensor(const Graph& g, const std::string& name, const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a tensor object, found " + kind_of(j));
  expect_keys(j, where, {"bytes", "shape", "dtype", "constant", "persistent", "retained", "doc"});
  Tensor t;
  t.name = name;
  if (name.empty()) throw InputError(where, "tensor names must not be empty");
  const bool has_bytes = j.contains("bytes"), has_shape = j.contains("shape");
  if (has_bytes == has_shape)
    throw InputError(where, "give exactly one of \"bytes\" or \"shape\" (with \"dtype\")");
  if (has_bytes) {
    t.bytes = parse_size_value(j["bytes"], ptr(where, "bytes"));
    if (t.bytes <= 0) throw InputError(ptr(where, "bytes"), "size must be positive");
    if (j.contains("dtype")) {
      auto d = dtype_from_name(get_string(j["dtype"], ptr(where, "dtype")));
      if (!d) throw InputError(ptr(where, "dtype"), "unknown dtype");
      t.dtype = d;
    }
  } else {
    const Json& shape = j["shape"];
    const std::string swhere = ptr(where, "shape");
    if (!shape.is_array()) throw InputError(swhere, "expected an array of dims");
    auto d = dtype_from_name(get_string(require(j, "dtype", where), ptr(where, "dtype")));
    if (!d)
      throw InputError(ptr(where, "dtype"),
                       "unknown dtype; expected int8, uint8, int16, int32, float16, float32, int64, bool, uint32 or uint64");
    t.dtype = d;
    Bytes bytes = dtype_width(*d);
    for (size_t i = 0; i < shape.size(); ++i) {
      ShapeDim dim;
      const std::string dwhere = ptr(swhere, i);
      if (shape[i].is_string()) {
        dim.symbol = shape[i].get<std::string>();
        auto b = g.dims.find(dim.symbol);
        if (b == g.dims.end())
          throw InputError(dwhere, "symbolic dim \"" + dim.symbol + "\" has no bounds in /dims");
        dim.value = b->second.max;
      } else {
        dim.value = get_int(shape[i], dwhere);
        if (dim.value <= 0) throw InputError(dwhere, "dims must be positive");
      }
      if (__builtin_mul_overflow(bytes, dim.value, &bytes))
        throw InputError(swhere, "size overflows 64 bits");
      t.shape.push_back(dim);
    }
    t.bytes = bytes;
  }
  if (j.contains("constant")) t.constant = get_bool(j["constant"], ptr(where, "constant"));
  if (j.contains("persistent")) t.persistent = get_bool(j["persistent"], ptr(where, "persistent"));
  if (j.contains("retained")) t.retained = get_bool(j["retained"], ptr(where, "retained"));
  (void)g;
  return t;
}

Op parse_op(const TensorNames& names, const Json& j, const std::string& where) {
  const Graph& g = names.g;
  if (!j.is_object()) throw InputError(where, "expected an op object, found " + kind_of(j));
  expect_keys(j, where,
              {"name", "kind", "inputs", "outputs", "scratch_bytes", "async", "in_place", "attrs", "doc"});
  Op op;
  op.name = get_string(require(j, "name", where), ptr(where, "name"));
  if (op.name.empty()) throw InputError(ptr(where, "name"), "op names must not be empty");
  if (j.contains("kind")) op.kind = get_string(j["kind"], ptr(where, "kind"));
  op.inputs = j.contains("inputs") ? tensor_list(names, j["inputs"], ptr(where, "inputs"))
                                   : std::vector<TensorId>{};
  op.outputs = tensor_list(names, require(j, "outputs", where), ptr(where, "outputs"));
  if (op.outputs.empty()) throw InputError(ptr(where, "outputs"), "an op needs at least one output");
  for (size_t i = 0; i < op.outputs.size(); ++i)
    if (std::find(op.inputs.begin(), op.inputs.end(), op.outputs[i]) != op.inputs.end())
      throw InputError(ptr(ptr(where, "outputs"), i), "an op cannot read its own output");
  if (j.contains("scratch_bytes")) {
    op.scratch_bytes = parse_size_value(j["scratch_bytes"], ptr(where, "scratch_bytes"));
    if (op.scratch_bytes < 0) throw InputError(ptr(where, "scratch_bytes"), "must be >= 0");
  }
  if (j.contains("async")) {
    const Json& a = j["async"];
    const std::string awhere = ptr(where, "async");
    if (!a.is_object()) throw InputError(awhere, "expected {\"tensor\": extra_steps}");
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string w = ptr(awhere, it.key());
      AsyncRead r;
      r.tensor = tensor_ref(names, Json(it.key()), w);
      int64_t steps = get_int(*it, w);
      if (steps < 0 || steps > 1000000) throw InputError(w, "extra steps must be in [0, 1000000]");
      r.extra_steps = static_cast<int>(steps);
      if (std::find(op.inputs.begin(), op.inputs.end(), r.tensor) == op.inputs.end())
        throw InputError(w, "\"" + it.key() + "\" is not an input of this op");
      op.async_reads.push_back(r);
    }
  }
  if (j.contains("in_place")) {
    const Json& a = j["in_place"];
    const std::string awhere = ptr(where, "in_place");
    if (!a.is_object()) throw InputError(awhere, "expected {\"output\": \"input\"}");
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string w = ptr(awhere, it.key());
      InPlace ip;
      ip.output = tensor_ref(names, Json(it.key()), w);
      ip.input = tensor_ref(names, *it, w);
      if (std::find(op.outputs.begin(), op.outputs.end(), ip.output) == op.outputs.end())
        throw InputError(w, "\"" + it.key() + "\" is not an output of this op");
      if (std::find(op.inputs.begin(), op.inputs.end(), ip.input) == op.inputs.end())
        throw InputError(w, "\"" + g.tensors[ip.input].name + "\" is not an input of this op");
      op.in_place.push_back(ip);
    }
  }
  if (j.contains("attrs")) {
    const Json& a = j["attrs"];
    if (!a.is_object()) throw InputError(ptr(where, "attrs"), "expected an object of integers");
    for (auto it = a.begin(); it != a.end(); ++it)
      op.attrs[it.key()] = get_int(*it, ptr(ptr(where, "attrs"), it.key()));
  }
  return op;
}

// Structural errors from validate_graph name an op or tensor; point them into the document.
std::string locate(const Graph& g, const std::string& where) {
  auto starts = [&](const char* p) { return where.rfind(p, 0) == 0; };
  if (starts("op ")) {
    std::string rest = where.substr(3);
    std::string name = rest.substr(0, rest.find(' '));
    if (auto o = g.find_op(name)) return "/ops/" + std::to_string(*o) + " (op " + rest + ")";
  }
  if (starts("tensor ")) return ptr("/tensors", where.substr(7));
  if (where == "inputs" || where == "ops") return "/" + where;
  return where;
}

}  // namespace

Bytes parse_byte_size(const std::string& text, const std::string& where) {
  static const std::pair<const char*, Bytes> kUnits[] = {
      {"GiB", Bytes(1) << 30}, {"MiB", Bytes(1) << 20}, {"KiB", Bytes(1) << 10}, {"B", 1}};
  std::string s = text;
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  Bytes unit = 1;
  for (const auto& [suffix, mult] : kUnits) {
    size_t n = std::char_traits<char>::length(suffix);
    if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) {
      unit = mult;
      s.resize(s.size() - n);
      break;
    }
  }
  const std::string expect = "expected a byte size like 4096, \"16KiB\" or \"1.5MiB\", found \"" + text + "\"";
  if (s.empty()) throw InputError(where, expect);
  size_t dot = s.find('.');
  std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot + 1);
  if (whole.empty() || whole.size() > 18 || frac.size() > 9) throw InputError(where, expect);
  for (char c : whole + frac)
    if (c < '0' || c > '9') {
      if (c == '-' && whole[0] == '-') throw InputError(where, "size must be positive");
      throw InputError(where, expect);
    }
  Bytes value = std::stoll(whole), out;
  if (__builtin_mul_overflow(value, unit, &out)) throw InputError(where, "size overflows 64 bits");
  if (!frac.empty()) {
    // Exact fractional units: 1.5KiB = 1536 B; a fraction of a byte is an error, not a rounding.
    Bytes num = std::stoll(frac), den = 1;
    for (size_t i = 0; i < frac.size(); ++i) den *= 10;
    __int128 part = static_cast<__int128>(num) * unit;
    if (part % den != 0) throw InputError(where, "\"" + text + "\" is not a whole number of bytes");
    if (__builtin_add_overflow(out, static_cast<Bytes>(part / den), &out))
      throw InputError(where, "size overflows 64 bits");
  }
  return out;
}

Graph parse_graph_json(std::string_view text) {
  if (text.size() > kMaxGraphJsonBytes)
    throw InputError("/", "the file is " + std::to_string(text.size() >> 20) + " MiB; graphs are limited to " +
                              std::to_string(kMaxGraphJsonBytes >> 20) + " MiB");
  Json doc = parse_document(text);
  if (!doc.is_object()) throw InputError("/", "expected a graph object, found " + kind_of(doc));
  if (is_node_link_graph(doc)) return import_node_link_graph(doc);  // Checkmate's and MOCCASIN's files
  expect_keys(doc, "", {"format", "version", "name", "alignment", "tensors", "ops", "inputs",
                        "outputs", "dims", "input_policy", "doc"});
  if (doc.contains("format") && get_string(doc["format"], "/format") != "arenaplan-graph")
    throw InputError("/format", "expected \"arenaplan-graph\"");
  if (doc.contains("version")) {
    int64_t v = get_int(doc["version"], "/version");
    if (v != 1) throw InputError("/version", "unsupported version " + std::to_string(v) + " (this tool reads version 1)");
  }
  Graph g;
  g.name = doc.contains("name") ? get_string(doc["name"], "/name") : "graph";
  if (doc.contains("alignment")) {
    g.alignment = get_int(doc["alignment"], "/alignment");
    if (g.alignment <= 0 || g.alignment > (1 << 20) || (g.alignment & (g.alignment - 1)) != 0)
      throw InputError("/alignment", "must be a power of two between 1 and 1048576");
  }
  if (doc.contains("input_policy")) {
    std::string p = get_string(doc["input_policy"], "/input_policy");
    if (p == "in_arena") g.input_policy = InputPolicy::kInArena;
    else if (p == "caller_owned") g.input_policy = InputPolicy::kCallerOwned;
    else if (p == "retained") g.input_policy = InputPolicy::kRetained;
    else throw InputError("/input_policy", "expected \"in_arena\", \"caller_owned\" or \"retained\"");
  }
  if (doc.contains("dims")) parse_dims(g, doc["dims"]);

  const Json& tensors = require(doc, "tensors", "");
  if (!tensors.is_object()) throw InputError("/tensors", "expected an object of name -> tensor");
  if (tensors.size() > kMaxGraphTensors)
    throw InputError("/tensors", std::to_string(tensors.size()) + " tensors; the limit is " + std::to_string(kMaxGraphTensors));
  for (auto it = tensors.begin(); it != tensors.end(); ++it)
    g.tensors.push_back(parse_tensor(g, it.key(), *it, ptr("/tensors", it.key())));

  const Json& ops = require(doc, "ops", "");
  if (!ops.is_array()) throw InputError("/ops", "expected an array of ops");
  if (ops.empty()) throw InputError("/ops", "a graph needs at least one op");
  if (ops.size() > kMaxGraphOps)
    throw InputError("/ops", std::to_string(ops.size()) + " ops; the limit is " + std::to_string(kMaxGraphOps));
  std::set<std::string> op_names;
  const TensorNames names(g);
  for (size_t i = 0; i < ops.size(); ++i) {
    Op op = parse_op(names, ops[i], ptr("/ops", i));
    if (!op_names.insert(op.name).second)
      throw InputError(ptr(ptr("/ops", i), "name"), "duplicate op name \"" + op.name + "\"");
    g.ops.push_back(std::move(op));
  }
  g.inputs = doc.contains("inputs") ? tensor_list(names, doc["inputs"], "/inputs") : std::vector<TensorId>{};
  g.outputs = tensor_list(names, require(doc, "outputs", ""), "/outputs");
  if (g.outputs.empty()) throw InputError("/outputs", "a graph needs at least one output");
  for (size_t i = 0; i < g.outputs.size(); ++i)
    if (g.tensors[g.outputs[i]].constant)
      throw InputError(ptr("/outputs", i), "a graph output cannot be a constant");

  try {
    link_tensors(g);
    validate_graph(g);
  } catch (const InputError& e) {
    std::string what = e.what();
    std::string msg = what.substr(std::min(what.size(), e.where().size() + 2));
    throw InputError(locate(g, e.where()), msg);
  }
  return g;
}

std::string graph_to_json(const Graph& g) {
  Json doc;
  doc["format"] = "arenaplan-graph";
  doc["version"] = 1;
  doc["name"] = g.name;
  doc["alignment"] = g.alignment;
  if (g.input_policy != InputPolicy::kInArena)
    doc["input_policy"] = g.input_policy == InputPolicy::kCallerOwned ? "caller_owned" : "retained";
  if (!g.dims.empty()) {
    Json dims = Json::object();
    for (const auto& [name, b] : g.dims) dims[name] = {{"min", b.min}, {"max", b.max}};
    doc["dims"] = dims;
  }
  Json tensors = Json::object();
  for (const Tensor& t : g.tensors) {
    Json jt = Json::object();
    if (!t.shape.empty() && t.dtype) {
      Json shape = Json::array();
      for (const ShapeDim& d : t.shape) {
        if (d.symbol.empty()) shape.push_back(d.value);
        else shape.push_back(d.symbol);
      }
      jt["shape"] = shape;
      jt["dtype"] = dtype_name(*t.dtype);
    } else {
      jt["bytes"] = t.bytes;
      if (t.dtype) jt["dtype"] = dtype_name(*t.dtype);
    }
    if (t.constant) jt["constant"] = true;
    if (t.persistent) jt["persistent"] = true;
    if (t.retained) jt["retained"] = true;
    // Names are unique (validated), so append without the lookup ordered_json's operator[] does
    // over every earlier key: that made writing a 100,000-tensor graph quadratic.
    tensors.get_ref<Json::object_t&>().Container::emplace_back(t.name, std::move(jt));
  }
  doc["tensors"] = tensors;
  auto names = [&](const std::vector<TensorId>& ids) {
    Json a = Json::array();
    for (TensorId t : ids) a.push_back(g.tensors[t].name);
    return a;
  };
  Json ops = Json::array();
  for (const Op& op : g.ops) {
    Json jo;
    jo["name"] = op.name;
    if (!op.kind.empty()) jo["kind"] = op.kind;
    jo["inputs"] = names(op.inputs);
    jo["outputs"] = names(op.outputs);
    if (op.scratch_bytes > 0) jo["scratch_bytes"] = op.scratch_bytes;
    if (!op.async_reads.empty()) {
      Json a = Json::object();
      for (const AsyncRead& r : op.async_reads) a[g.tensors[r.tensor].name] = r.extra_steps;
      jo["async"] = a;
    }
    if (!op.in_place.empty()) {
      Json a = Json::object();
      for (const InPlace& ip : op.in_place) a[g.tensors[ip.output].name] = g.tensors[ip.input].name;
      jo["in_place"] = a;
    }
    if (!op.attrs.empty()) {
      Json a = Json::object();
      for (const auto& [k, v] : op.attrs) a[k] = v;
      jo["attrs"] = a;
    }
    ops.push_back(jo);
  }
  doc["ops"] = ops;
  doc["inputs"] = names(g.inputs);
  doc["outputs"] = names(g.outputs);
  return doc.dump(2);
}

}  // namespace arenaplan
