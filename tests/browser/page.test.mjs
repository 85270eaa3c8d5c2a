// The page: loads cleanly, draws the real UI, reports the two-branch numbers, and
// changes them through real mouse and keyboard input (never through the JS API).
import assert from 'node:assert/strict';
import { chord, click, cliJson, launch, screenshot, state, test, waitFrames } from './harness.mjs';

const KiB = 1024;

test('the page loads with no console errors and the canvas is not blank', async (t) => {
  const { page, errors } = await t.open();
  const shot = await screenshot(page, t.artifactDir, 'page-loaded');
  assert.deepEqual(errors, [], 'console errors');
  // A blank or single-colour canvas has 1-2 colours; the UI has text, bars and panels.
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} distinct colours`);
  const overlayHidden = await page.evaluate(() => document.getElementById('overlay').hidden);
  assert.ok(overlayHidden, 'the loading overlay is gone');
  // Load time and payload (the page's goals) are measured by bench/page_bench.mjs, not here.
});

test('two-branch is loaded by default and peaks at 139264 bytes (136 KiB during C)', async (t) => {
  const { page } = await t.open();
  const s = await state(page);
  assert.equal(s.graph, 'two-branch');
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.peak_bytes, 139264);
  assert.equal(s.analysis.peak_bytes, 139264);
  assert.deepEqual(s.analysis.steps.map((x) => x.live_bytes / KiB), [48, 128, 136, 104, 80, 32]);
  assert.equal(s.error, '');
});

test('selecting C and clicking "Move down" gives A,B,D,C,E,F and peak 196608', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'order.row.C');
  assert.equal((await state(page)).selected_op, 'C');
  await click(page, 'order.move_down');
  const s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(s.peak_bytes, 196608);
  assert.deepEqual(s.analysis.steps.map((x) => x.live_bytes / KiB), [48, 128, 192, 168, 80, 32]);
  const shot = await screenshot(page, t.artifactDir, 'order-ABDCEF');
  assert.ok(shot.distinct > 12);
  assert.deepEqual(errors, []);
});

test('Alt+Down and Alt+Up move the selected op with the keyboard', async (t) => {
  const { page } = await t.open();
  await click(page, 'order.row.C');
  await chord(page, 'Alt+ArrowDown');
  let s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(s.peak_bytes, 196608);
  await chord(page, 'Alt+ArrowUp');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.peak_bytes, 139264);
});

test('keyboard only: arrows select an op row, Alt+Down moves it', async (t) => {
  const { page } = await t.open();
  // No clicks: the first tile has the keyboard focus on load. Arrows walk the widgets; a focused
  // op row becomes the selection. Slow software-rendered frames may make one tap move two rows,
  // so steer towards C instead of counting presses.
  const rows = ['A', 'B', 'C', 'D', 'E', 'F'];
  for (let i = 0; i < 40; i++) {
    const sel = (await state(page)).selected_op;
    if (sel === 'C') break;
    await chord(page, rows.includes(sel) && rows.indexOf(sel) > 2 ? 'ArrowUp' : 'ArrowDown');
  }
  const s0 = await state(page);
  assert.equal(s0.selected_op, 'C', `keyboard navigation did not reach row C (selected "${s0.selected_op}")`);
  await chord(page, 'Alt+ArrowDown');
  const s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(s.peak_bytes, 196608);
  await screenshot(page, t.artifactDir, 'keyboard-moved');
});

test('an invalid move is refused with core\'s message and the order stays', async (t) => {
  const { page } = await t.open();
  await click(page, 'order.row.B');
  await click(page, 'order.move_up');  // B before A: B would run before its input A exists
  const s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.peak_bytes, 139264);
  assert.match(s.error, /refused/i);
  assert.match(s.error, /\bB\b/);
  assert.ok(s.ui['order.error'], 'the refusal is shown in the order panel');
  await screenshot(page, t.artifactDir, 'order-refused');
});

test('a bad graph through ap_load_graph_json keeps the previous graph and peak', async (t) => {
  const { page } = await t.open();
  const syntax = await page.evaluate(() => window.arenaplan.loadGraphJson('{"format": "arenaplan-graph", '));
  assert.match(syntax, /line \d+/, 'a syntax error names the line');
  let s = await state(page);
  assert.equal(s.graph, 'two-branch');
  assert.equal(s.peak_bytes, 139264);
  assert.equal(s.error, syntax);

  const unknown = await page.evaluate(() => window.arenaplan.loadGraphJson(JSON.stringify({
    format: 'arenaplan-graph', version: 1, name: 'broken', tensors: { X: { bytes: 16 } },
    ops: [{ name: 'P', kind: 'relu', inputs: ['X'], outputs: ['Nope'] }], inputs: ['X'], outputs: ['Nope'] })));
  assert.match(unknown, /\/ops\/0\/outputs\/0: unknown tensor "Nope"/, 'an unknown tensor is refused where it is named');
  s = await state(page);
  assert.equal(s.graph, 'two-branch');
  assert.equal(s.peak_bytes, 139264);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  await waitFrames(page, 2);
  await screenshot(page, t.artifactDir, 'bad-graph-refused');
});

test('the JS API sets an order and refuses a non-topological one', async (t) => {
  const { page } = await t.open();
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  assert.equal((await state(page)).peak_bytes, 196608);
  const err = await page.evaluate(() => window.arenaplan.setOrder('B,A,C,D,E,F'));
  assert.match(err, /B/);
  const s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(s.peak_bytes, 196608);
});

test('clicking a bar selects that step and the live set follows', async (t) => {
  const { page } = await t.open();
  await click(page, 'tab.Live bytes');
  await click(page, 'live.bar.3');
  const s = await state(page);
  assert.equal(s.step, 3);
  assert.equal(s.step_op, 'D');
  await chord(page, 'Alt+ArrowLeft');
  assert.equal((await state(page)).step, 2);
});

test('the aria-live region mirrors graph, peak and current step', async (t) => {
  const { page } = await t.open();
  const text = () => page.evaluate(() => document.getElementById('live').textContent);
  assert.match(await text(), /two-branch/);
  assert.match(await text(), /136 KiB \(139264 bytes\)/);
  assert.match(await text(), /Current step 0/);
  await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F'));
  await waitFrames(page, 2);
  assert.match(await text(), /192 KiB \(196608 bytes\)/);
});

test('the Examples menu lists the graph examples, two-branch first, and loads one with the mouse', async (t) => {
  const { page } = await t.open();
  await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F'));
  await click(page, 'menu.examples');
  const s0 = await state(page);
  // Menu order = vertical position of the recorded item rectangles.
  const items = Object.entries(s0.ui).filter(([k]) => k.startsWith('menu.example.'))
    .sort((a, b) => a[1][1] - b[1][1]).map(([k]) => k.slice('menu.example.'.length));
  assert.deepEqual(items.slice(0, 4), ['two_branch', 'residual_block', 'inception_cell', 'tiny_cnn'],
                   `the classroom sequence comes first: ${items.join(', ')}`);
  assert.ok(!items.some((k) => k.includes('board')), `boards are not graphs: ${items.join(', ')}`);
  await screenshot(page, t.artifactDir, 'examples-menu');
  await click(page, 'menu.example.two_branch');
  const s = await state(page);
  assert.equal(s.example, 'two_branch');
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F'], 'reloading the example resets the order');
  // Every listed graph loads and has the peak `arenaplan analyze` gives it.
  for (const name of items) {
    const [err, st] = await page.evaluate((n) => [window.arenaplan.loadExample(n), window.arenaplan.state()], name);
    assert.equal(err, '', `example ${name}: ${err}`);
    assert.equal(st.peak_bytes, cliJson('analyze', `example:${name}`).peak_bytes, `example ${name}: the CLI's peak`);
  }
});

