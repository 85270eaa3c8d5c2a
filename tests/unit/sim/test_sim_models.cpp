// Real networks in the simulated arena: the project's fixtures give the output bytes TFLM's
// reference kernels gave (tests/unit/data/tflm/README.md), every model at hand runs
// green under the best plan and TFLM's greedy plan, and the importer turns TFLite's options into
// the attrs the kernels read (strides, SAME/VALID padding as TFLM computes it, dilation, depth
// multiplier, quantization, constant data).
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <cstring>

#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/sim_run.h"
#include "tests/unit/test_support.h"
#include "tflite_schema_generated.h"

namespace arenaplan {
namespace {

const std::string kFixtures = test::source_path("tests/unit/data/tflm/");

// One-op models built with the generated writer: a conv-like op over an int8 image.
struct OneOp {
  int32_t code = 3;  // CONV_2D
  std::vector<int32_t> in_shape, filter_shape, out_shape;
  std::vector<float> filter_scales = {0.5f};
  int quantized_dimension = 0;
  // Options: padding (0 SAME, 1 VALID), strides, dilation, depth multiplier, activation.
  int8_t padding = 0, activation = 0;
  int32_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, depth_multiplier = 1;

  std::string build() const {
    flatbuffers::FlatBufferBuilder b;
    int64_t filter_n = 1;
    for (int32_t d : filter_shape) filter_n *= d;
    std::vector<uint8_t> weights(static_cast<size_t>(filter_n));
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b), tfl::CreateBuffer(b, b.CreateVector(weights))};
    auto quant = [&](std::vector<float> scales, int axis) {
      std::vector<int64_t> zps(scales.size(), 0);
      return tfl::CreateQuantizationParameters(b, 0, 0, b.CreateVector(scales), b.CreateVector(zps), 0, 0, axis);
    };
    std::vector<flatbuffers::Offset<tfl::Tensor>> ts = {
        tfl::CreateTensor(b, b.CreateVector(in_shape), 9, 0, b.CreateString("x"), quant({0.1f}, 0)),
        tfl::CreateTensor(b, b.CreateVector(filter_shape), 9, 1, b.CreateString("w"), quant(filter_scales, quantized_dimension)),
        tfl::CreateTensor(b, b.CreateVector(out_shape), 9, 0, b.CreateString("y"), quant({0.2f}, 0))};
    flatbuffers::Offset<void> options;
    if (code == 3)
      options = tfl::CreateConv2DOptions(b, padding, stride_w, stride_h, activation, dil_w, dil_h).Union();
    else
      options = tfl::CreateDepthwiseConv2DOptions(b, padding, stride_w, stride_h, depth_multiplier, activation, dil_w, dil_h).Union();
    std::vector<int32_t> ins = {0, 1}, outs = {2};
    std::vector<flatbuffers::Offset<tfl::Operator>> ops = {
        tfl::CreateOperator(b, 0, b.CreateVector(ins), b.CreateVector(outs), code == 3 ? 1 : 2,
                            flatbuffers::Offset<tfl::Opaque>(options.o))};
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes = {tfl::CreateOperatorCode(b, static_cast<int8_t>(code), 0, 1, code)};
    std::vector<int32_t> sg_in = {0}, sg_out = {2};
    auto sg = tfl::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(sg_in), b.CreateVector(sg_out), b.CreateVector(ops),
                                  b.CreateString("main"));
    std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs = {sg};
    auto model = tfl::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), b.CreateString("one"), b.CreateVector(buffers));
    tfl::FinishModelBuffer(b, model);
    return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  }
};

