// The text views of schedule results (`arenaplan schedule` without --json): every order with its
// peak, and the chosen order beside the file order step by step (the article's table).
#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>

#include "core/schedule/schedule_json.h"

namespace arenaplan {
namespace {

// Pads or cuts (with "...") to exactly `width` characters.
std::string fit(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s + std::string(width - s.size(), ' ');
}

// The buffers live at each step in ascending order, visited step by step in O(log buffers) per
// start and end: a view that shows only the first few names of each live set never pays for the
// whole set (LiveSweep hands over every live set, O(live) per step; with thousands of graph
// outputs live at every step that made the view quadratic).
class LiveNames {
 public:
  explicit LiveNames(const LiveAnalysis& a) : a_(a), by_first_(a.buffers.size()), by_last_(a.buffers.size()) {
    for (size_t b = 0; b < a.buffers.size(); ++b) by_first_[b] = by_last_[b] = static_cast<int>(b);
    std::stable_sort(by_first_.begin(), by_first_.end(), [&](int x, int y) { return a.buffers[x].first < a.buffers[y].first; });
    std::stable_sort(by_last_.begin(), by_last_.end(), [&](int x, int y) { return a.buffers[x].last < a.buffers[y].last; });
  }

  // The names live at `step` (>= the previous call's), cut to `width` characters with the count
  // of those left out.
  std::string at(Step step, size_t width) {
    for (; started_ < by_first_.size() && a_.buffers[by_first_[started_]].first <= step; ++started_)
      if (a_.buffers[by_first_[started_]].last >= step) live_.insert(by_first_[started_]);
    for (; ended_ < by_last_.size() && a_.buffers[by_last_[ended_]].last < step; ++ended_) live_.erase(by_last_[ended_]);
    std::string s;
    size_t shown = 0;
    for (int b : live_) {
      const std::string& name = a_.buffers[b].name;
      const size_t left = live_.size() - shown;
      const std::string more = " ... +" + std::to_string(left);
      if (s.size() + 1 + name.size() + (left > 1 ? more.size() : 0) > width)
        return fit(s.empty() ? "+" + std::to_string(live_.size()) + " buffers" : s + more, width);
      s += (s.empty() ? "" : " ") + name;
      ++shown;
    }
    return fit(s, width);
  }

 private:
  const LiveAnalysis& a_;
  std::vector<int> by_first_, by_last_;
  size_t started_ = 0, ended_ = 0;
  std::set<int> live_;
};

// Per step, each order's op, live bytes and live set.
void side_by_side(std::ostream& out, const Graph& g, const LiveAnalysis& base, const LiveAnalysis& best,
                  const std::string& best_title) {
  const size_t set_width = 34;
  out << "      " << fit("baseline: file order", 16 + set_width + 4) << best_title << "\n";
  out << "step  " << fit("op", 10) << std::setw(10) << "live" << "  " << fit("live set", set_width) << "  "
      << fit("op", 10) << std::setw(10) << "live" << "  live set\n";
  LiveNames base_names(base), best_names(best);  // live sets step by step, never all held at once
  for (size_t s = 0; s < base.steps.size(); ++s) {
    auto cell = [&](const LiveAnalysis& a) {
      std::ostringstream c;
      c << fit(g.ops[a.steps[s].op].name, 10) << std::setw(10) << format_bytes(a.steps[s].live_bytes)
        << (static_cast<Step>(s) == a.peak_step ? "*" : " ") << " ";
      return c.str();
    };
    std::string best_set = best_names.at(static_cast<Step>(s), 2 * set_width);
    best_set.erase(best_set.find_last_not_of(' ') + 1);  // the last column: no padding
    out << std::setw(4) << s << "  " << cell(base) << base_names.at(static_cast<Step>(s), set_width) << "  " << cell(best)
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
      // The exact search stops before a growth that would pass the cap, so what it held can be
      // well below the cap when it stopped.
      << (r.memory_cap_hit ? " (the exact search stopped: its next growth would pass the cap)" : "") << "\n";
  if (!r.explanation.empty()) out << "\n" << r.explanation;
  return out.str();
}

}  // namespace arenaplan
