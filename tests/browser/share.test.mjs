// Share links: the state travels in the URL fragment and comes back with the same
// numbers and view; a corrupt, truncated or future-version link shows a message and the default.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { click, openAt, screenshot, state, test, waitFrames } from './harness.mjs';

const KiB = 1024;

test('share link round trip: order, step, open panel and cache-lab settings come back', async (t) => {
  const { page } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  await page.evaluate(() => window.arenaplan.setStep(3));
  await click(page, 'tab.Cache lab');
  await click(page, 'cache.capacity.dec');  // C = 3
  await click(page, 'cache.step');
  await click(page, 'cache.step');
  await click(page, 'menu.file');
  await click(page, 'menu.file.share');
  const link = await page.evaluate(() => window.arenaplanLastLink);
  assert.match(link, /#v1\./);
  const before = await state(page);
  assert.equal(before.peak_bytes, 196608);

  const { page: other, errors } = await openAt(t, link.slice(link.indexOf('#') + 1));
  const after = await state(other);
  assert.equal(after.error, '');
  assert.deepEqual(after.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(after.peak_bytes, 196608);
  assert.deepEqual(after.analysis.steps.map((x) => x.live_bytes / KiB), [48, 128, 192, 168, 80, 32]);
  assert.equal(after.step, 3);
  assert.equal(after.panel, 'Cache lab');
  assert.equal(after.cache.capacity, 3);
  assert.equal(after.cache.requests, 2);
  assert.deepEqual(errors, []);
});

test('an edited graph travels inline in the link', async (t) => {
  const { page } = await t.open();
  const text = JSON.stringify({
    format: 'arenaplan-graph', version: 1, name: 'shared-chain',
    tensors: { x: { bytes: 1024 }, y: { bytes: 2048 }, z: { bytes: 512 } },
    ops: [{ name: 'p', inputs: ['x'], outputs: ['y'] }, { name: 'q', inputs: ['y'], outputs: ['z'] }],
    inputs: ['x'], outputs: ['z'],
  });
  assert.equal(await page.evaluate((g) => window.arenaplan.loadGraphJson(g), text), '');
  const fragment = await page.evaluate(() => window.arenaplan.shareFragment());
  const { page: other } = await openAt(t, fragment);
  const s = await state(other);
  assert.equal(s.graph, 'shared-chain');
  assert.equal(s.peak_bytes, 3072);
});

test('corrupt, truncated and future-version links show a message and load the default', async (t) => {
  const { page } = await t.open();
  await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F'));
  const good = await page.evaluate(() => window.arenaplan.shareFragment());
  for (const [bad, why] of [
    [good.slice(0, good.length - 6), /truncated|corrupt/],
    ['v1.!!!!', /not base64url/],
    ['v7.' + good.slice(3), /newer arenaplan/],
    ['hello', /not an arenaplan link/],
  ]) {
    const { page: p, errors } = await openAt(t, bad);
    const s = await state(p);
    assert.match(s.error, /Share link refused/);
    assert.match(s.error, why);
    assert.equal(s.graph, 'two-branch');
    assert.equal(s.peak_bytes, 139264, 'the default example in file order');
    assert.deepEqual(errors, []);
  }
  const { page: p } = await openAt(t, 'v1.' + 'A'.repeat(40));
  const shot = await screenshot(p, t.artifactDir, 'share-link-refused');
  assert.ok(shot.distinct > 12);
});

test('a link made with a .tflite open keeps the TFLM target and says plainly which figures it could not carry', async (t) => {
  const { page } = await t.open();
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '../unit/data/tflm/ds_cnn_small.tflite');
  assert.equal(await page.evaluate(([n, b]) => window.arenaplan.openFile(n, new Uint8Array(b)),
                                   [path.basename(file), Array.from(fs.readFileSync(file))]), '');
  assert.equal(await page.evaluate(() => window.arenaplan.selectBoard('nrf52840')), '');
  assert.equal(await page.evaluate(() => window.arenaplan.setTflmTarget('cmsis-nn', 'cortex-m4')), '');
  const sent = (await state(page)).budget.tflm_arena;
  assert.ok(sent.offline_plan_arena_bytes > 0, JSON.stringify(sent));
  const fragment = await page.evaluate(() => window.arenaplan.shareFragment());
  const { page: other, errors } = await openAt(t, fragment);
  const s = await state(other);
  assert.equal(s.error, '');
  assert.equal(s.budget.board, 'nrf52840');
  const note = s.budget.tflm_arena.not_carried;
  assert.match(note, /carries its graph, not the \.tflite/);
  assert.ok(note.includes(sent.offline_plan_arena_bytes.toLocaleString('en-US')), note);
  assert.match(note, /cortex-m4/);
  // Opening the model again gives the sender's figures: the target came with the link.
  assert.equal(await other.evaluate(([n, b]) => window.arenaplan.openFile(n, new Uint8Array(b)),
                                    [path.basename(file), Array.from(fs.readFileSync(file))]), '');
  const back = (await state(other)).budget.tflm_arena;
  assert.equal(back.offline_plan_arena_bytes, sent.offline_plan_arena_bytes);
  assert.equal(back.core, 'cortex-m4');
  assert.deepEqual(errors, []);
});
