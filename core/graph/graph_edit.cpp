#include "core/graph/graph_edit.h"

#include <algorithm>
#include <set>
#include <utility>

namespace arenaplan {

namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

OpId op_named(const Graph& g, const std::string& name) {
  if (auto o = g.find_op(name)) return *o;
  throw InputError("op " + name, "no op of this name in the graph");
}

TensorId tensor_named(const Graph& g, const std::string& name, const std::string& where) {
  if (auto t = g.find_tensor(name)) return *t;
  throw InputError(where, "unknown tensor " + quoted(name) + " (add it in the tensor table first)");
}

bool contains(const std::vector<TensorId>& ids, TensorId t) {
  return std::find(ids.begin(), ids.end(), t) != ids.end();
}

// A name typed into the editor: it must be referable again from the comma-separated fields.
void check_new_name(const std::string& name, const std::string& where, const char* what) {
  if (name.empty()) throw InputError(where, std::string(what) + " names must not be empty");
  if (name.find(',') != std::string::npos)
    throw InputError(where, std::string(what) + " name " + quoted(name) +
                                " contains a comma (lists of names are comma-separated)");
  if (name.front() == ' ' || name.back() == ' ' || name.front() == '\t' || name.back() == '\t')
    throw InputError(where, std::string(what) + " name " + quoted(name) + " starts or ends with a blank");
}

void check_positive_bytes(Bytes bytes, const std::string& where) {
  if (bytes <= 0) throw InputError(where, "size must be a positive number of bytes, not " + std::to_string(bytes));
}

Tensor new_tensor(const std::string& name, Bytes bytes) {
  Tensor t;
  t.name = name;
  t.bytes = bytes;
  return t;
}

// Resolves the names of one edge list of op `op_name`; output names that do not exist are created
// (when `create_bytes` > 0) at the end of g.tensors.
std::vector<TensorId> resolve_edges(Graph& g, const std::vector<std::string>& names, const std::string& op_name,
                                    const char* field, Bytes create_bytes) {
  const std::string where = "op " + op_name + " " + field;
  std::vector<TensorId> ids;
  for (const std::string& name : names) {
    std::optional<TensorId> t = g.find_tensor(name);
    if (!t && create_bytes > 0) {
      check_new_name(name, where, "tensor");
      g.tensors.push_back(new_tensor(name, create_bytes));
      t = TensorId(g.tensors.size() - 1);
    }
    if (!t) tensor_named(g, name, where);  // throws: unknown input
    if (contains(ids, *t)) throw InputError(where, "tensor " + quoted(name) + " is listed twice");
    ids.push_back(*t);
  }
  return ids;
}

// Keeps the in-place and async declarations whose tensors are still edges of the op.
void drop_stale_declarations(Op& op) {
  std::erase_if(op.async_reads, [&](const AsyncRead& a) { return !contains(op.inputs, a.tensor); });
  std::erase_if(op.in_place, [&](const InPlace& ip) {
    return !contains(op.inputs, ip.input) || !contains(op.outputs, ip.output);
  });
}

// The graph without the marked ops and tensors; surviving ids are renumbered and every reference
// rewritten. References to dropped tensors disappear from the lists that hold them.
Graph without(const Graph& g, const std::vector<bool>& drop_op, const std::vector<bool>& drop_tensor) {
  std::vector<TensorId> new_id(g.tensors.size(), -1);
  Graph out = g;
  out.tensors.clear();
  out.ops.clear();
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (!drop_tensor[t]) {
      new_id[t] = TensorId(out.tensors.size());
      out.tensors.push_back(g.tensors[t]);
    }
  auto remap = [&](const std::vector<TensorId>& ids) {
    std::vector<TensorId> kept;
    for (TensorId t : ids)
      if (new_id[t] >= 0) kept.push_back(new_id[t]);
    return kept;
  };
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (drop_op[o]) continue;
    Op op = g.ops[o];
    op.inputs = remap(op.inputs);
    op.outputs = remap(op.outputs);
    op.async_reads.clear();
    for (AsyncRead a : g.ops[o].async_reads)
      if (new_id[a.tensor] >= 0) op.async_reads.push_back({new_id[a.tensor], a.extra_steps});
    op.in_place.clear();
    for (const InPlace& ip : g.ops[o].in_place)
      if (new_id[ip.input] >= 0 && new_id[ip.output] >= 0)
        op.in_place.push_back({new_id[ip.output], new_id[ip.input]});
    out.ops.push_back(std::move(op));
  }
  out.inputs = remap(g.inputs);
  out.outputs = remap(g.outputs);
  return out;
}

