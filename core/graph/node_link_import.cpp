#include "core/graph/node_link_import.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph/graph_json.h"

namespace arenaplan {

using json_read::get_int;
using json_read::get_string;
using json_read::Json;
using json_read::kind_of;
using json_read::ptr;

namespace {

// A node's key as the links write it: an integer or a string ("7" and 7 are different keys, as
// in networkx).
std::string key_of(const Json& j, const std::string& where) {
  if (j.is_number_integer() || j.is_number_unsigned()) return "#" + std::to_string(get_int(j, where));
  if (j.is_string()) return "$" + j.get<std::string>();
  throw InputError(where, "expected a node key (an integer or a string), found " + kind_of(j));
}

std::string label_of(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// Bytes as a whole positive number (a file written through floats gives 1130.0).
Bytes bytes_of(const Json& j, const std::string& where) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!(v >= 1) || v != std::floor(v) || v > 9.0e18) throw InputError(where, "expected a whole number of bytes, found " + j.dump());
    return static_cast<Bytes>(v);
  }
  const int64_t v = get_int(j, where);
  // Every tensor of a graph takes at least a byte (validate_graph), so say it at the node.
  if (v <= 0) throw InputError(where, "a memory cost must be at least one byte, found " + std::to_string(v));
  return v;
}

// The node attribute holding each output's bytes.
std::string cost_tag(const Json& graph_attrs, const Json& first_node) {
  if (graph_attrs.is_object() && graph_attrs.contains("node_output_cost_tag"))
    return get_string(graph_attrs["node_output_cost_tag"], "/graph/node_output_cost_tag");
  if (first_node.is_object() && first_node.contains("out_cost")) return "out_cost";
  return "cost_ram";
}

// A link's end: "source"/"target" (networkx's default) or "0"/"1" (MOCCASIN's files).
const Json& link_end(const Json& link, const char* name, const char* alias, const std::string& where) {
  if (link.contains(name)) return link[name];
  if (link.contains(alias)) return link[alias];
  throw InputError(where, std::string("a link needs \"") + name + "\" (or \"" + alias + "\")");
}

