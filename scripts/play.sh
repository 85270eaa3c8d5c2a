#!/usr/bin/env bash
# Starts the playground: installs what is missing, builds the Wasm app if needed, and serves it on
# 127.0.0.1 (PORT, default 8080; 0 picks a free port). The two-branch example loads by default.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" wasm
exec node "$root/scripts/serve.mjs" "$root/build/wasm/site" --port "${PORT:-8080}"
