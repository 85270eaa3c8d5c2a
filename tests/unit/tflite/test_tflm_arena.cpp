// The TFLM arena model against figures measured in the real TFLM interpreter for the project's
// own models (tests/unit/data/tflm/README.md: tflite-micro 90b983c2, reference kernels, x86-64 for
// 8-byte pointers, wasm32 for 4-byte pointers), and lower bounds on real models it has no
// figures for.
#include <cstring>
#include <map>

#include "core/budget/board.h"
#include "core/schedule/schedule.h"
#include "core/session/session.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflm_arena.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using arenaplan::test::read_model_fixture;
using arenaplan::test::read_tflm_fixture;

namespace {

struct Used {
  int count;
  Bytes used;
  Bytes requested;  // -1: the reference gives no requested figure
};

// One column of a reference table.
struct Reference {
  Bytes min_arena, used, head, tail;
  std::map<std::string, Used> categories;
  // arena_used_bytes() and the tail's padding depend on where the arena ends (tail allocations are
  // aligned down from it). The model reports them for an arena of exactly the minimum size; a
  // measurement over a large arena ending on a 16-byte boundary (int8_inception on 64 bits: the
  // minimum, 55,784, ends 8 bytes off one) may differ by less than one 16-byte step.
  Bytes end_alignment_slack = 0;
};

void check_near(Bytes got, Bytes want, Bytes slack) {
  if (slack == 0) CHECK(got == want);
  else CHECK_MESSAGE((got >= want - slack && got <= want + slack), got << " vs " << want);
}

// The file as it is, or (kOffline, kReordered) the file the export of that kind writes, sized:
// what `tflm-arena FILE --plan P` prints.
TflmArena sized(const std::string& file, int pointer_bytes, TflmPlan plan = TflmPlan::kTflm) {
  const LoadedInput in = load_input(read_tflm_fixture(file));
  ExportRequest r;
  r.tflm_target.pointer_bytes = pointer_bytes;
  r.order = plan == TflmPlan::kReordered ? optimize_schedule(in.graph, 1.0).order : in.graph.file_order();
  return tflm_arena_of(in, plan, r);
}

void check_reference(const TflmArena& a, const Reference& r) {
  CHECK(a.min_arena_bytes == r.min_arena);
  check_near(a.arena_used_bytes, r.used, r.end_alignment_slack);
  CHECK(a.head_bytes == r.head);
  check_near(a.tail_bytes, r.tail, r.end_alignment_slack);
  CHECK(a.arena_used_bytes == a.head_bytes + a.tail_bytes);
  for (const auto& category : r.categories) {
    const std::string name = category.first;  // not a structured binding: clang 14 (em++) cannot capture one
    const auto& want = category.second;
    const TflmCategory* got = nullptr;
    for (const TflmCategory& c : a.categories)
      if (c.name == name) got = &c;
    REQUIRE_MESSAGE(got != nullptr, "no category " << name);
    INFO("category " << name);
    CHECK(got->count == want.count);
    check_near(got->used_bytes, want.used, name == "kernel_persistent_buffers" ? r.end_alignment_slack : 0);
    if (want.requested >= 0) CHECK(got->requested_bytes == want.requested);
  }
  CHECK(a.estimated_ops.empty());
  CHECK(a.tflm_version == std::string("tflite-micro@90b983c2b3f1480642e040bbd2ddb37b998f3424"));
}

// Measured in the real TFLM interpreter (tests/unit/data/tflm/README.md; x86-64). Categories as
// RecordingMicroAllocator reports them: {count, used, requested}.
const Reference kInception64 = {55784, 55792, 50176, 5616,
                                {{"eval_tensors", {41, 984, 984}},
                                 {"persistent_tensors", {2, 128, 128}},
                                 {"persistent_tensor_quantization", {4, 64, 64}},
                                 {"kernel_persistent_buffers", {38, 2668, 2548}},
                                 {"variable_tensors", {0, 0, 0}},
                                 {"node_and_registrations", {18, 1152, 1152}}},
                                /*end_alignment_slack=*/8};
const Reference kSvdfInt864 = {3584, 2464, 176, 2288,
                               {{"eval_tensors", {21, 504, 504}},
                                {"persistent_tensors", {2, 128, 128}},
                                {"persistent_tensor_quantization", {4, 64, 64}},
                                {"kernel_persistent_buffers", {8, 404, 360}},
                                {"variable_tensors", {2, 448, 448}},
                                {"node_and_registrations", {6, 384, 384}}}};
const Reference kSvdfFloat64 = {3840, 2944, 288, 2656,
                                {{"eval_tensors", {21, 504, 504}},
                                 {"persistent_tensors", {2, 128, 128}},
                                 {"persistent_tensor_quantization", {0, 0, 0}},
                                 {"kernel_persistent_buffers", {8, 404, 360}},
                                 {"variable_tensors", {2, 896, 896}},
                                 {"node_and_registrations", {6, 384, 384}}}};
// wasm32 (4-byte pointers), measured over an 8 MiB arena: used and tail 4 bytes above the model's
// figures for an arena of exactly the minimum size (the end-alignment slack above).
const Reference kSvdfInt832 = {2668, 1740, 176, 1564,
                               {{"eval_tensors", {21, 252, 252}},
                                {"persistent_tensors", {2, 80, 80}},
                                {"persistent_tensor_quantization", {4, 40, 40}},
                                {"kernel_persistent_buffers", {8, 336, 280}},
                                {"variable_tensors", {2, 448, 448}},
                                {"node_and_registrations", {6, 192, 192}}},
                               /*end_alignment_slack=*/8};
const Reference kSvdfFloat32 = {2972, 2264, 288, 1976,
                                {{"eval_tensors", {21, 252, 252}},
                                 {"persistent_tensors", {2, 80, 80}},
                                 {"persistent_tensor_quantization", {0, 0, 0}},
                                 {"kernel_persistent_buffers", {8, 340, 280}},
                                 {"variable_tensors", {2, 904, 896}},
                                 {"node_and_registrations", {6, 192, 192}}},
                                /*end_alignment_slack=*/8};

}  // namespace

