#include "core/tflite/tflm_arena.h"

#include "core/graph/report.h"

#include <algorithm>
#include <sstream>

#include "core/layout/planner_greedy.h"
#include "core/tflite/detail/tflm_arena_sim.h"
#include "core/tflite/detail/tflm_kernel_sizes.h"
#include "core/tflite/detail/tflm_model.h"
#include "core/tflite/tflite_import.h"

namespace arenaplan {
namespace {

constexpr Bytes kArenaAlignment = 16;

struct ScratchRequest {
  size_t subgraph = 0;
  size_t op = 0;
  Bytes bytes = 0;
};

// TFLM's planning problem (AllocationInfoBuilder): every tensor of every subgraph without data,
// not a variable (unless the offline plan places it) and not empty, then every scratch request.
// Times are allocation scopes: graph inputs at 0, op i at i + 1, graph outputs to the end;
// tensors no op of subgraph 0 touches keep TFLM's "-1" (shifted here by one to stay >= 0).
LayoutProblem head_problem(const tflm::Model& m, const std::vector<ScratchRequest>& scratch) {
  LayoutProblem p;
  const tflm::Subgraph& g0 = m.subgraphs[0];
  std::vector<int> first(g0.tensors.size(), -1), last(g0.tensors.size(), -1);
  int scope = 0;
  for (int32_t t : g0.inputs) first[t] = last[t] = 0;
  for (const tflm::Operator& op : g0.ops) {
    ++scope;
    for (int32_t t : op.outputs)
      if (first[t] == -1) first[t] = scope;
    for (int32_t t : op.inputs)
      if (t >= 0) last[t] = scope;
    for (int32_t t : op.outputs) last[t] = scope;
  }
  for (int32_t t : g0.outputs) {
    if (first[t] == -1) first[t] = scope;
    last[t] = scope;
  }
  int32_t flat = 0;
  for (size_t s = 0; s < m.subgraphs.size(); ++s)
    for (size_t i = 0; i < m.subgraphs[s].tensors.size(); ++i, ++flat) {
      const tflm::Tensor& t = m.subgraphs[s].tensors[i];
      const int32_t offline = m.offline ? m.offline->offsets[flat] : -1;
      bool planned = !t.has_data && !t.is_variable && t.bytes != 0;
      if (t.is_variable && offline != -1) planned = true;
      if (!planned) continue;
      LayoutBuffer b;
      b.name = t.name.empty() ? "tensor " + std::to_string(flat) : t.name;
      b.size = align_up(t.bytes, kArenaAlignment);
      b.alignment = 1;  // TFLM does not check offline offsets for alignment
      b.first = (s == 0 ? first[i] : -1) + 1;
      b.last = (s == 0 ? last[i] : -1) + 1;
      if (offline != -1) b.fixed_offset = offline;
      p.buffers.push_back(std::move(b));
    }
  for (const ScratchRequest& r : scratch) {
    LayoutBuffer b;
    b.name = "scratch of op " + std::to_string(r.op);
    b.size = align_up(r.bytes, kArenaAlignment);
    b.alignment = 1;
    const int at = r.subgraph == 0 ? static_cast<int>(r.op) + 1 : -1;
    b.first = b.last = at + 1;
    p.buffers.push_back(std::move(b));
  }
  return p;
}

TflmArena size_model(const tflm::Model& m, const TflmArenaOptions& o) {
  TflmArena a;
  a.target = o.target;
  tflm::ReplayInput in;
  in.model = &m;
  in.structs = tflm::runtime_structs(o.target);
  std::vector<ScratchRequest> scratch;
  for (size_t s = 0; s < m.subgraphs.size(); ++s)
    for (size_t i = 0; i < m.subgraphs[s].ops.size(); ++i) {
      const tflm::Operator& op = m.subgraphs[s].ops[i];
      in.kernels.push_back(tflm::kernel_allocations(op, m.subgraphs[s], o.target));
      const tflm::KernelAllocations& k = in.kernels.back();
      if (k.estimated)
        a.estimated_ops.push_back("op " + std::to_string(i) + (s ? " of subgraph " + std::to_string(s) : "") +
                                  " (" + op.kind + ")");
      for (const tflm::PrepareAction& act : k.prepare)
        if (act.step == tflm::PrepareStep::kScratch) scratch.push_back({s, i, act.bytes});
    }
  const LayoutProblem problem = head_problem(m, scratch);
  // TFLM's GreedyMemoryPlanner itself, not plan_arena: an offline plan may give a RESHAPE's input
  // and output one offset (arenaplan's exports do), which TFLM accepts and the verifier would refuse.
  in.head_bytes = planner::plan_tflm_greedy(problem).arena_bytes;
  in.planned_buffers = static_cast<int>(problem.buffers.size());
  in.scratch_requests = static_cast<int>(scratch.size());
  for (const ScratchRequest& r : scratch) a.scratch_bytes += align_up(r.bytes, kArenaAlignment);
  a.scratch_buffers = in.scratch_requests;

  const std::vector<tflm::ArenaCall> calls = tflm::replay_calls(in);
  a.min_arena_bytes = tflm::minimum_arena(calls, &a.limited_by);
  // arena_used_bytes() depends on where the arena ends (the first tail allocations are aligned
  // down from it, so an end 8 bytes further can pad 8 bytes more or less): the figures are those
  // of an arena of exactly the minimum size, the one a header sized from this model declares.
  const tflm::ArenaRun plain = tflm::run_arena(calls, a.min_arena_bytes);
  a.arena_used_bytes = plain.head + plain.tail;
  a.head_bytes = plain.head;
  a.tail_bytes = plain.tail;

  // The categories as RecordingMicroAllocator reports them (its larger objects shift the padding).
  tflm::ReplayInput recording = in;
  recording.structs = tflm::runtime_structs(o.target, /*recording=*/true);
  // Its own objects are larger; over an arena ending at the same alignment as the minimum one.
  const Bytes recording_arena = a.min_arena_bytes + align_up(1024 + a.min_arena_bytes / 8, kArenaAlignment);
  const tflm::ArenaRun rec = tflm::run_arena(tflm::replay_calls(recording), recording_arena);
  Bytes recorded_plain = 0;
  for (int c = 1; c < static_cast<int>(tflm::Category::kCount); ++c) {
    const tflm::CategoryFigure& f = rec.categories[c];
    a.categories.push_back({tflm::category_key(static_cast<tflm::Category>(c)), f.count, f.used, f.requested});
    recorded_plain += plain.categories[c].used;
  }
  a.unrecorded_tail_bytes = plain.tail - recorded_plain;

  if (m.offline) {
    TflmOfflinePlanInfo info;
    info.version = m.offline->version;
    info.subgraph = m.offline->subgraph;
    info.offsets = m.offline->count;
    for (int32_t off : m.offline->offsets) (off == -1 ? info.online : info.fixed)++;
    a.offline_plan = info;
  }
  const TflmTarget& t = o.target;
  a.assumptions = {
      t.kernels == TflmKernels::kCmsisNn
          ? std::string("TFLM with OPTIMIZED_KERNEL_DIR=cmsis_nn (") + kCmsisNnVersion + ", " +
                cmsis_nn_isa_name(t.isa) +
                " code path, KERNELS_OPTIMIZED_FOR_SPEED, built with arm-none-eabi-gcc), TF_LITE_STATIC_MEMORY, "
                "MicroInterpreter with its default GreedyMemoryPlanner"
          : "TFLM reference kernels (no CMSIS-NN), TF_LITE_STATIC_MEMORY, MicroInterpreter with its "
            "default GreedyMemoryPlanner",
      "tensor_arena starts on a 16-byte boundary",
      std::to_string(t.pointer_bytes) + "-byte pointers, " + std::to_string(t.enum_bytes) + "-byte enums" +
          (t.pointer_bytes == 4 && t.enum_bytes == 4
               ? " (arm-none-eabi-gcc's short enums need a little less: --core or --enum-bytes 1)"
               : ""),
  };
  if (!a.estimated_ops.empty())
    a.assumptions.push_back("estimated ops: builtin data and OpData up to 256 B each, every input and output "
                            "held twice as a temporary, per-channel arrays for per-channel inputs, one scratch "
                            "buffer as large as the op's largest activation; a kernel that allocates more "
                            "(several scratch buffers, large state) needs more than shown");
  if (m.subgraphs.size() > 1)
    a.assumptions.push_back("subgraphs other than 0 (IF/WHILE bodies) are allocated but their lifetimes "
                            "are not modelled");
  return a;
}


}  // namespace

const char* tflm_plan_name(TflmPlan p) {
  switch (p) {
    case TflmPlan::kOffline: return "offline";
    case TflmPlan::kReordered: return "reordered";
    default: return "tflm";
  }
}

TflmPlan parse_tflm_plan(const std::string& name) {
  if (name == "tflm") return TflmPlan::kTflm;
  if (name == "offline") return TflmPlan::kOffline;
  if (name == "reordered") return TflmPlan::kReordered;
  throw InputError("--plan", "expected tflm, offline or reordered, found \"" + name + "\"");
}

const char* tflm_kernels_name(TflmKernels k) { return k == TflmKernels::kCmsisNn ? "cmsis-nn" : "reference"; }

TflmKernels parse_tflm_kernels(const std::string& name) {
  if (name == "reference") return TflmKernels::kReference;
  if (name == "cmsis-nn" || name == "cmsis_nn") return TflmKernels::kCmsisNn;
  throw InputError("--kernels", "expected reference or cmsis-nn, found \"" + name + "\"");
}

const char* cmsis_nn_isa_name(CmsisNnIsa isa) {
  switch (isa) {
    case CmsisNnIsa::kPlainC: return "plain-c";
    case CmsisNnIsa::kMve: return "mve";
    default: return "dsp";
  }
}

namespace {
struct CoreIsa {
  const char* core;
  CmsisNnIsa isa;
};
// What CMSIS-NN's headers define for each core under arm-none-eabi-gcc -mcpu=...: ARM_MATH_DSP
// from __ARM_FEATURE_DSP, ARM_MATH_MVEI from __ARM_FEATURE_MVE.
constexpr CoreIsa kCores[] = {
    {"cortex-m0", CmsisNnIsa::kPlainC},  {"cortex-m0plus", CmsisNnIsa::kPlainC}, {"cortex-m1", CmsisNnIsa::kPlainC},
    {"cortex-m3", CmsisNnIsa::kPlainC},  {"cortex-m23", CmsisNnIsa::kPlainC},    {"cortex-m4", CmsisNnIsa::kDsp},
    {"cortex-m7", CmsisNnIsa::kDsp},     {"cortex-m33", CmsisNnIsa::kDsp},       {"cortex-m35p", CmsisNnIsa::kDsp},
    {"cortex-m33+nodsp", CmsisNnIsa::kPlainC}, {"cortex-m52", CmsisNnIsa::kMve}, {"cortex-m55", CmsisNnIsa::kMve},
    {"cortex-m85", CmsisNnIsa::kMve},
};
}  // namespace

TflmTarget tflm_target_for_core(const std::string& core, TflmKernels kernels) {
  TflmTarget t;
  t.kernels = kernels;
  t.core = core;
  if (core == "x86-64") {  // a 64-bit host build: CMSIS-NN compiles its plain C there
    t.pointer_bytes = 8;
    t.enum_bytes = 4;
    t.isa = CmsisNnIsa::kPlainC;
    return t;
  }
  std::string known;
  for (const CoreIsa& c : kCores) {
    if (core == c.core) {
      t.pointer_bytes = 4;
      t.enum_bytes = 1;  // arm-none-eabi-gcc: AAPCS short enums
      t.isa = c.isa;
      return t;
    }
    known += std::string(known.empty() ? "" : ", ") + c.core;
  }
  throw InputError("--core", "unknown core \"" + core + "\"; known: " + known + ", x86-64");
}

TflmTarget tflm_target_for_board_core(const std::string& board_core, TflmKernels kernels) {
  for (const CoreIsa& c : kCores)
    if (board_core == c.core) return tflm_target_for_core(board_core, kernels);
  if (kernels == TflmKernels::kCmsisNn)
    throw InputError("--kernels", "cmsis-nn needs a Cortex-M core; the board's is \"" +
                                      (board_core.empty() ? std::string("not given") : board_core) +
                                      "\" (give --core to choose one)");
  TflmTarget t;
  t.kernels = kernels;
  return t;
}

void check_tflm_target(const TflmTarget& t) {
  if (t.pointer_bytes != 4 && t.pointer_bytes != 8)
    throw InputError("--pointer-bytes", "expected 4 or 8, found " + std::to_string(t.pointer_bytes));
  if (t.enum_bytes != 1 && t.enum_bytes != 4)
    throw InputError("--enum-bytes", "expected 1 or 4, found " + std::to_string(t.enum_bytes));
  if (t.enum_bytes == 1 && t.pointer_bytes == 8)
    throw InputError("--enum-bytes", "short enums are modelled for 32-bit targets only");
}

std::string tflm_target_text(const TflmTarget& t) {
  std::string s = t.kernels == TflmKernels::kCmsisNn
                      ? std::string("CMSIS-NN kernels (") + cmsis_nn_isa_name(t.isa) + ")"
                      : "reference kernels";
  if (!t.core.empty()) s += " for " + t.core;
  return s + ", " + std::to_string(t.pointer_bytes * 8) + "-bit pointers, " + std::to_string(t.enum_bytes) +
         "-byte enums";
}

void add_tflm_kernel_scratch(TfliteModel& m, std::string_view model_bytes, const TflmTarget& target) {
  const tflm::Model model = tflm::read_model(model_bytes);
  const tflm::Subgraph& g0 = model.subgraphs[0];
  for (size_t i = 0; i < m.graph.ops.size(); ++i) {
    const int32_t file_op = m.op_index[i];
    if (file_op < 0 || static_cast<size_t>(file_op) >= g0.ops.size()) continue;
    const tflm::KernelAllocations k = tflm::kernel_allocations(g0.ops[file_op], g0, target);
    if (k.estimated) continue;
    Bytes scratch = 0;
    for (const tflm::PrepareAction& a : k.prepare)
      if (a.step == tflm::PrepareStep::kScratch) scratch += align_up(a.bytes, kArenaAlignment);
    m.graph.ops[i].scratch_bytes = scratch;
  }
}

TflmArena tflm_arena(std::string_view model_bytes, const TflmArenaOptions& options) {
  check_tflm_target(options.target);  // a bad target is named before the model is read
  return size_model(tflm::read_model(model_bytes), options);
}

namespace {
void target_json(const TflmTarget& t, nlohmann::ordered_json& j) {
  j["pointer_bytes"] = t.pointer_bytes;
  j["enum_bytes"] = t.enum_bytes;
  j["kernels"] = tflm_kernels_name(t.kernels);
  if (t.kernels == TflmKernels::kCmsisNn) {
    j["cmsis_nn_version"] = kCmsisNnVersion;
    j["cmsis_nn_isa"] = cmsis_nn_isa_name(t.isa);
  }
  j["core"] = t.core.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.core);
}
}  // namespace

