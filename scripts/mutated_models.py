#!/usr/bin/env python3
"""Feeds mutated copies of real models through `import`, `tflm-arena` and `simulate` and checks
that every run ends in exit 0, 1 or 2 (a verdict or a refusal naming the place), never a crash,
an internal error (exit 3) or a hang. The models are not part of the repository: give a folder.

  scripts/mutated_models.py BINARY FOLDER [--count N] [--seed S] [--keep DIR]

Each mutant flips 1 to 8 random bytes of a random seed model (or truncates it); a failing mutant
is kept in --keep DIR (default: a temporary folder) with the command that failed."""
import argparse, os, random, shutil, subprocess, sys, tempfile

# --json as well as text: the JSON writer refuses what is not UTF-8 (a corrupt name), text does not.
COMMANDS = [["import", "--json"], ["tflm-arena", "--kernels", "cmsis-nn", "--core", "cortex-m55"],
            ["simulate", "--planner", "portfolio", "--memory-limit", "64MiB", "--json"]]

def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("folder")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", default=None)
    a = p.parse_args()
    seeds = sorted(os.path.join(a.folder, f) for f in os.listdir(a.folder) if f.endswith(".tflite"))
    if not seeds:
        sys.exit(f"no .tflite in {a.folder}")
    models = [open(f, "rb").read() for f in seeds]
    keep = a.keep or tempfile.mkdtemp(prefix="mutants-")
    os.makedirs(keep, exist_ok=True)
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="mutant-")
    path = os.path.join(work, "m.tflite")
    runs = bad = 0
    counts = {}
    for i in range(a.count):
        b = bytearray(rng.choice(models))
        if rng.random() < 0.1:
            b = b[: rng.randrange(len(b))]
        else:
            for _ in range(rng.choice([1, 2, 4, 8])):
                b[rng.randrange(len(b))] = rng.randrange(256)
        open(path, "wb").write(b)
        for cmd in COMMANDS:
            runs += 1
            try:
                r = subprocess.run([a.binary, cmd[0], path] + cmd[1:], capture_output=True, text=True, errors="replace", timeout=60)
                code = r.returncode
            except subprocess.TimeoutExpired:
                code, r = "timeout", None
            counts[(cmd[0], code)] = counts.get((cmd[0], code), 0) + 1
            if code not in (0, 1, 2):
                bad += 1
                kept = os.path.join(keep, f"mutant-{i}-{cmd[0]}.tflite")
                shutil.copy(path, kept)
                print(f"FAIL {' '.join(cmd)} {kept}: exit {code}: {(r.stderr[-300:] if r else '').strip()}")
    shutil.rmtree(work)
    for (cmd, code), n in sorted(counts.items(), key=str):
        print(f"{cmd:11s} exit {code}: {n}")
    print(f"{a.count} mutants of {len(seeds)} models, {runs} runs: {bad} ended otherwise than 0, 1 or 2")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
