// .tflite import: the real MediaPipe fixtures (regression figures with their sha256, checked by an
// independent hand sum), small models built here with the generated writer, and corrupt files.
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "core/graph/graph_json.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_ops.h"
#include "core/tflite/tflite_summary.h"
#include "tests/unit/test_support.h"
#include "core/tflite/tflite_sha256.h"
#include "tflite_schema_generated.h"

namespace arenaplan {
namespace {

// A model built with the generated writer: one operator code per op, tensors by index.
struct TinyTensor {
  std::vector<int32_t> shape;
  int8_t type = 9;  // INT8
  std::vector<uint8_t> data;
  bool variable = false;
  std::string name;
};
struct TinyOp {
  int32_t code = 0;  // BuiltinOperator
  std::vector<int32_t> inputs, outputs;
  std::string custom;
  bool byte_code_only = false;  // an old writer: only deprecated_builtin_code
};
struct TinyModel {
  std::vector<TinyTensor> tensors;
  std::vector<TinyOp> ops;
  std::vector<int32_t> inputs, outputs;

  std::string build() const {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b)};
    std::vector<flatbuffers::Offset<tfl::Tensor>> ts;
    for (const TinyTensor& t : tensors) {
      uint32_t buffer = 0;
      if (!t.data.empty()) {
        buffer = static_cast<uint32_t>(buffers.size());
        buffers.push_back(tfl::CreateBuffer(b, b.CreateVector(t.data)));
      }
      ts.push_back(tfl::CreateTensor(b, b.CreateVector(t.shape), t.type, buffer, b.CreateString(t.name), 0,
                                     t.variable));
    }
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes;
    std::vector<flatbuffers::Offset<tfl::Operator>> os;
    for (size_t i = 0; i < ops.size(); ++i) {
      const TinyOp& o = ops[i];
      int8_t byte = static_cast<int8_t>(std::min(o.code, 127));
      codes.push_back(tfl::CreateOperatorCode(b, byte, o.custom.empty() ? 0 : b.CreateString(o.custom), 1,
                                              o.byte_code_only ? 0 : o.code));
      os.push_back(tfl::CreateOperator(b, static_cast<uint32_t>(i), b.CreateVector(o.inputs),
                                       b.CreateVector(o.outputs)));
    }
    auto sg = tfl::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(inputs), b.CreateVector(outputs),
                                  b.CreateVector(os), b.CreateString("main"));
    std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs = {sg};
    auto model = tfl::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), b.CreateString("tiny"),
                                  b.CreateVector(buffers));
    tfl::FinishModelBuffer(b, model);
    return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  }
};

std::string import_error(std::string_view bytes, const TfliteImportOptions& o = {}) {
  return test::input_error_of([&] { import_tflite(bytes, o); });
}

// Live bytes at one step counted straight from the graph (not through analyze_lifetimes): a
// tensor is live at step s when it exists by then and something still needs it.
Bytes hand_live_bytes(const Graph& g, const Schedule& order, Step s) {
  std::vector<Step> step_of(g.ops.size());
  for (Step i = 0; i < static_cast<Step>(order.size()); ++i) step_of[order[i]] = i;
  const Step end = static_cast<Step>(order.size()) - 1;
  std::set<TensorId> alias_outputs;
  for (const Op& op : g.ops)
    for (const InPlace& ip : op.in_place) alias_outputs.insert(ip.output);
  Bytes sum = 0;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& x = g.tensors[t];
    if (x.constant) continue;
    Step born = x.producer < 0 ? 0 : step_of[x.producer];
    Step dies = born;
    for (OpId c : x.consumers) dies = std::max(dies, step_of[c]);
    if (g.is_output(static_cast<TensorId>(t)) || x.persistent) dies = end;
    if (alias_outputs.count(static_cast<TensorId>(t))) continue;  // counted with its input...
    // ...whose buffer then lives on until the alias dies.
    for (const Op& op : g.ops)
      for (const InPlace& ip : op.in_place)
        if (ip.input == static_cast<TensorId>(t)) {
          const Tensor& y = g.tensors[ip.output];
          Step d = step_of[y.producer];
          for (OpId c : y.consumers) d = std::max(d, step_of[c]);
          if (g.is_output(ip.output)) d = end;
          dies = std::max(dies, d);
        }
    if (born <= s && s <= dies) sum += align_up(x.bytes, g.alignment);
  }
  return sum;
}

