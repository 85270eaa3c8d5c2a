// Step-through with reasons: stepping back and forth shows core's sentence for each
// step in the "Step reasons" panel and in the aria-live region.
import assert from 'node:assert/strict';
import { chord, click, screenshot, state, test, waitFrames } from './harness.mjs';

test('stepping back and forth with Alt+Left/Right shows the reasons, also in the aria-live region', async (t) => {
  const { page, errors } = await t.open();
  const live = () => page.evaluate(() => document.getElementById('live').textContent);
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  await click(page, 'tab.Step reasons');
  await click(page, 'explain.next');
  await click(page, 'explain.next');
  let s = await state(page);
  assert.equal(s.step, 2);
  // docs/DESIGN.md: ABDCEF peaks at 192 KiB during D, where A, B and D are live; B waits for C.
  assert.match(s.step_explanation.sentence, /^Step 2 runs D: .*B 96 KiB \(read later by C at step 3\).*= 192 KiB live\./);
  assert.match(s.step_explanation.sentence, /This is the peak, 192 KiB/);
  await waitFrames(page, 2);
  assert.match(await live(), /Step 2 runs D: .*This is the peak/);
  await screenshot(page, t.artifactDir, 'step-reasons-peak');
  await chord(page, 'Alt+ArrowRight');
  s = await state(page);
  assert.equal(s.step, 3);
  assert.match(s.step_explanation.sentence, /^Step 3 runs C: .*Freed after step 2: A \(32 KiB\)/);
  await waitFrames(page, 2);
  assert.match(await live(), /Step 3 runs C/);
  await chord(page, 'Alt+ArrowLeft');
  await chord(page, 'Alt+ArrowLeft');
  s = await state(page);
  assert.equal(s.step, 1);
  assert.match(s.step_explanation.sentence, /^Step 1 runs B: A 32 KiB \(read by B now\) and B 96 KiB \(made by B now\) = 128 KiB live\. Freed after step 0: I \(16 KiB\)\./);
  assert.deepEqual(errors, []);
});

test('the layout is placed one buffer at a time with a reason for each', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Step reasons');
  await click(page, 'explain.layout.next');
  let s = await state(page);
  assert.equal(s.step_explanation.layout.placed, 1);
  assert.equal(s.step_explanation.layout.of, 7);  // two-branch: 7 tensors, no scratch
  assert.match(s.step_explanation.layout.sentences[0], /^Place \w+ \(\d+ KiB, steps \d+\.\.\d+\) at the bottom \(offset 0\); the arena is now \d+ KiB\.$/);
  await click(page, 'explain.layout.next');
  await click(page, 'explain.layout.next');
  s = await state(page);
  assert.equal(s.step_explanation.layout.placed, 3);
  await click(page, 'explain.layout.prev');
  assert.equal((await state(page)).step_explanation.layout.placed, 2);
  assert.deepEqual(errors, []);
});
