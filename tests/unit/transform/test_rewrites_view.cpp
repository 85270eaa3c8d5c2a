// Identity ops as views (view:OP): an op that only copies its input disappears, its readers read
// the input, the copy's bytes leave the peak, the outputs stay bit-exact, and the rewritten graph
// is still a model stock TFLite can hold (written by the project's .tflite writer, read back).
#include <doctest/doctest.h>

#include "core/graph/lifetime.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_write.h"
#include "core/transform/schedule_views.h"
#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"
#include "core/transform/whatif.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/rewrite_test_support.h"

namespace arenaplan {
namespace {

using test::bytes_of;
using test::Net;
using test::quant;
using test::refusal;

TensorId int32_operand(Net& n, const std::string& name, const std::vector<int32_t>& values) {
  return n.tensor(name, {static_cast<int64_t>(values.size())}, DType::kInt32, {}, bytes_of(values));
}

// SwiftNet's stem: the image goes through a SPLIT into one part (a copy), then convs. Both copies
// of the image are live while the first conv runs.
struct SplitStem {
  Graph g;
  TensorId image = -1, copy = -1;
};

SplitStem split_stem(bool float32) {
  Net n(31);
  SplitStem s;
  s.image = n.activation("image", {1, 12, 12, 3}, float32);
  s.copy = n.activation_like("split.out", n.dims(s.image), s.image);
  n.op("split", "split", {int32_operand(n, "split.axis", {3}), s.image}, {s.copy}, {{"num_splits", 1}});
  TensorId a = n.conv("conv1", s.copy, 2, 3, 1, 1, 3);  // smaller than the image: the split is the peak
  TensorId b = n.depthwise("dw", a, 3, 2, 0);
  TensorId y = n.conv("conv2", b, 4, 1, 1, 0);
  s.g = n.finish(s.image, {y});
  return s;
}

Bytes peak_of(const Graph& g) { return analyze_lifetimes(g, g.file_order()).peak_bytes; }

}  // namespace

TEST_CASE("view: a one-way SPLIT is removed, its copy of the image leaves the peak, outputs bit-exact") {
  for (bool f32 : {false, true}) {
    CAPTURE(f32);
    const SplitStem s = split_stem(f32);
    const Bytes image_bytes = s.g.tensors[s.image].bytes;
    const Rewrite r = apply_transformation(s.g, parse_transformation("view:split"), {});
    CHECK(!r.graph.find_op("split"));
    CHECK(!r.graph.find_tensor("split.out"));
    CHECK(!r.graph.find_tensor("split.axis"));  // its only reader is gone
    const Op& conv1 = r.graph.ops[*r.graph.find_op("conv1")];
    CHECK(r.graph.tensors[conv1.inputs[0]].name == "image");
    CHECK(r.figures.at("vanished_bytes") == image_bytes);
    // During the split both copies were live; now the image alone is, so the peak drops by one
    // copy exactly when the split's step was the peak.
    CHECK(peak_of(r.graph) < peak_of(s.g));
    CHECK(evaluate_outputs(r.graph, 3) == evaluate_outputs(s.g, 3));

    WhatIfReport w = run_whatif(s.g, {{"view:split"}}, {}, {});
    CHECK(w.outputs_check == "bit-exact");
    test::check_every_step_safe(w);
    CHECK(w.after.peak_bytes < w.before.peak_bytes);

    // The automatic search finds it on its own.
    CHECK(view_candidates(s.g) == std::vector<std::string>{"view:split"});
  }
}

// `schedule`'s second answer: the best order once the copy is a view, which no order of the file's
// graph reaches (both copies of the image are live while the split runs).
TEST_CASE("schedule with views: the one-way SPLIT's copy leaves the proven optimum") {
  const SplitStem s = split_stem(false);
  const ScheduleResult file = optimize_schedule(s.g, 5.0);
  REQUIRE(file.proven_optimal);
  const std::optional<ViewSchedule> v = schedule_with_views(s.g, 5.0);
  REQUIRE(v);
  CHECK(v->rewrites == std::vector<std::string>{"view:split"});
  CHECK(!v->graph.find_op("split"));
  CHECK(v->result.proven_optimal);
  // The search's answer is the peak of its order on the rewritten graph, and below the file's optimum.
  CHECK(v->result.peak_bytes == analyze_lifetimes(v->graph, v->result.order).peak_bytes);
  CHECK(v->result.peak_bytes < file.peak_bytes);
  const JsonOut j = view_schedule_json(*v, file);
  CHECK(j["peak_below_file_optimum_bytes"].get<Bytes>() == file.peak_bytes - v->result.peak_bytes);
  const std::string text = view_schedule_text(*v, file, "stem.tflite");
  CHECK(text.find("with identity ops as views (view:split)") != std::string::npos);
  CHECK(text.find("arenaplan transform stem.tflite --apply view:split -o OUT.tflite") != std::string::npos);
  // A graph without identity ops has no second answer.
  const Rewrite without = apply_transformation(s.g, parse_transformation("view:split"), {});
  CHECK(!schedule_with_views(without.graph, 1.0));
}

TEST_CASE("view: the rewritten model is written as a .tflite and reads back with the same outputs") {
  const SplitStem s = split_stem(false);
  const Rewrite r = apply_transformation(s.g, parse_transformation("view:split"), {});
  const std::string bytes = tflite_from_graph(r.graph);
  const TfliteModel back = import_tflite(bytes, {});
  CHECK(!back.graph.find_op("split"));
  CHECK(back.graph.ops.size() == r.graph.ops.size());
  CHECK(evaluate_outputs(back.graph, 2) == evaluate_outputs(s.g, 2));
}

TEST_CASE("view: identity CONCATENATION, SLICE, QUANTIZE, PAD and TRANSPOSE are views; anything that moves a byte is refused") {
  Net n(7);
  TensorId x = n.activation("x", {1, 4, 4, 2});
  auto like = [&](const std::string& name, TensorId t) { return n.activation_like(name, n.dims(t), t); };
  TensorId c1 = like("cat1.out", x);
  n.op("cat1", "concatenation", {x}, {c1}, {{"axis", 3}});
  TensorId s1 = like("slice_all.out", c1);
  n.op("slice_all", "slice", {c1, int32_operand(n, "b0", {0, 0, 0, 0}), int32_operand(n, "s0", {1, 4, 4, 2})}, {s1});
  TensorId q1 = like("requant_same.out", s1);
  n.op("requant_same", "quantize", {s1}, {q1});
  TensorId p1 = like("pad_none.out", q1);
  n.op("pad_none", "pad", {q1, n.tensor("p0", {4, 2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>(8, 0)))}, {p1});
  TensorId t1 = like("transpose_id.out", p1);
  n.op("transpose_id", "transpose", {p1, int32_operand(n, "perm_id", {0, 1, 2, 3})}, {t1});
  // Not taken for identities: a strided slice with a stride other than 1 (here it steps over the
  // batch of one, which keeps every byte, but a stride of -1 would reverse a dim in the same
  // shape), a transpose that swaps two dims of one size, a requantization to other parameters,
  // a split into two.
  TensorId r1 = like("strided.out", t1);
  n.op("strided", "strided_slice",
       {t1, int32_operand(n, "rb", {0, 0, 0, 0}), int32_operand(n, "re", {1, 4, 4, 2}), int32_operand(n, "rs", {2, 1, 1, 1})},
       {r1});
  TensorId w1 = like("swap.out", r1);
  n.op("swap", "transpose", {r1, int32_operand(n, "perm_swap", {0, 2, 1, 3})}, {w1});
  TensorId q2 = n.tensor("requant_other.out", n.dims(w1), DType::kInt8, quant(0.5f, 3));
  n.op("requant_other", "quantize", {w1}, {q2});
  TensorId h1 = n.tensor("half1", {1, 4, 4, 1}, DType::kInt8, n.g.tensors[q2].quant);
  TensorId h2 = n.tensor("half2", {1, 4, 4, 1}, DType::kInt8, n.g.tensors[q2].quant);
  n.op("split2", "split", {int32_operand(n, "axis2", {3}), q2}, {h1, h2}, {{"num_splits", 2}});
  TensorId out = like("last_copy.out", h1);
  n.op("last_copy", "concatenation", {h1}, {out}, {{"axis", 3}});
  Graph g = n.finish(x, {out, h2});

  for (const char* op : {"cat1", "slice_all", "requant_same", "pad_none", "transpose_id"}) {
    CAPTURE(op);
    CHECK(refusal(g, std::string("view:") + op).empty());
  }
  CHECK(refusal(g, "view:strided").find("its strides are not all 1") != std::string::npos);
  CHECK(refusal(g, "view:swap").find("its permutation is not the identity") != std::string::npos);
  CHECK(refusal(g, "view:requant_other").find("differs from its input swap.out in size, shape, type or quantization") !=
        std::string::npos);
  CHECK(refusal(g, "view:split2").find("op split2 reads 1 and writes 2") != std::string::npos);
  CHECK(refusal(g, "view:last_copy").find("tensor last_copy.out is a graph output") != std::string::npos);
  CHECK(refusal(g, "view:nope").find("no op named \"nope\"") != std::string::npos);
  CHECK(refusal(g, "view:cat1,slice_all").find("view takes one name") != std::string::npos);

  // Every view at once: the chain collapses onto x and the outputs do not change.
  WhatIfReport w = run_whatif(g, {{"view:cat1"}, {"view:slice_all"}, {"view:requant_same"}, {"view:pad_none"},
                                  {"view:transpose_id"}}, {}, {});
  CHECK(w.outputs_check == "bit-exact");
  test::check_every_step_safe(w);
  CHECK(w.result.ops.size() == g.ops.size() - 5);
  CHECK(view_candidates(g) ==
        std::vector<std::string>{"view:cat1", "view:slice_all", "view:requant_same", "view:pad_none", "view:transpose_id"});
}

}  // namespace arenaplan