// The textbook largest-first placement (independent of the library's planners): buffers by size,
// largest first, equal sizes later buffer first (as TFLM's greedy planner sorts them), each at the
// lowest offset clear of every time-overlapping buffer already placed.
std::vector<Bytes> largest_first_offsets(const LayoutProblem& p) {
  std::vector<size_t> idx(p.buffers.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (p.buffers[a].size != p.buffers[b].size) return p.buffers[a].size > p.buffers[b].size;
    return a > b;
  });
  std::vector<Bytes> off(p.buffers.size(), 0);
  std::vector<size_t> placed;
  for (size_t i : idx) {
    const LayoutBuffer& b = p.buffers[i];
    std::vector<std::pair<Bytes, Bytes>> busy;
    for (size_t j : placed)
      if (p.buffers[j].first <= b.last && b.first <= p.buffers[j].last) busy.push_back({off[j], off[j] + p.buffers[j].size});
    std::sort(busy.begin(), busy.end());
    Bytes at = 0;
    for (auto [lo, hi] : busy) {
      if (at + b.size <= lo) break;
      at = std::max(at, align_up(hi, b.alignment));
    }
    off[i] = at;
    placed.push_back(i);
  }
  return off;
}

struct Fixture {
  const char* file;
  const char* sha256;
  int ops, folded;
  Bytes constant_bytes, peak, lower_bound;
};

// Regression figures: computed once with `arenaplan import` (fold on, RESHAPE alias on, 16-byte
// alignment), then checked below by the hand sum. The first two peaks and selfie's lower bound
// are the orientation figures.
const Fixture kFixtures[] = {
    {"face_detection_short_range.tflite", "3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633",
     90, 74, 203132, 1376256, 1376256},
    {"selfie_segmentation.tflite", "8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27",
     136, 110, 212826, 3670016, 3145728},
    {"selfie_segmentation_landscape.tflite", "4aafe6223bb8dac6fac8ca8ed56852870a33051ef3f6238822d282a109962894",
     136, 110, 212906, 2064384, 1769472},
    {"face_detection_full_range.tflite", "99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3",
     176, 178, 1028418, 3538944, 3538944},
    {"face_detection_full_range_sparse.tflite", "671dd2f9ed11a78436fc21cc42357a803dfc6f73e9fb86541be942d5716c2dce",
     160, 228, 369064, 3588608, 3538944},
    {"hand_landmark_lite.tflite", "d7fde8ac11f8ce03f8663775bfc323f4fc9f2a38062b4f4efa142874ef5b2a48",
     65, 102, 2023432, 4214784, 4014080},
    {"hand_landmark_full.tflite", "8c026882c9ec059ce0f8e75266bee5a9a23c341a40e0000df755374d3d1b9b68",
     63, 102, 5431368, 4014080, 4014080},
};

}  // namespace

TEST_CASE("tflite: sha256 matches the FIPS 180-4 test vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("tflite: real models import with their recorded figures") {
  for (const Fixture& f : kFixtures) {
    CAPTURE(f.file);
    std::string bytes = test::read_model_fixture(f.file);
    TfliteModel m = import_tflite(bytes);
    CHECK(m.sha256 == f.sha256);
    CHECK(m.subgraphs.size() == 1);
    CHECK(static_cast<int>(m.graph.ops.size()) == f.ops);
    CHECK(static_cast<int>(m.folded_ops.size()) == f.folded);
    CHECK(m.constant_bytes == f.constant_bytes);
    CHECK(m.variable_bytes == 0);
    LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
    CHECK(live.peak_bytes == f.peak);
    CHECK(io_lower_bound_bytes(m.graph) == f.lower_bound);
    // The independent route: the article-style hand sum at the reported peak step.
    CHECK(hand_live_bytes(m.graph, live.order, live.peak_step) == live.peak_bytes);
    CHECK(live.peak_bytes >= io_lower_bound_bytes(m.graph));
  }
}

TEST_CASE("tflite: selfie_segmentation, largest-first greedy needs 4 MiB in file order") {
  TfliteModel m = import_tflite(test::read_model_fixture("selfie_segmentation.tflite"));
  LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  LayoutProblem problem = layout_problem(m.graph, live);
  std::vector<Bytes> offsets = largest_first_offsets(problem);
  Bytes arena = arena_extent(problem, offsets);
  CHECK(verify_plan(problem, offsets, arena).ok());
  CHECK(arena == 4194304);
  CHECK(plan_arena(problem, {.planner = "tflm-greedy"}).arena_bytes == 4194304);
  ArenaPlan best = plan_arena(problem, {.planner = "best"});
  CHECK(best.verified);
  CHECK(best.arena_bytes == 3670016);  // the peak: 12.5 % less than TFLM's greedy
}

