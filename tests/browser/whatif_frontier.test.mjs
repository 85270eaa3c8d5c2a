// The What-if tab's Frontier: core's pareto_frontier runs in the search worker (the page keeps
// drawing), the page draws exactly the points `arenaplan transform --auto --pareto --json` prints
// for the same graph and limits, and a click on a point puts its rewrites in the What-if list,
// whose verified report gives the point's peak. A graph with nothing to trade, a refused request
// and a stopped run give a message and no chart.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chord, click, clickAt, clickField, cliJson, labelProblems, screenshot, state, test, typeInto, waitFrames } from './harness.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Count limits, not time, end each cap's search (200 rewrites tried; a minute per cap is never
// reached), so the page's Wasm and the native CLI do the same search. Patching, fusion and
// ordering trade MACs for memory on whatif_patch (its patches give many orders of equal peak: the
// schedule search breaks those ties the same way in Wasm, with libc++, as natively); the opened
// model below runs every default kind.
const kEvaluations = 200;
const kMaxExtraMacsPct = 5;
const kSecondsPerCap = 60;
const kKinds = 'fuse,patch,order';

async function runFrontier(page, { maxPct, secondsPerCap, budget, kinds = '' }) {
  await click(page, 'tab.What-if');
  await page.evaluate((n) => window.arenaplan.setSearchBudget(n), budget);
  await typeInto(page, 'whatif.frontier.max_macs', String(maxPct));
  await typeInto(page, 'whatif.frontier.seconds', String(secondsPerCap));
  if ((await state(page)).whatif.frontier.kinds !== kinds) {
    if (kinds) {
      await typeInto(page, 'whatif.frontier.kinds', kinds);
    } else {  // select all and delete
      await clickField(page, 'whatif.frontier.kinds');
      await chord(page, 'Control+a');
      await chord(page, 'Backspace');
      await waitFrames(page, 2);
    }
  }
  const f = (await state(page)).whatif.frontier;
  assert.equal(f.max_extra_macs_pct, maxPct);
  assert.equal(f.seconds_per_cap, secondsPerCap);
  assert.equal(f.kinds, kinds);
  await click(page, 'whatif.frontier.run');
}

async function frontierDone(page) {
  await page.waitForFunction(() => {
    const f = window.arenaplan.state().whatif.frontier;
    return !f.running && (f.result || f.message);
  }, null, { timeout: 120000, polling: 100 });
  return (await state(page)).whatif.frontier;
}

const frontierArgs = ['--auto', '--pareto', '--max-extra-macs', String(kMaxExtraMacsPct), '--max-evaluations',
                      String(kEvaluations), '--time-limit', String(kSecondsPerCap), '--seconds', '0.2', '--kinds', kKinds];

// Every field of a point that pareto_json prints.
const pointFields = (p) => ({
  peak_bytes: p.peak_bytes, arena_bytes: p.arena_bytes, extra_macs: p.extra_macs, extra_macs_pct: p.extra_macs_pct,
  cap_pct: p.cap_pct, verified: p.verified, outputs_check: p.outputs_check, rewrites: p.rewrites,
});

const centre = (r) => ({ x: (r[0] + r[2]) / 2, y: (r[1] + r[3]) / 2 });