// What TFLM's reference kernels (and CMSIS-NN's, measured for ds_cnn_small) wrote to the output tensors for the fixture fed its .input.bin,
// run after run (tests/unit/data/tflm/README.md): FNV-1a-64 of each run's output bytes.
struct MeasuredOutputs {
  const char* model;
  std::vector<uint64_t> fnv_per_run;
  // The float kernels call the C library's tanhf/expf as TFLM's do, so their last bits are those
  // of the libm the program links: the figures were measured with x86-64 glibc, and Emscripten's
  // musl (like a device's newlib) rounds some values differently. Such a model is held to its
  // figures only under glibc; elsewhere its planned run must still equal its reference run.
  bool bits_follow_libm = false;
  const char* input = nullptr;  // the fixture whose .input.bin it is fed (default: its own)
};
#ifdef __GLIBC__
constexpr bool kMeasuredLibm = true;
#else
constexpr bool kMeasuredLibm = false;
#endif
const MeasuredOutputs kTflmOutputs[] = {
    {"int8_branches_small", {0xb9418f8ea89f1bbdull}},
    {"int8_inception", {0xe07c7cbcd603ccb0ull}},
    {"ds_cnn_small", {0x5488ef414de67b94ull}},  // CMSIS-NN on cortex-m4 and cortex-m55 writes the same
    {"svdf_int8", {0x29f681ff807148a5ull, 0x138cac533dbe43f1ull, 0x1dcdba534400562dull}},  // the state carries over
    {"svdf_float", {0x0568f4bf0fb79eabull, 0x90d94dff98b67b42ull, 0x87525247e947540cull}},
    // Two LSTMs: hidden and cell states carry over.
    {"lstm_int8", {0x2ec1d5b99780558cull, 0xb98464bfe94bf9a3ull, 0xbff5d9b62d147235ull}},
    {"lstm_int16", {0x46be4a3426669380ull, 0x24f25ed6db04b0e5ull, 0x6ee537b98c716cbfull}},
    {"lstm_float", {0x6a8a560caf18ac24ull, 0x247819910cd2ed25ull, 0x7cc56776775e9ac4ull}, true},  // tanhf, expf
    {"int16_conv_fc", {0xb48bb2bf7d459733ull}},  // the logits, then the softmax
    // The rest of the op resolver (ELU, REVERSE_V2, ADD_N, CUMSUM, L2_NORMALIZATION, GATHER_ND,
    // ARG_MIN, PRELU, LOG_SOFTMAX; int16 pools, LEAKY_RELU, PRELU): every graph output concatenated.
    {"resolver_int8", {0x38e8cd8baad5129bull, 0x38e8cd8baad5129bull, 0x38e8cd8baad5129bull}},
    {"resolver_int16", {0x7976cd69279c6fc4ull, 0x7976cd69279c6fc4ull, 0x7976cd69279c6fc4ull}},
    {"resolver_float", {0x8aae46dc7e70f92bull, 0x8aae46dc7e70f92bull, 0x8aae46dc7e70f92bull}, true},  // expm1f, expf, logf
    // L2_POOL_2D, FLOOR_DIV, FLOOR_MOD, DYNAMIC_UPDATE_SLICE, EMBEDDING_LOOKUP, REDUCE_ALL, BROADCAST_ARGS.
    {"resolver_float_more", {0xece7077d6962b76full, 0xece7077d6962b76full, 0xece7077d6962b76full}, true},  // sqrtf, fmodf
    // SwiftNet's stem, and the same model with its one-way SPLIT removed (view:split): the same bytes.
    {"swiftnet_stem", {0xab3030e9afc85d83ull}},
    {"swiftnet_stem_view", {0xab3030e9afc85d83ull}, false, "swiftnet_stem"},
};

// Each run's graph outputs, concatenated, from the reference simulator (the planned run must
// match it, CHECKed by simulate_setup's oracles).
std::vector<std::vector<uint8_t>> outputs_per_run(const Graph& g, const sim::SimRequest& req) {
  const test::SimRun simulated = test::simulate_keeping_reference(g, req);
  const sim::SimReport& r = simulated.report;
  const auto& reference = simulated.reference;
  CHECK(r.ok());
  CHECK(r.outputs_match_reference);
  CHECK(r.stand_ins.empty());
  CHECK(r.generated_constants.empty());
  Bytes out_bytes = 0;
  for (TensorId y : g.outputs) out_bytes += g.tensors[y].bytes;
  std::vector<std::vector<uint8_t>> per_run;
  for (int run = 0; run < req.runs; ++run) {
    const uint8_t* cap = reference->captured(run, 0);
    per_run.emplace_back(cap, cap + out_bytes);
  }
  return per_run;
}

}  // namespace

TEST_CASE("the fixtures fed their inputs give the output bytes TFLM's reference kernels gave, run after run, under both plans") {
  for (const MeasuredOutputs& m : kTflmOutputs) {
    CAPTURE(m.model);
    Graph g = import_tflite(test::read_test_file(kFixtures + m.model + ".tflite")).graph;
    const std::string input = test::read_test_file(kFixtures + (m.input ? m.input : m.model) + ".input.bin");
    REQUIRE(g.inputs.size() == 1);
    for (const char* planner : {"best", "tflm-greedy"}) {
      CAPTURE(planner);
      sim::SimRequest req;
      req.plan.planner = planner;
      req.runs = static_cast<int>(m.fnv_per_run.size());
      req.input_bytes[g.tensors[g.inputs[0]].name] = std::vector<uint8_t>(input.begin(), input.end());
      const auto got = outputs_per_run(g, req);
      if (m.bits_follow_libm && !kMeasuredLibm) continue;
      for (size_t run = 0; run < got.size(); ++run) {
        CAPTURE(run);
        CHECK(test::fnv1a64(got[run]) == m.fnv_per_run[run]);
      }
    }
  }
}

