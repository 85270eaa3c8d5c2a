// Derived<T, Key>: a value computed from the app's input and recomputed only when its key changes.
// Panels key it by AppState::revision (graph or order changed), AppState::graph_revision (the
// graph itself changed) or a tuple of those and the panel's own settings. It replaces hand-made
// "if (cached_revision != s.revision) {...}" caches, so every panel says the same thing the same
// way: what a value depends on is its key, and nothing else recomputes it.
//
//   Derived<DagLayout> layout;                                   // in the panel's state struct
//   const DagLayout& d = layout.get(s.graph_revision, [&](DagLayout& out) { out = layout_dag(s.graph); });
//
//   Derived<SimRun, std::pair<uint64_t, SimSettings>> run;       // keyed by revision + settings
//   run.get({s.revision, settings}, [&](SimRun& r) { ... });
//
// `compute` fills a freshly default-constructed T in place (so a T holding objects that point into
// each other, such as a simulator referring to its graph, is never moved after it is built). If
// compute throws, the value stays invalid and the exception propagates: the next get() tries again.
// Header-only and free of ImGui, so native unit tests check it.
#pragma once

#include <cstdint>
#include <utility>

namespace arenaplan::web {

template <class T, class Key = uint64_t>
class Derived {
 public:
  // The value for `key`, computed with compute(T&) only when the key differs from the one it was
  // last computed for (or nothing was computed yet, or reset() was called).
  template <class Compute>
  T& get(const Key& key, Compute&& compute) {
    if (!fresh(key)) {
      valid_ = false;
      value_ = T();
      compute(value_);
      key_ = key;
      valid_ = true;
      ++computations_;
    }
    return value_;
  }

  bool fresh(const Key& key) const { return valid_ && key_ == key; }
  bool valid() const { return valid_; }
  void reset() { valid_ = false; }  // the next get() recomputes, whatever its key
  // The last value computed (default-constructed before the first); for exporters and for code
  // that runs after get() in the same frame.
  const T& value() const { return value_; }
  T& value() { return value_; }
  uint64_t computations() const { return computations_; }  // how many times compute ran

 private:
  T value_{};
  Key key_{};
  bool valid_ = false;
  uint64_t computations_ = 0;
};

}  // namespace arenaplan::web