test('What-if Frontier (whatif_patch): the CLI\'s --pareto points, computed in the worker, drawn; hover names a point, a click takes its rewrites at its peak', async (t) => {
  const { page, errors } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('whatif_patch')), '');
  const native = cliJson('transform', path.join(repo, 'examples/whatif_patch.json'), ...frontierArgs);
  // The test means something only where the frontier trades MACs for memory.
  assert.ok(native.points.length >= 2, `the CLI's frontier has ${native.points.length} point(s)`);

  const startFrame = (await state(page)).frame;
  await runFrontier(page, { maxPct: kMaxExtraMacsPct, secondsPerCap: kSecondsPerCap, budget: kEvaluations, kinds: kKinds });
  const during = (await state(page)).whatif.frontier;
  assert.equal(during.running, true, 'the frontier finished before the page could see it run');
  assert.equal(during.in_worker, true, 'the frontier runs in the search worker, not on the page');
  const f = await frontierDone(page);
  // The frame that first draws the result is not yet laid out (the table under the chart adds a
  // scrollbar a frame later, which narrows the chart): judge a settled frame.
  await waitFrames(page, 3);
  const s = await state(page);
  assert.ok(s.frame > startFrame + 3, 'the page kept drawing while the frontier was computed');
  assert.equal(f.message, '');
  assert.ok(f.result, 'no frontier was accepted');

  // The same frontier as the native CLI: the start, and every point with its figures, checks and
  // rewrite list.
  assert.equal(f.result.start_peak_bytes, native.start_peak_bytes);
  assert.equal(f.result.start_macs, native.start_macs);
  assert.deepEqual(f.result.points.map(pointFields), native.points.map(pointFields));
  // The start is the page's own graph, as the What-if report has it.
  assert.equal(s.whatif.report.before.peak_bytes, native.start_peak_bytes);

  // Drawn: a marker per point, further right for more MACs and lower for a lower peak; the current
  // graph marked at 0 % and today's peak, above them all (a 0-MAC point straight below it).
  const now = s.ui['whatif.frontier.now'];
  assert.ok(now, 'the current graph is not marked');
  const markers = native.points.map((_, i) => s.ui[`whatif.frontier.point.${i}`]);
  markers.forEach((m, i) => assert.ok(m, `point ${i} has no marker`));
  for (let i = 1; i < markers.length; i++) {
    assert.ok(centre(markers[i]).x > centre(markers[i - 1]).x, 'more extra MACs lie further right');
    assert.ok(centre(markers[i]).y > centre(markers[i - 1]).y, 'a lower peak lies lower');
  }
  assert.ok(centre(markers[0]).y > centre(now).y, 'every point is below the current peak');
  if (native.points[0].extra_macs === 0) assert.ok(Math.abs(centre(now).x - centre(markers[0]).x) < 1);
  assert.ok(s.page.labels.some((l) => l.owner === 'whatif.frontier.now'), 'the current graph is not labelled');
  assert.deepEqual(labelProblems(s, 'frontier'), []);
  assert.deepEqual(s.page.text_overflows, [], 'nothing runs past the What-if panel with the frontier drawn');
  await page.mouse.move(5, 700);  // no tooltip over the chart
  await waitFrames(page, 2);
  assert.ok((await screenshot(page, t.artifactDir, 'whatif-frontier')).distinct > 4, 'the page is drawn');

  // Hover names the point under the mouse; a click takes its rewrites into the What-if list.
  const last = native.points.length - 1;
  const target = centre((await state(page)).ui[`whatif.frontier.point.${last}`]);
  await page.mouse.move(target.x, target.y);
  await waitFrames(page, 3);
  assert.equal((await state(page)).whatif.frontier.hovered, last);
  await screenshot(page, t.artifactDir, 'whatif-frontier-hover');
  await clickAt(page, target.x, target.y);
  await waitFrames(page, 3);
  const after = await state(page);
  assert.equal(after.whatif.frontier.taken, last);
  assert.deepEqual(after.whatif.list.map((w) => w.spec), f.result.points[last].rewrites);
  assert.equal(after.whatif.report.error, undefined, after.whatif.report.error);
  assert.equal(after.whatif.report.after.peak_bytes, native.points[last].peak_bytes);
  assert.equal(after.whatif.report.after.verified, true);
  assert.equal(after.whatif.report.outputs.check, 'bit-exact');
  // The table's Use takes the other point the same way. The table is under the chart, below the
  // tab's fold: scroll it up into the band where the chart was seen (a visible part of the tab).
  const band = s.ui['whatif.frontier.chart'];
  for (let i = 0; i < 20; i++) {
    const r = (await state(page)).ui['whatif.frontier.use.0'];
    if (centre(r).y > band[1] + 10 && centre(r).y < band[3] - 10) break;
    await page.mouse.move(centre(band).x, centre(band).y);
    await page.mouse.wheel(0, centre(r).y > band[3] - 10 ? 60 : -60);
    await waitFrames(page, 2);
  }
  await click(page, 'whatif.frontier.use.0');
  await waitFrames(page, 3);
  const first = await state(page);
  assert.equal(first.whatif.frontier.taken, 0);
  assert.deepEqual(first.whatif.list.map((w) => w.spec), f.result.points[0].rewrites);
  assert.equal(first.whatif.report.after.peak_bytes, native.points[0].peak_bytes);
  assert.deepEqual(errors, []);
});

