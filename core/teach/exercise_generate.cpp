// Generated exercises (exercise_generate.h): one function per kind draws the parameters, builds
// an ordinary exercise file, and the common tail parses it back and checks the reference answer.
#include "core/teach/exercise_generate.h"

#include <algorithm>
#include <stdexcept>

#include "core/graph/graph_json.h"
#include "core/graph/report.h"
#include "core/layout/layout.h"
#include "core/layout/pipeline.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"
#include "core/teach/detail/exercise_draft.h"
#include "core/teach/detail/exercise_internal.h"
#include "core/teach/detail/seeded_rng.h"

namespace arenaplan {

namespace {

using namespace exercise_detail;

// Draws that would make a trivial question are redrawn; 64 attempts in a row all trivial would
// be a generator bug (the unit tests run thousands of seeds per kind and difficulty).
constexpr int kMaxAttempts = 64;
// The schedule search proving find_order's bound runs on a fixed budget of states, not of time,
// so a slow machine (or Wasm) reaches the same result as a fast one.
constexpr int64_t kSearchStatesPerStep = 4096;
constexpr int kSearchSteps = 64;

constexpr char kOpLetters[] = "ABCDEFGHJKLMNOPQRSTUVWXYZ";  // no I: it reads like the input

const KindInfo& spelling(ExerciseKind kind) {
  if (const KindInfo* k = find_kind(kind)) return *k;
  throw std::logic_error("exercise kind without a generator");
}

// ---- graphs ---------------------------------------------------------------------------------------

// The shape grows with the difficulty, drawn among the schedule generators' families: skip
// chains (a chain whose ops also read 1-3 recent tensors), random branching DAGs, residual chains
// and inception cells (four branches joined by a concat). 4-5 ops at level 1, 6 at 2, 8 at 3,
// 10-15 at 4, 14-18 at 5.
Graph draw_shape(int difficulty, SeededRng& rng) {
  const uint64_t shape_seed = rng.next() >> 32;  // < 2^32: skip_chain_graph seeds an mt19937
  const int64_t family = rng.below(difficulty >= 4 ? 3 : 2);
  RandomGraphFeatures plain;  // branches only: no weights, scratch, state, aliasing or async reads
  plain = {.constants = false, .scratch = false, .persistent = false, .retained = false, .in_place = false};
  switch (difficulty) {
    case 1: return family == 0 ? skip_chain_graph(4, 2, shape_seed) : skip_chain_graph(5, 3, shape_seed);
    case 2: return family == 0 ? skip_chain_graph(6, 3, shape_seed) : random_small_graph(shape_seed, 6, plain);
    case 3: return family == 0 ? skip_chain_graph(8, 3, shape_seed) : random_small_graph(shape_seed, 8, plain);
    case 4:
      return family == 0 ? inception_graph(1, shape_seed)
             : family == 1 ? skip_chain_graph(11, 4, shape_seed)
                           : residual_chain_graph(4, shape_seed);
    default:
      return family == 0 ? inception_graph(2, shape_seed)
             : family == 1 ? skip_chain_graph(14, 4, shape_seed)
                           : residual_chain_graph(5, shape_seed);
  }
}

// Names a generated shape for a classroom and redraws its sizes as round multiples of `unit`.
// Scratch buffers stay only at difficulty 4 and 5.
Graph dress_graph(Graph g, int difficulty, SeededRng& rng, const std::string& name) {
  const Bytes unit = difficulty <= 2 ? Bytes{16} << 10 : Bytes{8} << 10;
  const int64_t most = difficulty <= 1 ? 4 : difficulty == 2 ? 6 : difficulty == 3 ? 8 : 12;
  g.name = name;
  g.alignment = 16;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    g.tensors[g.inputs[i]].name = i == 0 ? "in" : "in" + std::to_string(i + 1);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    Op& op = g.ops[o];
    op.name = std::string(1, kOpLetters[o]);
    for (size_t k = 0; k < op.outputs.size(); ++k)
      g.tensors[op.outputs[k]].name = k == 0 ? op.name : op.name + std::to_string(k + 1);
    op.scratch_bytes = difficulty >= 4 && op.scratch_bytes > 0 ? unit * rng.between(1, 2) : 0;
  }
  for (Tensor& t : g.tensors) {
    t.shape.clear();
    t.dtype.reset();
    const int64_t multiple = rng.between(1, most);
    t.bytes = unit * multiple;
  }
  validate_graph(g);
  return g;
}

}  // namespace

JsonOut exercise_detail::names_json(const Graph& g, const Schedule& order) {
  JsonOut out = JsonOut::array();
  for (OpId o : order) out.push_back(g.ops[o].name);
  return out;
}

