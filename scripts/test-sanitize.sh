#!/usr/bin/env bash
# The hardening pass: core, CLI and unit tests built with clang + AddressSanitizer +
# UndefinedBehaviorSanitizer (build/asan), the unit and CLI tests run there (zero reports allowed:
# any report aborts), then every libFuzzer target on its seed corpus.
# By default each target makes FUZZ_RUNS (30000) executions from seed 1: bounded and reproducible,
# so CI fails only for a real regression. FUZZ_SECONDS switches to a timed run with a random seed,
# the way to look for new crashes:
#   FUZZ_SECONDS=600 scripts/test-sanitize.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/asan"
if [ -n "${FUZZ_SECONDS:-}" ]; then
  budget=(-max_total_time="$FUZZ_SECONDS")
  what="for ${FUZZ_SECONDS}s"
else
  budget=(-runs="${FUZZ_RUNS:-30000}" -seed=1)
  what="for ${FUZZ_RUNS:-30000} runs (seed 1)"
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

launcher=()  # ccache, as in build.sh: objects outside the clone, hashed relative to it
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
[ -f "$build/build.ninja" ] ||
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DARENAPLAN_SANITIZE=ON -DARENAPLAN_FUZZ=ON "${launcher[@]}" >/dev/null
ninja -C "$build" -j "${JOBS:-2}"

rm -rf "$build/fuzz-work"

# The unit tests under ASan take minutes on one core; two halves (a seeded random order, so slow
# test files spread over both) run side by side on the machine's two cores. Each half's output is
# printed whole once both are done.
unit_tests_in_two_halves() {
  local n half order=(--order-by=rand --rand-seed=1) status=0
  n=$("$build/unit_tests" --count | sed -n 's/.*current filters: //p')
  half=$(( (n + 1) / 2 ))
  "$build/unit_tests" "${order[@]}" --first=1 --last="$half" >"$build/unit-half-1.log" 2>&1 & local first=$!
  "$build/unit_tests" "${order[@]}" --first=$((half + 1)) --last="$n" >"$build/unit-half-2.log" 2>&1 & local second=$!
  wait "$first" || status=1
  wait "$second" || status=1
  cat "$build/unit-half-1.log" "$build/unit-half-2.log"
  echo "unit tests under ASan: $n test cases in two halves"
  return "$status"
}
unit_tests_in_two_halves
ARENAPLAN_WASM_CLI="$root/build/wasm/arenaplan.js" node "$root/tests/cli/run.mjs" "$build/arenaplan"

for fuzzer in "$build"/fuzz_*; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  corpus="$root/tests/fuzz/corpus/${name#fuzz_}"
  work="$build/fuzz-work/${name#fuzz_}"
  mkdir -p "$corpus" "$work"
  echo "fuzzing $name $what (seeds: $(ls "$corpus" | wc -l))"
  # New inputs go to a scratch folder so the committed corpus changes only on purpose.
  "$fuzzer" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-work/" "$work" "$corpus" 2>&1 | grep -E "stat::number_of_executed_units|ERROR|SUMMARY" || true
  found=$(find "$build/fuzz-work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \))
  if [ -n "$found" ]; then
    echo "$name found a failing input (copy it into tests/fuzz/corpus/${name#fuzz_}/ once fixed): $found"
    exit 1
  fi
done