test('What-if Frontier: nothing beyond the current graph (two_branch), an unknown kind and a stopped run each give a message, no chart', async (t) => {
  const { page, errors } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('two_branch')), '');
  const native = cliJson('transform', path.join(repo, 'examples/two_branch.json'), ...frontierArgs);
  assert.ok(native.points.every((p) => p.peak_bytes >= native.start_peak_bytes), 'two_branch has a frontier after all');
  await runFrontier(page, { maxPct: kMaxExtraMacsPct, secondsPerCap: kSecondsPerCap, budget: kEvaluations, kinds: kKinds });
  let f = await frontierDone(page);
  assert.match(f.message, /No verified rewrite lowers the peak/);
  assert.equal(f.result, null);
  let s = await state(page);
  assert.equal(s.ui['whatif.frontier.chart'], undefined, 'a chart was drawn for nothing');
  assert.deepEqual(s.whatif.list, []);

  // A kind the search does not know: the worker's refusal, no chart.
  await runFrontier(page, { maxPct: kMaxExtraMacsPct, secondsPerCap: kSecondsPerCap, budget: kEvaluations, kinds: 'fuse,nosuch' });
  f = await frontierDone(page);
  assert.match(f.message, /The frontier search failed: .*nosuch/);
  assert.equal(f.result, null);

  // Stopped: the whole ladder with no count limit runs for many seconds; Stop ends it at once.
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('whatif_patch')), '');
  await runFrontier(page, { maxPct: 100, secondsPerCap: 30, budget: -1, kinds: '' });
  assert.equal((await state(page)).whatif.frontier.running, true);
  await click(page, 'whatif.frontier.stop');
  f = await frontierDone(page);
  assert.match(f.message, /Frontier stopped after \d+ of \d+ stages: nothing drawn/);
  assert.equal(f.result, null);
  s = await state(page);
  assert.equal(s.ui['whatif.frontier.chart'], undefined, 'a partial frontier was drawn');
  assert.equal(s.ui['whatif.frontier.point.0'], undefined);
  assert.deepEqual(s.whatif.list, []);
  assert.deepEqual(errors, []);
});

// An opened .tflite goes to the worker as its bytes, imported there as the CLI imports the file
// (graph JSON would drop the quantization and weights the bit-exact check runs on): the page's
// frontier is the CLI's for the same file.
test('What-if Frontier on an opened .tflite (ds_cnn_small): the CLI\'s --pareto points for the same file', async (t) => {
  const { page, errors } = await t.open();
  const model = 'tests/unit/data/tflm/ds_cnn_small.tflite';
  const refused = await page.evaluate(([name, b]) => window.arenaplan.openFile(name, new Uint8Array(b)),
                                      [path.basename(model), Array.from(fs.readFileSync(path.join(repo, model)))]);
  assert.equal(refused, '');
  const args = ['--auto', '--pareto', '--max-extra-macs', '20', '--max-evaluations', '100', '--time-limit', String(kSecondsPerCap),
                '--seconds', '0.2'];  // every default kind, order:best included
  const native = cliJson('transform', path.join(repo, model), ...args);
  assert.ok(native.points.some((p) => p.peak_bytes < native.start_peak_bytes), 'the CLI finds nothing to trade on this model');
  await runFrontier(page, { maxPct: 20, secondsPerCap: kSecondsPerCap, budget: 100, kinds: '' });
  const f = await frontierDone(page);
  assert.equal(f.message, '');
  assert.equal(f.result.start_peak_bytes, native.start_peak_bytes);
  assert.equal(f.result.start_macs, native.start_macs);
  assert.deepEqual(f.result.points.map(pointFields), native.points.map(pointFields));
  assert.deepEqual(errors, []);
});
