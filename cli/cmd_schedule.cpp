// arenaplan schedule: every operator order with its peak (--enumerate), or the order with the
// smallest peak, with the baseline side by side and a lower bound.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_json.h"

namespace arenaplan::cli {
namespace {

std::string live_names(const LiveAnalysis& a, LiveSweep& sweep, size_t step) {
  std::string s;
  for (int b : sweep.at(static_cast<Step>(step))) s += (s.empty() ? "" : " ") + a.buffers[b].name;
  return s;
}

std::string fit(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s + std::string(width - s.size(), ' ');
}

int run_enumerate(const Graph& g, const Args& args) {
  const int64_t limit = args.int_option("limit", 1000, 0, int64_t{1} << 40);
  Enumeration e = enumerate_orders(g, limit);
  if (args.flag("json")) {
    std::cout << enumeration_json(g, e).dump(2) << "\n";
    return 0;
  }
  std::cout << "graph " << g.name << ": " << e.count.text() << " topological orders"
            << (e.count.exact() ? "" : " (count not exact)") << "\n\n";
  for (const OrderPeak& o : e.orders)
    std::cout << "  " << std::left << std::setw(40) << order_names(g, o.order, "-") << std::right
              << std::setw(12) << format_bytes(o.peak_bytes) << "\n";
  if (static_cast<int64_t>(e.orders.size()) < e.scanned)
    std::cout << "  ... " << e.scanned - static_cast<int64_t>(e.orders.size()) << " more scanned, not listed\n";
  std::cout << "\npeak over " << (e.scanned_all ? "all " : "the first ") << e.scanned << " orders: min "
            << format_bytes(e.min_peak_bytes) << ", max " << format_bytes(e.max_peak_bytes) << "\n";
  return 0;
}

// The article's side-by-side table: per step, each order's op, live bytes and live set.
void print_side_by_side(const Graph& g, const LiveAnalysis& base, const LiveAnalysis& best,
                        const std::string& best_title) {
  const size_t set_width = 34;
  std::cout << "      " << fit("baseline: file order", 16 + set_width + 4) << best_title << "\n";
  std::cout << "step  " << fit("op", 10) << std::setw(10) << "live" << "  " << fit("live set", set_width) << "  "
            << fit("op", 10) << std::setw(10) << "live" << "  live set\n";
  LiveSweep base_sweep(base), best_sweep(best);
  for (size_t s = 0; s < base.steps.size(); ++s) {
    auto cell = [&](const LiveAnalysis& a) {
      std::ostringstream out;
      out << fit(g.ops[a.steps[s].op].name, 10) << std::setw(10) << format_bytes(a.steps[s].live_bytes)
          << (static_cast<Step>(s) == a.peak_step ? "*" : " ") << " ";
      return out.str();
    };
    std::cout << std::setw(4) << s << "  " << cell(base) << fit(live_names(base, base_sweep, s), set_width) << "  "
              << cell(best) << live_names(best, best_sweep, s) << "\n";
  }
  std::cout << "peak  " << std::string(10, ' ') << std::setw(10) << format_bytes(base.peak_bytes) << "  "
            << std::string(set_width, ' ') << "  " << std::string(10, ' ') << std::setw(10)
            << format_bytes(best.peak_bytes) << "   (* = peak step)\n";
}

int run_optimize(const Graph& g, const Args& args) {
  const double limit = args.double_option("time-limit", 10.0, 0.0, 1e6);
  ScheduleOptions options;
  options.memory_cap_bytes = args.int_option("memory-cap-mib", options.memory_cap_bytes >> 20, 1, 1 << 20) << 20;
  ScheduleResult r = optimize_schedule(g, limit, options);
  if (args.flag("json")) {
    std::cout << schedule_json(g, r).dump(2) << "\n";
    return 0;
  }
  LiveAnalysis best = analyze_lifetimes(g, r.order);
  // The baseline is the file order, or the nearest valid order when the file's is not one.
  Schedule base_order = g.file_order();
  try {
    check_order(g, base_order);
  } catch (const InputError&) {
    base_order = topological_order(g);
  }
  LiveAnalysis base = analyze_lifetimes(g, base_order);
  std::cout << "graph " << g.name << ", " << g.ops.size() << " ops\n\n";
  print_side_by_side(g, base, best, "chosen: " + r.method);
  const double saved = r.baseline_peak_bytes > 0
                           ? 100.0 * static_cast<double>(r.baseline_peak_bytes - r.peak_bytes) / r.baseline_peak_bytes
                           : 0.0;
  std::cout << "\nchosen order " << order_names(g, r.order, "-") << "\npeak " << format_bytes(r.peak_bytes) << " ("
            << r.peak_bytes << " B) vs baseline " << format_bytes(r.baseline_peak_bytes) << ": " << std::fixed
            << std::setprecision(2) << saved << " % less\n"
            << "lower bound " << format_bytes(r.lower_bound_bytes) << "; "
            << (r.proven_optimal ? "proven optimal"
                                 : "not proven optimal (gap " + format_bytes(r.peak_bytes - r.lower_bound_bytes) + ")")
            << "\nsearch: " << r.states_explored << " states, " << std::setprecision(3) << r.seconds << " s, memory "
            << (r.memory_bytes >> 10) << " KiB of a " << (r.memory_cap_bytes >> 20) << " MiB cap"
            << (r.memory_cap_hit ? " (cap reached)" : "") << "\n";
  if (!r.explanation.empty()) std::cout << "\n" << r.explanation;
  return 0;
}

int run_schedule(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  if (args.flag("enumerate")) return run_enumerate(g, args);
  if (args.option("limit")) throw InputError("--limit", "only applies with --enumerate");
  return run_optimize(g, args);
}

}  // namespace

ARENAPLAN_COMMAND("schedule",
                  "schedule GRAPH [--enumerate [--limit N]] [--time-limit S] [--memory-cap-mib M] [--json]",
                  {"json", "enumerate"}, {"limit", "time-limit", "memory-cap-mib"}, run_schedule);

}  // namespace arenaplan::cli
