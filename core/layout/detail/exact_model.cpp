#include "core/layout/detail/exact_model.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "core/graph/graph.h"
#include "core/layout/detail/planner_common.h"

namespace arenaplan::planner {

std::optional<ExactModel> build_exact_model(const LayoutProblem& problem, int64_t max_overlap_entries) {
  ExactModel m;
  LayoutProblem sized;
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (problem.buffers[i].size > 0) {
      m.global_of.push_back(static_cast<int>(i));
      sized.buffers.push_back(problem.buffers[i]);
    }
  auto conflicts = build_conflicts(sized, max_overlap_entries);
  if (!conflicts) return std::nullopt;
  m.overlap_row = std::move(conflicts->row);
  m.overlap_col = std::move(conflicts->col);
  TimeAxis axis = build_time_axis(sized);
  const int sections = m.sections = axis.sections();
  const int n = static_cast<int>(sized.buffers.size());
  m.sec_begin = axis.begin;
  m.sec_end = axis.end;
  m.initial_total.assign(sections, 0);
  m.initial_cuts.assign(std::max(sections - 1, 0), 0);
  m.member_row.assign(sections + 1, 0);
  for (int k = 0; k < n; ++k) {
    const LayoutBuffer& b = sized.buffers[k];
    m.size.push_back(b.size);
    if (b.alignment <= 0) throw InputError("alignment", "must be a positive number of bytes (buffer " + b.name + ")");
    m.align.push_back(b.alignment);
    m.length.push_back(static_cast<double>(b.last) - b.first + 1);
    m.area.push_back(static_cast<double>(b.size) * m.length.back());
    for (int s = m.sec_begin[k]; s < m.sec_end[k]; ++s) {
      m.initial_total[s] += b.size;
      ++m.member_row[s + 1];
    }
    for (int s = m.sec_begin[k]; s + 1 < m.sec_end[k]; ++s) ++m.initial_cuts[s];
  }
  // Twins overlap, so their order is strict; and the static orders break ties by id, so a
  // twin's earlier sibling is always its earlier candidate.
  std::map<std::tuple<Bytes, Bytes, Step, Step>, int> last_of_shape;
  m.twin_before.assign(n, -1);
  for (int k = 0; k < n; ++k) {
    const LayoutBuffer& b = sized.buffers[k];
    auto [it, fresh] = last_of_shape.try_emplace({b.size, b.alignment, b.first, b.last}, k);
    if (!fresh) m.twin_before[k] = std::exchange(it->second, k);
  }
  for (int s = 0; s < sections; ++s) m.member_row[s + 1] += m.member_row[s];
  m.member_col.resize(m.member_row[sections]);
  std::vector<int64_t> fill(m.member_row.begin(), m.member_row.end() - 1);
  m.where_base.assign(n + 1, 0);
  for (int k = 0; k < n; ++k) m.where_base[k + 1] = m.where_base[k] + (m.sec_end[k] - m.sec_begin[k]);
  m.where.resize(m.where_base[n]);
  for (int k = 0; k < n; ++k)
    for (int s = m.sec_begin[k]; s < m.sec_end[k]; ++s) {
      m.where[m.where_base[k] + s - m.sec_begin[k]] = static_cast<int>(fill[s] - m.member_row[s]);
      m.member_col[fill[s]++] = k;
    }
  // Independent pieces from the start: no buffer spans the boundary.
  std::vector<int> cut_at = {0};
  for (int s = 0; s + 1 < sections; ++s)
    if (m.initial_cuts[s] == 0) cut_at.push_back(s + 1);
  cut_at.push_back(sections);
  for (size_t c = 1; c < cut_at.size(); ++c) {
    auto part = std::make_shared<ExactPartition>();
    part->lo = cut_at[c - 1];
    part->hi = cut_at[c];
    for (int k = 0; k < n; ++k)
      if (m.sec_begin[k] >= part->lo && m.sec_end[k] <= part->hi) part->buffers.push_back(k);
    if (!part->buffers.empty()) m.static_parts.push_back(part);
  }
  return m;
}

}  // namespace arenaplan::planner
