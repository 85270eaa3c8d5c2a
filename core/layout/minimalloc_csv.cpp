#include "core/layout/minimalloc_csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <set>

namespace arenaplan {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string where(int line, int column, std::string_view column_name) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (" + std::string(column_name) + ")";
}

int64_t parse_int(std::string_view field, int line, int column, std::string_view name) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec != std::errc() || ptr != field.data() + field.size())
    throw InputError(where(line, column, name), "expected an integer, found \"" + std::string(field) + "\"");
  return v;
}

}  // namespace

bool looks_like_minimalloc_csv(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  text = trim(text);
  return text.substr(0, 3) == "id,";
}

MiniMallocCsv parse_minimalloc_csv(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  MiniMallocCsv out;
  enum Col { kId, kLower, kUpper, kSize, kAlignment, kOffset, kCount };
  static const char* const kNames[kCount] = {"id", "lower", "upper", "size", "alignment", "offset"};
  int column_of[kCount];
  std::fill(column_of, column_of + kCount, -1);
  size_t header_fields = 0;
  bool have_header = false;
  std::set<std::string, std::less<>> ids;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (trim(line).empty()) continue;
    std::vector<std::string_view> fields = split_fields(line);
    if (!have_header) {
      for (size_t c = 0; c < fields.size(); ++c) {
        auto* name = std::find_if(kNames, kNames + kCount, [&](const char* n) { return fields[c] == n; });
        if (name == kNames + kCount)
          throw InputError(where(line_no, static_cast<int>(c) + 1, fields[c]),
                           "unknown column (expected id, lower, upper, size, alignment, offset)");
        if (column_of[name - kNames] >= 0)
          throw InputError(where(line_no, static_cast<int>(c) + 1, fields[c]), "column appears twice");
        column_of[name - kNames] = static_cast<int>(c);
      }
      for (int c : {kId, kLower, kUpper, kSize})
        if (column_of[c] < 0)
          throw InputError("line " + std::to_string(line_no), std::string("the header lacks the column ") + kNames[c] +
                                                                  " (expected id,lower,upper,size[,offset])");
      header_fields = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() != header_fields)
      throw InputError("line " + std::to_string(line_no), "expected " + std::to_string(header_fields) + " fields, found " +
                                                              std::to_string(fields.size()));
    auto number = [&](Col c) { return parse_int(fields[column_of[c]], line_no, column_of[c] + 1, kNames[c]); };
    LayoutBuffer b;
    b.name = std::string(fields[column_of[kId]]);
    if (b.name.empty()) throw InputError(where(line_no, column_of[kId] + 1, "id"), "empty id");
    if (!ids.insert(b.name).second)
      throw InputError(where(line_no, column_of[kId] + 1, "id"), "id \"" + b.name + "\" appears twice");
    const int64_t lower = number(kLower), upper = number(kUpper);
    if (lower < 0) throw InputError(where(line_no, column_of[kLower] + 1, "lower"), "must not be negative");
    if (upper <= lower)
      throw InputError(where(line_no, column_of[kUpper] + 1, "upper"),
                       "must be greater than lower (" + std::to_string(lower) + "): lifetimes are [lower, upper)");
    if (upper - 1 > std::numeric_limits<Step>::max())
      throw InputError(where(line_no, column_of[kUpper] + 1, "upper"), "too large (at most 2^31)");
    b.first = static_cast<Step>(lower);
    b.last = static_cast<Step>(upper - 1);
    b.size = number(kSize);
    if (b.size < 0) throw InputError(where(line_no, column_of[kSize] + 1, "size"), "must not be negative");
    b.alignment = 1;
    if (column_of[kAlignment] >= 0) {
      b.alignment = number(kAlignment);
      if (b.alignment < 1) throw InputError(where(line_no, column_of[kAlignment] + 1, "alignment"), "must be at least 1");
    }
    if (column_of[kOffset] >= 0) {
      Bytes o = number(kOffset);
      if (o < 0) throw InputError(where(line_no, column_of[kOffset] + 1, "offset"), "must not be negative");
      out.offsets.push_back(o);
    }
    out.problem.buffers.push_back(std::move(b));
  }
  if (!have_header) throw InputError("line 1", "empty file: expected the header id,lower,upper,size");
  return out;
}

std::string minimalloc_csv(const LayoutProblem& problem, const std::vector<Bytes>& offsets) {
  const bool aligned = std::any_of(problem.buffers.begin(), problem.buffers.end(),
                                   [](const LayoutBuffer& b) { return b.alignment > 1; });
  const bool with_offsets = !offsets.empty();
  std::string out = std::string("id,lower,upper,size") + (aligned ? ",alignment" : "") + (with_offsets ? ",offset" : "") + "\n";
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    out += b.name + "," + std::to_string(b.first) + "," + std::to_string(static_cast<int64_t>(b.last) + 1) + "," +
           std::to_string(b.size);
    if (aligned) out += "," + std::to_string(b.alignment);
    if (with_offsets) out += "," + std::to_string(i < offsets.size() ? offsets[i] : 0);
    out += "\n";
  }
  return out;
}

}  // namespace arenaplan