TEST_CASE("int8_inception on a 64-bit host: TFLM's 55,784 B, head, tail and every category") {
  check_reference(sized("int8_inception.tflite", 8), kInception64);
  // With arenaplan's offline plan the same: TFLM's own plan already reaches the 50,176 B bound.
  check_reference(sized("int8_inception.tflite", 8, TflmPlan::kOffline), kInception64);
}

TEST_CASE("SVDF stacks: memory planning's temporaries make the minimum larger than arena_used_bytes") {
  for (const auto& measured : {std::pair<const char*, Reference>{"svdf_int8.tflite", kSvdfInt864},
                                {"svdf_float.tflite", kSvdfFloat64}}) {
    const char* file = measured.first;  // not a structured binding: clang 14 (em++) cannot capture one
    CAPTURE(file);
    const TflmArena a = sized(file, 8);
    check_reference(a, measured.second);
    CHECK(a.min_arena_bytes > a.arena_used_bytes);
    CHECK(a.limited_by == "memory planning");
  }
  check_reference(sized("svdf_int8.tflite", 4), kSvdfInt832);
  check_reference(sized("svdf_float.tflite", 4), kSvdfFloat32);
}

TEST_CASE("LSTM stacks, the int16 stack and the op-resolver stacks: TFLM's minimum exactly, with no estimated op") {
  // x86-64, reference kernels (tests/unit/data/tflm/README.md): min arena and arena_used_bytes()
  // over an 8 MiB arena (the model's figure is for an arena of exactly the minimum: up to 8 B less).
  struct Measured {
    const char* file;
    Bytes min_arena, used;
  };
  for (const Measured& m : {Measured{"lstm_int8.tflite", 4816, 3488}, Measured{"lstm_int16.tflite", 4880, 3776},
                            Measured{"lstm_float.tflite", 5136, 4672}, Measured{"int16_conv_fc.tflite", 6568, 6576},
                            // Per-channel LSTM weights: TFLM allocates multiplier and shift arrays for
                            // each of the eight gate FCs (1,536 B here) and never reads them.
                            Measured{"lstm_int8_per_channel.tflite", 6352, 5024},
                            // The rest of the op resolver (tflm_fixture_models.h, ResolverOpsStack).
                            Measured{"resolver_int8.tflite", 3072, 3024}, Measured{"resolver_int16.tflite", 2032, 2032},
                            Measured{"resolver_float.tflite", 4912, 4912}, Measured{"resolver_float_more.tflite", 4640, 4640},
                            // TFLM's stateful Signal ops: their state sized from the flexbuffer options.
                            Measured{"signal_stateful.tflite", 2840, 2848},
                            // The Signal front end on uint32 / uint64 tensors, and the FFTs' kissfft state.
                            Measured{"signal_front_end.tflite", 2232, 2016}, Measured{"signal_fft.tflite", 5264, 5120},
                            Measured{"signal_fft_lengths.tflite", 224104, 224112}}) {
    CAPTURE(m.file);
    const TflmArena a = sized(m.file, 8);
    CHECK(a.min_arena_bytes == m.min_arena);
    check_near(a.arena_used_bytes, m.used, 8);
    CHECK(a.estimated_ops.empty());
  }
}

