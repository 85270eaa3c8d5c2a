// A one-op model for the simulator's kernel tests (test_sim_kernels_more.cpp, test_sim_svdf.cpp):
// graph inputs fed by name, the outputs read back after a simulated run, the stand-in note of op 0.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/sim.h"
#include "tests/unit/model_builder.h"

namespace arenaplan::test {

template <class T>
std::vector<T> values_of(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

inline std::vector<int8_t> every_int8() {
  std::vector<int8_t> v;
  for (int i = -128; i <= 127; ++i) v.push_back(static_cast<int8_t>(i));
  return v;
}

// A one-op model: graph inputs fed by name, every graph output read back after one simulated run.
struct OneOpModel : test::ModelBuilder {
  std::map<std::string, std::vector<uint8_t>> fed;
  std::vector<TensorId> ins;

  TensorId input(const std::string& name, const std::vector<int64_t>& shape, DType type, std::vector<uint8_t> bytes,
                 std::optional<Quantization> q = {}) {
    TensorId t = tensor(name, shape, type, std::move(q));
    fed[name] = std::move(bytes);
    ins.push_back(t);
    return t;
  }
  // Simulates the graph; CHECKs the run is clean and the outputs are the model's (no stand-in).
  std::vector<std::vector<uint8_t>> run(const std::vector<TensorId>& outputs, bool expect_model = true) {
    g.inputs = ins;
    g.outputs = outputs;
    link_tensors(g);
    validate_graph(g);
    sim::SimRequest req;
    req.input_bytes = fed;
    const sim::SimReport r = sim::simulate(g, req);
    CHECK(r.ok());
    const JsonOut j = sim::simulation_json(g, r);
    CHECK(j["outputs_are_the_model"].get<bool>() == expect_model);
    return r.outputs;
  }
  // The stand-in note of op 0 (empty when a model kernel runs it).
  std::string refusal() {
    link_tensors(g);
    sim::KernelPlan p = sim::plan_kernel(g, 0);
    return p.stand_in ? p.note : std::string();
  }
};

}  // namespace arenaplan::test