TEST_CASE("tflite: per fixture, the optimal schedule, the best arena and largest-first greedy") {
  // Recorded with `bench_tflite_bench` (fold on): every optimum is proven (peak == lower bound);
  // the file order is already optimal for these chain-like models, and the best layout reaches the
  // peak, while largest-first greedy (TFLM's planner) in file order needs up to 33 % more.
  struct Figures {
    const char* file;
    Bytes optimal_peak, best_arena, largest_first;
  };
  const Figures figures[] = {
      {"face_detection_short_range.tflite", 1376256, 1376256, 1376256},
      {"selfie_segmentation.tflite", 3670016, 3670016, 4194304},
      {"selfie_segmentation_landscape.tflite", 2064384, 2064384, 2359296},
      {"face_detection_full_range.tflite", 3538944, 3538944, 3538944},
      {"face_detection_full_range_sparse.tflite", 3588608, 3588608, 4768256},
      {"hand_landmark_lite.tflite", 4214784, 4214784, 4214784},
      {"hand_landmark_full.tflite", 4014080, 4014080, 4315136},
  };
  for (const Figures& f : figures) {
    CAPTURE(f.file);
    TfliteModel m = import_tflite(test::read_model_fixture(f.file));
    LiveAnalysis file_live = analyze_lifetimes(m.graph, m.graph.file_order());
    LayoutProblem file_problem = layout_problem(m.graph, file_live);
    std::vector<Bytes> greedy = largest_first_offsets(file_problem);
    CHECK(verify_plan(file_problem, greedy, arena_extent(file_problem, greedy)).ok());
    CHECK(arena_extent(file_problem, greedy) == f.largest_first);
    // The library's TFLM GreedyMemoryPlanner replica agrees with the independent placement.
    ArenaPlan tflm = plan_arena(file_problem, {.planner = "tflm-greedy"});
    CHECK(tflm.arena_bytes == f.largest_first);

    ScheduleResult sched = optimize_schedule(m.graph, 10.0);
    CHECK(sched.proven_optimal);
    CHECK(sched.peak_bytes == f.optimal_peak);
    LiveAnalysis live = analyze_lifetimes(m.graph, sched.order);
    CHECK(live.peak_bytes == f.optimal_peak);
    ArenaPlan best = plan_arena(layout_problem(m.graph, live), {.planner = "best"});
    CHECK(best.verified);
    CHECK(best.arena_bytes == f.best_arena);
  }
}

TEST_CASE("tflite: keeping constant ops runs DEQUANTIZE at each invoke, same peak for selfie") {
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  TfliteModel m = import_tflite(test::read_model_fixture("selfie_segmentation.tflite"), keep);
  CHECK(m.graph.ops.size() == 246);
  CHECK(m.folded_ops.empty());
  CHECK(m.folded_bytes == 0);
  CHECK(m.custom_ops == std::vector<std::string>{"Convolution2DTransposeBias"});
  LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  CHECK(live.peak_bytes == 3670016);
}

TEST_CASE("tflite: weights are constants, folded DEQUANTIZE outputs too, variables persistent") {
  TinyModel t;
  t.tensors = {{{1, 8}, 9, {}, false, "in"},
               {{8}, 1, std::vector<uint8_t>(16, 1), false, "w16"},   // fp16 weights in flash
               {{8}, 0, {}, false, "w"},                              // DEQUANTIZE output
               {{1, 8}, 9, {}, false, "mid"},
               {{1, 8}, 9, {}, true, "state"},                        // variable
               {{1, 8}, 9, {}, false, "out"}};
  t.ops = {{6, {1}, {2}}, {18, {0, 2, -1}, {3}}, {0, {3, 4}, {5}}};  // dequantize, mul(opt -1), add
  t.inputs = {0};
  t.outputs = {5};
  TfliteModel m = import_tflite(t.build());
  const Graph& g = m.graph;
  REQUIRE(g.ops.size() == 2);
  CHECK(g.ops[0].name == "mul_1");
  CHECK(g.ops[0].inputs.size() == 2);  // the optional -1 input is skipped
  CHECK(m.folded_ops == std::vector<int32_t>{0});
  CHECK(m.constant_bytes == 16);
  CHECK(m.folded_bytes == 32);
  CHECK(g.tensors[*g.find_tensor("w")].constant);
  CHECK(g.tensors[*g.find_tensor("state")].persistent);
  CHECK(m.variable_bytes == 8);
  CHECK(!g.find_tensor("w16"));  // read only by the folded op: not part of the runtime graph

  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  TfliteModel k = import_tflite(t.build(), keep);
  CHECK(k.graph.ops.size() == 3);
  CHECK(k.graph.ops[0].kind == "dequantize");
  CHECK(!k.graph.tensors[*k.graph.find_tensor("w")].constant);
}

