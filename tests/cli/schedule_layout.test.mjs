// `arenaplan schedule` and `arenaplan layout` / `verify`: the contracts.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KiB = 1024;
const name = (o) => o.order.join('');

export const tests = [
  ['schedule --enumerate: exactly 6 orders, two at 136 KiB and four at 192 KiB', (cli) => {
    const r = cli('schedule', 'example:two_branch', '--enumerate', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.count, 6);
    assert.equal(r.json.count_exact, true);
    const peaks = Object.fromEntries(r.json.orders.map((o) => [name(o), o.peak_bytes / KiB]));
    assert.deepEqual(peaks, { ABCDEF: 136, ADEBCF: 136, ABDCEF: 192, ABDECF: 192, ADBCEF: 192, ADBECF: 192 });
    assert.equal(r.json.min_peak_bytes, 136 * KiB);
    assert.equal(r.json.max_peak_bytes, 192 * KiB);
  }],
  ['schedule --enumerate --limit 2 lists two orders but counts six', (cli) => {
    const r = cli('schedule', 'example:two_branch', '--enumerate', '--limit', '2', '--json');
    assert.equal(r.json.orders.length, 2);
    assert.equal(r.json.count, 6);
  }],
  ['schedule returns 136 KiB, proven optimal (it meets the lower bound)', (cli) => {
    const r = cli('schedule', 'example:two_branch', '--time-limit', '5', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.peak_bytes, 139264);
    assert.equal(r.json.lower_bound_bytes, 139264);
    assert.equal(r.json.proven_optimal, true);
    for (const k of ['order', 'baseline_peak_bytes', 'states_explored', 'seconds']) assert.ok(k in r.json, k);
  }],
  // The two-branch graph written as Checkmate / MOCCASIN write theirs (networkx node-link JSON, the
  // input a node of its own): the same proven optimum; a link to no node is refused by its place.
  ['schedule reads a node-link computation graph: two-branch as Checkmate writes it, 136 KiB proven', (cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'arenaplan-nodelink-'));
    const sizes = { I: 16, A: 32, B: 96, C: 8, D: 64, E: 8, F: 16 };
    const edges = [['I', 'A'], ['A', 'B'], ['B', 'C'], ['A', 'D'], ['D', 'E'], ['C', 'F'], ['E', 'F']];
    const ids = Object.keys(sizes);
    const doc = {
      directed: true, multigraph: false, graph: { name: 'two-branch (node-link)' },
      nodes: ids.map((n, i) => ({ name: n, cost_ram: sizes[n] * KiB, cost_cpu: 1, id: i })),
      links: edges.map(([u, v]) => ({ source: ids.indexOf(u), target: ids.indexOf(v) })),
    };
    const file = join(dir, 'two_branch_nx.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = cli('schedule', file, '--time-limit', '5', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.peak_bytes, 136 * KiB);
    assert.equal(r.json.lower_bound_bytes, 136 * KiB);
    assert.equal(r.json.proven_optimal, true);
    assert.equal(r.json.order[0], 'I');
    doc.links[0].target = 99;
    writeFileSync(file, JSON.stringify(doc));
    const bad = cli('schedule', file);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /two_branch_nx\.json: \/links\/0\/target: no node 99/);
  }],
  ['layout --planner exact: 136 KiB, verified, at the lower bound', (cli) => {
    const r = cli('layout', 'example:two_branch', '--planner', 'exact', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.arena_bytes, 139264);
    assert.equal(r.json.lower_bound_bytes, 139264);
    assert.equal(r.json.verified, true);
    assert.equal(r.json.proven_optimal, true);
    assert.match(r.json.optimality, /live-bytes lower bound/);  // the proof, named
    const greedy = cli('layout', 'example:two_branch', '--planner', 'naive', '--json').json;
    assert.ok(greedy.proven_optimal || greedy.optimality === null, JSON.stringify(greedy.optimality));
    assert.equal(r.json.buffers.length, 7);
    for (const b of r.json.buffers) for (const k of ['name', 'offset', 'size', 'first', 'last']) assert.ok(k in b, k);
  }],
  ['layout prints an ASCII picture in text mode', (cli) => {
    const r = cli('layout', 'example:two_branch', '--planner', 'tflm-greedy');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.split('\n').length > 8);
  }],
  ['verify accepts a layout plan and names the broken rule of a shifted one', (cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-'));
    const plan = cli('layout', 'example:two_branch', '--planner', 'exact', '--json').json;
    writeFileSync(join(dir, 'good.json'), JSON.stringify(plan));
    let r = cli('verify', 'example:two_branch', join(dir, 'good.json'));
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const b = plan.buffers.find((x) => x.name === 'B'), a = plan.buffers.find((x) => x.name === 'A');
    b.offset = a.offset;  // A and B are live together at step 1
    plan.arena_bytes = 1 << 20;  // keep the bound rule satisfied so the overlap is what breaks
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(plan));
    r = cli('verify', 'example:two_branch', join(dir, 'bad.json'));
    assert.equal(r.status, 1);
    assert.match(r.stdout + r.stderr, /broken rule overlap: buffers A and B overlap/);
  }],
  ['layout --explain: one sentence per placed buffer, lowest offset first, as the page steps through it', (cli) => {
    const r = cli('layout', 'example:two_branch', '--order', 'A,B,C,D,E,F', '--explain');
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 7);  // I, A, B, C, D, E, F
    for (const line of lines) assert.match(line, /^Place [A-Z] \(\d+ KiB, steps \d\.\.\d\) at .*; the arena is now \d+ KiB\.$/);
    const j = cli('layout', 'example:two_branch', '--order', 'A,B,C,D,E,F', '--explain', '--json').json;
    assert.equal(j.explanation.length, j.buffers.length);
    const offsetOf = Object.fromEntries(j.buffers.map((b) => [b.name, b.offset]));
    let previous = 0;
    for (const e of j.explanation) {
      assert.equal(e.offset, offsetOf[e.buffer], e.sentence);
      assert.ok(e.offset >= previous);
      previous = e.offset;
    }
    assert.equal(j.explanation.at(-1).arena_so_far, j.arena_bytes);
    assert.deepEqual(j.explanation.map((e) => e.sentence), lines);
  }],
];
