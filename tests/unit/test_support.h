// Helpers shared by the unit tests: built-in examples, inline graphs, KiB arithmetic.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"

namespace arenaplan::test {

constexpr Bytes KiB = 1024;

// A whole file's bytes; a missing file fails the test (never a silent skip).
inline std::string read_test_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path << " (model fixtures come from scripts/setup.sh)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A file of the clone, by its path from the repository root. Defined in test_support.cpp, the
// only test source that knows where the clone is (see there).
std::string source_path(const std::string& relative);

// A real .tflite model installed by scripts/setup.sh into .cache/models.
inline std::string read_model_fixture(const std::string& file) {
  return read_test_file(source_path(".cache/models/") + file);
}

// A model of tests/unit/data/tflm/ (written by the project, with figures measured in the real
// TFLM interpreter recorded in its README.md).
inline std::string read_tflm_fixture(const std::string& file) {
  return read_test_file(source_path("tests/unit/data/tflm/") + file);
}

// Adds a buffer to a crafted layout problem, by default with alignment 1.
inline void add_buffer(LayoutProblem& p, std::string name, Bytes size, Step first, Step last, Bytes alignment = 1) {
  LayoutBuffer b;
  b.name = std::move(name);
  b.size = size;
  b.first = first;
  b.last = last;
  b.alignment = alignment;
  p.buffers.push_back(b);
}

inline Graph example_graph(const std::string& name) {
  const std::string* text = find_example(name);
  if (!text) throw std::runtime_error("no built-in example " + name);
  return parse_graph_json(*text);
}

// FNV-1a-64 of n bytes: how tests/unit/data/tflm/README.md records the output bytes TFLM wrote.
inline uint64_t fnv1a64(const uint8_t* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}
inline uint64_t fnv1a64(const std::vector<uint8_t>& b) { return fnv1a64(b.data(), b.size()); }

// The InputError message `attempt` throws, or "" when it succeeds: the refusal a test checks.
template <class Attempt>
std::string input_error_of(Attempt&& attempt) {
  try {
    attempt();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The InputError message for a graph text, or "" when it parses.
inline std::string parse_error(const std::string& json) {
  return input_error_of([&] { parse_graph_json(json); });
}

inline std::vector<Bytes> live_kib(const Graph& g, const std::string& order) {
  LiveAnalysis a = analyze_lifetimes(g, parse_order(g, order));
  std::vector<Bytes> out;
  for (const StepLive& s : a.steps) out.push_back(s.live_bytes / KiB);
  return out;
}

}  // namespace arenaplan::test
