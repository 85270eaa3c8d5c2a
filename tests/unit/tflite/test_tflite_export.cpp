// .tflite exports: the offline-plan model and the reordered model verify, re-import to the same
// graph, and carry exactly the plan we reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

TfliteImportOptions runtime_ops() {  // TFLM runs every op at each invoke
  TfliteImportOptions o;
  o.fold_constant_ops = false;
  return o;
}

// A graph's content without op names (names carry file positions, which reordering changes).
using OpKey = std::tuple<std::string, std::vector<std::string>, std::vector<std::string>, size_t>;
std::vector<OpKey> op_keys(const Graph& g) {
  std::vector<OpKey> keys;
  for (const Op& op : g.ops) {
    std::vector<std::string> in, out;
    for (TensorId t : op.inputs) in.push_back(g.tensors[t].name);
    for (TensorId t : op.outputs) out.push_back(g.tensors[t].name);
    keys.emplace_back(op.kind, in, out, op.in_place.size());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

void check_same_tensors(const Graph& a, const Graph& b) {
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (size_t t = 0; t < a.tensors.size(); ++t) {
    CHECK(a.tensors[t].name == b.tensors[t].name);
    CHECK(a.tensors[t].bytes == b.tensors[t].bytes);
    CHECK(a.tensors[t].constant == b.tensors[t].constant);
    CHECK(a.tensors[t].persistent == b.tensors[t].persistent);
  }
  CHECK(a.inputs == b.inputs);
  CHECK(a.outputs == b.outputs);
}

}  // namespace

TEST_CASE("tflite export: OfflineMemoryAllocation carries the reported plan and re-imports") {
  for (const char* file : {"face_detection_short_range.tflite", "selfie_segmentation.tflite"}) {
    CAPTURE(file);
    const std::string bytes = test::read_model_fixture(file);
    TfliteModel m = import_tflite(bytes, runtime_ops());
    CHECK(!m.offline_offsets);
    LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
    LayoutProblem problem = layout_problem(m.graph, live);
    ArenaPlan plan = plan_arena(problem, {.planner = "tflm-greedy"});
    std::vector<int32_t> offsets = offline_offsets_for(m, live, plan.offsets);
    std::string out = tflite_with_offline_plan(bytes, offsets);
    CHECK(out.size() > bytes.size());
    CHECK(out.substr(out.size() - bytes.size()) == bytes);  // the original bytes, untouched

    TfliteModel back = import_tflite(out, runtime_ops());
    check_same_tensors(m.graph, back.graph);
    CHECK(op_keys(m.graph) == op_keys(back.graph));
    REQUIRE(back.offline_offsets);
    CHECK(*back.offline_offsets == offsets);
    // The offsets in the file, as fixed offsets, verify and give the arena we reported.
    LiveAnalysis live2 = analyze_lifetimes(back.graph, back.graph.file_order());
    LayoutProblem fixed = layout_problem(back.graph, live2);
    std::vector<Bytes> file_offsets(fixed.buffers.size(), -1);
    for (size_t i = 0; i < back.graph_tensor.size(); ++i) {
      TensorId t = back.graph_tensor[i];
      if (t < 0 || live2.buffer_of_tensor[t] < 0) continue;
      CHECK((*back.offline_offsets)[i] >= 0);
      file_offsets[live2.buffer_of_tensor[t]] = (*back.offline_offsets)[i];
    }
    Bytes arena = arena_extent(fixed, file_offsets);
    CHECK(arena == plan.arena_bytes);
    CHECK(verify_plan(fixed, file_offsets, arena).ok());

    // Exporting again replaces the entry instead of adding a second one.
    std::string twice = tflite_with_offline_plan(out, offsets);
    CHECK(*import_tflite(twice, runtime_ops()).offline_offsets == offsets);
  }
}

TEST_CASE("tflite export: operators reordered to a schedule re-import in that order") {
  const std::string bytes = test::read_model_fixture("selfie_segmentation.tflite");
  TfliteModel m = import_tflite(bytes, runtime_ops());
  Schedule order = greedy_smallest_footprint(m.graph);
  REQUIRE(order != m.graph.file_order());
  Bytes peak = analyze_lifetimes(m.graph, order).peak_bytes;
  std::string out = tflite_reordered(bytes, file_operator_order(m, order));
  CHECK(out.size() == bytes.size());
  TfliteModel back = import_tflite(out, runtime_ops());
  check_same_tensors(m.graph, back.graph);
  CHECK(op_keys(m.graph) == op_keys(back.graph));
  // The new file order is the schedule: same peak, op by op the same kinds.
  CHECK(analyze_lifetimes(back.graph, back.graph.file_order()).peak_bytes == peak);
  for (size_t s = 0; s < order.size(); ++s) CHECK(back.graph.ops[s].kind == m.graph.ops[order[s]].kind);

  CHECK_THROWS_AS(tflite_reordered(bytes, {0, 1, 2}), InputError);
  std::vector<int32_t> backwards = file_operator_order(m, m.graph.file_order());
  std::reverse(backwards.begin(), backwards.end());
  CHECK_THROWS_WITH_AS(tflite_reordered(bytes, backwards), doctest::Contains("before its input"), InputError);
  std::vector<int32_t> dup = file_operator_order(m, m.graph.file_order());
  dup[1] = dup[0];
  CHECK_THROWS_AS(tflite_reordered(bytes, dup), InputError);
}

TEST_CASE("tflite export: folded ops go first in the reordered file") {
  const std::string bytes = test::read_model_fixture("face_detection_short_range.tflite");
  TfliteModel m = import_tflite(bytes);  // folding on
  REQUIRE(!m.folded_ops.empty());
  std::string out = tflite_reordered(bytes, file_operator_order(m, m.graph.file_order()));
  TfliteModel back = import_tflite(out);
  CHECK(op_keys(m.graph) == op_keys(back.graph));
  CHECK(analyze_lifetimes(back.graph, back.graph.file_order()).peak_bytes ==
        analyze_lifetimes(m.graph, m.graph.file_order()).peak_bytes);
}

}  // namespace arenaplan