test('HiDPI: at deviceScaleFactor 2 the canvas has twice the pixels and still draws', async (t) => {
  const browser = await launch({ deviceScaleFactor: 2 });
  try {
    const { page, errors } = await t.open(browser.context);
    const dims = await page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { w: c.width, h: c.height, cssW: c.clientWidth, cssH: c.clientHeight, dpr: devicePixelRatio };
    });
    assert.equal(dims.dpr, 2);
    assert.equal(dims.w, dims.cssW * 2);
    assert.equal(dims.h, dims.cssH * 2);
    const shot = await screenshot(page, t.artifactDir, 'page-hidpi');
    assert.ok(shot.distinct > 12);
    // Widget rects stay in CSS pixels, so a click still lands.
    await click(page, 'order.row.C');
    await click(page, 'order.move_down');
    assert.equal((await state(page)).peak_bytes, 196608);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('the tiles fill the window without overlapping at 1280x720 and after a resize to 1920x1080', async (t) => {
  const { page } = await t.open();
  for (const size of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
    await page.setViewportSize(size);
    await page.waitForFunction((w) => document.getElementById('canvas').width === w * devicePixelRatio,
                                size.width, { timeout: 20000 });
    await waitFrames(page, 3);
    const ui = (await state(page)).ui;
    const tiles = Object.entries(ui).filter(([k]) => k.startsWith('tile.'));
    assert.ok(tiles.length >= 2, `tiles: ${tiles.map(([k]) => k).join(', ')}`);
    for (const [name, [x0, y0, x1, y1]] of tiles) {
      assert.ok(x0 >= 0 && y0 >= 0 && x1 <= size.width + 0.5 && y1 <= size.height + 0.5, `${name} inside ${size.width}x${size.height}`);
    }
    for (let i = 0; i < tiles.length; i++)
      for (let j = i + 1; j < tiles.length; j++) {
        const [a, ra] = tiles[i], [b, rb] = tiles[j];
        const overlap = Math.min(ra[2], rb[2]) - Math.max(ra[0], rb[0]) > 0.5 && Math.min(ra[3], rb[3]) - Math.max(ra[1], rb[1]) > 0.5;
        assert.ok(!overlap, `${a} and ${b} overlap`);
      }
    const width = Math.max(...tiles.map(([, r]) => r[2]));
    assert.ok(width >= size.width - 1, `tiles reach the right edge (${width} of ${size.width})`);
    await screenshot(page, t.artifactDir, `layout-${size.width}x${size.height}`);
  }
});
