// The layout interface: building a problem from lifetimes, dispatching to a registered planner
// (planner_registry.cpp), verifying,
// and the views every front end shares (JSON, ASCII picture, per-category usage).
#include "core/layout/layout.h"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <set>
#include <stdexcept>

#include "core/layout/detail/planner_common.h"
#include "core/layout/planner.h"

namespace arenaplan {

LayoutProblem layout_problem(const Graph& g, const LiveAnalysis& live) {
  LayoutProblem p;
  p.buffers.reserve(live.buffers.size());
  for (const LiveBuffer& b : live.buffers) {
    LayoutBuffer lb;
    lb.name = b.name;
    lb.size = b.size;
    lb.alignment = std::max<Bytes>(g.alignment, 1);
    lb.first = b.first;
    lb.last = b.last;
    lb.category = b.category;
    p.buffers.push_back(std::move(lb));
  }
  return p;
}

Bytes layout_lower_bound(const LayoutProblem& problem) {
  planner::TimeAxis axis = planner::build_time_axis(problem);
  Bytes bound = 0;
  for (Bytes live : axis.live_bytes) bound = std::max(bound, live);
  for (const LayoutBuffer& b : problem.buffers)
    if (b.fixed_offset) bound = std::max(bound, *b.fixed_offset + b.size);
  return bound;
}

Bytes arena_extent(const LayoutProblem& problem, const std::vector<Bytes>& offsets) {
  Bytes top = 0;
  for (size_t i = 0; i < problem.buffers.size() && i < offsets.size(); ++i)
    top = std::max(top, offsets[i] + problem.buffers[i].size);
  return top;
}

ArenaPlan plan_arena(const LayoutProblem& problem, const PlanOptions& options) {
  const Planner* planner = find_planner(options.planner);
  if (!planner)
    throw InputError("planner", "unknown planner \"" + options.planner + "\" (expected " +
                                    planner_list_text(", ", " or ") + ")");
  planner::check_problem(problem);
  PlanRequest request;
  request.start = std::chrono::steady_clock::now();
  request.time_limit_seconds = options.time_limit_seconds;
  request.node_limit = options.node_limit;
  request.lower_bound_bytes = layout_lower_bound(problem);
  PlannerOutput out = planner->plan(problem, request);
  ArenaPlan plan;
  plan.planner = options.planner;
  plan.lower_bound_bytes = request.lower_bound_bytes;
  plan.offsets = std::move(out.offsets);
  plan.arena_bytes = out.arena_bytes;
  plan.proven_optimal = out.proven_optimal || plan.arena_bytes <= plan.lower_bound_bytes;
  if (plan.proven_optimal)
    plan.optimality = !out.optimality.empty() ? std::move(out.optimality) : "the arena equals the live-bytes lower bound";
  plan.detail = std::move(out.detail);
  VerifyResult check = verify_plan(problem, plan.offsets, plan.arena_bytes);
  if (!check.ok())
    throw std::logic_error(std::string("planner ") + options.planner + " produced a plan that breaks rule " +
                           verify_rule_name(check.rule) + ": " + check.message);
  plan.verified = true;
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - request.start).count();
  return plan;
}

std::vector<CategoryUsage> category_usage(const LayoutProblem& problem, const std::vector<Bytes>& offsets) {
  std::vector<CategoryUsage> out;
  for (ArenaCategory c : {ArenaCategory::kHead, ArenaCategory::kTemp, ArenaCategory::kTail}) {
    LayoutProblem part;
    Bytes lo = 0, hi = 0;
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      if (problem.buffers[i].category != c) continue;
      const Bytes o = i < offsets.size() ? offsets[i] : 0;
      lo = part.buffers.empty() ? o : std::min(lo, o);
      hi = part.buffers.empty() ? o + problem.buffers[i].size : std::max(hi, o + problem.buffers[i].size);
      part.buffers.push_back(problem.buffers[i]);
    }
    CategoryUsage u;
    u.category = c;
    u.buffers = static_cast<int>(part.buffers.size());
    u.peak_live_bytes = layout_lower_bound(part);
    u.span_bytes = hi - lo;
    out.push_back(u);
  }
  return out;
}

nlohmann::ordered_json layout_json(const LayoutProblem& problem, const ArenaPlan& plan) {
  nlohmann::ordered_json out;
  out["planner"] = plan.planner;
  out["arena_bytes"] = plan.arena_bytes;
  out["lower_bound_bytes"] = plan.lower_bound_bytes;
  out["proven_optimal"] = plan.proven_optimal;
  out["optimality"] = plan.proven_optimal ? nlohmann::ordered_json(plan.optimality) : nlohmann::ordered_json(nullptr);
  out["verified"] = plan.verified;
  nlohmann::ordered_json buffers = nlohmann::ordered_json::array();
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    buffers.push_back({{"name", b.name},
                       {"offset", i < plan.offsets.size() ? plan.offsets[i] : -1},
                       {"size", b.size},
                       {"first", b.first},
                       {"last", b.last},
                       {"category", category_name(b.category)}});
  }
  out["buffers"] = buffers;
  out["seconds"] = plan.seconds;
  nlohmann::ordered_json categories = nlohmann::ordered_json::array();
  for (const CategoryUsage& u : category_usage(problem, plan.offsets))
    categories.push_back({{"category", category_name(u.category)},
                          {"buffers", u.buffers},
                          {"peak_live_bytes", u.peak_live_bytes},
                          {"span_bytes", u.span_bytes}});
  out["categories"] = categories;
  out["detail"] = plan.detail;
  return out;
}