// graph.order when it lists every node once, predecessors first; otherwise empty.
std::vector<int> given_order(const Json& graph_attrs, const std::map<std::string, int>& index,
                             const std::vector<std::vector<int>>& preds) {
  if (!graph_attrs.is_object() || !graph_attrs.contains("order") || !graph_attrs["order"].is_array()) return {};
  const Json& order = graph_attrs["order"];
  if (order.size() != preds.size()) return {};
  std::vector<int> out;
  std::vector<char> done(preds.size(), 0);
  for (const Json& k : order) {
    if (!(k.is_number_integer() || k.is_number_unsigned() || k.is_string())) return {};
    const auto it = index.find(key_of(k, "/graph/order"));
    if (it == index.end() || done[it->second]) return {};
    for (int p : preds[it->second])
      if (!done[p]) return {};
    done[it->second] = 1;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

bool is_node_link_graph(const Json& doc) {
  return doc.is_object() && doc.contains("nodes") && doc.contains("links") && !doc.contains("ops");
}

Graph import_node_link_graph(const Json& doc) {
  if (doc.contains("directed") && !(doc["directed"].is_boolean() && doc["directed"].get<bool>()))
    throw InputError("/directed", "an undirected graph gives no order of its nodes: expected true");
  const Json empty = Json::object();
  const Json& attrs = doc.contains("graph") ? doc["graph"] : empty;
  const Json& nodes = doc["nodes"];
  const Json& links = doc["links"];
  if (!nodes.is_array()) throw InputError("/nodes", "expected an array of nodes, found " + kind_of(nodes));
  if (!links.is_array()) throw InputError("/links", "expected an array of links, found " + kind_of(links));
  if (nodes.empty()) throw InputError("/nodes", "a graph needs at least one node");
  if (nodes.size() > kMaxGraphOps)
    throw InputError("/nodes", std::to_string(nodes.size()) + " nodes; the limit is " + std::to_string(kMaxGraphOps));

  const std::string tag = cost_tag(attrs, nodes[0]);
  std::map<std::string, int> index;  // node key -> position in the file
  std::vector<std::string> labels;
  std::vector<Bytes> bytes;
  std::set<std::string> string_names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = ptr("/nodes", i);
    const Json& node = nodes[i];
    if (!node.is_object()) throw InputError(where, "expected a node object, found " + kind_of(node));
    const char* key_field = node.contains("id") ? "id" : "name";
    if (!node.contains(key_field)) throw InputError(where, "a node needs an \"id\" (or \"name\")");
    const std::string key = key_of(node[key_field], ptr(where, key_field));
    if (!index.emplace(key, static_cast<int>(i)).second)
      throw InputError(ptr(where, key_field), "duplicate node " + label_of(node[key_field]));
    labels.push_back(label_of(node[key_field]));
    if (node.contains("name") && node["name"].is_string()) string_names.insert(node["name"].get<std::string>());
    if (!node.contains(tag)) throw InputError(where, "no memory cost: the node needs \"" + tag + "\" (bytes of its output)");
    bytes.push_back(bytes_of(node[tag], ptr(where, tag)));
  }
  // Checkmate's layer names read better than ids, when they name every node once.
  if (string_names.size() == nodes.size())
    for (size_t i = 0; i < nodes.size(); ++i) labels[i] = nodes[i]["name"].get<std::string>();
  std::set<std::string> taken;  // ids 7 and "7" are two nodes but would be one op name
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!taken.insert(labels[i]).second) throw InputError(ptr("/nodes", i), "another node is also named " + labels[i]);

  std::vector<std::vector<int>> preds(nodes.size());
  for (size_t i = 0; i < links.size(); ++i) {
    const std::string where = ptr("/links", i);
    const Json& link = links[i];
    if (!link.is_object()) throw InputError(where, "expected a link object, found " + kind_of(link));
    auto end = [&](const char* name, const char* alias) {
      const Json& k = link_end(link, name, alias, where);
      const std::string w = ptr(where, link.contains(name) ? name : alias);
      const auto it = index.find(key_of(k, w));
      if (it == index.end()) throw InputError(w, "no node " + label_of(k));
      return it->second;
    };
    const int u = end("source", "0"), v = end("target", "1");
    if (u == v) throw InputError(where, "node " + labels[u] + " reads its own output (a self-loop)");
    if (std::find(preds[v].begin(), preds[v].end(), u) == preds[v].end()) preds[v].push_back(u);
  }

  Graph g;
  g.name = attrs.is_object() && attrs.contains("name") && attrs["name"].is_string() ? attrs["name"].get<std::string>() : "graph";
  g.alignment = 1;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Tensor t;
    t.name = labels[i];
    t.bytes = bytes[i];
    g.tensors.push_back(std::move(t));
    Op op;  // in file order first: node i is op i and writes tensor i
    op.name = labels[i];
    op.kind = "node";
    op.inputs.assign(preds[i].begin(), preds[i].end());
    op.outputs.push_back(static_cast<TensorId>(i));
    g.ops.push_back(std::move(op));
  }
  link_tensors(g);

  // The generator's order when it is one, else the topological order closest to the file's.
  std::vector<int> order = given_order(attrs, index, preds);
  if (order.empty()) {
    const std::vector<OpId> closest = topological_order(g);
    if (closest.size() < nodes.size()) {
      std::vector<char> placed(nodes.size(), 0);
      for (OpId o : closest) placed[o] = 1;
      const size_t stuck = static_cast<size_t>(std::find(placed.begin(), placed.end(), 0) - placed.begin());
      throw InputError("/links", "the graph has a cycle through node \"" + labels[stuck] + "\"");
    }
    order.assign(closest.begin(), closest.end());
  }
  std::vector<Op> ops;
  for (int v : order) {
    ops.push_back(std::move(g.ops[v]));
    if (g.tensors[v].consumers.empty()) g.outputs.push_back(v);  // read by no node: an output
  }
  g.ops = std::move(ops);
  link_tensors(g);
  validate_graph(g);
  return g;
}

}  // namespace arenaplan