nlohmann::ordered_json tflm_arena_json(const TflmArena& a) {
  nlohmann::ordered_json j;
  j["tflm_version"] = a.tflm_version;
  target_json(a.target, j);
  j["plan"] = tflm_plan_name(a.plan);
  j["min_arena_bytes"] = a.min_arena_bytes;
  j["arena_used_bytes"] = a.arena_used_bytes;
  j["head_bytes"] = a.head_bytes;
  j["tail_bytes"] = a.tail_bytes;
  nlohmann::ordered_json cats = nlohmann::ordered_json::object();
  for (const TflmCategory& c : a.categories)
    cats[c.name] = {{"count", c.count}, {"used_bytes", c.used_bytes}, {"requested_bytes", c.requested_bytes}};
  j["categories"] = cats;
  j["unrecorded_tail_bytes"] = a.unrecorded_tail_bytes;
  j["scratch_buffers"] = a.scratch_buffers;
  j["scratch_bytes"] = a.scratch_bytes;
  j["limited_by"] = a.limited_by;
  j["estimated_ops"] = a.estimated_ops;
  if (a.offline_plan)
    j["offline_plan"] = {{"version", a.offline_plan->version}, {"subgraph", a.offline_plan->subgraph},
                         {"offsets", a.offline_plan->offsets}, {"fixed", a.offline_plan->fixed},
                         {"online", a.offline_plan->online}};
  else
    j["offline_plan"] = nullptr;
  j["assumptions"] = a.assumptions;
  return j;
}

