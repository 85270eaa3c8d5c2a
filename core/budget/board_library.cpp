#include "core/budget/board_library.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "core/graph/examples.h"

namespace arenaplan {
namespace {

bool is_board_text(const std::string& json) { return json.find("\"arenaplan-board\"") != std::string::npos; }

// A figure the board file leaves out reads "?" rather than a made-up default.
std::string or_unknown(const std::string& s) { return s.empty() ? "?" : s; }

}  // namespace

const std::vector<LibraryBoard>& board_library() {
  static const std::vector<LibraryBoard> boards = [] {
    std::vector<LibraryBoard> out;
    for (const Example& f : builtin_board_files()) {
      try {
        const MemoryMap m = parse_board_json(f.json);
        LibraryBoard b{f.name, m.title.empty() ? m.name : m.title, f.json};
        for (const Region& r : m.regions) b.total_bytes += r.size;
        for (RegionId r : m.arena_regions) b.arena_region_bytes += m.regions[r].size;
        for (const Reservation& r : m.reservations) b.reserved_bytes += r.bytes;
        out.push_back(std::move(b));
      } catch (const std::exception&) {
        // Left out; tests/unit/budget/test_board_library.cpp parses every file and names the broken one.
      }
    }
    std::sort(out.begin(), out.end(), [](const LibraryBoard& a, const LibraryBoard& b) { return a.name < b.name; });
    return out;
  }();
  return boards;
}

const std::string* builtin_board_text(const std::string& name) {
  const bool example_prefix = name.rfind("example:", 0) == 0;
  const std::string stem = example_prefix ? name.substr(8) : name;
  if (!example_prefix)
    for (const LibraryBoard& b : board_library())
      if (b.name == stem) return &b.json;
  const std::string* text = find_example(stem);
  return text && is_board_text(*text) ? text : nullptr;
}

std::vector<std::string> builtin_board_names() {
  std::vector<std::string> out;
  for (const Example& e : builtin_examples())
    if (is_board_text(e.json)) out.push_back(e.name);
  for (const LibraryBoard& b : board_library()) out.push_back(b.name);
  return out;
}

std::string part_figures_text(const MemoryMap& m) {
  char clock[32] = "?";
  if (m.clock_mhz > 0) std::snprintf(clock, sizeof clock, "%g MHz", m.clock_mhz);
  return or_unknown(m.core) + " at " + clock + ", flash " + (m.flash_bytes > 0 ? format_bytes(m.flash_bytes) : "?") +
         ", TFLM kernels " + or_unknown(m.kernels);
}

std::string board_library_text() {
  std::string out = "Board library (use --board NAME; the reservations are editable assumptions):\n";
  char line[256];
  for (const LibraryBoard& b : board_library()) {
    std::snprintf(line, sizeof line, "  %-16s %9s RAM, arena regions %9s, reserved %8s  %s\n", b.name.c_str(),
                  format_bytes(b.total_bytes).c_str(), format_bytes(b.arena_region_bytes).c_str(), format_bytes(b.reserved_bytes).c_str(),
                  b.title.c_str());
    out += line;
    const MemoryMap m = parse_board_json(b.json);
    out += "  " + std::string(16, ' ') + " " + part_figures_text(m) + "\n";
    out += "  " + std::string(16, ' ') + " source: " + m.source + "\n";
  }
  out += "Teaching boards: ";
  bool first = true;
  for (const Example& e : builtin_examples())
    if (is_board_text(e.json)) {
      out += (first ? "" : ", ") + ("example:" + e.name);
      first = false;
    }
  return out + "\n";
}

JsonOut board_library_json() {
  JsonOut list = JsonOut::array();
  for (const LibraryBoard& b : board_library()) {
    const MemoryMap m = parse_board_json(b.json);
    JsonOut regions = JsonOut::array();
    for (const Region& r : m.regions) regions.push_back({{"name", r.name}, {"size_bytes", r.size}, {"source", r.source}});
    list.push_back({{"name", b.name},
                    {"title", b.title},
                    {"total_bytes", b.total_bytes},
                    {"arena_region_bytes", b.arena_region_bytes},
                    {"reserved_bytes", b.reserved_bytes},
                    {"regions", regions},
                    {"core", m.core},
                    {"clock_mhz", m.clock_mhz},
                    {"clock_source", m.clock_source},
                    {"flash_bytes", m.flash_bytes},
                    {"flash_source", m.flash_source},
                    {"kernels", m.kernels},
                    {"kernels_source", m.kernels_source},
                    {"source", m.source}});
  }
  return {{"boards", list}};
}

}  // namespace arenaplan
