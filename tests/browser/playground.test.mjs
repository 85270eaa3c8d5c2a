// The playground as a whole tool: undo/redo of edits by keyboard and menu, exports
// (PNG of the view, the verified plan report), panel settings in share links, reduced motion,
// and the page working offline once loaded.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { chord, click, clickField, launch, openApp, openAt, pngInfo, screenshot, state, test, typeText, waitFrames } from './harness.mjs';

const KiB = 1024;

// A share fragment built outside the app (the documented format: "v1." + base64url(zlib(JSON))),
// so the load path is tested against the format, not only against the app's own writer.
function fragmentOf(shareState) {
  return 'v1.' + zlib.deflateSync(Buffer.from(JSON.stringify(shareState))).toString('base64url');
}
function decodeFragment(fragment) {
  return JSON.parse(zlib.inflateSync(Buffer.from(fragment.slice(3), 'base64url')).toString());
}

// The last file the page offered for download, as text (or bytes for binary files).
async function lastDownload(page, { binary = false } = {}) {
  await page.waitForFunction(() => window.arenaplanLastDownload, null, { timeout: 10000 });
  return page.evaluate(async (asBytes) => {
    const d = window.arenaplanLastDownload;
    const body = asBytes ? Array.from(new Uint8Array(await d.blob.arrayBuffer())) : await d.blob.text();
    return { name: d.name, type: d.type, size: d.size, body };
  }, binary);
}

test('edit + undo: Ctrl+Z and Ctrl+Shift+Z step through order edits; Edit > Reset goes back to the example', async (t) => {
  const { page, errors } = await t.open();
  assert.equal((await state(page)).history.undo, 0, 'the first load is not an undoable edit');
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  let s = await state(page);
  assert.equal(s.peak_bytes, 192 * KiB);
  assert.equal(s.history.undo, 1);

  await page.focus('#canvas');
  await chord(page, 'Control+z');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.peak_bytes, 136 * KiB);
  assert.equal(s.history.redo, 1);

  await chord(page, 'Control+Shift+z');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(s.peak_bytes, 192 * KiB);

  // Loading another example is an edit too; Reset returns to the example's file order.
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('residual_block')), '');
  assert.equal((await state(page)).example, 'residual_block');
  await chord(page, 'Control+z');
  s = await state(page);
  assert.equal(s.example, 'two_branch');
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F'], 'undoing a load restores the order before it');
  await click(page, 'menu.edit');
  await click(page, 'menu.edit.reset');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.peak_bytes, 136 * KiB);
  assert.equal(await page.evaluate(() => window.arenaplan.undo()), '');
  assert.equal((await state(page)).peak_bytes, 192 * KiB, 'Reset is itself undoable');
  assert.deepEqual(errors, []);
});

test('typing in a text field keeps Ctrl+Z for the field, not the graph history', async (t) => {
  const { page } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  await click(page, 'tab.What-if');
  await clickField(page, 'whatif.spec');
  await typeText(page, 'x');
  await chord(page, 'Control+z');
  const s = await state(page);
  assert.equal(s.peak_bytes, 192 * KiB, 'the graph edit was not undone while typing');
  assert.equal(s.history.undo, 1);
});

test('File > Export PNG of the view hands over a PNG of the canvas', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'menu.file');
  await click(page, 'menu.file.png');
  await waitFrames(page, 4);
  const d = await lastDownload(page, { binary: true });
  assert.match(d.name, /^two-branch-graph\.png$/);
  assert.equal(d.type, 'image/png');
  assert.deepEqual(d.body.slice(0, 8), [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // Not a blank picture, and the canvas' backing-store size.
  const picture = await pngInfo(page, Buffer.from(d.body).toString('base64'), 5);
  const canvas = await page.evaluate(() => [document.getElementById('canvas').width, document.getElementById('canvas').height]);
  assert.deepEqual([picture.width, picture.height], canvas);
  assert.ok(picture.colours > 20, `the PNG looks blank (${picture.colours} colours)`);
  assert.deepEqual(errors, []);
});

test('File > Export plan report JSON: a verified plan of the current order, same numbers as the state', async (t) => {
  const { page } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  await click(page, 'menu.file');
  await click(page, 'menu.file.report');
  const d = await lastDownload(page);
  assert.equal(d.name, 'two-branch.plan.json');
  const report = JSON.parse(d.body);
  const s = await state(page);
  assert.equal(report.analysis.peak_bytes, s.peak_bytes);
  assert.equal(report.analysis.peak_bytes, 192 * KiB);
  assert.equal(report.layout.verified, true);
  assert.ok(report.layout.arena_bytes >= report.analysis.peak_bytes);
});

