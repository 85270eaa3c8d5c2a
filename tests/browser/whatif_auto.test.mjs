// The What-if tab's "Fit automatically": the search runs a slice per frame (the page
// keeps drawing), finds the same sequence and peak as `arenaplan transform --auto`, and its
// rewrites can be taken into the list.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { click, state, test, typeInto, waitFrames } from './harness.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.ARENAPLAN_CLI || path.join(repo, 'build/native/arenaplan');

test('Fit automatically under a 96 KiB budget: the CLI\'s sequence and peak, verified; Use takes it into the list', async (t) => {
  const { page, errors } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('whatif_fusion')), '');
  await click(page, 'tab.What-if');
  await typeInto(page, 'whatif.auto.budget', '96');
  assert.equal((await state(page)).whatif.auto.budget_kib, 96);
  const startFrame = (await state(page)).frame;
  await click(page, 'whatif.auto.run');
  await page.waitForFunction(() => {
    const a = window.arenaplan.state().whatif.auto;
    return !a.running && a.result && a.result.auto;
  }, null, { timeout: 120000 });
  const s = await state(page);
  assert.ok(s.frame > startFrame + 3, 'the page kept drawing while the search ran');
  const page_ = s.whatif.auto.result;

  const r = spawnSync(cli, ['transform', 'examples/whatif_fusion.json', '--auto', '--budget', '96KiB', '--json',
                            '--seconds', '0.2'], { cwd: repo, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const native = JSON.parse(r.stdout);
  assert.equal(page_.after.peak_bytes, native.after.peak_bytes);
  assert.ok(page_.after.peak_bytes <= 96 * 1024);
  assert.deepEqual(page_.auto.applied.map((a) => a.spec), native.auto.applied.map((a) => a.spec));
  assert.equal(page_.auto.lower_bound_bytes, native.auto.lower_bound_bytes);
  assert.equal(page_.auto.budget_met, true);
  assert.equal(page_.outputs.check, 'bit-exact');
  assert.equal(page_.after.verified, true);
  assert.equal(page_.after.sim_ok, true);

  await click(page, 'whatif.auto.use');
  await waitFrames(page, 3);
  const after = await state(page);
  assert.deepEqual(after.whatif.list.map((w) => w.spec), native.auto.applied.map((a) => a.spec));
  assert.equal(after.whatif.report.after.peak_bytes, native.after.peak_bytes);
  assert.deepEqual(errors, []);
});

// Real models opened as .tflite (asymmetric SAME padding, RESHAPE with a constant shape, residual
// adds, an inception block): Fit automatically gives the CLI's answer on the same file, verified
// and bit-exact, instead of refusing the model.
test('Fit automatically on opened .tflite models: the peak `arenaplan transform MODEL --auto` finds, bit-exact', async (t) => {
  const { page, errors } = await t.open();
  for (const model of ['tests/unit/data/tflm/ds_cnn_small.tflite', 'tests/unit/data/tflm/int8_inception.tflite']) {
    const file = path.join(repo, model);
    const refused = await page.evaluate(([name, b]) => window.arenaplan.openFile(name, new Uint8Array(b)),
                                        [path.basename(file), Array.from(fs.readFileSync(file))]);
    assert.equal(refused, '', `${model}: ${refused}`);
    await click(page, 'tab.What-if');
    await typeInto(page, 'whatif.auto.budget', '0');
    await click(page, 'whatif.auto.run');
    await page.waitForFunction(() => {
      const a = window.arenaplan.state().whatif.auto;
      return !a.running && a.result && (a.result.auto || a.result.error);
    }, null, { timeout: 180000 });
    const mine = (await state(page)).whatif.auto.result;
    assert.equal(mine.error, undefined, `${model}: ${mine.error}`);
    const r = spawnSync(cli, ['transform', model, '--auto', '--json', '--seconds', '0.2'], { cwd: repo, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const native = JSON.parse(r.stdout);
    assert.equal(mine.after.peak_bytes, native.after.peak_bytes, model);
    assert.equal(mine.outputs.check, 'bit-exact');
    assert.equal(mine.after.verified, true);
  }
  assert.deepEqual(errors, []);
});
