// The text views of schedule results (`arenaplan schedule` without --json): every order with its
// peak, and the chosen order beside the file order step by step (the article's table).
#include <iomanip>
#include <sstream>

#include "core/schedule/schedule_json.h"

namespace arenaplan {
namespace {

// Pads or cuts (with "...") to exactly `width` characters.
std::string fit(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s + std::string(width - s.size(), ' ');
}

// The names of the buffers live at `step`, cut to `width` characters with the count of those left
// out: a graph with thousands of outputs has thousands live at every step, and joining them all
// per step made the view quadratic (and the text gigabytes).
std::string live_names(const LiveAnalysis& a, LiveSweep& sweep, size_t step, size_t width) {
  const std::vector<int>& live = sweep.at(static_cast<Step>(step));
  std::string s;
  for (size_t i = 0; i < live.size(); ++i) {
    const std::string& name = a.buffers[live[i]].name;
    const std::string more = " ... +" + std::to_string(live.size() - i);
    if (s.size() + 1 + name.size() + (i + 1 < live.size() ? more.size() : 0) > width) {
      // Cut here: what fits so far, then how many are left.
      return fit(s.empty() ? "+" + std::to_string(live.size()) + " buffers" : s + more, width);
    }
    s += (s.empty() ? "" : " ") + name;
  }
  return fit(s, width);
}

// Per step, each order's op, live bytes and live set.
void side_by_side(std::ostream& out, const Graph& g, const LiveAnalysis& base, const LiveAnalysis& best,
                  const std::string& best_title) {
  const size_t set_width = 34;
  out << "      " << fit("baseline: file order", 16 + set_width + 4) << best_title << "\n";
  out << "step  " << fit("op", 10) << std::setw(10) << "live" << "  " << fit("live set", set_width) << "  "
      << fit("op", 10) << std::setw(10) << "live" << "  live set\n";
  LiveSweep base_sweep(base), best_sweep(best);  // live sets step by step, never all held at once
  for (size_t s = 0; s < base.steps.size(); ++s) {
    auto cell = [&](const LiveAnalysis& a) {
      std::ostringstream c;
      c << fit(g.ops[a.steps[s].op].name, 10) << std::setw(10) << format_bytes(a.steps[s].live_bytes)
        << (static_cast<Step>(s) == a.peak_step ? "*" : " ") << " ";
      return c.str();
    };
    std::string best_set = live_names(best, best_sweep, s, 2 * set_width);
    best_set.erase(best_set.find_last_not_of(' ') + 1);  // the last column: no padding
    out << std::setw(4) << s << "  " << cell(base) << live_names(base, base_sweep, s, set_width) << "  " << cell(best)
        << best_set << "\n";
  }
  out << "peak  " << std::string(10, ' ') << std::setw(10) << format_bytes(base.peak_bytes) << "  "
      << std::string(set_width, ' ') << "  " << std::string(10, ' ') << std::setw(10) << format_bytes(best.peak_bytes)
      << "   (* = peak step)\n";
}

}  // namespace

std::string enumeration_text(const Graph& g, const Enumeration& e) {
  std::ostringstream out;
  out << "graph " << g.name << ": " << e.count.text() << " topological orders"
      << (e.count.exact() ? "" : " (count not exact)") << "\n\n";
  for (const OrderPeak& o : e.orders)
    out << "  " << std::left << std::setw(40) << order_names(g, o.order, "-") << std::right << std::setw(12)
        << format_bytes(o.peak_bytes) << "\n";
  if (static_cast<int64_t>(e.orders.size()) < e.scanned)
    out << "  ... " << e.scanned - static_cast<int64_t>(e.orders.size()) << " more scanned, not listed\n";
  out << "\npeak over " << (e.scanned_all ? "all " : "the first ") << e.scanned << " orders: min "
      << format_bytes(e.min_peak_bytes) << ", max " << format_bytes(e.max_peak_bytes) << "\n";
  return out.str();
}

std::string schedule_text(const Graph& g, const ScheduleResult& r) {
  const LiveAnalysis best = analyze_lifetimes(g, r.order);
  // The baseline is the file order, or the nearest valid order when the file's is not one.
  Schedule base_order = g.file_order();
  try {
    check_order(g, base_order);
  } catch (const InputError&) {
    base_order = topological_order(g);
  }
  const LiveAnalysis base = analyze_lifetimes(g, base_order);
  std::ostringstream out;
  out << "graph " << g.name << ", " << g.ops.size() << " ops\n\n";
  side_by_side(out, g, base, best, "chosen: " + r.method);
  const double saved = r.baseline_peak_bytes > 0
                           ? 100.0 * static_cast<double>(r.baseline_peak_bytes - r.peak_bytes) / r.baseline_peak_bytes
                           : 0.0;
  out << "\nchosen order " << order_names(g, r.order, "-") << "\npeak " << format_bytes(r.peak_bytes) << " ("
      << r.peak_bytes << " B) vs baseline " << format_bytes(r.baseline_peak_bytes) << ": " << std::fixed
      << std::setprecision(2) << saved << " % less\n"
      << "lower bound " << format_bytes(r.lower_bound_bytes) << "; "
      << (r.proven_optimal ? "proven optimal"
                           : "not proven optimal (gap " + format_bytes(r.peak_bytes - r.lower_bound_bytes) + ")")
      << "\nsearch: " << r.states_explored << " states, " << std::setprecision(3) << r.seconds << " s, memory "
      << (r.memory_bytes >> 10) << " KiB of a " << (r.memory_cap_bytes >> 20) << " MiB cap"
      << (r.memory_cap_hit ? " (cap reached)" : "") << "\n";
  if (!r.explanation.empty()) out << "\n" << r.explanation;
  return out.str();
}

}  // namespace arenaplan
