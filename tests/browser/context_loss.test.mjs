// A lost WebGL context (GPU reset, driver update, a tab with too many contexts) takes every GL
// object with it and leaves the canvas blank. Once the browser restores the context, the app must
// build its GL objects anew and draw its picture again, although the picture itself (and so its
// hash, which skips unchanged frames) has not changed. WEBGL_lose_context plays the loss.
import assert from 'node:assert/strict';
import path from 'node:path';
import { click, pngInfo, state, test, waitFrames } from './harness.mjs';

// Fraction of pixels of two same-sized PNGs (base64) whose colour differs by more than `tol` in
// some channel, decoded page-side.
async function pixelDifference(page, a, b, tol = 16) {
  return page.evaluate(async ([pa, pb, t]) => {
    const decode = async (data) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + data;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return g.getImageData(0, 0, c.width, c.height);
    };
    const [x, y] = [await decode(pa), await decode(pb)];
    if (x.width !== y.width || x.height !== y.height) return 1;
    let differ = 0;
    for (let i = 0; i < x.data.length; i += 4)
      if (Math.abs(x.data[i] - y.data[i]) > t || Math.abs(x.data[i + 1] - y.data[i + 1]) > t ||
          Math.abs(x.data[i + 2] - y.data[i + 2]) > t) differ++;
    return differ / (x.width * x.height);
  }, [a, b, tol]);
}

// Calls WEBGL_lose_context's `method` on the app's canvas and waits for the `event` it causes.
// The extension is fetched while the context is alive (a lost context hands out none) and kept.
async function contextEvent(page, method, event) {
  return page.evaluate(([m, e]) => new Promise((resolve, reject) => {
    const canvas = document.getElementById('canvas');
    window.loseContextExtension ||= canvas.getContext('webgl2').getExtension('WEBGL_lose_context');
    const ext = window.loseContextExtension;
    if (!ext) return reject(new Error('no WEBGL_lose_context'));
    const timer = setTimeout(() => reject(new Error(`no ${e} event within 10 s`)), 10000);
    canvas.addEventListener(e, () => { clearTimeout(timer); resolve(true); }, { once: true });
    ext[m]();
  }), [method, event]);
}

test('context loss: a restored WebGL context shows the same picture again and the page stays usable', async (t) => {
  const { page, errors } = await t.open();
  // WebGL reports misuse (a stale object, a buffer updated past its end) as console warnings.
  const glWarnings = [];
  page.on('console', (msg) => { if (msg.type() === 'warning' && /GL/.test(msg.text())) glWarnings.push(msg.text()); });
  const shot = async (name) =>
    (await page.screenshot({ path: path.join(t.artifactDir, `context-loss-${name}.png`) })).toString('base64');
  // A static picture (no fps readout) with a cached rectangle layer (the Arena view).
  await click(page, 'tab.Step reasons');
  await click(page, 'tab.Arena');
  await waitFrames(page, 4);
  const s0 = await state(page);
  assert.equal(s0.gpu_rects.error, '');
  assert.ok(s0.gpu_rects.draw_calls >= 1, 'the Arena view draws through the rectangle renderer');
  const before = await shot('before');
  assert.ok((await pngInfo(page, before)).colours >= 8, 'the app is drawn');
  // Idle frames are not rasterised: the page relies on the hash skip (what the loss defeats).
  await waitFrames(page, 6);
  const idle = (await state(page)).perf.rasterized_frames;
  await waitFrames(page, 6);
  assert.ok((await state(page)).perf.rasterized_frames - idle <= 1, 'an unchanged picture is not redrawn');

  await contextEvent(page, 'loseContext', 'webglcontextlost');
  const lost = await shot('lost');
  assert.ok(await pixelDifference(page, before, lost) > 0.2, 'the lost context left the canvas blank');

  await contextEvent(page, 'restoreContext', 'webglcontextrestored');
  await waitFrames(page, 4);
  const restored = await shot('restored');
  const diff = await pixelDifference(page, before, restored);
  assert.ok(diff < 0.001, `${(diff * 100).toFixed(2)}% of the pixels differ from before the loss (see artifacts)`);
  const s1 = await state(page);
  assert.equal(s1.gpu_rects.error, '', 'the rectangle shaders were built again');
  assert.ok(s1.gpu_rects.layer_renders > s0.gpu_rects.layer_renders, 'the cached rectangle layer was rendered again');

  // Still usable: a new step is drawn, and a click on a tab switches it.
  assert.equal(await page.evaluate(() => window.arenaplan.setStep(3)), '');
  await waitFrames(page, 3);
  assert.ok(await pixelDifference(page, restored, await shot('step3')) > 0, 'the new step is drawn');
  await click(page, 'tab.Budget');
  await waitFrames(page, 3);
  assert.ok(await pixelDifference(page, restored, await shot('budget')) > 0.01, 'the Budget tab is drawn');
  assert.deepEqual(glWarnings, []);
  assert.deepEqual(errors, []);
});