// SwiftNet's stem (tflm_fixture_models.h): its one-way SPLIT keeps a second copy of the image in
// TFLM's head; the model `transform --apply view:split -o` writes runs in stock TFLM without it,
// with the same outputs (tests/unit/sim/test_sim_models.cpp). x86-64, reference kernels.
TEST_CASE("SwiftNet's stem: the split as a view takes TFLM's measured minimum from 302,616 to 277,416 B") {
  const TflmArena file = sized("swiftnet_stem.tflite", 8), view = sized("swiftnet_stem_view.tflite", 8);
  CHECK(file.min_arena_bytes == 302616);
  CHECK(view.min_arena_bytes == 277416);
  check_near(file.arena_used_bytes, 302624, 8);  // measured over an 8 MiB arena
  check_near(view.arena_used_bytes, 277424, 8);
  CHECK(file.head_bytes == 301056);  // image + its copy
  CHECK(view.head_bytes == 275968);  // image + the first conv's output
  CHECK(file.estimated_ops.empty());
  CHECK(view.estimated_ops.empty());
}

TEST_CASE("the JSON view carries the contract's keys and the pinned TFLM version") {
  const TflmArena a = sized("int8_inception.tflite", 4);
  const nlohmann::ordered_json j = tflm_arena_json(a);
  for (const char* key : {"tflm_version", "pointer_bytes", "plan", "min_arena_bytes", "arena_used_bytes",
                          "head_bytes", "tail_bytes", "categories", "estimated_ops"})
    CHECK_MESSAGE(j.contains(key), key);
  CHECK(j["min_arena_bytes"] == 54292);  // measured in TFLM (tests/unit/data/tflm/README.md)
  CHECK(j["categories"]["node_and_registrations"]["count"] == 18);  // one per operator of the file
  CHECK(tflm_arena_text(a).find("54,292") != std::string::npos);
}

TEST_CASE("the pointer size must be 4 or 8, and a plan name one of three") {
  TflmArenaOptions o;
  o.target.pointer_bytes = 2;
  CHECK_THROWS_AS(tflm_arena(read_tflm_fixture("int8_inception.tflite"), o), InputError);
  CHECK_THROWS_AS(parse_tflm_plan("greedy"), InputError);
  CHECK_THROWS_AS(tflm_arena(std::string("not a model at all"), {}), InputError);
}

// Real models without measured figures: the prediction is never below what TFLM must hold at
// least (the plan's lower bound in the head; one TfLiteEvalTensor per tensor and one
// NodeAndRegistration per op in the tail), and every kernel it does not model is named.
TEST_CASE("MediaPipe models: never below an independent lower bound, unknown kernels named") {
  for (const char* file : {"selfie_segmentation.tflite", "face_detection_short_range.tflite",
                           "hand_landmark_lite.tflite"}) {
    INFO(file);
    const std::string bytes = read_model_fixture(file);
    TfliteImportOptions keep;
    keep.fold_constant_ops = false;
    keep.reshape_in_place = false;  // TFLM plans a RESHAPE's output as its own buffer
    const TfliteModel m = import_tflite(bytes, keep);
    const LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
    const Bytes plan_bound = layout_lower_bound(layout_problem(m.graph, live));
    for (int pointer : {4, 8}) {
      TflmArenaOptions o;
      o.target.pointer_bytes = pointer;
      const TflmArena a = tflm_arena(bytes, o);
      CHECK(a.head_bytes >= plan_bound);
      int32_t tensors = 0, ops = 0;
      for (const TfliteSubgraphInfo& s : m.subgraphs) {
        tensors += s.tensors;
        ops += s.operators;
      }
      const Bytes eval = pointer == 8 ? 24 : 12, node = pointer == 8 ? 64 : 32;
      CHECK(a.tail_bytes >= tensors * eval + ops * node + m.variable_bytes);
      CHECK(a.min_arena_bytes >= a.head_bytes + a.tail_bytes - 15);  // only end-of-arena alignment
      // Custom ops (MediaPipe's own kernels) are unknown to the model: named, never silently sized.
      for (const std::string& custom : m.custom_ops) {
        bool named = false;
        for (const std::string& op : a.estimated_ops) named = named || op.find(custom) != std::string::npos;
        CHECK_MESSAGE(named, custom << " is not named as estimated");
      }
    }
  }
}

TEST_CASE("a board's hand-typed persistent reservation gives way to the model's figure") {
  MemoryMap board = parse_board_json(*find_example("two_branch_board"));
  const std::vector<std::string> replaced = use_model_persistent(board, 27000, "TFLM tail");
  REQUIRE(replaced.size() == 1);
  CHECK(replaced[0] == "persistent model state");
  int persistent = 0;
  for (const Reservation& r : board.reservations)
    if (r.kind == ReservationKind::kPersistent) {
      ++persistent;
      CHECK(r.bytes == 27000);
      CHECK(r.owner == "TFLM tail");
    }
  CHECK(persistent == 1);
}

