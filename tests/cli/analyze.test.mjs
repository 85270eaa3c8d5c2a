// `arenaplan analyze`: the issue-2 contract (keys, numbers, exit statuses).
import assert from 'node:assert/strict';

const KiB = 1024;

export const tests = [
  ['two-branch in file order peaks at 136 KiB during C', (cli) => {
    const r = cli('analyze', 'examples/two_branch.json', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.json.order, ['A', 'B', 'C', 'D', 'E', 'F']);
    assert.deepEqual(r.json.steps.map((s) => s.live_bytes / KiB), [48, 128, 136, 104, 80, 32]);
    assert.deepEqual(r.json.steps[0], { op: 'A', live_bytes: 49152, live_count: 2 });
    // Each buffer's live interval stands for the per-step live lists (linear in the graph size).
    const liveAt = (step) => r.json.buffers.filter((b) => b.first <= step && step <= b.last).map((b) => b.name);
    assert.deepEqual(liveAt(0), ['I', 'A']);
    assert.deepEqual(liveAt(2), ['A', 'B', 'C']);
    assert.deepEqual(r.json.buffers.find((b) => b.name === 'B'), { name: 'B', size: 96 * KiB, first: 1, last: 2, category: 'head' });
    assert.equal(r.json.peak_bytes, 139264);
    assert.equal(r.json.peak_step, 2);
    assert.equal(r.json.total_bytes, 240 * KiB);
    assert.equal(r.json.largest_tensor_bytes, 96 * KiB);
  }],
  ['--order A,B,D,C,E,F peaks at 192 KiB during D', (cli) => {
    const r = cli('analyze', 'examples/two_branch.json', '--order', 'A,B,D,C,E,F', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.json.steps.map((s) => s.live_bytes / KiB), [48, 128, 192, 168, 80, 32]);
    assert.equal(r.json.peak_bytes, 196608);
    assert.equal(r.json.steps[r.json.peak_step].op, 'D');
  }],
  ['text mode prints the per-step table and a timeline', (cli) => {
    const r = cli('analyze', 'example:two_branch');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /2\s+C\s+136 KiB\s+A B C\s+<- peak/);
    assert.match(r.stdout, /timeline/);
  }],
  ['a non-topological order exits 2 naming the op', (cli) => {
    const r = cli('analyze', 'examples/two_branch.json', '--order', 'A,C,B,D,E,F');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /op C runs at step 1 before its input B exists/);
    assert.equal(r.stdout, '');
  }],
  ['bad input exits 2 with the place on stderr', (cli) => {
    let r = cli('analyze', 'no/such/file.json');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no\/such\/file.json: cannot open file/);
    r = cli('analyze', 'examples/two_branch.json', '--bogus');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--bogus: unknown option/);
    r = cli('frobnicate');
    assert.equal(r.status, 2);
  }],
  ['--explain gives one sentence per step: why each tensor is live, what was freed, why the peak is the peak', (cli) => {
    const r = cli('analyze', 'example:two_branch', '--order', 'A,B,D,C,E,F', '--explain');
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 6);
    assert.match(lines[2], /^Step 2 runs D: .*B 96 KiB \(read later by C at step 3\).* = 192 KiB live\. .*This is the peak, 192 KiB/);
    assert.match(lines[1], /Freed after step 0: I \(16 KiB\)/);
    const j = cli('analyze', 'example:two_branch', '--order', 'A,B,D,C,E,F', '--explain', '--json').json;
    assert.equal(j.explanation.length, 6);
    assert.equal(j.explanation[2].peak, true);
    assert.equal(j.explanation[2].sentence, lines[2]);
    // Why each buffer is live comes as spans of steps: at step 2 A is read now, B waits for C, D is made.
    const at2 = j.reasons.filter((r) => r.first <= 2 && 2 <= r.last);
    assert.deepEqual(at2.map((r) => [r.buffer, r.reason]), [['A', 'read now'], ['B', 'read later'], ['D', 'made now']]);
    assert.deepEqual(j.reasons.filter((r) => r.buffer === 'B').map((r) => [r.first, r.last, r.why]),
                     [[1, 1, 'made by B now'], [2, 2, 'read later by C at step 3'], [3, 3, 'read by C now']]);
    assert.deepEqual(j.explanation[3].freed, ['A']);
  }],
];
