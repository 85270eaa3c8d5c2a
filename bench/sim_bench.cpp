// Simulator speed: simulated MAC/s of the conv kernels (goal: >= 50 M MAC/s natively, Wasm within
// 2x), and what the safety oracles cost relative to a plain run, measured in the same process.
// Usage: bench_sim_bench [seconds per measurement, default 0.5]
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "bench/bench_util.h"
#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/sim/sim.h"

using namespace arenaplan;

namespace {

// Runs `fn` repeatedly for at least `seconds`; returns seconds per call.
double time_per_call(double seconds, const std::function<void()>& fn) {
  fn();  // warm up
  int64_t calls = 0;
  const double start = bench::now();
  double elapsed = 0;
  do {
    fn();
    ++calls;
    elapsed = bench::now() - start;
  } while (elapsed < seconds);
  return elapsed / static_cast<double>(calls);
}

std::vector<int8_t> random_i8(size_t n, std::mt19937& rng) {
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(rng());
  return v;
}

struct ConvCase {
  const char* name;
  sim::Window2d g;
  bool depthwise;
};

sim::Window2d window(int64_t h, int64_t w, int64_t c, int64_t k, int64_t oc, int64_t stride, int64_t pad) {
  sim::Window2d g;
  g.h = h, g.w = w, g.c = c, g.kh = g.kw = k, g.oc = oc, g.stride_h = g.stride_w = stride, g.pad_h = g.pad_w = pad;
  g.oh = sim::window_out_dim(h, k, stride, pad);
  g.ow = sim::window_out_dim(w, k, stride, pad);
  g.shift = sim::default_shift(k * k * c);
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.5;
  std::mt19937 rng(1);
  std::printf("simulated conv kernels (int8, int32 accumulation), %.2f s per measurement\n", seconds);
  const ConvCase cases[] = {
      {"conv2d 3x3   32x32x16 -> 32", window(32, 32, 16, 3, 32, 1, 1), false},
      {"conv2d 1x1   16x16x64 -> 64", window(16, 16, 64, 1, 64, 1, 0), false},
      {"conv2d 3x3/2 48x48x3  -> 16", window(48, 48, 3, 3, 16, 2, 1), false},
      {"depthwise 3x3 32x32x64", window(32, 32, 64, 3, 64, 1, 1), true},
  };
  double min_conv = 1e30;
  for (const ConvCase& c : cases) {
    const sim::Window2d& g = c.g;
    auto x = random_i8(static_cast<size_t>(g.n * g.h * g.w * g.c), rng);
    auto w = random_i8(static_cast<size_t>((c.depthwise ? 1 : g.oc) * g.kh * g.kw * g.c), rng);
    std::vector<int32_t> bias(static_cast<size_t>(g.oc), 100);
    std::vector<int8_t> y(static_cast<size_t>(g.n * g.oh * g.ow * g.oc));
    const int64_t macs = c.depthwise ? g.n * g.oh * g.ow * g.c * g.kh * g.kw : g.macs();
    double t = time_per_call(seconds, [&] {
      if (c.depthwise) sim::depthwise_conv2d_int8(g, x.data(), w.data(), bias.data(), y.data());
      else sim::conv2d_int8(g, x.data(), w.data(), bias.data(), y.data());
    });
    const double rate = static_cast<double>(macs) / t / 1e6;
    if (!c.depthwise) min_conv = std::min(min_conv, rate);
    std::printf("  %-30s %9lld MACs  %8.1f M MAC/s\n", c.name, static_cast<long long>(macs), rate);
  }
  std::printf("goal >= 50 M MAC/s for conv2d: %s (slowest conv2d case %.1f M MAC/s)\n\n",
              min_conv >= 50 ? "met" : "NOT met", min_conv);

  std::printf("whole graphs: one inference, plain run vs all oracles (snapshot + compare per op, guards)\n");
  for (const char* name : {"tiny_cnn", "batch_contract", "two_branch", "inception_cell"}) {
    const std::string* text = find_example(name);
    if (!text) continue;
    Graph g = parse_graph_json(*text);
    LiveAnalysis live = analyze_lifetimes(g, g.file_order());
    sim::ArenaLayout layout = sim::plan_layout(g, live, {.planner = "best"});
    // Construction (arena, flash, binding) is outside the timing: many runs of one simulator.
    auto run = [&](bool oracles) {
      int runs = 4;
      for (;;) {
        sim::SimOptions o;
        o.oracles = oracles;
        o.runs = runs;
        sim::ArenaSimulator s(g, live, layout, o);
        const double start = bench::now();
        s.run_all();
        const double t = bench::now() - start;
        if (t >= seconds || runs >= (1 << 20)) return t / runs;
        runs *= 4;
      }
    };
    run(false);  // warm-up (caches; a JIT's tiers under Wasm) before either measurement
    const double plain = run(false), checked = run(true);
    sim::ArenaSimulator probe(g, live, layout, {});
    const double macs = static_cast<double>(probe.macs_per_inference());
    std::printf("  %-16s arena %7lld B  plain %9.1f us  with oracles %9.1f us  (x%.2f)", name,
                static_cast<long long>(layout.arena_bytes), plain * 1e6, checked * 1e6, checked / plain);
    if (macs > 0) std::printf("  %7.1f M MAC/s plain", macs / plain / 1e6);
    std::printf("\n");
  }
  return 0;
}
