#!/usr/bin/env python3
"""Writes the MiniMalloc-format instances of this folder (id,lower,upper,size; buffer live on
[lower, upper)), shaped like MiniMalloc's benchmark files: a few hundred buffers over a timeline of
about a million units, sizes in 512-byte steps, most short-lived, some long. The figures TFLM's own
GreedyMemoryPlanner gives for them are in README.md. Deterministic: python3 generate.py."""
import random

def instance(seed, n, horizon=1 << 20):
    r = random.Random(seed)
    rows = []
    for i in range(n):
        kind = r.random()
        if kind < 0.7:
            length = r.randint(1, 40) * 1024
        elif kind < 0.95:
            length = r.randint(40, 300) * 1024
        else:
            length = horizon
        lower = r.randrange(0, horizon - min(length, horizon - 1))
        upper = min(horizon, lower + length)
        size = r.choice([r.randint(1, 16), r.randint(16, 256), r.randint(256, 1400)]) * 512
        rows.append((i, lower, upper, size))
    return rows

for name, seed, n in [("P", 1, 120), ("Q", 2, 250), ("R", 3, 400), ("S", 4, 600)]:
    with open(f"{name}.csv", "w") as f:
        f.write("id,lower,upper,size\n")
        for row in instance(seed, n):
            f.write(",".join(map(str, row)) + "\n")
