// What a frame costs in software GL: unchanged pictures are not rasterised
// again, a static rectangle view is drawn from its cached layer, and big opaque rectangles are
// cleared instead of shaded, each without changing a pixel of what the page shows.
import assert from 'node:assert/strict';
import path from 'node:path';
import { click, pngInfo, sleep, state, test, waitFrames } from './harness.mjs';

const perf = async (page) => (await state(page)).perf;

test('frames: an unchanged picture is not rasterised again, a changed one is, and the canvas keeps it', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Step reasons');  // the bottom tile without the Lifetimes fps readout
  await waitFrames(page, 4);
  const before = await perf(page);
  const frame0 = (await state(page)).frame;
  await waitFrames(page, 30);
  const idle = await perf(page);
  const frames = (await state(page)).frame - frame0;
  assert.ok(frames >= 30, `the UI ran ${frames} frames`);
  assert.ok(idle.rasterized_frames - before.rasterized_frames <= 2,
            `${idle.rasterized_frames - before.rasterized_frames} of ${frames} unchanged frames were rasterised`);
  // The canvas still shows the picture (not a blank buffer) after the skipped frames.
  const shot = await page.screenshot({ path: path.join(t.artifactDir, 'frames-after-skips.png') });
  assert.ok((await pngInfo(page, shot.toString('base64'))).colours >= 8, 'the canvas kept its picture');
  // A change of the picture is rasterised.
  assert.equal(await page.evaluate(() => window.arenaplan.setStep(3)), '');
  await waitFrames(page, 3);
  assert.ok((await perf(page)).rasterized_frames > idle.rasterized_frames, 'the changed picture was drawn');
  // With the skip off every frame is rasterised (what page_bench measures as the cost of a frame).
  await page.evaluate(() => window.arenaplan.setSkipUnchangedFrames(false));
  const off0 = await perf(page);
  await waitFrames(page, 10);
  const off1 = await perf(page);
  assert.ok(off1.rasterized_frames - off0.rasterized_frames >= 10, 'skip off: every frame rasterised');
  await page.evaluate(() => window.arenaplan.setSkipUnchangedFrames(true));
  assert.deepEqual(errors, []);
});

test('frames: big opaque rectangles drawn as clears give the same pixels as shaded triangles', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Step reasons');
  for (const tab of ['Graph', 'Arena', 'Budget']) {
    await click(page, 'tab.' + tab);
    await waitFrames(page, 4);
    const shots = [];
    for (const on of [true, false]) {
      await page.evaluate((on) => window.arenaplan.setClearFills(on), on);
      await waitFrames(page, 3);
      const fills = (await perf(page)).clear_fills;
      assert.ok(on ? fills >= 1 : fills === 0, `${tab}: ${fills} rectangles cleared with clears ${on ? 'on' : 'off'}`);
      shots.push(await page.screenshot({ path: path.join(t.artifactDir, `clear-fills-${tab}-${on}.png`) }));
    }
    assert.ok(Buffer.compare(shots[0], shots[1]) === 0, `${tab}: the picture differs with clears (see artifacts)`);
  }
  await page.evaluate(() => window.arenaplan.setClearFills(true));
  assert.deepEqual(errors, []);
});

test('frames: a static 10,000-rectangle view renders its layer once, a change renders it again', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Lifetimes');
  await click(page, 'menu.debug');
  await click(page, 'menu.debug.stress');
  await page.evaluate(() => window.arenaplan.setSkipUnchangedFrames(false));  // rasterise every frame
  await waitFrames(page, 4);
  const a = (await state(page)).gpu_rects;
  await sleep(500);
  const b = (await state(page)).gpu_rects;
  assert.equal(b.draw_calls, 1, 'one quad onto the canvas');
  assert.ok(b.queued_rects >= 10008);
  assert.equal(b.layer_renders, a.layer_renders, 'unchanged rectangles: the cached layer is reused');
  assert.equal(await page.evaluate(() => window.arenaplan.setStep(4)), '');  // moves the step column
  await waitFrames(page, 3);
  assert.equal((await state(page)).gpu_rects.layer_renders, b.layer_renders + 1, 'the layer is rendered again once');
  await page.evaluate(() => window.arenaplan.setSkipUnchangedFrames(true));
  await click(page, 'menu.debug');
  await click(page, 'menu.debug.stress');
  assert.deepEqual(errors, []);
});
