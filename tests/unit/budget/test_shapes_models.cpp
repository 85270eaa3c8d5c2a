// Shape inference on imported models: asymmetric SAME padding (the odd pixel after), dilation,
// folded PADs (explicit pads on convs, fold_pad_* on pools) give back exactly the shapes the
// .tflite declares, for a generated model and for every real model at hand.
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include "core/budget/shapes.h"
#include "core/tflite/tflite_import.h"
#include "core/transform/transform.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/test_support.h"
#include "tflite_schema_generated.h"

using namespace arenaplan;

namespace {

// Every shaped tensor's propagated shape equals its declared one (propagate_shapes itself throws
// when an op computes a shape other than the declared output).
void check_shapes_round_trip(const Graph& g) {
  const ShapeInstance s = propagate_shapes(g, lower_binding(g));
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].shape.empty()) continue;
    CAPTURE(g.tensors[t].name);
    std::vector<int64_t> declared;
    for (const ShapeDim& d : g.tensors[t].shape) declared.push_back(d.value);
    CHECK(s.shapes[t] == declared);
  }
}

// conv 3x3 SAME stride 2 over 6x6 (pads 0 before, 1 after) -> depthwise 3x3 SAME dilation 2 ->
// max pool 2x2 SAME stride 2 over 3x3 (pad 0 before, 1 after): written by the flatbuffers writer.
std::string asymmetric_model() {
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint8_t> w1(4 * 3 * 3 * 2, 3), w2(1 * 3 * 3 * 4, 5);
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b), tfl::CreateBuffer(b, b.CreateVector(w1)),
                                                           tfl::CreateBuffer(b, b.CreateVector(w2))};
  auto quant = [&](float scale) {
    std::vector<float> s{scale};
    std::vector<int64_t> z{0};
    return tfl::CreateQuantizationParameters(b, 0, 0, b.CreateVector(s), b.CreateVector(z), 0, 0, 0);
  };
  auto tensor = [&](std::vector<int32_t> shape, uint32_t buffer, const char* name) {
    return tfl::CreateTensor(b, b.CreateVector(shape), 9, buffer, b.CreateString(name), quant(0.1f));
  };
  std::vector<flatbuffers::Offset<tfl::Tensor>> ts = {
      tensor({1, 6, 6, 2}, 0, "x"), tensor({4, 3, 3, 2}, 1, "w1"), tensor({1, 3, 3, 4}, 0, "c"),
      tensor({1, 3, 3, 4}, 2, "w2"), tensor({1, 3, 3, 4}, 0, "d"), tensor({1, 2, 2, 4}, 0, "y")};
  auto op = [&](uint32_t code_index, std::vector<int32_t> in, std::vector<int32_t> out, uint8_t type,
                flatbuffers::Offset<void> options) {
    return tfl::CreateOperator(b, code_index, b.CreateVector(in), b.CreateVector(out), type,
                               flatbuffers::Offset<tfl::Opaque>(options.o));
  };
  std::vector<flatbuffers::Offset<tfl::Operator>> ops = {
      op(0, {0, 1}, {2}, 1, tfl::CreateConv2DOptions(b, 0, 2, 2, 0, 1, 1).Union()),
      op(1, {2, 3}, {4}, 2, tfl::CreateDepthwiseConv2DOptions(b, 0, 1, 1, 1, 0, 2, 2).Union()),
      op(2, {4}, {5}, 5, tfl::CreatePool2DOptions(b, 0, 2, 2, 2, 2, 0).Union())};
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes = {tfl::CreateOperatorCode(b, 3, 0, 1, 3),
                                                               tfl::CreateOperatorCode(b, 4, 0, 1, 4),
                                                               tfl::CreateOperatorCode(b, 17, 0, 1, 17)};
  std::vector<int32_t> in = {0}, out = {5};
  auto sg = tfl::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(in), b.CreateVector(out), b.CreateVector(ops),
                                b.CreateString("main"));
  std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs = {sg};
  auto model = tfl::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), b.CreateString("asym"),
                                b.CreateVector(buffers));
  tfl::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace

TEST_CASE("shapes: an imported model with asymmetric SAME pads and dilation propagates to its declared shapes") {
  const Graph g = import_tflite(asymmetric_model()).graph;
  REQUIRE(g.ops.size() == 3);
  // The importer's pads are asymmetric here, which is what the shape rule must honour.
  CHECK(g.ops[0].attrs.at("pad_h") == 0);
  CHECK(g.ops[0].attrs.at("pad_bottom") == 1);
  CHECK(g.ops[2].attrs.at("pad_bottom") == 1);
  check_shapes_round_trip(g);
}

TEST_CASE("shapes: folded PADs (conv explicit pads, pool fold_pad_*) keep every declared shape") {
  for (uint64_t seed : {1, 2, 3, 4}) {
    CAPTURE(seed);
    Graph g = test::mobilenet_style(seed);
    check_shapes_round_trip(g);
    for (const Op& op : Graph(g).ops)
      if (op.kind == "pad") g = fold_pad(g, op.name).graph;
    check_shapes_round_trip(g);
  }
}

TEST_CASE("shapes: every real model at hand propagates to the shapes it declares") {
  for (const char* file : {"face_detection_short_range.tflite", "selfie_segmentation.tflite",
                           "selfie_segmentation_landscape.tflite", "face_detection_full_range.tflite",
                           "hand_landmark_lite.tflite", "hand_landmark_full.tflite"}) {
    CAPTURE(file);
    check_shapes_round_trip(import_tflite(test::read_model_fixture(file)).graph);
  }
  for (const char* file : {"int8_inception.tflite", "int8_branches_small.tflite", "svdf_int8.tflite", "svdf_float.tflite"}) {
    CAPTURE(file);
    check_shapes_round_trip(import_tflite(test::read_tflm_fixture(file)).graph);
  }
}