void check_unique_names(const Graph& g) {
  std::set<std::string> tensors, ops;
  for (const Tensor& t : g.tensors) {
    if (t.name.empty()) throw InputError("tensors", "a tensor has an empty name");
    if (!tensors.insert(t.name).second)
      throw InputError("tensor " + t.name, "the name " + quoted(t.name) + " is used by two tensors");
  }
  for (const Op& op : g.ops) {
    if (op.name.empty()) throw InputError("ops", "an op has an empty name");
    if (!ops.insert(op.name).second)
      throw InputError("op " + op.name, "the name " + quoted(op.name) + " is used by two ops");
  }
}

void check_id_list(const Graph& g, const std::vector<TensorId>& ids, const std::string& where) {
  std::set<TensorId> seen;
  for (TensorId t : ids) {
    if (t < 0 || size_t(t) >= g.tensors.size()) throw InputError(where, "refers to a tensor that does not exist");
    if (!seen.insert(t).second) throw InputError(where, "tensor " + g.tensors[t].name + " is listed twice");
  }
}

// The per-field rules parse_graph_json applies before validate_graph, for graphs built in memory.
void check_fields(const Graph& g) {
  if (g.ops.empty()) throw InputError("ops", "a graph needs at least one op");
  if (g.outputs.empty()) throw InputError("outputs", "a graph needs at least one output");
  check_id_list(g, g.inputs, "inputs");
  check_id_list(g, g.outputs, "outputs");
  for (TensorId t : g.outputs)
    if (g.tensors[t].constant) throw InputError("tensor " + g.tensors[t].name, "a graph output cannot be a constant");
  for (const Op& op : g.ops) {
    check_id_list(g, op.inputs, "op " + op.name + " inputs");
    check_id_list(g, op.outputs, "op " + op.name + " outputs");
    if (op.scratch_bytes < 0) throw InputError("op " + op.name + " scratch", "must be >= 0 bytes");
    for (TensorId t : op.outputs)
      if (contains(op.inputs, t))
        throw InputError("op " + op.name, "reads its own output " + g.tensors[t].name);
  }
}

// Ops reachable from `start` through the tensors they write (start included).
std::vector<bool> downstream_of(const Graph& g, OpId start) {
  std::vector<bool> down(g.ops.size(), false);
  std::vector<OpId> stack{start};
  down[start] = true;
  while (!stack.empty()) {
    const OpId o = stack.back();
    stack.pop_back();
    for (TensorId t : g.ops[o].outputs)
      for (OpId c : g.tensors[t].consumers)
        if (!down[c]) {
          down[c] = true;
          stack.push_back(c);
        }
  }
  return down;
}

// With kRefuseIfRead: the first reader of one of the op's outputs, named in the refusal.
void refuse_if_read(const Graph& g, OpId o) {
  for (TensorId t : g.ops[o].outputs)
    for (OpId c : g.tensors[t].consumers)
      if (c != o)
        throw InputError("op " + g.ops[o].name,
                         "cannot be removed: its output " + g.tensors[t].name + " is read by op " +
                             g.ops[c].name + " (remove or rewire " + g.ops[c].name +
                             " first, or remove with everything downstream)");
}

