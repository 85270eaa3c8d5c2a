#!/usr/bin/env python3
"""Checks arenaplan against real TFLM on public MCU models (issue 30).

usage: check_public_models.py BINARY FOLDER [--fixture bench/data/public_models.json] [--only NAME,...]

The models are never in the repository: FOLDER holds .tflite files fetched by hand (see
bench/data/public_models.md), found here by their sha256, whatever their file names. For each
model of the fixture this runs, offline:
  1. `BINARY import MODEL --json`: exit 0.
  2. `BINARY tflm-arena MODEL --pointer-bytes 8 --json`: the figure against the minimum arena
     measured in the host TFLM (64-bit): never below, at most max(0.5 %, 64 B) above, and no
     estimated ops.
  3. `BINARY simulate MODEL --runs 3 --input-file NAME=PATH... --output-dir DIR --json` with
     the same deterministic inputs the TFLM measurement was fed (input_bytes below): every
     run's every output byte-exact with TFLM's (sha256 of each). A Vela model instead must be
     refused by name (an `ethos-u` op in not_simulated), its outputs not presented as the model's.
Prints a line per model and check, then a summary; exits 1 when any check fails, 2 on bad usage.
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

MASK64 = (1 << 64) - 1


def splitmix64(state):
    """Yields the splitmix64 stream from `state` (Steele, Lea, Flood 2014)."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def input_bytes(dtype, nbytes, seed):
    """A graph input's deterministic bytes. Integer inputs: the stream's bytes, little-endian
    (every value of the type is a legal input). float32: values uniform in [-1, 1), since random
    bytes would give NaN and Inf, no model's input. The same function made the TFLM figures."""
    stream = splitmix64(seed)
    if dtype == "float32":
        count = nbytes // 4
        values = [((next(stream) >> 11) * (2.0 ** -53)) * 2.0 - 1.0 for _ in range(count)]
        return struct.pack("<%df" % count, *values)
    out = bytearray()
    while len(out) < nbytes:
        out += next(stream).to_bytes(8, "little")
    return bytes(out[:nbytes])


def model_inputs(entry):
    """(name, bytes) per graph input: input i of the model with seed `seed` gets seed + i."""
    seed = entry["input"]["seed"]
    return [(t["name"], input_bytes(t["dtype"], t["bytes"], (seed + i) & MASK64)) for i, t in enumerate(entry["inputs"])]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def output_file_name(tensor):
    """The file name `simulate --output-dir` gives an output (cli/cmd_simulate.cpp)."""
    f = "".join(c if c.isalnum() or c in "-_." else "_" for c in tensor)
    return ("_" + f if not f or f[0] == "." else f) + ".bin"


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout


class Result:
    def __init__(self, name):
        self.name, self.checks = name, []  # (check, ok, detail)

    def add(self, check, ok, detail=""):
        self.checks.append((check, ok, detail))

    def ok(self):
        return all(ok for _, ok, _ in self.checks)


def check_import(binary, model, res, timeout):
    rc, _, err = run([binary, "import", model, "--json"], timeout)
    res.add("import", rc == 0, "" if rc == 0 else "exit %s: %s" % (rc, err.strip()[:300]))