void write_layout_json(std::ostream& out, const LayoutProblem& problem, const ArenaPlan& plan) {
  // Scalars and strings go through nlohmann (its escaping, its shortest doubles); the structure is
  // written here with dump(2)'s indentation.
  using J = nlohmann::ordered_json;
  out << "{\n  \"planner\": " << J(plan.planner).dump() << ",\n  \"arena_bytes\": " << plan.arena_bytes
      << ",\n  \"lower_bound_bytes\": " << plan.lower_bound_bytes << ",\n  \"proven_optimal\": "
      << (plan.proven_optimal ? "true" : "false") << ",\n  \"optimality\": "
      << (plan.proven_optimal ? J(plan.optimality).dump() : "null") << ",\n  \"verified\": "
      << (plan.verified ? "true" : "false") << ",\n  \"buffers\": ";
  if (problem.buffers.empty()) out << "[]";
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    out << (i == 0 ? "[\n" : ",\n") << "    {\n      \"name\": " << J(b.name).dump()
        << ",\n      \"offset\": " << (i < plan.offsets.size() ? plan.offsets[i] : -1) << ",\n      \"size\": " << b.size
        << ",\n      \"first\": " << b.first << ",\n      \"last\": " << b.last << ",\n      \"category\": \""
        << category_name(b.category) << "\"\n    }";
  }
  if (!problem.buffers.empty()) out << "\n  ]";
  out << ",\n  \"seconds\": " << J(plan.seconds).dump() << ",\n  \"categories\": ";
  const std::vector<CategoryUsage> usage = category_usage(problem, plan.offsets);
  if (usage.empty()) out << "[]";
  for (size_t i = 0; i < usage.size(); ++i)
    out << (i == 0 ? "[\n" : ",\n") << "    {\n      \"category\": \"" << category_name(usage[i].category)
        << "\",\n      \"buffers\": " << usage[i].buffers << ",\n      \"peak_live_bytes\": " << usage[i].peak_live_bytes
        << ",\n      \"span_bytes\": " << usage[i].span_bytes << "\n    }";
  if (!usage.empty()) out << "\n  ]";
  out << ",\n  \"detail\": " << J(plan.detail).dump() << "\n}";
}

std::string plan_picture(const LayoutProblem& problem, const std::vector<Bytes>& offsets, int width, int max_rows) {
  static const char kSymbols[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const int nsym = static_cast<int>(sizeof(kSymbols) - 1);
  width = std::max(width, 8);
  max_rows = std::max(max_rows, 1);
  const Bytes arena = std::max<Bytes>(arena_extent(problem, offsets), 1);
  planner::TimeAxis axis = planner::build_time_axis(problem);
  // Rows: every step when there are few, else the start of each section, sampled evenly.
  std::vector<int64_t> rows;
  if (!axis.points.empty()) {
    const int64_t t0 = axis.points.front(), t1 = axis.points.back();
    if (t1 - t0 <= max_rows) {
      for (int64_t t = t0; t < t1; ++t) rows.push_back(t);
    } else {
      const int s = axis.sections();
      for (int r = 0; r < std::min(s, max_rows); ++r)
        rows.push_back(axis.points[static_cast<size_t>(static_cast<int64_t>(r) * s / std::min(s, max_rows))]);
    }
  }
  // Single-character buffer names (the article's graphs) draw as themselves; others by index.
  std::set<std::string> names;
  bool own_names = true;
  for (const LayoutBuffer& b : problem.buffers)
    own_names = own_names && b.name.size() == 1 && b.name[0] != '.' && b.name[0] != '|' && names.insert(b.name).second;
  auto symbol = [&](size_t i) { return own_names ? problem.buffers[i].name[0] : kSymbols[i % nsym]; };
  std::string out;
  const int label_width = 8;
  for (int64_t t : rows) {
    std::string line(width, '.');
    for (size_t i = 0; i < problem.buffers.size() && i < offsets.size(); ++i) {
      const LayoutBuffer& b = problem.buffers[i];
      if (t < b.first || t > b.last || b.size == 0) continue;
      int c0 = static_cast<int>(static_cast<long double>(offsets[i]) * width / arena);
      int c1 = static_cast<int>((static_cast<long double>(offsets[i] + b.size) * width + arena - 1) / arena);
      for (int c = std::max(c0, 0); c < std::min(c1, width); ++c) line[c] = symbol(i);
    }
    std::string label = std::to_string(t);
    out += std::string(std::max<int>(0, label_width - static_cast<int>(label.size())), ' ') + label + " |" + line + "|\n";
  }
  out += std::string(label_width, ' ') + "  0" + std::string(std::max(0, width - 1 - static_cast<int>(std::to_string(arena).size())), ' ') +
         std::to_string(arena) + " bytes\n";
  for (size_t i = 0; i < problem.buffers.size() && i < offsets.size(); ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    out += std::string(1, symbol(i)) + " " + b.name + ": offset " + std::to_string(offsets[i]) + ", size " +
           std::to_string(b.size) + ", steps " + std::to_string(b.first) + ".." + std::to_string(b.last) + "\n";
    if (i + 1 >= 200 && problem.buffers.size() > 201) {
      out += "... and " + std::to_string(problem.buffers.size() - i - 1) + " more buffers\n";
      break;
    }
  }
  return out;
}

}  // namespace arenaplan
