// Views that read a 258-op model (a generated graph whose op and tensor names share a converter's
// scope, as YOLOv8n's do): at 1280x720 and 1920x1080, Graph > Fit frames every op, Live bytes thins
// its labels and drops the scope, Lifetimes labels its rows without the scope, and on every tab
// no text runs past its panel and no label overprints (screenshots of every tab kept in
// browser-artifacts/big-WxH-TAB.png). A simulation that takes seconds shows its progress and
// the page keeps drawing meanwhile.
import assert from 'node:assert/strict';
import path from 'node:path';
import { bigGraph, click, labelProblems, launch, openApp, screenshot, state, test, waitFrames } from './harness.mjs';

const OPS = 258;
const SCOPE = 'model_1/tf.math.';
// bigGraph's names ("op0", "t0", "in", ...) put under one scope, as a converter writes them.
function scoped(n = OPS) {
  const g = JSON.parse(bigGraph(n));
  const under = (name) => SCOPE + name;
  g.tensors = Object.fromEntries(Object.entries(g.tensors).map(([name, t]) => [under(name), t]));
  g.ops = g.ops.map((o) => ({ ...o, name: under(o.name), inputs: o.inputs.map(under), outputs: o.outputs.map(under) }));
  g.inputs = g.inputs.map(under);
  g.outputs = g.outputs.map(under);
  return g;
}

async function loadScoped(page, graph = scoped()) {
  assert.equal(await page.evaluate((text) => window.arenaplan.loadGraphJson(text), JSON.stringify(graph)), '');
  await waitFrames(page, 3);
}

// The Simulator runs its whole run a slice per frame: wait until it is done.
async function simulationReady(page) {
  await page.waitForFunction(() => window.arenaplan.state().sim.ready || window.arenaplan.state().sim.error !== '',
                             null, { timeout: 120000 });
}

for (const [w, h] of [[1280, 720], [1920, 1080]]) {
  test(`big views ${w}x${h}: ${OPS} scoped ops, Fit frames all, labels thinned and unscoped, every tab fits`, async (t) => {
    const browser = await launch({ viewport: { width: w, height: h } });
    const problems = [];
    try {
      const { page, errors } = await openApp(browser.context, t.url);
      await loadScoped(page);
      assert.equal((await state(page)).order.length, OPS);
      await click(page, 'tab.Graph');
      await waitFrames(page, 3);
      await click(page, 'graph.fit');
      await waitFrames(page, 3);
      let s = await state(page);
      assert.equal(s.graph_view.visible_ops, OPS, `Fit shows every op (zoom ${s.graph_view.zoom})`);

      await click(page, 'tab.Live bytes');
      await waitFrames(page, 3);
      s = await state(page);
      const ops = s.page.labels.filter((l) => l.owner === 'live.op');
      assert.ok(ops.length > 0 && ops.length < OPS, `op labels thinned: ${ops.length} of ${OPS}`);
      assert.ok(ops.every((l) => !l.text.includes(SCOPE)), 'the shared scope is dropped from op names');
      assert.ok(s.page.labels.some((l) => l.owner === 'live.peak'), 'the peak is labelled');

      await click(page, 'tab.Lifetimes');
      await waitFrames(page, 3);
      s = await state(page);
      const rows = s.page.labels.filter((l) => l.owner === 'lifetimes.buffer');
      assert.ok(rows.length > 5, `buffer rows labelled: ${rows.length}`);
      assert.ok(rows.every((l) => !l.text.includes(SCOPE) && /^[ *](t\d+|in) /.test(l.text)),
                `rows read their own names: ${rows.slice(0, 3).map((l) => l.text).join(' | ')}`);

      // Every tab: nothing past its panel, no label overprinting, a screenshot kept.
      const tabs = Object.keys(s.ui).filter((k) => k.startsWith('tab.'));
      assert.ok(tabs.length >= 10, tabs.join());
      for (const tab of tabs) {
        await click(page, tab);
        if (tab === 'tab.Simulator') await simulationReady(page);
        await waitFrames(page, 2);
        s = await state(page);
        const where = `${w}x${h} ${tab}`;
        for (const o of s.page.text_overflows)
          problems.push(`${where}: ${o.window} reaches x=${o.content_right}, past its edge at ${o.right}`);
        problems.push(...labelProblems(s, where));
        await page.screenshot({ path: path.join(t.artifactDir, `big-${w}x${h}-${tab.slice(4).replace(/[^A-Za-z0-9]+/g, '-')}.png`) });
      }
      assert.ok((await screenshot(page, t.artifactDir, `big-${w}x${h}-last`)).distinct > 4, 'the page is drawn');
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
    assert.deepEqual(problems, []);
  });
}

test('big views: a simulation that takes seconds shows its progress, and the page keeps drawing', async (t) => {
  const { page, errors } = await t.open();
  // 258 ops over 4-7 MiB tensors: seconds of simulated kernels in Wasm, far past one frame's slice.
  const heavy = scoped();
  for (const x of Object.values(heavy.tensors)) x.bytes *= 1024;
  await loadScoped(page, heavy);
  await click(page, 'tab.Simulator');
  let s = await state(page);
  assert.equal(s.sim.error, '');
  assert.equal(s.sim.ready, false, 'not done within the first slices');
  assert.match(s.sim.progress, /^(Reference run|Planned run, oracles on): step \d+ of 258$/);
  assert.ok(s.ui['sim.progress'], 'a progress bar is shown');
  const frames = [];
  while (!(s = await state(page)).sim.ready && s.sim.error === '') {
    frames.push(s.frame);
    await waitFrames(page, 1);
  }
  assert.equal(s.sim.error, '');
  // Frames drawn while the simulation ran (the polls themselves may span several frames on a
  // loaded machine, so count the frames between the first and last poll, not the polls).
  const drawn = frames.length ? frames[frames.length - 1] - frames[0] : 0;
  assert.ok(drawn >= 3 && new Set(frames).size === frames.length, `the page drew frames while simulating: ${frames}`);
  assert.equal(s.sim.report.ok, true, JSON.stringify(s.sim.report.violations));
  assert.equal(s.sim.report.outputs_match_reference, true);
  assert.equal(s.sim.simulations, 1, 'one simulation, run in slices');
  assert.deepEqual(errors, []);
});
