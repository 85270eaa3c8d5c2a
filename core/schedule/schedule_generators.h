// Deterministic graph generators for the schedule tests and benchmark: small random DAGs with
// every lifetime feature (property tests), and realistic shapes (residual chains, inception
// cells, NAS-style irregular cells, wide random layered DAGs) for the benchmark.
#pragma once

#include <cstdint>

#include "core/graph/graph.h"

namespace arenaplan {

struct RandomGraphFeatures {
  bool constants = true;   // weights, and ops that read only weights
  bool scratch = true;
  bool persistent = true;
  bool retained = true;    // retained tensors and several graph outputs
  bool in_place = true;
  bool async = false;      // asynchronous reads (lifetimes then depend on step distances)
  bool unread_inputs = false;  // graph inputs nobody reads (live during the first step only)
};

// A valid random graph with `ops` ops (seeded, reproducible). Some seeds fail validation
// internally (e.g. an impossible in-place); the generator retries with derived seeds.
Graph random_small_graph(uint64_t seed, int ops, RandomGraphFeatures features = {});

// ResNet-like: `blocks` blocks of conv -> conv -> add(skip), with downsampling stages.
Graph residual_chain_graph(int blocks, uint64_t seed);

// GoogLeNet-like: `cells` inception cells of four branches joined by a concat.
Graph inception_graph(int cells, uint64_t seed);

// SwiftNet/NASNet-like irregular cells: each node adds two earlier nodes of the cell or the
// two previous cells' outputs; the cell output concatenates the nodes nobody read. About
// `target_ops` ops in total.
Graph nas_cells_graph(int target_ops, uint64_t seed);

// Mostly a chain with branches and skip connections: each op reads 1-3 tensors at most `reach`
// tensors back (like the residual and multi-head networks people import); 1 KiB tensors, the
// unread ones become graph outputs. For the graph view's layout tests and benchmark.
Graph skip_chain_graph(int ops, int reach, uint64_t seed);

// A wide random layered DAG of `ops` ops where most ops read two or three earlier tensors
// (recent layers mostly, some long skips); sizes log-uniform between 1 and 64 KiB.
Graph wide_random_dag(int ops, uint64_t seed);

// The scale shapes (bench/scale_bench.cpp, the linear-time tests), both `ops` ops:
// a residual-style chain (blocks conv -> conv -> add(skip), 8-64 KiB activations, some scratch)
// with one graph input and one graph output, whose file order already meets the peak's lower
// bound...
Graph long_residual_chain_graph(int ops, uint64_t seed);
// ...and a 16 KiB chain with `outputs` (<= ops / 2) 1 KiB heads spread evenly along it, each a
// graph output, so thousands of tensors stay live until the end (live sets grow with the step).
Graph many_outputs_chain_graph(int ops, int outputs, uint64_t seed);

// The "bars" scale shape: one 16 KiB graph input, then `ops` ops, each reading one or two distinct
// tensors among the last 8 produced (the input counts while fewer exist) and producing one tensor
// of 1 to 218 KiB (about log-uniform, 16-byte multiples, ~40 KiB on average). A tensor none of the
// next 8 ops reads is never read: it becomes a graph output and stays live to the end, so about a
// fifth of the tensors are outputs and live bytes climb with the step (seed 1 at 100,000 ops:
// 20,562 outputs, a peak of 852 MB live near the last step). Its lifetime picture is thousands of
// bars that reach the end.
Graph recent_reads_graph(int ops, uint64_t seed);

}  // namespace arenaplan
