// Views that read a 250-op model (a generated graph whose names share a converter's scope):
// Graph > Fit frames every op, Live bytes thins its labels instead of overprinting them and drops
// the shared scope from op names, at 1280x720 and 1920x1080.
import assert from 'node:assert/strict';
import { bigGraph, click, launch, openApp, screenshot, state, test, waitFrames } from './harness.mjs';

const OPS = 250;
const SCOPE = 'model_1/tf.math.';
// bigGraph's op names ("op0", ...) put under one scope, as a converter writes them.
const scoped = () => bigGraph(OPS).replaceAll('"name":"op', `"name":"${SCOPE}op`);

function noOverprint(labels, where) {
  for (let i = 0; i < labels.length; i++)
    for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i].rect, b = labels[j].rect;
      assert.ok(!(a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]),
                `${where}: "${labels[i].text}" overprints "${labels[j].text}"`);
    }
}

for (const [w, h] of [[1280, 720], [1920, 1080]]) {
  test(`big views ${w}x${h}: Fit frames all ${OPS} ops; Live bytes labels thinned, scope stripped`, async (t) => {
    const browser = await launch({ viewport: { width: w, height: h } });
    try {
      const { page, errors } = await openApp(browser.context, t.url);
      assert.equal(await page.evaluate((text) => window.arenaplan.loadGraphJson(text), scoped()), '');
      await click(page, 'tab.Graph');
      await waitFrames(page, 3);
      await click(page, 'graph.fit');
      await waitFrames(page, 3);
      let s = await state(page);
      assert.equal(s.graph_view.visible_ops, OPS, `Fit shows every op (zoom ${s.graph_view.zoom})`);
      assert.ok((await screenshot(page, t.artifactDir, `big-graph-fit-${w}x${h}`)).distinct > 4, 'the graph is drawn');

      await click(page, 'tab.Live bytes');
      await waitFrames(page, 3);
      s = await state(page);
      const live = s.page.labels.filter((l) => l.owner.startsWith('live.'));
      noOverprint(live, `${w}x${h}`);
      const ops = live.filter((l) => l.owner === 'live.op');
      assert.ok(ops.length > 0 && ops.length < OPS, `op labels thinned: ${ops.length} of ${OPS}`);
      assert.ok(ops.every((l) => !l.text.includes(SCOPE)), 'the shared scope is dropped from op names');
      assert.ok(live.some((l) => l.owner === 'live.peak'), 'the peak is labelled');
      assert.ok((await screenshot(page, t.artifactDir, `big-live-bytes-${w}x${h}`)).distinct > 8, 'the chart is drawn');
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
}
