// A real .tflite model opened in the page: imported locally by core, shown everywhere.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { click, state, test, waitFrames } from './harness.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const model = path.join(repo, '.cache/models/face_detection_short_range.tflite');

test('a .tflite chosen with File > Open shows its real plan (peak 1,376,256 bytes)', async (t) => {
  assert.ok(fs.existsSync(model), `${model} is missing: run scripts/setup.sh`);
  const { page, errors } = await t.open();
  await click(page, 'menu.file');
  const chooser = page.waitForEvent('filechooser');
  await click(page, 'menu.file.open');
  await (await chooser).setFiles(model);
  await page.waitForFunction(() => window.arenaplan.state().peak_bytes === 1376256, null, { timeout: 30000 });
  const s = await state(page);
  assert.equal(s.error, '');
  assert.equal(s.example, '');
  assert.ok(s.order.length > 50, `${s.order.length} ops`);
  assert.deepEqual(errors, []);
});

test('a corrupt .tflite is refused with a reason and the previous graph stays', async (t) => {
  const { page } = await t.open();
  const bytes = Array.from(fs.readFileSync(model).subarray(0, 3000));
  const err = await page.evaluate((b) => window.arenaplan.loadTflite(new Uint8Array(b)), bytes);
  assert.match(err, /Model refused/);
  await waitFrames(page, 2);
  const s = await state(page);
  assert.equal(s.graph, 'two-branch');
  assert.equal(s.peak_bytes, 139264);
});