// Marks the producer of `t` and everything upstream of it as useful (it leads to a result).
void mark_upstream_useful(const Graph& g, TensorId t, std::vector<bool>& useful) {
  std::vector<TensorId> stack{t};
  while (!stack.empty()) {
    const OpId p = g.tensors[stack.back()].producer;
    stack.pop_back();
    if (p < 0 || useful[p]) continue;
    useful[p] = true;
    for (TensorId in : g.ops[p].inputs) stack.push_back(in);
  }
}

// validate_graph's reachability rule: ops leading to a graph output or to persistent/retained
// state (an op writing persistent state is useful by itself). `g` must be linked.
std::vector<bool> useful_ops(const Graph& g) {
  std::vector<bool> useful(g.ops.size(), false);
  for (TensorId t : g.outputs) mark_upstream_useful(g, t, useful);
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].persistent || g.tensors[t].retained) mark_upstream_useful(g, TensorId(t), useful);
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (TensorId t : g.ops[o].outputs)
      if (g.tensors[t].persistent)
        for (TensorId in : g.ops[o].inputs) mark_upstream_useful(g, in, useful);
  return useful;
}

// After a removal, a remaining op whose results were all read by removed ops would be unreachable:
// its tensors on the cut become graph outputs instead (only those, so no other lifetime changes).
void promote_cut(Graph& g, const std::vector<std::string>& cut) {
  link_tensors(g);
  std::vector<bool> useful = useful_ops(g);
  std::vector<TensorId> promote;
  for (const std::string& name : cut) {
    const TensorId t = *g.find_tensor(name);
    const OpId p = g.tensors[t].producer;
    if (p >= 0 && !useful[p]) promote.push_back(t);
  }
  // Every cut tensor of a useless producer is promoted, not only the first: they were all results.
  for (TensorId t : promote) {
    g.outputs.push_back(t);
    mark_upstream_useful(g, t, useful);
  }
}

bool read_by_kept_op(const Graph& g, TensorId t, const std::vector<bool>& drop_op) {
  for (OpId c : g.tensors[t].consumers)
    if (!drop_op[c]) return true;
  return false;
}

Graph linked(Graph g) {
  link_tensors(g);
  return g;
}

// The shape of every edit of one op or one tensor: find it by name (refused when unknown), apply
// change(graph, id) to a copy of the graph (it may refuse too), and check the result as a whole.
template <class Change>
Graph edit_op(const Graph& g, const std::string& name, Change&& change) {
  const OpId o = op_named(g, name);
  Graph out = g;
  change(out, o);
  return check_edited_graph(std::move(out));
}
template <class Change>
Graph edit_tensor(const Graph& g, const std::string& name, Change&& change) {
  const TensorId t = tensor_named(g, name, "tensor " + name);
  Graph out = g;
  change(out, t);
  return check_edited_graph(std::move(out));
}

// A rename of an op or a tensor (`what`): the new name is checked like a typed one and must not be
// taken by another of its kind.
void check_rename(const char* what, const std::string& name, const std::string& new_name, bool taken) {
  const std::string where = std::string(what) + " " + name;
  check_new_name(new_name, where, what);
  if (taken) throw InputError(where, "cannot be renamed to " + quoted(new_name) + ": another " + what + " has that name");
}

}  // namespace

Graph check_edited_graph(Graph g) {
  check_unique_names(g);
  check_fields(g);
  link_tensors(g);
  validate_graph(g);
  return g;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    if (a != std::string::npos) out.push_back(item.substr(a, b - a + 1));
    start = end + 1;
  }
  return out;
}

std::string join_names(const Graph& g, const std::vector<TensorId>& tensors) {
  std::string out;
  for (TensorId t : tensors) out += (out.empty() ? "" : ", ") + g.tensors[t].name;
  return out;
}