namespace {

// ---- one draft per kind --------------------------------------------------------------------------

std::optional<Draft> draft_predict_peak(const Graph& g, int difficulty, SeededRng& rng) {
  const Schedule order = difficulty == 1 ? g.file_order() : draw_order(g, rng);
  const LiveAnalysis live = analyze_lifetimes(g, order);
  Draft d;
  d.params["order"] = names_json(g, order);
  d.question = "The ops run in the order " + order_names(g, order) +
               ". What is the peak of live bytes: the most memory live at one step, counting every tensor from "
               "the step its producer runs to the step its last reader runs?";
  d.hints = {"During an op, its inputs, its outputs and its scratch buffer are all live.",
             "A tensor a later op still reads stays live, even while other ops run.",
             "Graph outputs stay live until the end of the run."};
  d.reference_answer = format_bytes(live.peak_bytes);
  return d;
}

std::optional<Draft> draft_find_order(const Graph& g, int difficulty) {
  ScheduleSearch search(g);
  for (int i = 0; i < kSearchSteps && !search.done(); ++i) search.step(kSearchStatesPerStep);
  if (!search.done()) return std::nullopt;
  const Bytes best = search.best_peak();
  const Bytes file_peak = analyze_lifetimes(g, g.file_order()).peak_bytes;
  if (best >= file_peak) return std::nullopt;  // the file order already wins
  if (difficulty >= 3 && !search.proven_optimal()) return std::nullopt;
  // Easy levels leave half of the gap to the file order's peak; from level 3 only the best will do.
  Bytes bound = best;
  if (difficulty <= 2) bound += (file_peak - best) / 2 / 1024 * 1024;
  Draft d;
  d.params["peak_at_most"] = bound;
  d.question = "Find an order of the ops whose peak of live bytes is at most " + format_bytes(bound) +
               (difficulty >= 3 ? " (no order does better)." : ".") + " The file order peaks at " +
               format_bytes(file_peak) + ".";
  d.hints = {"Finish a branch before starting the next one, so its tensors can be freed early.",
             "Run the branch that ends in a small tensor while the big ones are not yet made.",
             "Look at the step where the file order peaks: which tensor could be freed before it?"};
  d.reference_answer = order_names(g, search.best_so_far());
  return d;
}

bool overlaps(const LayoutBuffer& a, const LayoutBuffer& b) { return a.first <= b.last && b.first <= a.last; }

std::optional<Draft> draft_place_tensor(const Graph& g, int difficulty, SeededRng& rng) {
  const Schedule order = difficulty <= 2 ? g.file_order() : draw_order(g, rng);
  const GraphPlan made = plan_graph(g, order, {.planner = "tflm-greedy"});
  const LiveAnalysis& live = made.live;
  const ArenaPlan& plan = made.plan;
  ExercisePlacement p;
  p.problem = made.problem;
  // Candidates: tensors that share their lifetime with others, so placing them takes a look.
  std::vector<int> candidates;
  for (size_t i = 0; i < live.buffers.size(); ++i) {
    if (live.buffers[i].kind != BufferKind::kTensor || live.buffers[i].tensors.size() != 1) continue;
    int company = 0;
    for (size_t k = 0; k < live.buffers.size(); ++k) company += k != i && overlaps(p.problem.buffers[i], p.problem.buffers[k]);
    if (company >= (difficulty >= 3 ? 2 : 1)) candidates.push_back(static_cast<int>(i));
  }
  if (candidates.empty()) return std::nullopt;
  p.placed = rng.pick(candidates);
  p.offsets = plan.offsets;
  Bytes others_end = 0, total = 0;
  for (size_t i = 0; i < p.problem.buffers.size(); ++i) {
    total += p.problem.buffers[i].size;
    if (static_cast<int>(i) != p.placed) others_end = std::max(others_end, p.offsets[i] + p.problem.buffers[i].size);
  }
  const auto fit = lowest_fit(p, total);
  if (!fit) return std::nullopt;
  const LayoutBuffer& b = p.problem.buffers[p.placed];
  // From level 3 the answer is a hole between placed buffers, not the bottom or the top.
  if (difficulty >= 3 && (*fit == 0 || *fit + b.size > others_end)) return std::nullopt;
  const Bytes limit = std::max(others_end, *fit + b.size);
  Draft d;
  d.params["order"] = names_json(g, order);
  d.params["tensor"] = g.tensors[live.buffers[p.placed].tensors[0]].name;
  d.params["arena_at_most"] = limit;
  JsonOut fixed = JsonOut::object();
  for (size_t i = 0; i < p.problem.buffers.size(); ++i)
    if (static_cast<int>(i) != p.placed) fixed[p.problem.buffers[i].name] = p.offsets[i];
  d.params["fixed"] = std::move(fixed);
  // Every size in bytes, as the table of fixed buffers prints them: one unit for all.
  d.question = "Every other buffer already has its offset. At which offset can " + b.name + " (" +
               with_commas(b.size) + " B) go so that no two buffers live at the same step share a byte and the arena "
               "stays within " + with_commas(limit) + " B?";
  d.hints = {"Only the buffers live at some step where " + b.name + " is live matter.",
             "List their offset ranges during " + b.name + "'s steps and look for a gap of " + format_bytes(b.size) +
                 ".",
             "Offsets must be multiples of " + std::to_string(b.alignment) + " bytes."};
  d.reference_answer = format_bytes(*fit);
  return d;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

int64_t misses_under(const CacheConfig& config, const std::vector<Block>& blocks) {
  CacheLab lab(config, RequestStream::list(blocks));
  lab.run(static_cast<int64_t>(blocks.size()));
  return lab.misses();
}

std::optional<Draft> draft_cache_misses(int difficulty, SeededRng& rng) {
  CacheConfig config;
  int64_t requests = 0, distinct = 0;
  switch (difficulty) {
    case 1: config.lines = static_cast<int>(rng.between(2, 3)); requests = 8; break;
    case 2: config.lines = 3; requests = 10; break;
    case 3: config.lines = static_cast<int>(rng.between(3, 4)); requests = 12; break;
    case 4: config.lines = 4; requests = 14; break;
    default: config.lines = static_cast<int>(2 * rng.between(2, 4)); requests = 18; break;
  }
  distinct = config.lines + (difficulty <= 1 ? 1 : difficulty <= 3 ? 2 : 3);
  const ReplacementPolicy policies[] = {ReplacementPolicy::kLru, ReplacementPolicy::kFifo, ReplacementPolicy::kOpt};
  const int64_t policy_count = difficulty == 1 ? 1 : difficulty == 2 ? 2 : 3;
  config.policy = policies[rng.below(policy_count)];
  if (difficulty == 4 && rng.chance(50)) config.ways = 2;
  if (difficulty >= 5) config.ways = 2;
  std::vector<Block> blocks;
  for (int64_t k = 0; k < requests; ++k) {
    // Reuse of a recent block half of the time: the pattern caches are built for.
    const bool reuse = k >= 2 && rng.chance(45);
    if (reuse) {
      const int64_t back = rng.between(1, std::min<int64_t>(k, 4));
      blocks.push_back(blocks[static_cast<size_t>(k - back)]);
    } else {
      blocks.push_back(rng.below(distinct));
    }
  }
  const int64_t misses = misses_under(config, blocks);
  std::vector<Block> seen = blocks;
  std::sort(seen.begin(), seen.end());
  const int64_t cold = std::unique(seen.begin(), seen.end()) - seen.begin();
  if (misses == requests) return std::nullopt;  // nothing ever hits
  if (misses == cold) return std::nullopt;      // no eviction ever costs a miss
  if (difficulty >= 3) {  // the policy must matter: another policy gives another count
    bool differs = false;
    for (ReplacementPolicy other : policies) {
      CacheConfig c = config;
      c.policy = other;
      differs = differs || misses_under(c, blocks) != misses;
    }
    if (!differs) return std::nullopt;
  }
  Draft d;
  d.params["capacity"] = config.lines;
  d.params["ways"] = config.ways;
  d.params["policy"] = policy_name(config.policy);
  d.params["blocks"] = blocks;
  std::string stream;
  for (Block b : blocks) stream += (stream.empty() ? "" : " ") + std::to_string(b);
  const std::string organisation =
      config.ways ? std::to_string(config.ways) + "-way set-associative (block b goes to set b mod " +
                        std::to_string(config.lines / config.ways) + ")"
                  : "fully associative";
  d.question = "A cache of " + std::to_string(config.lines) + " lines, " + organisation + ", with " +
               upper(policy_name(config.policy)) + " replacement, starts empty and sees the blocks " + stream +
               ". How many of the " + std::to_string(requests) + " requests miss?";
  d.hints = {"The first request for each block always misses.",
             config.policy == ReplacementPolicy::kLru    ? std::string("LRU evicts the line used least recently.")
             : config.policy == ReplacementPolicy::kFifo ? std::string("FIFO evicts the line that came in first, however often it was hit since.")
                                                         : std::string("OPT evicts the line whose next use is furthest in the future (or never)."),
             "Write the cache contents after every request."};
  d.reference_answer = std::to_string(misses);
  return d;
}

std::optional<Draft> draft(const GeneratorSpec& spec, SeededRng& rng, const std::string& name, JsonOut& graph_json) {
  if (spec.kind == ExerciseKind::kCacheMisses) return draft_cache_misses(spec.difficulty, rng);
  Graph shape = draw_shape(spec.difficulty, rng);
  const Graph g = dress_graph(std::move(shape), spec.difficulty, rng, name);
  graph_json = JsonOut::parse(graph_to_json(g));
  switch (spec.kind) {
    case ExerciseKind::kPredictPeak: return draft_predict_peak(g, spec.difficulty, rng);
    case ExerciseKind::kFindOrder: return draft_find_order(g, spec.difficulty);
    case ExerciseKind::kPlaceTensor: return draft_place_tensor(g, spec.difficulty, rng);
    case ExerciseKind::kFitBudget: return draft_fit_budget(g, spec.difficulty, rng);
    case ExerciseKind::kBrokenRule: return draft_broken_rule(g, spec.difficulty, rng);
    case ExerciseKind::kCacheMisses: break;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<ExerciseKind>& generated_kinds() {
  static const std::vector<ExerciseKind> kinds = [] {
    std::vector<ExerciseKind> all;
    for (const KindInfo& k : kKinds) all.push_back(k.kind);
    return all;
  }();
  return kinds;
}

ExerciseKind exercise_kind_from_name(std::string_view name, const std::string& where) {
  for (const KindInfo& k : kKinds)
    if (name == k.cli || name == k.name) return k.kind;
  throw InputError(where, "unknown kind \"" + std::string(name) + "\"; expected " + kind_names(&KindInfo::cli));
}

const char* generator_kind_name(ExerciseKind kind) { return spelling(kind).cli; }

uint64_t stable_hash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hash_hex(uint64_t h) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = kDigits[h & 15];
  return out;
}

GeneratedExercise generate_exercise(const GeneratorSpec& spec) {
  if (spec.difficulty < kMinDifficulty || spec.difficulty > kMaxDifficulty)
    throw InputError("difficulty", "expected " + std::to_string(kMinDifficulty) + ".." + std::to_string(kMaxDifficulty) +
                                       ", found " + std::to_string(spec.difficulty));
  if (spec.seed > kMaxExerciseSeed) throw InputError("seed", "expected 0..2^53-1 (9007199254740991)");
  const std::string kind = spelling(spec.kind).cli;
  std::string name = "gen_" + kind + "_d" + std::to_string(spec.difficulty) + "_s" + std::to_string(spec.seed);
  std::replace(name.begin(), name.end(), '-', '_');
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    SeededRng rng(derive_seed(spec.seed, kind + "/" + std::to_string(spec.difficulty) + "/" + std::to_string(attempt)));
    JsonOut graph = nullptr;
    const std::optional<Draft> d = draft(spec, rng, name, graph);
    if (!d) continue;
    JsonOut doc = {{"format", "arenaplan-exercise"},
                   {"version", 1},
                   {"name", name},
                   {"title", std::string(spelling(spec.kind).title) + " (level " +
                                 std::to_string(spec.difficulty) + ")"},
                   {"question", d->question},
                   {"kind", exercise_kind_name(spec.kind)},
                   {"hints", d->hints},
                   {"points", 5 + 5 * spec.difficulty},
                   {"generator", {{"kind", kind}, {"difficulty", spec.difficulty}, {"seed", spec.seed}}}};
    if (!graph.is_null()) doc["graph"] = std::move(graph);
    for (auto it = d->params.begin(); it != d->params.end(); ++it) doc[it.key()] = it.value();
    GeneratedExercise out;
    out.json = doc.dump(2) + "\n";
    try {
      out.exercise = parse_exercise_json(out.json);
    } catch (const InputError& e) {
      throw std::logic_error("generated exercise " + name + " does not parse: " + e.what());
    }
    out.reference_answer = d->reference_answer;
    const AnswerCheck check = check_answer(out.exercise, out.reference_answer);
    if (!check.correct)
      throw std::logic_error("generated exercise " + name + ": the reference answer " + out.reference_answer +
                             " is refused: " + check.feedback);
    return out;
  }
  throw std::logic_error("no non-trivial " + kind + " exercise after " + std::to_string(kMaxAttempts) + " draws from seed " +
                         std::to_string(spec.seed));
}

}  // namespace arenaplan
