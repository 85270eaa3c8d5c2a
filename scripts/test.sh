#!/usr/bin/env bash
# Every test: installs what is missing, builds, then runs the native unit tests, the same unit tests
# compiled to Wasm under Node, the CLI contract tests, the sanitizer build, and the browser tests.
# Idempotent; the second run reuses .cache/ and build/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs

# Each stage prints its duration, so a slow CI run shows where the time went.
stage_start=$SECONDS
stage_name=""
step() {
  [ -z "$stage_name" ] || printf '=== %s: %ds ===\n' "$stage_name" $((SECONDS - stage_start))
  stage_name="$*"; stage_start=$SECONDS
  printf '\n=== %s ===\n' "$*"
}

step "setup"
"$root/scripts/setup.sh"

step "build (native + wasm)"
"$root/scripts/build.sh" all

step "native unit tests"
"$root/build/native/unit_tests"

step "wasm unit tests (Node)"
node --no-experimental-fetch "$root/build/wasm/unit_tests.js"

step "CLI contract tests"
ARENAPLAN_WASM_CLI="$root/build/wasm/arenaplan.js" node "$root/tests/cli/run.mjs" "$root/build/native/arenaplan"

if [ -x "$root/scripts/test-sanitize.sh" ]; then
  step "sanitizer build (ASan + UBSan) and fuzz smoke"
  "$root/scripts/test-sanitize.sh"
fi

step "browser tests (headless Chromium)"
"$root/scripts/test-browser.sh" "$root/build/wasm/site"

step "done"
printf '\nall tests passed in %ds\n' "$SECONDS"
