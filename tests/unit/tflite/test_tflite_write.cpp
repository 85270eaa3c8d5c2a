// The project's own .tflite writer: what it writes imports back to the same graph, refusals name
// the missing fact, and the committed fixtures of tests/unit/data/tflm/ are exactly what it writes
// for tflm_fixture_models.h (AP_WRITE_FIXTURES=1 rewrites them after a deliberate change; the
// figures recorded for them must then be measured again in TFLM).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <tuple>

#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_write.h"
#include "core/transform/transform.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/test_support.h"
#include "tests/unit/tflm_fixture_models.h"

namespace arenaplan {
namespace {

TfliteImportOptions as_written() {  // every op kept, as the graph had it
  TfliteImportOptions o;
  o.fold_constant_ops = false;
  o.reshape_in_place = false;
  return o;
}

void check_same_graph(const Graph& a, const Graph& b) {
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (size_t t = 0; t < a.tensors.size(); ++t) {
    const Tensor &x = a.tensors[t], &y = b.tensors[t];
    CAPTURE(x.name);
    CHECK(x.name == y.name);
    CHECK(x.bytes == y.bytes);
    CHECK(x.dtype == y.dtype);
    CHECK(x.constant == y.constant);
    CHECK(x.persistent == y.persistent);
    REQUIRE(x.shape.size() == y.shape.size());
    for (size_t d = 0; d < x.shape.size(); ++d) CHECK(x.shape[d].value == y.shape[d].value);
    REQUIRE(x.quant.has_value() == y.quant.has_value());
    if (x.quant) {
      CHECK(x.quant->scale == y.quant->scale);
      CHECK(x.quant->zero_point == y.quant->zero_point);
      if (x.quant->per_channel()) CHECK(x.quant->axis == y.quant->axis);
    }
    if (x.constant) CHECK(*x.data == *y.data);
  }
  REQUIRE(a.ops.size() == b.ops.size());
  for (size_t o = 0; o < a.ops.size(); ++o) {
    CAPTURE(a.ops[o].name);
    CHECK(a.ops[o].kind == b.ops[o].kind);
    CHECK(a.ops[o].inputs == b.ops[o].inputs);
    CHECK(a.ops[o].outputs == b.ops[o].outputs);
    for (const auto& attr : a.ops[o].attrs) {  // the importer adds derived attrs; ours all come back
      const std::string key = attr.first;       // not a structured binding: clang 14 (em++) cannot capture one
      CAPTURE(key);
      REQUIRE(b.ops[o].attrs.count(key));
      CHECK(b.ops[o].attrs.at(key) == attr.second);
    }
  }
  CHECK(a.inputs == b.inputs);
  CHECK(a.outputs == b.outputs);
}

}  // namespace

TEST_CASE("tflite writer: built graphs import back with their tensors, quantization, weights, state and attrs") {
  std::vector<Graph> graphs = {test::SvdfStack(1, false).g, test::SvdfStack(2, true).g, test::vww_first_stage()};
  for (uint64_t seed : {1, 2, 3}) graphs.push_back(test::mobilenet_style(seed)), graphs.push_back(test::mobilenet_style(seed, true));
  for (const Graph& g : graphs) {
    CAPTURE(g.name);
    const std::string bytes = tflite_from_graph(g);
    CHECK(looks_like_tflite(bytes));
    check_same_graph(g, import_tflite(bytes, as_written()).graph);
    CHECK(tflite_from_graph(g) == bytes);  // deterministic
  }
}

TEST_CASE("tflite writer: what a file cannot say is refused, naming the tensor or op") {
  test::ModelBuilder m;
  TensorId x = m.tensor("x", {1, 6, 6, 2}, DType::kInt8, test::quant(0.1f, 0));
  TensorId w = m.tensor("w", {3, 3, 3, 2}, DType::kInt8, test::quant(0.1f, 0), std::vector<uint8_t>(54, 1));
  TensorId y = m.tensor("y", {1, 6, 6, 3}, DType::kInt8, test::quant(0.1f, 0));
  m.op("conv", "conv_2d", {x, w}, {y}, {{"pad_h", 1}, {"pad_w", 1}, {"pad_bottom", 1}, {"pad_right", 1}});
  m.g.inputs = {x};
  m.g.outputs = {y};
  link_tensors(m.g);
  CHECK(import_tflite(tflite_from_graph(m.g)).graph.ops[0].attrs.at("padding_same") == 1);  // 1,1,1,1 is SAME here

  Graph lopsided = m.g;
  lopsided.ops[0].attrs["pad_h"] = 0;  // 0 top, 1 bottom: SAME only at stride 2
  CHECK(test::input_error_of([&] { tflite_from_graph(lopsided); }).find("op conv: pads (top 0") != std::string::npos);

  Graph unknown_attr = m.g;
  unknown_attr.ops[0].attrs["fold_pad_top"] = 1;
  CHECK(test::input_error_of([&] { tflite_from_graph(unknown_attr); }) ==
        "op conv: attr \"fold_pad_top\" has no field in TFLite's options for conv_2d");

  Graph not_builtin = m.g;
  not_builtin.ops[0].kind = "conv2d";
  CHECK(test::input_error_of([&] { tflite_from_graph(not_builtin); }) ==
        "op conv: kind \"conv2d\" is not a TFLite builtin operator");

  Graph no_weights = m.g;
  no_weights.tensors[w].data.reset();
  CHECK(test::input_error_of([&] { tflite_from_graph(no_weights); }) ==
        "tensor w: a constant needs its 54 bytes to be written");

  Graph bytes_only = m.g;
  bytes_only.tensors[y].dtype.reset();
  bytes_only.tensors[y].shape.clear();
  CHECK(test::input_error_of([&] { tflite_from_graph(bytes_only); }) == "tensor y: a TFLite tensor needs a dtype and a shape");
}

// The fixtures measured in TFLM are the writer's output for tflm_fixture_models.h, byte for byte,
// and each one's input is drawn from a seed (the CNN fixtures predate the writer: only their
// inputs are written here).
TEST_CASE("tflite writer: the committed TFLM fixtures are what the writer writes for their models") {
  const bool rewrite = std::getenv("AP_WRITE_FIXTURES") != nullptr;
  const std::string dir = test::source_path("tests/unit/data/tflm/");
  auto check_or_write = [&](const std::string& file, const std::string& bytes) {
    CAPTURE(file);
    if (rewrite) std::ofstream(dir + file, std::ios::binary) << bytes;
    CHECK(test::read_test_file(dir + file) == bytes);
  };
  auto text = [](const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); };
  const test::SvdfStack svdf_int8(20261202, false), svdf_float(20261203, true);
  check_or_write("svdf_int8.tflite", tflite_from_graph(svdf_int8.g));
  check_or_write("svdf_int8.input.bin", text(svdf_int8.input_bytes(7)));
  check_or_write("svdf_float.tflite", tflite_from_graph(svdf_float.g));
  check_or_write("svdf_float.input.bin", text(svdf_float.input_bytes(8)));
  const test::DsCnnStack ds_cnn(20261204);
  check_or_write("ds_cnn_small.tflite", tflite_from_graph(ds_cnn.g));
  check_or_write("ds_cnn_small.input.bin", text(ds_cnn.input_bytes(11)));
  for (const auto& [name, act, seed] : {std::tuple<const char*, DType, uint64_t>{"lstm_int8", DType::kInt8, 20261205},
                                        {"lstm_int16", DType::kInt16, 20261206},
                                        {"lstm_float", DType::kFloat32, 20261207}}) {
    const test::LstmStack lstm(seed, act);
    check_or_write(std::string(name) + ".tflite", tflite_from_graph(lstm.g));
    check_or_write(std::string(name) + ".input.bin", text(lstm.input_bytes(seed + 100)));
  }
  const test::VelaStack vela(20261205);
  check_or_write("vela_npu.tflite", tflite_with_offline_plan(tflite_from_graph(vela.g), vela.vela_offsets));
  check_or_write("vela_npu.input.bin", text(vela.input_bytes(13)));
  check_or_write("lstm_int8_per_channel.tflite", tflite_from_graph(test::LstmStack(20261205, DType::kInt8, true).g));
  const test::Int16Stack int16_stack(20261208);
  check_or_write("int16_conv_fc.tflite", tflite_from_graph(int16_stack.g));
  check_or_write("int16_conv_fc.input.bin", text(int16_stack.input_bytes(12)));
  for (const auto& [name, type, seed] : {std::tuple<const char*, DType, uint64_t>{"resolver_int8", DType::kInt8, 20261209},
                                         {"resolver_int16", DType::kInt16, 20261210},
                                         {"resolver_float", DType::kFloat32, 20261211}}) {
    const test::ResolverOpsStack stack(seed, type);
    check_or_write(std::string(name) + ".tflite", tflite_from_graph(stack.g));
    check_or_write(std::string(name) + ".input.bin", text(stack.input_bytes(seed + 100)));
  }
  const test::ResolverMoreStack more(20261212);
  check_or_write("resolver_float_more.tflite", tflite_from_graph(more.g));
  check_or_write("resolver_float_more.input.bin", text(more.input_bytes(20261312)));
  check_or_write("signal_stateful.tflite", tflite_from_graph(test::SignalStatefulStack().g));
  check_or_write("signal_stateful.input.bin", text(test::SignalStatefulStack().input_bytes(20261213)));
  // SwiftNet's stem, and the same model with its one-way SPLIT removed as `transform --apply
  // view:split -o OUT.tflite` writes it: both measured in TFLM.
  const test::SwiftNetStem stem(20261214);
  check_or_write("swiftnet_stem.tflite", tflite_from_graph(stem.g));
  check_or_write("swiftnet_stem.input.bin", text(stem.input_bytes(20261314)));
  check_or_write("swiftnet_stem_view.tflite",
                 tflite_from_graph(apply_transformation(stem.g, parse_transformation("view:split"), {}).graph));
  const test::SignalFrontEndStack front_end(20261214);
  check_or_write("signal_front_end.tflite", tflite_from_graph(front_end.g));
  check_or_write("signal_front_end.input.bin", text(front_end.input_bytes(20261215)));
  check_or_write("signal_fft.tflite", tflite_from_graph(test::SignalFftStack().g));
  check_or_write("signal_fft.input.bin", text(test::SignalFftStack().input_bytes(20261216)));
  const test::SignalFftLengthsStack fft_lengths;
  check_or_write("signal_fft_lengths.tflite", tflite_from_graph(fft_lengths.g));
  check_or_write("signal_fft_lengths.input.bin", text(fft_lengths.input_bytes(20261217)));
  for (const auto& [name, seed] : {std::pair<std::string, uint64_t>{"int8_branches_small", 9}, {"int8_inception", 10}}) {
    const Graph g = import_tflite(test::read_test_file(dir + name + ".tflite")).graph;
    REQUIRE(g.inputs.size() == 1);
    check_or_write(name + ".input.bin", text(test::PortableDraws(seed).bytes(static_cast<size_t>(g.tensors[g.inputs[0]].bytes))));
  }
}

}  // namespace arenaplan
