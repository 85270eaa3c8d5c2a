// Parsing and validation of the arenaplan-graph format: every error names its place.
#include <doctest/doctest.h>

#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {
std::string wrap(const std::string& tensors, const std::string& ops, const std::string& io) {
  return R"({"format":"arenaplan-graph","version":1,"tensors":{)" + tensors + R"(},"ops":[)" + ops + "]," + io + "}";
}
const std::string kT = R"("x":{"bytes":16},"y":{"bytes":16})";
const std::string kOp = R"({"name":"p","inputs":["x"],"outputs":["y"]})";
const std::string kIO = R"("inputs":["x"],"outputs":["y"])";
}  // namespace

TEST_CASE("sizes: bytes with units, or shape x dtype") {
  CHECK(parse_byte_size("16KiB", "") == 16384);
  CHECK(parse_byte_size("1MiB", "") == 1048576);
  CHECK(parse_byte_size("1.5KiB", "") == 1536);
  CHECK(parse_byte_size("4096", "") == 4096);
  CHECK_THROWS_WITH_AS(parse_byte_size("0.1B", "/x"), doctest::Contains("not a whole number"), InputError);
  CHECK_THROWS_WITH_AS(parse_byte_size("16 KB", "/x"), doctest::Contains("/x: expected a byte size"), InputError);
  CHECK_THROWS_WITH_AS(parse_byte_size("99999999999999999GiB", "/x"), doctest::Contains("overflows"), InputError);
  Graph g = parse_graph_json(wrap(R"("x":{"shape":[32,32,32],"dtype":"int8"},"y":{"shape":[10],"dtype":"float32"})", kOp, kIO));
  CHECK(g.tensors[0].bytes == 32768);
  CHECK(g.tensors[1].bytes == 40);
  for (const char* dt : {"int8", "uint8", "int16", "int32", "float16", "float32"}) {
    Graph h = parse_graph_json(wrap(std::string(R"("x":{"shape":[3],"dtype":")") + dt + R"("},"y":{"bytes":1})", kOp, kIO));
    CHECK(h.tensors[0].bytes == 3 * dtype_width(*dtype_from_name(dt)));
  }
}

TEST_CASE("symbolic dims are sized at their upper bound") {
  Graph g = parse_graph_json(R"({"dims":{"N":{"min":1,"max":8}},"tensors":{"x":{"shape":["N",4],"dtype":"int8"},"y":{"bytes":16}},
      "ops":[{"name":"p","inputs":["x"],"outputs":["y"]}],"inputs":["x"],"outputs":["y"]})");
  CHECK(g.tensors[0].bytes == 32);
  CHECK(g.tensors[0].shape[0].symbol == "N");
  CHECK(parse_error(R"({"tensors":{"x":{"shape":["M"],"dtype":"int8"},"y":{"bytes":16}},"ops":[{"name":"p","inputs":["x"],"outputs":["y"]}],"inputs":["x"],"outputs":["y"]})")
        == "/tensors/x/shape/0: symbolic dim \"M\" has no bounds in /dims");
}

TEST_CASE("graph_to_json round-trips") {
  Graph g = example_graph("two_branch");
  Graph h = parse_graph_json(graph_to_json(g));
  CHECK(graph_to_json(h) == graph_to_json(g));
  CHECK(h.tensors.size() == 7);
  CHECK(h.tensors[2].name == "B");  // the file's tensor order is kept
}

TEST_CASE("malformed JSON names the line and column") {
  CHECK(parse_error("{\n  \"tensors\": {,\n}").rfind("line 2, column 15: invalid JSON", 0) == 0);
  CHECK(parse_error("").rfind("line 1, column 1: invalid JSON", 0) == 0);
  CHECK(parse_error("[1,2]") == "/: expected a graph object, found an array");
}

