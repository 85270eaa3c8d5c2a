// libFuzzer target: sequences of structural graph edits (core/graph/graph_edit.h) driven by the input
// bytes, starting from the two-branch example. Every edit either returns a graph that passes
// validation and analysis or throws InputError; nothing crashes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/examples.h"
#include "core/graph/graph_edit.h"
#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"

namespace {

using namespace arenaplan;

struct Reader {
  const uint8_t* data;
  size_t size, at = 0;
  bool done() const { return at >= size; }
  uint8_t byte() { return at < size ? data[at++] : 0; }
  // A name: an existing op/tensor name most of the time, sometimes a fresh or odd one.
  std::string name(const std::vector<std::string>& known) {
    const uint8_t b = byte();
    if (!known.empty() && b < 200) return known[b % known.size()];
    static const char* odd[] = {"", "n", "A", "I", "new", "x y", "F", "B2"};
    return odd[b % 8];
  }
  Bytes bytes() { return Bytes(int8_t(byte())) * 1024; }  // negative and zero sizes included
};

std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> n;
  for (const Op& op : g.ops) n.push_back(op.name);
  return n;
}

std::vector<std::string> tensor_names(const Graph& g) {
  std::vector<std::string> n;
  for (const Tensor& t : g.tensors) n.push_back(t.name);
  return n;
}

Graph apply_one(const Graph& g, Reader& in) {
  const auto ops = op_names(g), tensors = tensor_names(g);
  switch (in.byte() % 12) {
    case 0: {
      OpSpec spec{in.name(ops), "mix", {in.name(tensors)}, {in.name(tensors)}, 0};
      return add_op(g, spec, in.bytes());
    }
    case 1: return remove_op(g, in.name(ops), in.byte() % 2 ? RemoveMode::kRefuseIfRead : RemoveMode::kCascade);
    case 2: return rename_op(g, in.name(ops), in.name(ops) + std::to_string(in.byte() % 3));
    case 3: return set_op_scratch(g, in.name(ops), in.bytes());
    case 4: return set_op_inputs(g, in.name(ops), {in.name(tensors), in.name(tensors)});
    case 5: return set_op_outputs(g, in.name(ops), {in.name(tensors)}, in.bytes());
    case 6: return add_tensor(g, in.name(tensors) + "t", in.bytes(), in.byte() % 2);
    case 7: return remove_tensor(g, in.name(tensors));
    case 8: return rename_tensor(g, in.name(tensors), in.name(tensors) + std::to_string(in.byte() % 3));
    case 9: return set_tensor_bytes(g, in.name(tensors), in.bytes());
    case 10: return set_graph_input(g, in.name(tensors), in.byte() % 2);
    default: return set_graph_output(g, in.name(tensors), in.byte() % 2);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Graph start = parse_graph_json(*find_example("two_branch"));
  Graph g = start;
  Reader in{data, size};
  for (int edits = 0; edits < 32 && !in.done(); ++edits) {
    try {
      g = apply_one(g, in);
    } catch (const InputError&) {
      continue;  // refused: the graph stays as it was
    }
    validate_graph(g);  // an accepted edit leaves a valid graph (throws, i.e. crashes the run, if not)
  }
  // ... that core can analyse and write back (once per input: the writer is the slow part).
  analyze_lifetimes(g, topological_order(g));
  parse_graph_json(graph_to_json(g));
  return 0;
}