namespace {

// The model with an OfflineMemoryAllocation that fixes every other activation at arenaplan's
// offset and leaves the rest to TFLM (-1), its version word set to `version` (Vela writes 0).
std::string partly_planned(const std::string& bytes, int32_t version, std::vector<int32_t>* offsets_out) {
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  const TfliteModel m = import_tflite(bytes, keep);
  const LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  PlanOptions po;
  po.planner = "portfolio";
  const ArenaPlan plan = plan_arena(layout_problem(m.graph, live), po);
  std::vector<int32_t> offsets = offline_offsets_for(m, live, plan.offsets);
  int planned = 0;
  for (int32_t& off : offsets)
    if (off >= 0 && planned++ % 2 == 1) off = -1;
  std::string out = tflite_with_offline_plan(bytes, offsets);
  // The words [1, 0, count] start the metadata buffer: rewrite the version word.
  const int32_t head[3] = {1, 0, static_cast<int32_t>(offsets.size())};
  const size_t at = out.find(std::string(reinterpret_cast<const char*>(head), sizeof(head)));
  REQUIRE(at != std::string::npos);
  std::memcpy(&out[at], &version, 4);
  *offsets_out = offsets;
  return out;
}

}  // namespace

TEST_CASE("an offline plan with version word 0 (as Vela writes) is read as TFLM reads it") {
  std::vector<int32_t> offsets;
  const std::string model = partly_planned(read_tflm_fixture("int8_inception.tflite"), 0, &offsets);
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  const TfliteModel m = import_tflite(model, keep);  // used to fail: "version 0 is not supported"
  REQUIRE(m.offline_offsets.has_value());
  CHECK(*m.offline_offsets == offsets);

  const TflmArena a = tflm_arena(model, {});
  REQUIRE(a.offline_plan.has_value());
  CHECK(a.offline_plan->version == 0);
  CHECK(a.offline_plan->offsets == 41);  // one per tensor of the model
  int fixed = 0;
  for (int32_t off : offsets) fixed += off >= 0;
  CHECK(a.offline_plan->fixed == fixed);
  CHECK(a.offline_plan->online == 41 - fixed);
  // Half the activations fixed at a lower-bound plan's offsets, TFLM placing the rest around them:
  // never below the 50,176 B every plan needs (its largest op's inputs and outputs).
  CHECK(a.head_bytes >= 50176);
}

TEST_CASE("re-planning a model keeps the offsets its offline plan fixes") {
  std::vector<int32_t> offsets;
  const std::string model = partly_planned(read_tflm_fixture("int8_inception.tflite"), 1, &offsets);
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  const TfliteModel m = import_tflite(model, keep);
  const LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
  LayoutProblem problem = layout_problem(m.graph, live);
  const int fixed = keep_offline_offsets(problem, m, live);
  CHECK(fixed > 5);
  PlanOptions po;
  po.planner = "portfolio";
  const ArenaPlan plan = plan_arena(problem, po);
  const std::vector<int32_t> again = offline_offsets_for(m, live, plan.offsets);
  for (size_t i = 0; i < offsets.size(); ++i)
    if (offsets[i] >= 0) CHECK(again[i] == offsets[i]);
  CHECK(plan.verified);
}

TEST_CASE("a truncated or corrupt model is an InputError naming the place, never a crash") {
  const std::string bytes = read_tflm_fixture("int8_inception.tflite");
  for (size_t cut : {size_t{0}, size_t{7}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
    INFO("cut at " << cut);
    CHECK_THROWS_AS(tflm_arena(bytes.substr(0, cut), {}), InputError);
  }
  std::string flipped = bytes;
  for (size_t i = 16; i < 4096; i += 97) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  try {
    tflm_arena(flipped, {});  // may still verify: then it must simply give a figure
  } catch (const InputError&) {
  }
}

// tests/unit/data/tflm/README.md: int8 CNNs with branches, ADD, CONCATENATION, PAD, MAX_POOL,
// MEAN and FULLY_CONNECTED, measured in the real TFLM interpreter on x86-64.
TEST_CASE("int8 CNNs with branches, add and concat: the minimum TFLM measured, for every plan") {
  struct Measured {
    const char* file;
    Bytes min64, min32;
  };
  for (const Measured& m : {Measured{"int8_branches_small.tflite", 12400, 11436},
                            Measured{"int8_inception.tflite", 55784, 54292}}) {
    INFO(m.file);
    for (TflmPlan plan : {TflmPlan::kTflm, TflmPlan::kOffline, TflmPlan::kReordered})
      for (int pointer : {8, 4}) {
        const TflmArena a = sized(m.file, pointer, plan);
        CHECK(a.plan == plan);
        CHECK(a.min_arena_bytes == (pointer == 8 ? m.min64 : m.min32));
        CHECK(a.estimated_ops.empty());
      }
  }
}
