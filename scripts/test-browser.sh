#!/usr/bin/env bash
# Runs the browser tests (headless Chromium + playwright-core) against a built site.
# Usage: scripts/test-browser.sh [SITE_DIR] [name-filter]   (default SITE_DIR: build/wasm/site)
# Screenshots land in SITE_DIR/../browser-artifacts/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
site="${1:-${SITE_DIR:-$root/build/wasm/site}}"
if [ ! -f "$site/index.html" ] || [ ! -f "$site/app.wasm" ]; then
  echo "test-browser: no built site in $site (build it with scripts/build.sh wasm)" >&2
  exit 2
fi
if [ ! -d "$root/tests/browser/node_modules/playwright-core" ]; then
  (cd "$root/tests/browser" && npm install --no-audit --no-fund --silent)
fi
exec node "$root/tests/browser/run.mjs" "$site" "${2:-}"
