// Determinism: the same input gives the same plan and numbers natively and in Wasm,
// run after run. Runs the native CLI (argv) and the Wasm build of the same CLI under Node
// (ARENAPLAN_WASM_CLI, set by scripts/test.sh) on every built-in graph example.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const wasmCli = process.env.ARENAPLAN_WASM_CLI;

function wasm(...args) {
  const r = spawnSync('node', ['--no-experimental-fetch', wasmCli, ...args], { encoding: 'utf8', cwd: repo, timeout: 300000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Wall-clock fields differ between runs by nature; everything else must be identical.
function stable(text) {
  return JSON.stringify(JSON.parse(text), (k, v) => (k === 'seconds' || k === 'elapsed_seconds' ? undefined : v));
}

const graphs = readdirSync(join(repo, 'examples'))
  .filter((f) => f.endsWith('.json'))
  .filter((f) => JSON.parse(readFileSync(join(repo, 'examples', f), 'utf8')).format === 'arenaplan-graph');

const commands = (file) => [
  ['analyze', `examples/${file}`, '--json'],
  ['layout', `examples/${file}`, '--planner', 'tflm-greedy', '--json'],
  ['layout', `examples/${file}`, '--planner', 'portfolio', '--json'],
];

export const tests = [
  ['the Wasm CLI is available (ARENAPLAN_WASM_CLI)', () => {
    assert.ok(wasmCli, 'set ARENAPLAN_WASM_CLI to build/wasm/arenaplan.js (scripts/test.sh does)');
  }],
  ...graphs.map((file) => [`${file}: native and Wasm give identical JSON, twice`, (cli) => {
    assert.ok(wasmCli, 'ARENAPLAN_WASM_CLI is not set');
    for (const args of commands(file)) {
      const a = cli(...args), b = cli(...args), w = wasm(...args);
      // Every command here must succeed: a failure is a failure, not a case to skip.
      assert.equal(a.status, 0, `${args.join(' ')}: native exit ${a.status}\n${a.stderr}`);
      assert.equal(w.status, 0, `${args.join(' ')}: wasm exit ${w.status}\n${w.stderr}`);
      assert.equal(b.status, 0, `${args.join(' ')}: second native run exit ${b.status}\n${b.stderr}`);
      assert.equal(stable(a.stdout), stable(b.stdout), `${args.join(' ')}: two native runs differ`);
      assert.equal(stable(a.stdout), stable(w.stdout), `${args.join(' ')}: native and Wasm differ`);
    }
  }]),
  // A patched graph has many orders of the same peak (its patches are alike): which one the
  // schedule search returns, and so which rewrites a frontier search keeps, must not depend on how
  // the standard library breaks ties (libstdc++ natively, libc++ in Wasm).
  ['among orders of equal peak, schedule, order:best and the frontier choose the same natively and in Wasm', (cli) => {
    assert.ok(wasmCli, 'ARENAPLAN_WASM_CLI is not set');
    const dir = mkdtempSync(join(tmpdir(), 'arenaplan-ties-'));
    try {
      const patched = join(dir, 'patched.json');
      const made = cli('transform', 'examples/whatif_patch.json', '--apply', 'patch:c1,r1,c2,pool=3x3',
                       '--apply', 'fuse:c1.p4,r1.p4', '-o', patched);
      assert.equal(made.status, 0, made.stderr);
      const orderBest = join(dir, 'order_best.json');
      for (const args of [
        ['schedule', patched, '--json'],
        ['transform', patched, '--apply', 'order:best', '-o', orderBest],
        ['transform', 'examples/whatif_patch.json', '--auto', '--pareto', '--max-extra-macs', '5', '--max-evaluations',
         '200', '--time-limit', '60', '--seconds', '0.2', '--kinds', 'fuse,patch,order', '--json'],
      ]) {
        const a = cli(...args);
        assert.equal(a.status, 0, `${args.join(' ')}: native exit ${a.status}\n${a.stderr}`);
        const native = args.includes('-o') ? readFileSync(orderBest, 'utf8') : stable(a.stdout);
        const w = wasm(...args);
        assert.equal(w.status, 0, `${args.join(' ')}: wasm exit ${w.status}\n${w.stderr}`);
        const inWasm = args.includes('-o') ? readFileSync(orderBest, 'utf8') : stable(w.stdout);
        assert.equal(inWasm, native, `${args.join(' ')}: native and Wasm differ`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }],
  ['generated exercises: the same kind, level and seed give the same file natively and in Wasm', (cli) => {
    assert.ok(wasmCli, 'ARENAPLAN_WASM_CLI is not set');
    for (const kind of ['predict-peak', 'find-order', 'place-tensor', 'cache-misses', 'fit-budget', 'broken-rule']) {
      for (let difficulty = 1; difficulty <= 5; difficulty++) {
        for (const seed of [0, 7, 123456789]) {
          const args = ['exercise', 'generate', '--kind', kind, '--difficulty', String(difficulty), '--seed', String(seed)];
          const a = cli(...args), w = wasm(...args);
          assert.equal(a.status, 0, a.stderr);
          assert.equal(a.stdout, w.stdout, `${args.join(' ')}: native and Wasm differ\n${w.stderr}`);
        }
      }
    }
  }],
];
