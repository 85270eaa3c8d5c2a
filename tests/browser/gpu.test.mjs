// The rectangle path (shaders/rect.*.glsl through web/rect_renderer): the Lifetimes
// panel draws all its bars in one draw call, and 10,000 more with the stress switch.
import assert from 'node:assert/strict';
import path from 'node:path';
import { click, pngInfo, screenshot, sleep, state, test, waitFrames } from './harness.mjs';

// Distinct colours inside a widget's rectangle (a clipped screenshot decoded page-side).
async function coloursIn(page, rect, file) {
  const clip = { x: rect[0], y: rect[1], width: rect[2] - rect[0], height: rect[3] - rect[1] };
  const png = await page.screenshot({ clip, path: file });
  return (await pngInfo(page, png.toString('base64'), 1)).colours;
}

test('the Lifetimes panel draws every buffer in one draw call', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Lifetimes');
  const s = await state(page);
  assert.equal(s.gpu_rects.error, '', 'shaders compiled and linked');
  assert.equal(s.gpu_rects.draw_calls, 1);
  assert.equal(s.gpu_rects.drawn_rects, s.analysis.steps.length > 0 ? 7 + 1 : 0, '7 buffers + the step column');
  const colours = await coloursIn(page, s.ui['lifetimes.plot'], path.join(t.artifactDir, 'lifetimes-plot.png'));
  assert.ok(colours >= 4, `the plot has ${colours} colours`);
  assert.deepEqual(errors, []);
});

test('stress: 10,000 extra rectangles still go out in one draw call (frame rate reported)', async (t) => {
  const { page } = await t.open();
  await click(page, 'tab.Lifetimes');
  // The developer's stress switch sits in the Debug menu, out of users' way.
  assert.equal((await state(page)).ui['lifetimes.stress'], undefined, 'no stress switch in the Lifetimes panel');
  await click(page, 'menu.debug');
  await click(page, 'menu.debug.stress');
  await waitFrames(page, 3);
  const before = await state(page);
  await sleep(2000);  // the stress view keeps drawing: frames must keep coming
  const s = await state(page);
  assert.equal(s.gpu_rects.stress, true);
  assert.equal(s.gpu_rects.draw_calls, 1);
  assert.ok(s.gpu_rects.queued_rects >= 10008, `queued ${s.gpu_rects.queued_rects}`);
  // Thin bars merge at pixel resolution (web/rect_lod.h): fewer primitives, same picture.
  assert.ok(s.gpu_rects.drawn_rects > 8 && s.gpu_rects.drawn_rects < s.gpu_rects.queued_rects,
            `drawn ${s.gpu_rects.drawn_rects} of ${s.gpu_rects.queued_rects}`);
  // The frame rate with stress on is bench/page_bench.mjs's figure, not asserted here.
  assert.ok(s.frame > before.frame, 'frames keep coming while stress is on');
  await screenshot(page, t.artifactDir, 'lifetimes-stress');
});

test('the Arena picture draws its buffers through the same rectangle renderer', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Arena');
  await waitFrames(page, 3);
  const s = await state(page);
  assert.equal(s.gpu_rects.error, '');
  // The Lifetimes tile and the Arena picture: one call each; 8 + 7 rectangles (two-branch).
  assert.equal(s.gpu_rects.draw_calls, 2);
  assert.equal(s.gpu_rects.drawn_rects, 8 + 7);
  const colours = await coloursIn(page, s.ui['arena.picture'], path.join(t.artifactDir, 'arena-picture.png'));
  assert.ok(colours >= 5, `the arena picture has ${colours} colours`);
  assert.deepEqual(errors, []);
});