TEST_CASE("tflite: op codes take the larger of the byte and int32 codes; custom ops by name") {
  TinyModel t;
  t.tensors = {{{4}, 9, {}, false, "a"}, {{4}, 9, {}, false, "b"}, {{4}, 9, {}, false, "c"},
               {{4}, 9, {}, false, "d"}};
  t.ops = {{150, {0}, {1}}, {14, {1}, {2}, "", true}, {32, {2}, {3}, "MyCustomOp"}};
  t.inputs = {0};
  t.outputs = {3};
  TfliteModel m = import_tflite(t.build());
  CHECK(m.graph.ops[0].kind == "gelu");      // byte says 127 (placeholder), int32 says 150
  CHECK(m.graph.ops[1].kind == "logistic");  // only the byte code, as old writers did
  CHECK(m.graph.ops[2].kind == "MyCustomOp");
  CHECK(m.custom_ops == std::vector<std::string>{"MyCustomOp"});
}

TEST_CASE("tflite: RESHAPE aliases its input only when nothing else reads it") {
  TinyModel t;
  t.tensors = {{{1, 16}, 9, {}, false, "in"}, {{1, 16}, 9, {}, false, "x"}, {{4, 4}, 9, {}, false, "r"},
               {{4, 4}, 9, {}, false, "y"}, {{4, 4}, 9, {}, false, "out"}};
  t.ops = {{19, {0}, {1}}, {22, {1}, {2}}, {19, {2}, {3}}, {0, {3, 2}, {4}}};
  t.inputs = {0};
  t.outputs = {4};
  TfliteModel m = import_tflite(t.build());
  REQUIRE(m.graph.ops[1].in_place.size() == 1);
  CHECK(m.graph.tensors[m.graph.ops[1].in_place[0].output].name == "r");
  LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  CHECK(live.buffer_of_tensor[*m.graph.find_tensor("x")] == live.buffer_of_tensor[*m.graph.find_tensor("r")]);

  t.ops[3].inputs = {3, 1};  // now x is read after the reshape: no alias
  TfliteModel m2 = import_tflite(t.build());
  CHECK(m2.graph.ops[1].in_place.empty());
  TfliteImportOptions off;
  off.reshape_in_place = false;
  CHECK(import_tflite(t.build(), off).graph.ops[1].in_place.empty());
}

TEST_CASE("tflite: the imported graph survives our JSON format with the same figures") {
  for (const char* file : {"face_detection_short_range.tflite", "selfie_segmentation.tflite"}) {
    CAPTURE(file);
    TfliteModel m = import_tflite(test::read_model_fixture(file));
    Graph back = parse_graph_json(graph_to_json(m.graph));
    CHECK(back.ops.size() == m.graph.ops.size());
    CHECK(back.tensors.size() == m.graph.tensors.size());
    CHECK(analyze_lifetimes(back, back.file_order()).peak_bytes ==
          analyze_lifetimes(m.graph, m.graph.file_order()).peak_bytes);
    CHECK(io_lower_bound_bytes(back) == io_lower_bound_bytes(m.graph));
  }
}

