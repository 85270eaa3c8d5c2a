// Exports of a verified plan: C header, Chrome trace, MiniMalloc CSV, JSON report.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "core/tflite/exports.h"
#include "core/layout/minimalloc_csv.h"
#include "core/schedule/schedule_generators.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

struct Planned {
  Graph graph;
  LiveAnalysis live;
  LayoutProblem problem;
  ArenaPlan plan;
  PlanView view() const { return PlanView{graph, live, problem, plan}; }
};

Planned plan_two_branch(const std::string& order) {
  Planned p;
  p.graph = test::example_graph("two_branch");
  p.live = analyze_lifetimes(p.graph, parse_order(p.graph, order));
  p.problem = layout_problem(p.graph, p.live);
  p.plan = plan_arena(p.problem, {.planner = "best"});
  return p;
}

std::string line_with(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  size_t start = text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

}  // namespace

TEST_CASE("exports: the C header of two-branch ABCDEF declares a 136 KiB arena and every offset") {
  Planned p = plan_two_branch("A,B,C,D,E,F");
  REQUIRE(p.plan.arena_bytes == 136 * test::KiB);
  PlanSource src{"two-branch", "abc123", nullptr};
  std::string h = c_header(p.view(), src);
  CHECK(h.find("alignas(16) static uint8_t tensor_arena[ARENAPLAN_ARENA_BYTES];") != std::string::npos);
  CHECK(line_with(h, "#define ARENAPLAN_ARENA_BYTES") == "#define ARENAPLAN_ARENA_BYTES 139264");
  CHECK(line_with(h, "// sha256:") == "// sha256:     abc123");
  CHECK(line_with(h, "// alignment:") == "// alignment:  16 bytes");
  CHECK(line_with(h, "// input:") == "// input:      I 16384 bytes");
  CHECK(line_with(h, "// planner:").find("best, verified") != std::string::npos);
  CHECK(line_with(h, "// tool:") == std::string("// tool:       arenaplan ") + ARENAPLAN_VERSION);
  // One row per tensor, in tensor order, holding the plan's offset of its buffer.
  for (size_t t = 0; t < p.graph.tensors.size(); ++t) {
    CAPTURE(p.graph.tensors[t].name);
    std::string row = line_with(h, "/* " + std::to_string(t) + " " + p.graph.tensors[t].name + ",");
    REQUIRE(!row.empty());
    int b = p.live.buffer_of_tensor[t];
    CHECK(std::stoll(row) == (b < 0 ? -1 : p.plan.offsets[b]));
  }
  CHECK(line_with(h, "/* step 2:").find("C") != std::string::npos);
  CHECK(h.find("/* step 5:") != std::string::npos);
}

TEST_CASE("exports: comments cannot be broken by names") {
  Planned p = plan_two_branch("A,B,C,D,E,F");
  p.graph.name = "evil */ int x; /*";
  PlanSource src{p.graph.name, "", nullptr};
  std::string h = c_header(p.view(), src);
  CHECK(h.find("evil * / int x;") != std::string::npos);
  CHECK(h.find("sha256:     (none)") != std::string::npos);
}

TEST_CASE("exports: an invalid plan is never written") {
  Planned p = plan_two_branch("A,B,C,D,E,F");
  p.plan.offsets.assign(p.plan.offsets.size(), 0);  // everything on top of each other
  PlanSource src{"two-branch", "", nullptr};
  CHECK_THROWS_AS(c_header(p.view(), src), std::logic_error);
  CHECK_THROWS_AS(lifetime_trace_json(p.view(), src), std::logic_error);
  CHECK_THROWS_AS(plan_minimalloc_csv(p.view()), std::logic_error);
  CHECK_THROWS_AS(plan_report_json(p.view(), src), std::logic_error);
}

TEST_CASE("exports: the trace has one slice per buffer on its offset's track, and the live counter") {
  Planned p = plan_two_branch("A,B,D,C,E,F");
  PlanSource src{"two-branch", "", nullptr};
  const std::string trace = lifetime_trace_json(p.view(), src);
  JsonOut doc = JsonOut::parse(trace);
  CHECK(trace == doc.dump(1) + "\n");  // streamed event by event, spelled as one dump(1)
  int slices = 0, counters = 0;
  std::map<int, std::string> track_name;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") track_name[e["tid"].get<int>()] = e["args"]["name"];
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "C") {
      ++counters;
      if (e["ts"] == 2000) CHECK(e["args"]["live"] == 192 * test::KiB);  // during D: A + B + D
    }
    if (e["ph"] != "X" || e["tid"] == 0) continue;
    ++slices;
    CHECK(track_name[e["tid"].get<int>()] == "offset " + std::to_string(e["args"]["offset"].get<int64_t>()));
    CHECK(e["dur"].get<int64_t>() == 1000 * (e["args"]["last_step"].get<int64_t>() - e["args"]["first_step"].get<int64_t>() + 1));
  }
  CHECK(slices == static_cast<int>(p.live.buffers.size()));
  CHECK(counters == 6);
}