Graph add_op(const Graph& g, const OpSpec& spec, Bytes new_tensor_bytes, bool new_outputs_are_graph_outputs) {
  const std::string where = "op " + spec.name;
  check_new_name(spec.name, where, "op");
  if (g.find_op(spec.name)) throw InputError(where, "an op named " + quoted(spec.name) + " already exists");
  check_positive_bytes(new_tensor_bytes, where + " new tensor size");
  if (spec.outputs.empty()) throw InputError(where + " outputs", "an op needs at least one output");
  if (spec.scratch_bytes < 0) throw InputError(where + " scratch", "must be >= 0 bytes");
  Graph out = g;
  const size_t old_tensors = out.tensors.size();
  Op op;
  op.name = spec.name;
  op.kind = spec.kind;
  op.scratch_bytes = spec.scratch_bytes;
  op.inputs = resolve_edges(out, spec.inputs, spec.name, "inputs", 0);
  op.outputs = resolve_edges(out, spec.outputs, spec.name, "outputs", new_tensor_bytes);
  if (new_outputs_are_graph_outputs)
    for (TensorId t : op.outputs)
      if (size_t(t) >= old_tensors) out.outputs.push_back(t);
  out.ops.push_back(std::move(op));
  return check_edited_graph(std::move(out));
}

std::vector<std::string> downstream_ops(const Graph& g, const std::string& name) {
  const Graph lg = linked(g);
  const OpId start = op_named(lg, name);
  const std::vector<bool> down = downstream_of(lg, start);
  std::vector<std::string> names{name};
  for (size_t o = 0; o < lg.ops.size(); ++o)
    if (down[o] && OpId(o) != start) names.push_back(lg.ops[o].name);
  return names;
}

Graph remove_op(const Graph& g, const std::string& name, RemoveMode mode) {
  const Graph lg = linked(g);  // consumers must be current, whatever the caller did to `g`
  const OpId target = op_named(lg, name);
  if (mode == RemoveMode::kRefuseIfRead) refuse_if_read(lg, target);
  std::vector<bool> drop_op(lg.ops.size(), false);
  if (mode == RemoveMode::kCascade) drop_op = downstream_of(lg, target);
  drop_op[target] = true;
  if (std::count(drop_op.begin(), drop_op.end(), false) == 0)
    throw InputError("op " + name, "cannot be removed: a graph needs at least one op (nothing would remain)");

  std::vector<bool> drop_tensor(lg.tensors.size(), false);
  std::vector<std::string> cut;  // read by removed ops, produced by remaining ones, read by no other
  for (size_t o = 0; o < lg.ops.size(); ++o) {
    if (!drop_op[o]) continue;
    for (TensorId t : lg.ops[o].outputs) drop_tensor[t] = true;
    for (TensorId t : lg.ops[o].inputs) {
      const Tensor& x = lg.tensors[t];
      if (read_by_kept_op(lg, t, drop_op)) continue;
      if (x.constant) drop_tensor[t] = true;  // weights belong to the op that read them
      else if (x.producer >= 0 && !drop_op[x.producer] && !lg.is_output(t) &&
               std::find(cut.begin(), cut.end(), x.name) == cut.end())
        cut.push_back(x.name);
    }
  }
  Graph out = without(lg, drop_op, drop_tensor);
  promote_cut(out, cut);
  return check_edited_graph(std::move(out));
}

Graph rename_op(const Graph& g, const std::string& name, const std::string& new_name) {
  return edit_op(g, name, [&](Graph& out, OpId o) {
    if (new_name == name) return;
    check_rename("op", name, new_name, g.find_op(new_name).has_value());
    out.ops[o].name = new_name;
  });
}

Graph set_op_kind(const Graph& g, const std::string& name, const std::string& kind) {
  return edit_op(g, name, [&](Graph& out, OpId o) { out.ops[o].kind = kind; });
}

Graph set_op_scratch(const Graph& g, const std::string& name, Bytes scratch_bytes) {
  return edit_op(g, name, [&](Graph& out, OpId o) {
    if (scratch_bytes < 0)
      throw InputError("op " + name + " scratch", "must be >= 0 bytes, not " + std::to_string(scratch_bytes));
    out.ops[o].scratch_bytes = scratch_bytes;
  });
}