def check_arena(binary, model, entry, res, timeout):
    rc, out, err = run([binary, "tflm-arena", model, "--pointer-bytes", "8", "--json"], timeout)
    if rc != 0:
        res.add("tflm-arena", False, "exit %s: %s" % (rc, err.strip()[:300]))
        return
    try:
        r = json.loads(out)
    except ValueError as e:
        res.add("tflm-arena", False, "output is not JSON: %s" % e)
        return
    measured = entry["tflm"]["min_arena_bytes_64"]
    got = r["min_arena_bytes"]
    slack = max(measured * 5 // 1000, 64)
    estimated = [e if isinstance(e, str) else json.dumps(e) for e in r.get("estimated_ops", [])]
    detail = "%d B vs TFLM %d B (%+d)" % (got, measured, got - measured)
    if estimated:
        detail += "; estimated ops: " + ", ".join(estimated)[:300]
    res.add("tflm-arena", measured <= got <= measured + slack and not estimated, detail)


def check_simulate(binary, model, entry, res, timeout):
    with tempfile.TemporaryDirectory(prefix="public_models_") as tmp:
        cmd = [binary, "simulate", model, "--runs", "3", "--json", "--output-dir", os.path.join(tmp, "out")]
        for i, (name, data) in enumerate(model_inputs(entry)):
            path = os.path.join(tmp, "input%d.bin" % i)
            with open(path, "wb") as f:
                f.write(data)
            cmd += ["--input-file", "%s=%s" % (name, path)]
        rc, out, err = run(cmd, timeout)
        if rc != 0:
            res.add("simulate", False, "exit %s: %s" % (rc, err.strip()[:300]))
            return
        try:
            report = json.loads(out)
        except ValueError as e:
            res.add("simulate", False, "output is not JSON: %s" % e)
            return
        if "vela" in entry["tags"]:
            refused = [n["op"] for n in report.get("not_simulated", []) if n["why"].startswith("ethos-u")]
            presented = report.get("outputs_are_the_model", True)
            res.add("simulate (NPU refused)", bool(refused) and not presented,
                    "%d ethos-u op(s) refused by name, outputs_are_the_model %s" % (len(refused), presented))
            return
        if report.get("stand_ins"):
            why = sorted({s["why"].split(": ", 1)[-1] for s in report["stand_ins"]})  # after "stand-in, ...: "
            res.add("simulate", False, "%d op(s) ran a stand-in: %s" % (len(report["stand_ins"]), "; ".join(why)))
            return
        diffs = []
        for k, invoke in enumerate(entry["tflm"]["invokes"]):
            folder = os.path.join(tmp, "out") if k == 0 else os.path.join(tmp, "out", "run%d" % (k + 1))
            for j, o in enumerate(entry["outputs"]):
                path = os.path.join(folder, output_file_name(o["name"]))
                if not os.path.exists(path):
                    diffs.append("run %d output %s: not written" % (k + 1, o["name"]))
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                if hashlib.sha256(data).hexdigest() != invoke["outputs_sha256"][j]:
                    diffs.append("run %d output %d (%s, %s): differs from TFLM" % (k + 1, j, o["name"], o["dtype"]))
        res.add("simulate x3 bit-exact", not diffs, "; ".join(diffs)[:400] if diffs else "%d runs x %d outputs identical"
                % (len(entry["tflm"]["invokes"]), len(entry["outputs"])))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("folder")
    ap.add_argument("--fixture", default=os.path.join(os.path.dirname(__file__), "..", "bench", "data", "public_models.json"))
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per command")
    args = ap.parse_args(argv)
    if not os.access(args.binary, os.X_OK):
        ap.error("%s is not an executable (build it: ./scripts/build.sh native)" % args.binary)
    if not os.path.isdir(args.folder):
        ap.error("%s is not a folder of .tflite files" % args.folder)
    with open(args.fixture) as f:
        fixture = json.load(f)
    by_sha = {}
    for root, _, files in os.walk(args.folder):
        for fn in files:
            if fn.endswith(".tflite"):
                by_sha.setdefault(sha256_file(os.path.join(root, fn)), os.path.join(root, fn))
    only = set(filter(None, args.only.split(",")))
    results = []
    for entry in fixture["models"]:
        if only and entry["name"] not in only:
            continue
        res = Result(entry["name"])
        model = by_sha.get(entry["sha256"])
        if model is None:
            res.add("found", False, "no file with sha256 %s in %s (%s)" % (entry["sha256"], args.folder, entry["source"]["url"]))
        else:
            check_import(args.binary, model, res, args.timeout)
            check_arena(args.binary, model, entry, res, args.timeout)
            check_simulate(args.binary, model, entry, res, args.timeout)
        results.append(res)
        for check, ok, detail in res.checks:
            print("%-40s %-24s %-4s %s" % (res.name, check, "ok" if ok else "FAIL", detail), flush=True)
    failed = [r for r in results if not r.ok()]
    print("\n%d models: %d passed, %d failed" % (len(results), len(results) - len(failed), len(failed)))
    for r in failed:
        print("  FAILED %s: %s" % (r.name, ", ".join(c for c, ok, _ in r.checks if not ok)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
