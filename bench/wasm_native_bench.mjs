#!/usr/bin/env node
// The page's searches in Wasm against native (goal: Wasm within 2x of native).
// Runs bench/search_budget_bench.cpp built both ways, one after the other in this one run, with
// the same fixed work budget (exact-layout nodes, schedule states; never a time limit, so both
// builds do the same search), and prints CPU seconds per instance and the Wasm/native ratio.
// The results (arena / peak bytes) must be identical between the builds and the work done nearly so:
// a row whose result differs is flagged (the two did not do the same search). The schedule
// search's state count differs by a few hundredths of a percent between libstdc++ and libc++
// (ties broken differently inside the search); that is shown, not hidden.
//
// Usage: node bench/wasm_native_bench.mjs [NATIVE_BUILD_DIR] [WASM_BUILD_DIR] [-- bench args]
//   defaults build/native build/wasm; bench args e.g. --nodes 300000 --states 400000 --only A,wide-250
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const dirs = dash < 0 ? argv : argv.slice(0, dash);
const benchArgs = ['--json', ...(dash < 0 ? [] : argv.slice(dash + 1))];
const nativeBin = path.resolve(dirs[0] || 'build/native', 'bench_search_budget_bench');
const wasmJs = path.resolve(dirs[1] || 'build/wasm', 'bench_search_budget_bench.js');
for (const f of [nativeBin, wasmJs]) {
  if (!fs.existsSync(f)) {
    console.error(`missing ${f}: build the bench_search_budget_bench target natively and for Wasm (configure build/wasm with -DARENAPLAN_BENCHES=ON)`);
    process.exit(2);
  }
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) {
    console.error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

// Node 20 runs Emscripten output only without its fetch (docs/TOOLCHAIN.md, trap 4).
const native = run(nativeBin, benchArgs);
const wasm = run(process.execPath, ['--no-experimental-fetch', wasmJs, ...benchArgs]);
console.log(`same work budget in both builds (${benchArgs.slice(1).join(' ') || 'defaults'}); CPU seconds`);
console.log(`${'kind'.padEnd(9)}${'instance'.padEnd(16)}${'work'.padStart(10)}${'result B'.padStart(11)}` +
            `${'native s'.padStart(10)}${'wasm s'.padStart(10)}${'wasm/native'.padStart(13)}`);
let worst = 0, sumNative = 0, sumWasm = 0;
for (const n of native) {
  const w = wasm.find((x) => x.kind === n.kind && x.name === n.name);
  if (!w) continue;
  const workDiff = Math.abs(w.work - n.work) / Math.max(n.work, 1);
  const ratio = w.seconds / Math.max(n.seconds, 1e-6);
  // Instances that take under 10 ms natively time mostly the clock: shown, not counted.
  if (n.seconds >= 0.01) { worst = Math.max(worst, ratio); sumNative += n.seconds; sumWasm += w.seconds; }
  console.log(`${n.kind.padEnd(9)}${n.name.padEnd(16)}${String(n.work).padStart(10)}${String(n.result).padStart(11)}` +
              `${n.seconds.toFixed(3).padStart(10)}${w.seconds.toFixed(3).padStart(10)}${ratio.toFixed(2).padStart(12)}x` +
              (n.seconds < 0.01 ? '  (under 10 ms: not counted)' : '') +
              (w.result !== n.result ? `  DIFFERENT RESULT (wasm: ${w.work} work, ${w.result} B)`
               : workDiff > 0 ? `  (wasm did ${w.work} units, ${(100 * workDiff).toFixed(3)} % apart)` : ''));
}
const total = sumWasm / Math.max(sumNative, 1e-6);
console.log(`total wasm/native ${total.toFixed(2)}x, worst instance ${worst.toFixed(2)}x ` +
            `(goal <= 2x: ${worst <= 2 ? 'met' : 'NOT met'})`);
