#!/usr/bin/env bash
# Builds the native CLI + unit tests (build/native) and the Wasm app + Wasm unit tests (build/wasm;
# the servable site lands in build/wasm/site). Assumes scripts/setup.sh has run.
# Usage: scripts/build.sh [native|wasm|all]   (default: all)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"
jobs="${JOBS:-2}"
export NODE_PATH=/usr/share/nodejs  # emscripten's optimiser needs Debian's acorn (docs/TOOLCHAIN.md)

# ccache (installed by setup.sh; it wraps em++ too) keeps compiled objects outside the clone (~/.cache/ccache), so a
# fresh clone (CI) or a second worktree rebuilds only what changed; paths are hashed relative to
# the clone so its location does not matter.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

if [ "$what" = native ] || [ "$what" = all ]; then
  [ -f "$root/build/native/build.ninja" ] ||
    cmake -S "$root" -B "$root/build/native" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  ninja -C "$root/build/native" -j "$jobs"
fi
if [ "$what" = wasm ] || [ "$what" = all ]; then
  [ -f "$root/build/wasm/build.ninja" ] ||
    emcmake cmake -S "$root" -B "$root/build/wasm" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DARENAPLAN_CACHE_DIR="$root/.cache" "${launcher[@]}" >/dev/null
  ninja -C "$root/build/wasm" -j "$jobs"
fi