TEST_CASE("every validation error names the JSON place and the expectation") {
  CHECK(parse_error(wrap(kT, R"({"name":"p","inputs":["q"],"outputs":["y"]})", kIO)) ==
        "/ops/0/inputs/0: unknown tensor \"q\" (not declared in /tensors)");
  CHECK(parse_error(wrap(kT, kOp, R"("inputs":["x"],"outputs":["nope"])")) ==
        "/outputs/0: unknown tensor \"nope\" (not declared in /tensors)");
  CHECK(parse_error(wrap(R"("x":{"bytes":16},"y":{"bytes":16},"z":{"bytes":16})",
                         kOp + R"(,{"name":"q","inputs":["x"],"outputs":["y"]})", kIO))
            .find("tensor y is already produced by op p") != std::string::npos);
  CHECK(parse_error(wrap(R"("x":{"bytes":16},"y":{"bytes":16},"a":{"bytes":16},"b":{"bytes":16})",
                         R"({"name":"p","inputs":["x","b"],"outputs":["a"]},{"name":"q","inputs":["a"],"outputs":["b","y"]})", kIO))
            == "/ops: the graph has a cycle through ops p, q");
  CHECK(parse_error(wrap(R"("x":{"bytes":16},"y":{"bytes":16},"d":{"bytes":16})",
                         kOp + R"(,{"name":"dead","inputs":["x"],"outputs":["d"]})", kIO))
            == "/ops/1 (op dead): is unreachable: none of its outputs leads to a graph output");
  CHECK(parse_error(wrap(R"("x":{"bytes":0},"y":{"bytes":16})", kOp, kIO)) == "/tensors/x/bytes: size must be positive");
  CHECK(parse_error(wrap(R"("x":{"bytes":-5},"y":{"bytes":16})", kOp, kIO)) == "/tensors/x/bytes: size must be positive");
  CHECK(parse_error(wrap(R"("x":{"bytes":"-5KiB"},"y":{"bytes":16})", kOp, kIO)) == "/tensors/x/bytes: size must be positive");
  CHECK(parse_error(wrap(R"("x":{"shape":[4,-1],"dtype":"int8"},"y":{"bytes":16})", kOp, kIO)) == "/tensors/x/shape/1: dims must be positive");
  CHECK(parse_error(wrap(R"("x":{"shape":[4294967296,4294967296],"dtype":"int8"},"y":{"bytes":16})", kOp, kIO)) == "/tensors/x/shape: size overflows 64 bits");
  CHECK(parse_error(wrap(R"("x":{"shape":[4],"dtype":"int7"},"y":{"bytes":16})", kOp, kIO)).rfind("/tensors/x/dtype: unknown dtype", 0) == 0);
  CHECK(parse_error(wrap(R"("x":{"bytes":16,"shape":[1],"dtype":"int8"},"y":{"bytes":16})", kOp, kIO)).rfind("/tensors/x: give exactly one of", 0) == 0);
  CHECK(parse_error(wrap(R"("x":{"byts":16},"y":{"bytes":16})", kOp, kIO)).rfind("/tensors/x/byts: unknown key", 0) == 0);
  CHECK(parse_error(wrap(kT, R"({"name":"p","inputs":["x"]})", kIO)) == "/ops/0: missing required key \"outputs\"");
  CHECK(parse_error(wrap(kT, kOp + "," + kOp, kIO)) == "/ops/1/name: duplicate op name \"p\"");
  CHECK(parse_error(wrap(kT, R"({"name":"p","inputs":["x"],"outputs":["y"],"scratch_bytes":"x"})", kIO)).rfind("/ops/0/scratch_bytes: expected a byte size", 0) == 0);
  CHECK(parse_error(wrap(R"("x":{"bytes":16},"y":{"bytes":16},"w":{"bytes":16})",
                         R"({"name":"p","inputs":["x","w"],"outputs":["y"]})", kIO))
            .rfind("/tensors/w: is read but never produced", 0) == 0);
  CHECK(parse_error(wrap(kT, kOp, kIO).replace(wrap(kT, kOp, kIO).find("\"version\":1"), 11, "\"version\":2")).find("/version") != std::string::npos);
  CHECK(parse_error(wrap(kT, kOp, kIO).replace(1, 0, R"("alignment":12,)")) == "/alignment: must be a power of two between 1 and 1048576");
  CHECK(parse_error(wrap(kT, "", kIO)) == "/ops: a graph needs at least one op");
  CHECK(parse_error(wrap(kT, kOp, R"("inputs":["x"],"outputs":[])")) == "/outputs: a graph needs at least one output");
  CHECK(parse_error(wrap(kT, kOp, R"("inputs":["x","y"],"outputs":["y"])")).find("graph input y is produced by op p") != std::string::npos);
}

TEST_CASE("a number too large for a double is an error, not a crash (found by fuzz_board_json)") {
  CHECK(parse_error(R"({"alignment": 1e99999})") == "JSON: invalid JSON (number overflow parsing '1e99999')");
  CHECK(parse_error("333.3333333333e3333333333311326434445538011818").rfind("JSON: invalid JSON (number overflow", 0) == 0);
}

TEST_CASE("resource limits refuse oversized graphs with a message") {
  std::string ops;
  for (size_t i = 0; i <= kMaxGraphOps; ++i) ops += std::string(i ? "," : "") + R"({"name":"o)" + std::to_string(i) + R"(","inputs":["x"],"outputs":["y"]})";
  CHECK(parse_error(wrap(kT, ops, kIO)) == "/ops: " + std::to_string(kMaxGraphOps + 1) + " ops; the limit is " + std::to_string(kMaxGraphOps));
  std::string huge(kMaxGraphJsonBytes + 1, ' ');
  CHECK(parse_error(huge).find("graphs are limited to 64 MiB") != std::string::npos);
}
