// nearest_valid_order (core/schedule/nearest_order.h): after a graph edit the user's order survives
// wherever the graph allows it. Expected orders are worked out by hand from the two-branch graph
// I -> A -> {B -> C, D -> E} -> F(C, E) and the rule in the header.
#include <tuple>

#include "core/graph/graph_edit.h"
#include "core/schedule/nearest_order.h"
#include "core/schedule/schedule.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

std::vector<std::string> split(const std::string& csv) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= csv.size()) {
    const size_t comma = std::min(csv.find(',', start), csv.size());
    out.push_back(csv.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string names(const Graph& g, const Schedule& order) { return order_names(g, order, ","); }

}  // namespace

TEST_CASE("every valid order of two-branch comes back unchanged (not the file order)") {
  const Graph g = example_graph("two_branch");
  const Enumeration all = enumerate_orders(g, 100, 100);
  REQUIRE(all.orders.size() == 6);
  for (const OrderPeak& o : all.orders) {
    const std::string csv = names(g, o.order);
    CHECK(names(g, nearest_valid_order(g, split(csv))) == csv);
  }
}

TEST_CASE("with no preference every op runs as early as its inputs allow (by depth, then op index)") {
  // Depth: A 0; B, D 1; C, E 2; F 3. So not the file order ABCDEF.
  const Graph g = example_graph("two_branch");
  CHECK(names(g, nearest_valid_order(g, {})) == "A,B,D,C,E,F");
}

TEST_CASE("a new op reading A runs right after A, the rest of ABDCEF keeps its order") {
  const Graph g = add_op(example_graph("two_branch"), {"G", "relu", {"A"}, {"G"}, 0}, 16 * KiB);
  CHECK(names(g, nearest_valid_order(g, split("A,B,D,C,E,F"))) == "A,G,B,D,C,E,F");
}

TEST_CASE("a new op after the last one goes last") {
  const Graph g = add_op(example_graph("two_branch"), {"G", "relu", {"F"}, {"G"}, 0}, 16 * KiB);
  CHECK(names(g, nearest_valid_order(g, split("A,D,E,B,C,F"))) == "A,D,E,B,C,F,G");
}

TEST_CASE("a renamed op is placed as early as its inputs allow, the others keep ABDCEF") {
  // The preferred order still says "B": B2 is unranked, so it goes right after A.
  const Graph g = rename_op(example_graph("two_branch"), "B", "B2");
  CHECK(names(g, nearest_valid_order(g, split("A,B,D,C,E,F"))) == "A,B2,D,C,E,F");
  // Ranked by the new name it keeps its place.
  CHECK(names(g, nearest_valid_order(g, split("A,D,E,B2,C,F"))) == "A,D,E,B2,C,F");
}

TEST_CASE("a new edge that breaks ABDCEF moves only the op that must move") {
  // D now also reads C, so D must follow C; E and F still follow D.
  const Graph g = set_op_inputs(example_graph("two_branch"), "D", {"A", "C"});
  CHECK(names(g, nearest_valid_order(g, split("A,B,D,C,E,F"))) == "A,B,C,D,E,F");
  CHECK_NOTHROW(check_order(g, nearest_valid_order(g, split("F,E,D,C,B,A"))));
}

TEST_CASE("names the graph lacks are ignored") {
  const Graph g = example_graph("two_branch");
  CHECK(names(g, nearest_valid_order(g, split("X,A,D,Y,E,B,C,F"))) == "A,D,E,B,C,F");
}

TEST_CASE("a cycle has no nearest order: InputError, not a short order") {
  // Built by hand: every reader of a graph refuses a cycle before anything could schedule it.
  Graph g;
  for (const char* name : {"a", "b"}) {
    Tensor t;
    t.name = name;
    t.bytes = 16;
    g.tensors.push_back(t);
  }
  for (auto [name, in, out] : {std::tuple{"X", 1, 0}, std::tuple{"Y", 0, 1}}) {
    Op op;
    op.name = name;
    op.kind = "relu";
    op.inputs = {in};
    op.outputs = {out};
    g.ops.push_back(op);
  }
  link_tensors(g);
  CHECK_THROWS_AS(nearest_valid_order(g, split("X,Y")), InputError);
}