std::string tflm_arena_text(const TflmArena& a) {
  std::ostringstream os;
  os << "TFLM arena (" << a.tflm_version << ", " << tflm_target_text(a.target) << ", plan " << tflm_plan_name(a.plan)
     << ")\n";
  os << "  tensor_arena_size needed: " << with_commas(a.min_arena_bytes) << " B (minimum for AllocateTensors + Invoke";
  if (!a.limited_by.empty()) os << "; one byte less fails in " << a.limited_by;
  os << ")\n";
  os << "  arena_used_bytes():       " << with_commas(a.arena_used_bytes) << " B = head " << with_commas(a.head_bytes)
     << " + tail " << with_commas(a.tail_bytes) << " (with an arena of exactly that size)\n";
  os << "  head (non-persistent):    " << with_commas(a.head_bytes) << " B";
  if (a.scratch_buffers > 0)
    os << " (" << a.scratch_buffers << " kernel scratch buffers, " << with_commas(a.scratch_bytes)
       << " B in all, planned in it)";
  os << "\n  tail (persistent), as RecordingMicroAllocator counts it:\n";
  for (const TflmCategory& c : a.categories)
    os << "    " << c.name << ": " << with_commas(c.used_bytes) << " B used, " << with_commas(c.requested_bytes)
       << " B requested (" << c.count << ")\n";
  os << "    other (allocator objects, builtin data, scratch handles, padding): "
     << with_commas(a.unrecorded_tail_bytes) << " B\n";
  if (a.offline_plan)
    os << "  offline plan in the model: " << a.offline_plan->fixed << " fixed offsets, " << a.offline_plan->online
       << " planned online (version word " << a.offline_plan->version << ")\n";
  if (!a.estimated_ops.empty()) {
    os << "  estimated (kernel not modelled, rounded up):";
    for (const std::string& op : a.estimated_ops) os << " " << op;
    os << "\n";
  }
  for (const std::string& s : a.assumptions) os << "  assumes: " << s << "\n";
  return os.str();
}

