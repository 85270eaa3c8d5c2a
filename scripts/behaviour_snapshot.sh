#!/usr/bin/env bash
# Records what the CLI prints (stdout, stderr, exit status) for every command on every example,
# the project's model and MiniMalloc-format fixtures, the npm model fixtures, and optionally a folder
# of outside data, so that a refactor can prove it changed no behaviour: run it before and after,
# then `diff -r BEFORE AFTER`.
# Wall-clock figures are masked (JSON keys "seconds"/"elapsed_seconds"/"*_ms"; "1.23 s" in text),
# everything else must be byte-identical.
# Usage: scripts/behaviour_snapshot.sh ARENAPLAN_BINARY OUT_DIR [DATA_DIR]
#   DATA_DIR (optional): a folder with minimalloc/*.csv (MiniMalloc's benchmark files) and/or
#   tflm-reference/*.tflite (public models), recorded too when given.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(realpath "$1")"
out="$(mkdir -p "$2" && realpath "$2")"
cd "$root"
shared="$( [ -n "${3:-}" ] && realpath "$3" || true)"

mask() {  # stdin -> stdout with timings masked
  python3 -c '
import json, re, sys
text = sys.stdin.read()
def strip(v):
    if isinstance(v, dict):
        return {k: ("<time>" if (k in ("seconds", "elapsed_seconds") or k.endswith("_ms") or k.endswith("_seconds")) else strip(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
try:
    print(json.dumps(strip(json.loads(text)), indent=1))
except Exception:
    sys.stdout.write(re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\s?(s|ms|µs)\b", "<time>", text))
'
}

run() {  # run NAME ARGS...: records NAME.out / NAME.err / NAME.status
  local name="$1"; shift
  "$bin" "$@" > "$out/$name.raw" 2> "$out/$name.err"
  echo $? > "$out/$name.status"
  mask < "$out/$name.raw" > "$out/$name.out"
  rm -f "$out/$name.raw"
}

for f in examples/*.json; do
  base=$(basename "$f" .json)
  grep -q '"arenaplan-graph"' "$f" || continue
  run "analyze.$base" analyze "$f"
  run "analyze.$base.json" analyze "$f" --json
  run "schedule.$base.json" schedule "$f" --json
  run "schedule.$base.enum" schedule "$f" --enumerate --limit 50 --json
  for p in naive linear tflm-greedy portfolio best; do
    run "layout.$base.$p" layout "$f" --planner "$p" --json
    run "layout.$base.$p.txt" layout "$f" --planner "$p"
  done
  run "simulate.$base" simulate "$f" --json
  run "export.$base.json" export "$f" --format json
  run "export.$base.h" export "$f" --format c-header
  run "export.$base.csv" export "$f" --format minimalloc-csv
  run "budget.$base" budget "$f" --board examples/two_branch_board.json --json
done
run "budget.two_branch.txt" budget examples/two_branch.json --board examples/two_branch_board.json
run "transform.fusion" transform examples/whatif_fusion.json --apply fuse:c2,r2 --apply inplace:r0 --report --json
run "check-shape.batch" check-shape example:batch_contract --input x=2x16x16x3 --json
run "cache.4.4" cache --capacity 4 --stride 4 --requests 17 --json
run "exercise.list" exercise list
for e in examples/exercise_*.json; do
  run "exercise.show.$(basename "$e" .json)" exercise show "$e" --json
done
for f in tests/unit/data/minimalloc/*.csv ${shared:+"$shared"/minimalloc/*.csv}; do
  [ -f "$f" ] || continue
  base=$(basename "$f" .csv)
  for p in naive tflm-greedy portfolio; do
    run "minimalloc.$base.$p" layout "$f" --planner "$p" --json
  done
done
for m in "$root"/.cache/models/*.tflite tests/unit/data/tflm/*.tflite ${shared:+"$shared"/tflm-reference/*.tflite}; do
  [ -f "$m" ] || continue
  base=$(basename "$m" .tflite)
  run "import.$base" import "$m" --json
  run "analyze.$base" analyze "$m" --json
  run "layout.$base.tflm-greedy" layout "$m" --planner tflm-greedy --json
  run "layout.$base.portfolio" layout "$m" --planner portfolio --json
  run "export.$base.json" export "$m" --format json --planner portfolio
done
echo "snapshot: $(ls "$out" | wc -l) files in $out"