test('share links carry the shown planner, the what-if list and the budget settings', async (t) => {
  const { page } = await t.open();
  await click(page, 'tab.Arena');
  await click(page, 'arena.show.tflm-greedy');
  assert.equal((await state(page)).arena.shown, 'tflm-greedy');
  await click(page, 'tab.What-if');
  await clickField(page, 'whatif.spec');
  await typeText(page, 'order:best');
  await click(page, 'whatif.add');
  assert.deepEqual((await state(page)).whatif.list, [{ spec: 'order:best', enabled: true }]);
  const fragment = await page.evaluate(() => window.arenaplan.shareFragment());
  const shared = decodeFragment(fragment);
  assert.deepEqual(shared.panels.arena, { planner: 'tflm-greedy' });
  assert.equal(shared.panels.budget.board, 'two_branch_board');
  assert.equal(shared.panels.budget.board_json, undefined, 'an unedited built-in board travels by name');

  const { page: other } = await openAt(t, fragment);
  const s = await state(other);
  assert.equal(s.error, '');
  assert.equal(s.panel, 'What-if');
  assert.deepEqual(s.whatif.list, [{ spec: 'order:best', enabled: true }]);
  assert.ok(s.whatif.report.after, 'the what-if report is recomputed on load');
  await click(other, 'tab.Arena');
  assert.equal((await state(other)).arena.shown, 'tflm-greedy');

  // The budget section as written by hand: another board and scratch kept separate.
  const { page: third } = await openAt(t, fragmentOf({
    v: 1, example: 'two_branch', step: 0,
    panels: { budget: { board: 'two_region_board', scratch_policy: 'separate' } },
  }));
  const b = await state(third);
  assert.equal(b.error, '');
  assert.equal(b.budget.board, 'two_region_board');
  assert.equal(decodeFragment(await third.evaluate(() => window.arenaplan.shareFragment())).panels.budget.scratch_policy,
               'separate');
});

test('a link with a bad panel section is refused as a whole and shows the default example', async (t) => {
  const { page } = await openAt(t, fragmentOf({
    v: 1, example: 'residual_block', step: 0, panels: { arena: { planner: 'no-such-planner' } },
  }));
  const s = await state(page);
  assert.match(s.error, /Share link refused .*no-such-planner/);
  assert.equal(s.example, 'two_branch');
  assert.equal(s.peak_bytes, 136 * KiB);
});

test('reduced motion: the page follows prefers-reduced-motion live (no auto-play)', async (t) => {
  const { page } = await t.open();
  assert.equal((await state(page)).reduced_motion, false);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await waitFrames(page, 2);
  assert.equal((await state(page)).reduced_motion, true);
  await click(page, 'tab.Simulator');
  await click(page, 'sim.play');
  assert.equal((await state(page)).sim.playing, false, 'Play is disabled under reduced motion');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await waitFrames(page, 2);
  assert.equal((await state(page)).reduced_motion, false);
});

test('works offline once loaded: a reload without network still starts the app', async (t) => {
  // Its own browser: the shared one blocks service workers (see harness.launch).
  const browser = await launch({ serviceWorkers: 'allow' });
  try {
    await offlineReload(browser.context, t.url);
  } finally {
    await browser.close();
  }
});

async function offlineReload(context, url) {
  const { page } = await openApp(context, url);
  // The service worker takes over after its first activation; wait until it controls the page.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20000 });
  await page.waitForFunction(() => window.arenaplan, null, { timeout: 60000 });
  await page.context().setOffline(true);
  try {
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => window.arenaplan || window.arenaplanFailure, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => window.arenaplanFailure || ''), '');
    await waitFrames(page, 2);
    assert.equal((await state(page)).peak_bytes, 136 * KiB);
  } finally {
    await page.context().setOffline(false);
  }
}

test('Examples > Cache lab opens the cache lab and leaves the graph as it is', async (t) => {
  const { page } = await t.open();
  await click(page, 'menu.examples');
  await click(page, 'menu.cache_lab');
  const s = await state(page);
  assert.equal(s.panel, 'Cache lab');
  assert.equal(s.example, 'two_branch');
  assert.equal(s.history.undo, 0);
});

test('every tab draws a non-blank panel (screenshots kept as CI artifacts)', async (t) => {
  const { page, errors } = await t.open();
  const tabs = Object.keys((await state(page)).ui).filter((k) => k.startsWith('tab.')).map((k) => k.slice(4));
  assert.ok(tabs.length >= 12, `tabs: ${tabs.join(', ')}`);
  for (const tab of tabs) {
    await click(page, 'tab.' + tab);
    await waitFrames(page, 3);
    const file = 'panel-' + tab.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const shot = await screenshot(page, t.artifactDir, file);
    assert.ok(shot.distinct > 30, `${tab}: ${shot.distinct} colours in ${shot.file}`);
    assert.equal((await state(page)).error, '', `opening ${tab} reports no error`);
  }
  assert.deepEqual(errors, []);
});

test('the undo history is bounded: 205 order edits keep the last 200', async (t) => {
  const { page } = await t.open();
  const undo = await page.evaluate(() => {
    for (let i = 0; i < 205; ++i) window.arenaplan.setOrder(i % 2 ? 'A,B,C,D,E,F' : 'A,B,D,C,E,F');
    return window.arenaplan.state().history;
  });
  assert.equal(undo.undo, 200);
  assert.equal(undo.redo, 0);
  assert.equal(await page.evaluate(() => window.arenaplan.undo()), '');
  assert.equal((await state(page)).history.redo, 1);
});