TEST_CASE("tflite: the fuzz seed (made by flatc from our schema) reads its offline plan") {
  std::ifstream in(test::source_path("tests/fuzz/corpus/tflite/tiny.tflite"), std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  TfliteModel m = import_tflite(ss.str());
  CHECK(m.graph.ops.size() == 3);
  CHECK(m.folded_ops == std::vector<int32_t>{0});
  CHECK(m.custom_ops == std::vector<std::string>{"MyOp"});
  CHECK(m.variable_bytes == 32);
  REQUIRE(m.offline_offsets);
  CHECK(*m.offline_offsets == std::vector<int32_t>{-1, -1, -1, 0, 0, 64, -1});
}

TEST_CASE("tflite: bad files are clear InputErrors") {
  CHECK(import_error("") == "model: too short to be a .tflite file (0 bytes)");
  CHECK(import_error(std::string(16, 'x')).find("not a TFLite model") != std::string::npos);
  CHECK(import_error("{\"format\": \"arenaplan-graph\"}").find("expected \"TFL3\"") != std::string::npos);

  TinyModel t;
  t.tensors = {{{4}, 9, {}, false, "a"}, {{4}, 9, {}, false, "b"}};
  t.ops = {{19, {0}, {7}}};
  t.inputs = {0};
  t.outputs = {1};
  CHECK(import_error(t.build()) ==
        "subgraph 0 operator 0 (relu) output 0: tensor index 7 out of range (subgraph 0 has 2 tensors)");
  t.ops = {{19, {0}, {1}}};
  t.tensors[1].shape = {-1, 4};
  CHECK(import_error(t.build()) == "subgraph 0 tensor 1 (b): dim 0 is -1: dynamic shapes have no static size");
  t.tensors[1].shape = {1 << 30, 1 << 30, 1 << 30};
  CHECK(import_error(t.build()).find("overflows 64 bits") != std::string::npos);
  t.tensors[1].shape = {4};
  t.tensors[1].type = 5;  // STRING
  CHECK(import_error(t.build()).find("type string (5) has no static size") != std::string::npos);
}

TEST_CASE("tflite: truncated and bit-flipped real models never crash (bounded fuzz loop)") {
  for (const char* file : {"face_detection_short_range.tflite", "selfie_segmentation.tflite"}) {
    CAPTURE(file);
    const std::string bytes = test::read_model_fixture(file);
    int rejected = 0, accepted = 0;
    // Truncations: every length near the start and the end, and a stride through the middle.
    std::vector<size_t> lengths;
    for (size_t n = 0; n < 64; ++n) lengths.push_back(n);
    for (size_t n = 64; n < bytes.size(); n += 997) lengths.push_back(n);
    for (size_t n = bytes.size() - 64; n < bytes.size(); ++n) lengths.push_back(n);
    for (size_t n : lengths) {
      std::string cut = bytes.substr(0, n);
      std::string err = import_error(cut);
      CHECK_MESSAGE(!err.empty(), "length " << n);
      ++rejected;
    }
    // Random byte flips, fixed seed: either a clean import or a clear InputError.
    std::mt19937 rng(20261129);
    for (int i = 0; i < 300; ++i) {
      std::string bad = bytes;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        // Half the flips hit the first 4 KiB where the tables live (weights are mostly harmless).
        size_t at = (i % 2 ? rng() % std::min<size_t>(4096, bad.size()) : rng() % bad.size());
        bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
      }
      try {
        TfliteModel m = import_tflite(bad);
        analyze_lifetimes(m.graph, m.graph.file_order());
        ++accepted;
      } catch (const InputError&) {
        ++rejected;
      }
    }
    CHECK(rejected > 0);
    CHECK(accepted > 0);
  }
}


// A corrupt name is not UTF-8, which JSON requires: the bytes that start no valid sequence become
// '?', so `import --json` and `simulate --json` still print (a mutated model once ended in exit 3).
TEST_CASE("tflite import: names that are not UTF-8 import with '?' for each bad byte, and print as JSON") {
  std::string bytes = test::read_tflm_fixture("vela_npu.tflite");
  const size_t at = bytes.find("main_split_1_scratch_fast");
  REQUIRE(at != std::string::npos);
  bytes[at + 2] = static_cast<char>(0x90);  // a continuation byte with no lead
  bytes[at + 5] = static_cast<char>(0xC3);  // a lead byte followed by ASCII
  const TfliteModel m = import_tflite(bytes);
  CHECK(m.graph.find_tensor("ma?n_?plit_1_scratch_fast").has_value());
  const JsonOut j = tflite_summary_json(tflite_summary(m, analyze_lifetimes(m.graph, m.graph.file_order())));
  CHECK(j.dump().find("ma?n_?plit_1_scratch_fast") != std::string::npos);
  // Valid multi-byte text is kept as it is.
  CHECK(tflite_ops::utf8_text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(tflite_ops::utf8_text("\xC0\xAF \xED\xA0\x80 \xF5") == "?? ??? ?");  // overlong, surrogate, beyond U+10FFFF
}

}  // namespace arenaplan
