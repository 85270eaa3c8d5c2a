// The cache-lab exercise, driven through the UI with real clicks and read back from
// the exported counters.
import assert from 'node:assert/strict';
import { click, screenshot, state, test } from './harness.mjs';

test('cache lab: C = 4, s = 4 gives 4 misses then 12 hits, request 17 hits; C = 2 misses all 17', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Cache lab');
  let c = (await state(page)).cache;
  assert.equal(c.capacity, 4);
  assert.equal(c.stride, 4);
  await click(page, 'cache.reset');
  await click(page, 'cache.run');  // Run 16
  c = (await state(page)).cache;
  assert.equal(c.requests, 16);
  assert.equal(c.misses, 4);
  assert.equal(c.hits, 12);
  await click(page, 'cache.step');  // request 17
  c = (await state(page)).cache;
  assert.equal(c.requests, 17);
  assert.equal(c.hits, 13, 'request 17 is a hit');
  const shot = await screenshot(page, t.artifactDir, 'panel-cache-lab');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);

  await click(page, 'cache.capacity.dec');
  await click(page, 'cache.capacity.dec');
  await click(page, 'cache.reset');
  c = (await state(page)).cache;
  assert.equal(c.capacity, 2);
  assert.equal(c.requests, 0, 'Reset empties the history');
  await click(page, 'cache.run');
  await click(page, 'cache.step');
  c = (await state(page)).cache;
  assert.equal(c.requests, 17);
  assert.equal(c.misses, 17, 'C = 2, s = 4: every request misses');
  assert.deepEqual(errors, []);
});

test('cache lab prediction mode: hidden outcomes, scored on reveal', async (t) => {
  const { page } = await t.open();
  await click(page, 'tab.Cache lab');
  await click(page, 'cache.predict');  // predict the first 8 requests
  // Guess: 4 misses (click twice: ? -> H -> M) then 4 hits (click once).
  for (let k = 0; k < 8; k++) {
    await click(page, `cache.guess.${k}`);
    if (k < 4) await click(page, `cache.guess.${k}`);
  }
  await click(page, 'cache.run');
  await click(page, 'cache.reveal');
  const c = (await state(page)).cache;
  assert.equal(c.revealed, true);
  assert.equal(c.score, 8, 'four misses then four hits is exactly right for C = 4, s = 4');
});