Graph set_op_inputs(const Graph& g, const std::string& name, const std::vector<std::string>& inputs) {
  return edit_op(g, name, [&](Graph& out, OpId o) {
    out.ops[o].inputs = resolve_edges(out, inputs, name, "inputs", 0);
    drop_stale_declarations(out.ops[o]);
  });
}

Graph set_op_outputs(const Graph& g, const std::string& name, const std::vector<std::string>& outputs,
                     Bytes new_tensor_bytes) {
  return edit_op(g, name, [&](Graph& out, OpId o) {
    check_positive_bytes(new_tensor_bytes, "op " + name + " new tensor size");
    if (outputs.empty()) throw InputError("op " + name + " outputs", "an op needs at least one output");
    out.ops[o].outputs = resolve_edges(out, outputs, name, "outputs", new_tensor_bytes);
    drop_stale_declarations(out.ops[o]);
  });
}

Graph add_tensor(const Graph& g, const std::string& name, Bytes bytes, bool graph_input) {
  const std::string where = "tensor " + name;
  check_new_name(name, where, "tensor");
  if (g.find_tensor(name)) throw InputError(where, "a tensor named " + quoted(name) + " already exists");
  check_positive_bytes(bytes, where);
  Graph out = g;
  out.tensors.push_back(new_tensor(name, bytes));
  if (graph_input) out.inputs.push_back(TensorId(out.tensors.size() - 1));
  return check_edited_graph(std::move(out));
}

Graph remove_tensor(const Graph& g, const std::string& name) {
  const TensorId t = tensor_named(g, name, "tensor " + name);
  for (const Op& op : g.ops)
    if (contains(op.inputs, t) || contains(op.outputs, t))
      throw InputError("tensor " + name, std::string("cannot be removed: op ") + op.name +
                                             (contains(op.inputs, t) ? " reads" : " writes") +
                                             " it (change that op's edges first)");
  if (g.outputs.size() == 1 && g.outputs[0] == t)
    throw InputError("tensor " + name, "cannot be removed: it is the only graph output");
  std::vector<bool> drop_tensor(g.tensors.size(), false);
  drop_tensor[t] = true;
  return check_edited_graph(without(g, std::vector<bool>(g.ops.size(), false), drop_tensor));
}

Graph rename_tensor(const Graph& g, const std::string& name, const std::string& new_name) {
  return edit_tensor(g, name, [&](Graph& out, TensorId t) {
    if (new_name == name) return;
    check_rename("tensor", name, new_name, g.find_tensor(new_name).has_value());
    out.tensors[t].name = new_name;
  });
}

Graph set_tensor_bytes(const Graph& g, const std::string& name, Bytes bytes) {
  return edit_tensor(g, name, [&](Graph& out, TensorId t) {
    check_positive_bytes(bytes, "tensor " + name);
    out.tensors[t].bytes = bytes;
    out.tensors[t].shape.clear();  // a byte count implies no shape; dtype stays as a hint
  });
}

// Adds `t` to or removes it from the graph's input or output list (kept in order, no duplicates).
static void set_membership(std::vector<TensorId>& list, TensorId t, bool member) {
  if (!member) std::erase(list, t);
  else if (std::find(list.begin(), list.end(), t) == list.end()) list.push_back(t);
}

Graph set_graph_input(const Graph& g, const std::string& name, bool is_input) {
  return edit_tensor(g, name, [&](Graph& out, TensorId t) { set_membership(out.inputs, t, is_input); });
}

Graph set_graph_output(const Graph& g, const std::string& name, bool is_output) {
  return edit_tensor(g, name, [&](Graph& out, TensorId t) {
    set_membership(out.outputs, t, is_output);
    if (out.outputs.empty())
      throw InputError("tensor " + name, "is the only graph output; mark another tensor as output first");
  });
}

}  // namespace arenaplan