std::string tflm_comparison_sentence(const TflmArenaComparison& c) {
  if (!c.offline_kept.empty())
    return "with the model's own offline plan: " + with_commas(c.tflm.min_arena_bytes) + " bytes (no arenaplan plan: " +
           c.offline_kept + ")";
  std::string s = "TFLM's own planner: " + with_commas(c.tflm.min_arena_bytes) +
                  " bytes; with arenaplan's offline plan: " + with_commas(c.offline.min_arena_bytes) + " bytes (";
  const Bytes saved = c.saved_bytes();
  s += saved >= 0 ? "saves " + with_commas(saved) : "costs " + with_commas(-saved) + " more";
  return s + ")";
}

nlohmann::ordered_json tflm_comparison_json(const TflmArenaComparison& c) {
  nlohmann::ordered_json j;
  j["tflm_version"] = c.tflm.tflm_version;
  target_json(c.tflm.target, j);
  j["tflm_planner_arena_bytes"] = c.tflm.min_arena_bytes;
  j["offline_plan_arena_bytes"] = c.offline.min_arena_bytes;
  j["saved_bytes"] = c.saved_bytes();
  if (!c.offline_kept.empty()) j["offline_plan_kept"] = c.offline_kept;
  j["tflm_planner"] = tflm_arena_json(c.tflm);
  j["offline_plan"] = tflm_arena_json(c.offline);
  return j;
}

std::string tflm_import_text(const TflmArenaComparison* c, const std::string& refused) {
  std::ostringstream out;
  if (!c) {
    out << "TFLM arena          not available: " << refused << "\n";
    return out.str();
  }
  if (c->tflm.offline_plan) {
    const TflmOfflinePlanInfo& p = *c->tflm.offline_plan;
    out << "offline plan        " << p.offsets << " offsets in the file: " << p.fixed << " fixed, " << p.online
        << " planned online by TFLM (version word " << p.version << ", subgraph word " << p.subgraph
        << "; TFLM reads only the count and the offsets)\n";
  }
  out << "TFLM arena          " << tflm_comparison_sentence(*c) << " (tensor_arena_size, "
      << tflm_target_text(c->tflm.target) << ", " << c->tflm.tflm_version << ")\n";
  if (!c->tflm.estimated_ops.empty())
    out << "  estimated (kernels not modelled, rounded up): " << c->tflm.estimated_ops.size() << " ops, e.g. "
        << c->tflm.estimated_ops.front() << "\n";
  return out.str();
}

}  // namespace arenaplan