TEST_CASE("every model at hand simulates with all oracles green under the best plan and TFLM's greedy plan") {
  std::vector<std::string> paths;
  for (const char* f : {"int8_inception.tflite", "int8_branches_small.tflite", "svdf_int8.tflite", "svdf_float.tflite"})
    paths.push_back(kFixtures + f);
  for (const char* f : {"face_detection_short_range.tflite", "face_detection_full_range.tflite",
                        "face_detection_full_range_sparse.tflite", "hand_landmark_lite.tflite", "hand_landmark_full.tflite",
                        "selfie_segmentation.tflite", "selfie_segmentation_landscape.tflite"})
    paths.push_back(test::source_path(".cache/models/") + f);
  for (const std::string& path : paths) {
    CAPTURE(path);
    Graph g = import_tflite(test::read_test_file(path)).graph;
    for (const char* planner : {"best", "tflm-greedy"}) {
      CAPTURE(planner);
      sim::SimRequest req;
      req.plan.planner = planner;
      sim::SimReport r = sim::simulate(g, req);
      CHECK(r.ok());
      CHECK(r.outputs_match_reference);
      CHECK(r.high_water_bytes <= r.arena_bytes);
      // Every op ran a kernel or a named stand-in.
      for (const sim::OpStats& s : r.per_op) CHECK((s.stand_in || std::string(s.kernel) != "mix"));
    }
  }
}

TEST_CASE("import: stride and SAME padding become TFLM's explicit pads (odd pixel after), VALID none") {
  OneOp m;
  m.in_shape = {1, 5, 5, 1}, m.filter_shape = {1, 3, 3, 1}, m.out_shape = {1, 3, 3, 1};
  m.stride_h = m.stride_w = 2;
  Graph g = import_tflite(m.build()).graph;
  REQUIRE(g.ops.size() == 1);
  const auto& a = g.ops[0].attrs;
  // SAME over 5 with 3x3, stride 2: out 3, total padding (3-1)*2+3-5 = 2, one each side.
  CHECK(a.at("stride_h") == 2);
  CHECK(a.at("pad_h") == 1);
  CHECK(a.at("pad_bottom") == 1);
  m.in_shape = {1, 6, 6, 1};
  g = import_tflite(m.build()).graph;
  // Over 6: out 3, total (3-1)*2+3-6 = 1: none before, the odd pixel after.
  CHECK(g.ops[0].attrs.at("pad_h") == 0);
  CHECK(g.ops[0].attrs.at("pad_bottom") == 1);
  CHECK(g.ops[0].attrs.at("pad_w") == 0);
  CHECK(g.ops[0].attrs.at("pad_right") == 1);
  m.padding = 1;  // VALID
  m.out_shape = {1, 2, 2, 1};
  g = import_tflite(m.build()).graph;
  CHECK(g.ops[0].attrs.at("pad_h") == 0);
  CHECK(g.ops[0].attrs.at("pad_bottom") == 0);
  // And the kernel accepts the geometry the attrs describe.
  CHECK(sim::plan_kernel(g, 0).kind == sim::KernelKind::kModel);
}

TEST_CASE("import: dilation, depth multiplier, fused activation, per-channel quantization, weights") {
  OneOp m;
  m.in_shape = {1, 7, 7, 1}, m.filter_shape = {1, 3, 3, 1}, m.out_shape = {1, 7, 7, 1};
  m.dil_h = m.dil_w = 2;
  m.activation = 3;
  Graph g = import_tflite(m.build()).graph;
  const auto& a = g.ops[0].attrs;
  // A 3x3 window dilated by 2 spans 5: SAME over 7 pads (7-1)+5-7 = 4, two each side.
  CHECK(a.at("dilation_h") == 2);
  CHECK(a.at("dilation_w") == 2);
  CHECK(a.at("pad_h") == 2);
  CHECK(a.at("pad_bottom") == 2);
  CHECK(a.at("activation") == 3);
  CHECK(sim::plan_kernel(g, 0).kind == sim::KernelKind::kModel);

  OneOp d;
  d.code = 4;  // DEPTHWISE_CONV_2D, multiplier 2
  d.in_shape = {1, 4, 4, 3}, d.filter_shape = {1, 3, 3, 6}, d.out_shape = {1, 4, 4, 6};
  d.depth_multiplier = 2;
  d.filter_scales = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};
  d.quantized_dimension = 3;
  TfliteModel dm = import_tflite(d.build());
  const Graph& dg = dm.graph;
  CHECK(dg.ops[0].attrs.at("depth_multiplier") == 2);
  const Tensor& w = dg.tensors[*dg.find_tensor("w")];
  REQUIRE(w.quant.has_value());
  CHECK(w.quant->per_channel());
  CHECK(w.quant->axis == 3);
  CHECK(w.quant->scale == std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
  REQUIRE(w.data != nullptr);
  CHECK(w.data->size() == 54);
  CHECK((*w.data)[1] == 8);  // the builder's weights: i * 7 + 1
  const Tensor& x = dg.tensors[*dg.find_tensor("x")];
  REQUIRE(x.quant.has_value());
  CHECK(x.quant->scale == std::vector<float>{0.1f});
  sim::KernelPlan p = sim::plan_kernel(dg, 0);
  CHECK(p.kind == sim::KernelKind::kModel);
  CHECK(p.work.macs == 4 * 4 * 6 * 9);

  // Per-channel scales that do not match the quantized dimension are refused, naming the tensor.
  d.filter_scales = {0.1f, 0.2f};
  try {
    import_tflite(d.build());
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("tensor 1 (w)") != std::string::npos);
  }
}

}  // namespace arenaplan
