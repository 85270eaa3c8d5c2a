// How far the cycle model's latency is from measured boards: every row of
// bench/data/mlperf_tiny_latency.json (MLPerf Tiny, TFLM with CMSIS-NN or reference kernels) run
// through `simulate` with the profile of the row's core and kernel library at the row's clock, the
// four MLPerf Tiny models as graphs (bench/data/mlperf_tiny/). Prints predicted vs measured with
// the error for every row, then the median and worst absolute error of the held-out rows and of
// the fitted rows: the held-out figures are each profile's error band in core/sim/sim_cycles.cpp.
//
//   bench_latency_bench          the table and the summary
//   bench_latency_bench --fit    also each profile's cycles per MAC solved from its fit rows
//                                (what sim_cycles.cpp holds), with the rest of the model fixed
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/graph/graph_json.h"
#include "core/sim/sim.h"

using namespace arenaplan;

namespace {

struct Row {
  std::string board, core, kernels, benchmark, role, version;
  double clock_mhz = 0, measured_ms = 0;
};

// The MACs of one run by the groups a fit can tell apart from the four models: 3x3 convs (IC,
// the first layers), the depthwise-separable pair (KWS and VWW run them together, so no row
// separates depthwise from 1x1), and fully connected (AD).
struct Split {
  double conv = 0, separable = 0, fc = 0, rest = 0;  // rest: cycles that are not MAC costs
};

Split split(const sim::SimReport& r) {
  Split s;
  double mac_cycles = 0;
  for (const sim::OpStats& op : r.per_op) {
    const double m = static_cast<double>(op.macs);
    mac_cycles += r.profile.cycles_per_mac[static_cast<int>(op.cost_kind)] * m;
    switch (op.cost_kind) {
      case sim::CostKind::kDepthwise:
      case sim::CostKind::kPointwise: s.separable += m; break;
      case sim::CostKind::kFullyConnected:
      case sim::CostKind::kLstm: s.fc += m; break;
      default: s.conv += m; break;
    }
  }
  s.rest = static_cast<double>(r.cycles_total) - mac_cycles;
  return s;
}

double det3(const double a[3][3]) {
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const bool fit = argc > 1 && !std::strcmp(argv[1], "--fit");
  std::string text;
  if (!bench::read_text(bench::source_path("bench/data/mlperf_tiny_latency.json"), &text)) {
    std::fprintf(stderr, "cannot read bench/data/mlperf_tiny_latency.json\n");
    return 2;
  }
  const nlohmann::json fixture = nlohmann::json::parse(text);
  std::map<std::string, Graph> models;
  for (const auto& [name, what] : fixture["models"].items()) {
    const std::string path = what.get<std::string>().substr(0, what.get<std::string>().find(' '));
    std::string graph;
    if (!bench::read_text(bench::source_path(path), &graph)) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    models[name] = parse_graph_json(graph);
  }

  std::printf("%-24s %-11s %-9s %-5s %-8s %10s %10s %8s\n", "board", "core", "kernels", "bench", "role", "measured",
              "predicted", "error");
  std::map<std::string, std::vector<double>> errors;  // role -> |relative error|
  std::map<std::string, std::vector<std::pair<Row, Split>>> fit_rows;  // profile -> its fit rows
  for (const auto& j : fixture["rows"]) {
    Row row{j["board"], j["core"], j["kernels"], j["benchmark"], j["role"], j["version"], j["clock_mhz"],
            j["measured_ms"]};
    const sim::McuProfile* profile = sim::profile_for_core(row.core, row.kernels);
    if (!profile) {
      std::printf("%-24s no profile for %s/%s\n", row.board.c_str(), row.core.c_str(), row.kernels.c_str());
      continue;
    }
    sim::SimRequest req;
    req.plan.planner = "tflm-greedy";
    req.board_profile = *profile;
    req.clock_mhz = row.clock_mhz;
    const sim::SimReport r = sim::simulate(models.at(row.benchmark), req);
    const double predicted_ms = r.latency_us / 1000;
    const double error = predicted_ms / row.measured_ms - 1;
    errors[row.role].push_back(std::fabs(error));
    std::printf("%-24s %-11s %-9s %-5s %-8s %8.2f ms %8.2f ms %+7.1f %%\n", row.board.substr(0, 24).c_str(),
                row.core.c_str(), row.kernels.c_str(), row.benchmark.c_str(), row.role.c_str(), row.measured_ms,
                predicted_ms, 100 * error);
    if (row.role == "fit") fit_rows[profile->name].push_back({row, split(r)});
  }
  std::printf("\n");
  for (const auto& [role, e] : errors)
    std::printf("%-8s rows: %2zu, median |error| %5.1f %%, worst %5.1f %%\n", role.c_str(), e.size(), 100 * median(e),
                100 * *std::max_element(e.begin(), e.end()));

  if (!fit) return 0;
  // Three fit rows per profile, three unknowns: cycles = rest + conv x a + separable x b + fc x c.
  std::printf("\ncycles per MAC solved from the fit rows (conv, depthwise = 1x1, fully connected):\n");
  for (const auto& [name, rows] : fit_rows) {
    if (rows.size() != 3) {
      std::printf("  %-16s needs exactly 3 fit rows, has %zu\n", name.c_str(), rows.size());
      continue;
    }
    double a[3][3], y[3];
    for (int i = 0; i < 3; ++i) {
      const Split& s = rows[i].second;
      a[i][0] = s.conv;
      a[i][1] = s.separable;
      a[i][2] = s.fc;
      y[i] = rows[i].first.measured_ms * 1000 * rows[i].first.clock_mhz - s.rest;
    }
    const double d = det3(a);
    double x[3];
    for (int k = 0; k < 3; ++k) {
      double m[3][3];
      for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c) m[i][c] = c == k ? y[i] : a[i][c];
      x[k] = d != 0 ? det3(m) / d : NAN;
    }
    std::printf("  %-16s conv %6.3f  depthwise/1x1 %6.3f  fully connected %6.3f\n", name.c_str(), x[0], x[1], x[2]);
  }
  return 0;
}
