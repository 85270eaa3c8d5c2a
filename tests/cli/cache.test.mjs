// `arenaplan cache`: the issue-7 contract.
import assert from 'node:assert/strict';

export const tests = [
  ['C = 4, s = 4, 17 requests: 4 misses then 13 hits', (cli) => {
    const r = cli('cache', '--capacity', '4', '--stride', '4', '--requests', '17', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.requests, 17);
    assert.equal(r.json.misses, 4);
    assert.equal(r.json.hits, 13);
    assert.deepEqual(r.json.trace[0], { k: 0, block: 0, hit: false, evicted: null, contents: [0] });
    assert.equal(r.json.trace[16].hit, true);
  }],
  ['C = 2, s = 4: all 17 requests miss', (cli) => {
    const r = cli('cache', '--capacity', '2', '--stride', '4', '--requests', '17', '--policy', 'lru', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.misses, 17);
  }],
  ['bad policy exits 2', (cli) => {
    const r = cli('cache', '--capacity', '2', '--policy', 'random');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--policy: unknown policy "random"/);
  }],
];
