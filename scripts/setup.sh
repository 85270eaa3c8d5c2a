#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh Debian 12 machine (as root) and fills
# the cache: Debian sources of Dear ImGui, SDL2 and zlib, SDL2 built for Wasm, and the model
# fixtures. Idempotent: every step is skipped when its result is present.
#
# The cache lives OUTSIDE the clone ($ARENAPLAN_CACHE, default $HOME/.cache/arenaplan) so that a
# fresh clone (CI) reuses it; `.cache` in the clone is a symlink to it, which is the path the build
# and the tests use. Its contents are keyed by version (the folder name below): a change of a pinned
# version starts a new folder instead of reusing a stale one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache_version="v1-imgui1.86-sdl2.26.5-emscripten3.1.6-models1"
cache="${ARENAPLAN_CACHE:-$HOME/.cache/arenaplan}/$cache_version"
mkdir -p "$cache"
if [ -d "$root/.cache" ] && [ ! -L "$root/.cache" ]; then
  rm -rf "$root/.cache"   # an in-tree cache from an older checkout: replaced by the shared one
fi
ln -sfn "$cache" "$root/.cache"
# Several clones (worktrees, CI) may run setup at once: one fills the shared cache, the others wait.
exec 9>"$cache/.setup.lock"
flock 9

log() { printf '[setup] %s\n' "$*"; }

apt_packages=(cmake ninja-build g++ emscripten nlohmann-json3-dev doctest-dev
              chromium nodejs dpkg-dev python3 ca-certificates zlib1g-dev
              clang libclang-rt-14-dev ccache
              libflatbuffers-dev flatbuffers-compiler)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Debian's node package conflicts with a NodeSource node already on the machine: keep whatever
# node is present, and only install Debian's when there is none.
if command -v node >/dev/null 2>&1; then
  filtered=(); for p in "${missing[@]}"; do [ "$p" = nodejs ] || filtered+=("$p"); done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi

# apt-get source needs deb-src entries. They are derived from the machine's own deb entries, so
# the sources come from whatever mirror (or snapshot) the machine already uses.
need_update=0
has_deb_src() {
  grep -qsE '^(Types:.*\bdeb-src\b|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
    /etc/apt/sources.list.d/*.list
}
if ! has_deb_src; then
  log "adding deb-src entries mirroring the machine's deb entries (apt-get source needs them)"
  for f in /etc/apt/sources.list.d/*.sources; do
    if [ -f "$f" ]; then sed -E 's/^Types:(.*)\bdeb\b/Types:\1deb-src/' "$f"; fi
  done > /etc/apt/sources.list.d/arenaplan-src.sources
  [ -s /etc/apt/sources.list.d/arenaplan-src.sources ] || rm -f /etc/apt/sources.list.d/arenaplan-src.sources
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    if [ -f "$f" ]; then sed -nE 's/^deb (.*)/deb-src \1/p' "$f"; fi
  done > /etc/apt/sources.list.d/arenaplan-src.list
  [ -s /etc/apt/sources.list.d/arenaplan-src.list ] || rm -f /etc/apt/sources.list.d/arenaplan-src.list
  has_deb_src || { log "no deb entry to derive a deb-src entry from"; exit 1; }
  need_update=1
fi
if [ "${#missing[@]}" -gt 0 ] || [ "$need_update" = 1 ]; then
  log "apt-get update"
  apt-get update -qq
fi
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing: ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# emscripten's JS optimiser needs Debian's acorn (docs/TOOLCHAIN.md, trap 1).
if [ ! -d /usr/share/nodejs/acorn ]; then
  apt-get install -y -qq --no-install-recommends node-acorn >/dev/null
fi

fetch_source() {  # $1 = Debian source package, $2 = glob of the unpacked folder
  local found
  found=$(ls -d "$cache"/src/$2 2>/dev/null | head -n1 || true)
  [ -n "$found" ] && return 0
  log "apt-get source $1"
  mkdir -p "$cache/src"
  (cd "$cache/src" && apt-get source -qq "$1" >/dev/null 2>&1) && return 0
  # A mirror can list a version its pool no longer holds (seen with a security update's source
  # on 2026-12-02: 404). Any version apt knows builds the same for us, so try each in turn.
  local v
  for v in $(apt-cache showsrc "$1" | sed -n 's/^Version: //p' | sort -u); do
    log "apt-get source $1=$v (the default version could not be fetched)"
    (cd "$cache/src" && apt-get source -qq "$1=$v" >/dev/null 2>&1) && return 0
  done
  echo "[setup] error: no version of the Debian source package $1 could be fetched (apt-get source $1)" >&2
  exit 1
}
fetch_source imgui 'imgui-1.*'
fetch_source libsdl2 'libsdl2-2.*'
fetch_source zlib 'zlib-1.*'   # share links deflate in Wasm too; native links Debian's libz

imgui_dir=$(ls -d "$cache"/src/imgui-1.* | grep -v '\.' | head -n1 || true)
[ -n "$imgui_dir" ] || imgui_dir=$(ls -d "$cache"/src/imgui-1.*/ | head -n1)
ln -sfn "${imgui_dir%/}" "$cache/imgui"
sdl_dir=$(ls -d "$cache"/src/libsdl2-2.*/ | head -n1)
ln -sfn "${sdl_dir%/}" "$cache/sdl2-src"
zlib_dir=$(ls -d "$cache"/src/zlib-1.*/ | head -n1)
ln -sfn "${zlib_dir%/}" "$cache/zlib"

export NODE_PATH=/usr/share/nodejs
if [ ! -f "$cache/sdl2-wasm/lib/libSDL2.a" ]; then
  log "building SDL2 for Wasm (once, about 2-3 minutes)"
  rm -rf "$cache/sdl2-wasm-build"
  emcmake cmake -S "$cache/sdl2-src" -B "$cache/sdl2-wasm-build" -G Ninja \
    -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$cache/sdl2-wasm" >/dev/null
  cmake --build "$cache/sdl2-wasm-build" -j2 >/dev/null
  cmake --install "$cache/sdl2-wasm-build" >/dev/null
  rm -rf "$cache/sdl2-wasm-build"
fi

# Browser tests: playwright-core drives Debian's chromium (no browser download).
if [ ! -d "$root/tests/browser/node_modules/playwright-core" ]; then
  log "npm install (browser tests)"
  (cd "$root/tests/browser" && npm install --no-audit --no-fund --silent)
fi
# Real .tflite test fixtures: npm packages that ship MediaPipe models (Apache-2.0), at
# exact versions so the recorded sha256 and figures stay valid. Only the .tflite files are kept,
# flat in .cache/models/ (ignored); the unit tests fail when they are missing.
model_packages=(@mediapipe/selfie_segmentation@0.1.1675465747 @mediapipe/face_detection@0.4.1657300184
                @mediapipe/hands@0.4.1675469240)
if [ ! -f "$cache/models/.complete" ]; then
  log "npm pack model fixtures"
  rm -rf "$cache/models" "$cache/models-tmp"
  mkdir -p "$cache/models" "$cache/models-tmp"
  for pkg in "${model_packages[@]}"; do
    tgz=$(cd "$cache/models-tmp" && npm pack --silent "$pkg" | tail -n1)
    tar -xzf "$cache/models-tmp/$tgz" -C "$cache/models" --strip-components=1 --wildcards 'package/*.tflite'
  done
  chmod 644 "$cache/models"/*.tflite
  rm -rf "$cache/models-tmp"
  touch "$cache/models/.complete"
fi
log "ready"
