// The export entry point both front ends call (core/session/session.h): one plan per export, the
// TFLM figure of a model's header taken from the plan the header carries, the .tflite exports read
// back, and a graph held in memory giving the same bytes as its JSON file.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/graph/examples.h"
#include "core/session/session.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflm_arena.h"
#include "tests/unit/test_support.h"

namespace arenaplan {
namespace {

ExportRequest request(const LoadedInput& in, ExportFormat f) {
  ExportRequest r;
  r.format = f;
  r.order = in.graph.file_order();
  return r;
}

// Valid orders other than the file's: the file order with one pair of independent neighbours swapped.
std::vector<Schedule> neighbour_swaps(const Graph& g) {
  std::vector<Schedule> orders;
  const Schedule file = g.file_order();
  for (size_t i = 0; i + 1 < file.size(); ++i) {
    const Op &a = g.ops[file[i]], &b = g.ops[file[i + 1]];
    const bool depends = std::any_of(b.inputs.begin(), b.inputs.end(), [&](TensorId t) {
      return std::find(a.outputs.begin(), a.outputs.end(), t) != a.outputs.end();
    });
    if (depends) continue;
    Schedule o = file;
    std::swap(o[i], o[i + 1]);
    orders.push_back(o);
  }
  return orders;
}

TfliteModel as_tflm_runs(const std::string& bytes) {
  TfliteImportOptions o;
  o.fold_constant_ops = false;
  return import_tflite(bytes, o);
}

}  // namespace

TEST_CASE("session: an offline plan for another order is refused by the proof in the file's order; the export writes that order") {
  const LoadedInput in = load_input(test::read_tflm_fixture("int8_branches_small.tflite"));
  REQUIRE(in.model);
  const std::vector<Schedule> orders = neighbour_swaps(in.graph);
  REQUIRE(!orders.empty());
  int broken = 0;
  for (const Schedule& order : orders) {
    ExportRequest r = request(in, ExportFormat::kTfliteOffline);
    r.order = order;
    const ExportPlan e = export_plan(in, r);
    // What the export wrote before: this order's offsets in a file that keeps the file's order.
    const std::string stale = tflite_with_offline_plan(
        in.file, offline_offsets_for(*e.unfolded, e.planned.live, e.planned.plan.offsets));
    const VerifyResult v = verify_offline_plan_as_run(as_tflm_runs(stale));
    if (!v.ok()) {
      ++broken;
      CHECK(v.rule == VerifyRule::kOverlap);
      CHECK(v.message.find(" overlap at steps ") != std::string::npos);
    }
    // The export itself writes the operators in the planned order, and its plan holds there.
    const TfliteModel back = as_tflm_runs(export_artifact(in, r));
    CHECK(verify_offline_plan_as_run(back).ok());
    CHECK(analyze_lifetimes(back.graph, back.graph.file_order()).peak_bytes == e.planned.live.peak_bytes);
  }
  CHECK(broken > 0);  // the stale file really breaks for some order: the proof can fail
  // The file order's export keeps the file's operators and passes.
  CHECK(verify_offline_plan_as_run(as_tflm_runs(export_artifact(in, request(in, ExportFormat::kTfliteOffline)))).ok());
}

TEST_CASE("session: a model's C header sizes tensor_arena from the plan it carries") {
  const LoadedInput in = load_input(test::read_tflm_fixture("int8_inception.tflite"));
  REQUIRE(in.model);
  const ExportRequest r = request(in, ExportFormat::kCHeader);
  const ExportPlan e = export_plan(in, r);
  REQUIRE(e.tflm);
  // The offline figure is TFLM's arena for the very file the tflite-offline export writes.
  const std::string offline = export_artifact(in, request(in, ExportFormat::kTfliteOffline));
  CHECK(tflm_arena(offline).min_arena_bytes == e.tflm->offline.min_arena_bytes);
  const Bytes needed = std::max(e.tflm->tflm.min_arena_bytes, e.tflm->offline.min_arena_bytes);
  const std::string header = export_artifact(in, r);
  CHECK(header.find("#define ARENAPLAN_TFLM_ARENA_BYTES " + std::to_string(needed) + "\n") != std::string::npos);
  CHECK(header.find(in.sha256) != std::string::npos);  // the model file's hash
}

// A figure describes the bytes: every TFLM figure the session gives (a C header's, `budget`'s,
// `tflm-arena --plan`'s) is TFLM's arena for the very file the matching export writes, for the
// file order and for orders that are not the file's (there the file is written reordered; a
// figure sized from the file's order with this order's offsets would describe a broken model).
TEST_CASE("session: TFLM's figures are those of the written files, in every order and for every target") {
  const LoadedInput in = load_input(test::read_tflm_fixture("int8_branches_small.tflite"));
  std::vector<Schedule> orders = neighbour_swaps(in.graph);
  REQUIRE(!orders.empty());
  orders.push_back(in.graph.file_order());
  for (const TflmTarget& target : {TflmTarget{}, tflm_target_for_core("cortex-m4", TflmKernels::kCmsisNn)})
    for (const Schedule& order : orders) {
      ExportRequest r = request(in, ExportFormat::kTfliteOffline);
      r.order = order;
      r.tflm_target = target;
      TflmArenaOptions o;
      o.target = target;
      const Bytes written = tflm_arena(export_artifact(in, r), o).min_arena_bytes;
      CHECK(tflm_comparison_of(in, r).offline.min_arena_bytes == written);
      CHECK(tflm_arena_of(in, TflmPlan::kOffline, r).min_arena_bytes == written);
      r.format = ExportFormat::kTfliteReordered;
      CHECK(tflm_arena_of(in, TflmPlan::kReordered, r).min_arena_bytes == tflm_arena(export_artifact(in, r), o).min_arena_bytes);
      CHECK(tflm_comparison_of(in, r).tflm.min_arena_bytes == tflm_arena(in.file, o).min_arena_bytes);
    }
  CHECK_THROWS_AS(tflm_comparison_of(load_input(*find_example("two_branch")), ExportRequest{}), InputError);
}

TEST_CASE("session: the .tflite exports carry the plan and the order; a graph has none to write") {
  const LoadedInput in = load_input(test::read_tflm_fixture("int8_branches_small.tflite"));
  ExportRequest r = request(in, ExportFormat::kTfliteReordered);
  std::reverse(r.order.begin(), r.order.end());  // not a valid order: refused, nothing written
  CHECK_THROWS_AS(export_artifact(in, r), InputError);
  r.order = in.graph.file_order();
  const TfliteModel back = import_tflite(export_artifact(in, r));
  REQUIRE(back.offline_offsets);
  CHECK(back.graph.ops.size() == in.graph.ops.size());

  const LoadedInput graph = load_input(*find_example("two_branch"));
  CHECK(test::input_error_of([&] { export_artifact(graph, request(graph, ExportFormat::kTfliteOffline)); }) ==
        "two-branch: --format tflite-offline needs a .tflite model");
}

TEST_CASE("session: a graph in memory exports the same bytes as its JSON text read from a file") {
  const std::string& text = *find_example("two_branch");
  const LoadedInput from_file = load_input(text);
  const LoadedInput in_memory = loaded_graph(test::example_graph("two_branch"), text);
  for (ExportFormat f : {ExportFormat::kJsonReport, ExportFormat::kCHeader, ExportFormat::kMinimallocCsv, ExportFormat::kTrace}) {
    CAPTURE(export_format_name(f));
    CHECK(export_artifact(from_file, request(from_file, f)) == export_artifact(in_memory, request(in_memory, f)));
  }
  CHECK(test::input_error_of([] { parse_export_format("pdf"); }).find("--format: expected one of c-header") == 0);
}

TEST_CASE("session: a model's folded ops run just before the first op that reads them in a reordered export") {
  // selfie_segmentation dequantizes its float16 weights: folded in the views, run by TFLM.
  const LoadedInput in = load_input(test::read_model_fixture("selfie_segmentation.tflite"));
  REQUIRE(in.model);
  REQUIRE(!in.model->folded_ops.empty());
  ExportRequest r = request(in, ExportFormat::kCHeader);
  const ExportPlan as_file = export_plan(in, r);
  CHECK(as_file.order == as_file.graph.file_order());  // the file order stays the file's
  // Another valid order: the first two neighbours where the second does not read the first.
  const std::vector<Schedule> swaps = neighbour_swaps(in.graph);
  REQUIRE(!swaps.empty());
  r.order = swaps.front();
  const ExportPlan moved = export_plan(in, r);
  REQUIRE(moved.order.size() == moved.graph.ops.size());
  for (size_t i = 0; i < moved.order.size(); ++i) {
    const Op& op = moved.graph.ops[moved.order[i]];
    if (op.kind != "dequantize") continue;
    // Its next scheduled op reads its output, or is another op folded for that same reader.
    const Op& next = moved.graph.ops[moved.order.at(i + 1)];
    const bool reads = std::find(next.inputs.begin(), next.inputs.end(), op.outputs[0]) != next.inputs.end();
    CHECK_MESSAGE((reads || next.kind == "dequantize"), op.name << " is followed by " << next.name);
  }
}

}  // namespace arenaplan