TEST_CASE("exports: the MiniMalloc CSV reads back as the same problem and solution") {
  Planned p = plan_two_branch("A,B,C,D,E,F");
  MiniMallocCsv back = parse_minimalloc_csv(plan_minimalloc_csv(p.view()));
  CHECK(back.offsets == p.plan.offsets);
  REQUIRE(back.problem.buffers.size() == p.problem.buffers.size());
  for (size_t i = 0; i < back.problem.buffers.size(); ++i) {
    CHECK(back.problem.buffers[i].size == p.problem.buffers[i].size);
    CHECK(back.problem.buffers[i].first == p.problem.buffers[i].first);
    CHECK(back.problem.buffers[i].last == p.problem.buffers[i].last);
  }
}

TEST_CASE("exports: a model's header and report number tensors and operators as the .tflite does") {
  TfliteModel m = import_tflite(test::read_model_fixture("face_detection_short_range.tflite"));
  Planned p;
  p.graph = m.graph;
  p.live = analyze_lifetimes(p.graph, p.graph.file_order());
  p.problem = layout_problem(p.graph, p.live);
  p.plan = plan_arena(p.problem, {.planner = "best"});
  CHECK(p.plan.arena_bytes == 1376256);  // proven: equals the peak
  PlanSource src{"face_detection_short_range", m.sha256, &m};
  std::string h = c_header(p.view(), src);
  CHECK(line_with(h, "#define ARENAPLAN_TENSOR_COUNT") == "#define ARENAPLAN_TENSOR_COUNT " + std::to_string(m.graph_tensor.size()));
  CHECK(line_with(h, "#define ARENAPLAN_INIT_OPERATOR_COUNT") == "#define ARENAPLAN_INIT_OPERATOR_COUNT 74");
  JsonOut r = plan_report_json(p.view(), src);
  std::ostringstream streamed;  // what `export --format json` writes
  write_plan_report_json(streamed, p.view(), src);
  CHECK(streamed.str() == r.dump(2));
  CHECK(r["layout"]["arena_bytes"] == 1376256);
  CHECK(r["tflite"]["tensor_offsets"].size() == m.graph_tensor.size());
  CHECK(r["tflite"]["operator_order"].size() == m.graph.ops.size() + m.folded_ops.size());
  int in_arena = 0;
  for (const auto& o : r["tflite"]["tensor_offsets"]) in_arena += o.get<int64_t>() >= 0;
  CHECK(in_arena == 91);  // the activation tensors (RESHAPE aliases share their input's offset)
}

TEST_CASE("exports: the streamed JSON report is byte for byte plan_report_json().dump(2)") {
  // Graphs with many outputs (the per-step live lists the stream exists for), escaped names, an
  // empty live list, and every built-in example.
  std::vector<Graph> graphs = {many_outputs_chain_graph(60, 20, 3), long_residual_chain_graph(30, 3),
                               parse_graph_json(R"({"tensors": {"in \"q\"": {"bytes": 16}, "w": {"bytes": 8, "constant": true},
      "out\\é": {"bytes": 16}, "k": {"bytes": 16}},
    "ops": [{"name": "c\tonst", "inputs": ["w"], "outputs": ["k"]},
            {"name": "op", "inputs": ["in \"q\"", "k"], "outputs": ["out\\é"]}],
    "inputs": ["in \"q\""], "outputs": ["out\\é"], "input_policy": "caller_owned"})")};
  for (const Example& e : builtin_examples())
    if (e.json.find("\"arenaplan-graph\"") != std::string::npos) graphs.push_back(parse_graph_json(e.json));
  for (const Graph& g : graphs) {
    Planned p;
    p.graph = g;
    p.live = analyze_lifetimes(p.graph, p.graph.file_order());
    p.problem = layout_problem(p.graph, p.live);
    p.plan = plan_arena(p.problem, {.planner = "tflm-greedy"});
    const PlanSource src{g.name, "abc123"};
    std::ostringstream streamed;
    write_plan_report_json(streamed, p.view(), src);
    CHECK_MESSAGE(streamed.str() == plan_report_json(p.view(), src).dump(2), g.name);
  }
}

}  // namespace arenaplan
