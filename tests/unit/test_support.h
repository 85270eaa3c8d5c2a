// Helpers shared by the unit tests: built-in examples, inline graphs, KiB arithmetic.
#pragma once

#include <string>

#include "core/examples.h"
#include "core/graph_json.h"
#include "core/lifetime.h"

namespace arenaplan::test {

constexpr Bytes KiB = 1024;

inline Graph example_graph(const std::string& name) {
  const std::string* text = find_example(name);
  if (!text) throw std::runtime_error("no built-in example " + name);
  return parse_graph_json(*text);
}

// The InputError message for a graph text, or "" when it parses.
inline std::string parse_error(const std::string& json) {
  try {
    parse_graph_json(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

inline std::vector<Bytes> live_kib(const Graph& g, const std::string& order) {
  LiveAnalysis a = analyze_lifetimes(g, parse_order(g, order));
  std::vector<Bytes> out;
  for (const StepLive& s : a.steps) out.push_back(s.live_bytes / KiB);
  return out;
}

}  // namespace arenaplan::test
