// A first visit from a shared link: the welcome card reads the state the link brought (a worse
// order gets the better one, the link's step is kept), and Live bytes says what the best order
// peaks at with one click to show it. The best peak is checked against the CLI's `schedule`.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { click, cliJson, launch, openApp, screenshot, state, test, waitFrames } from './harness.mjs';

function fragmentFor(order, step) {
  const json = JSON.stringify({ v: 1, example: 'two_branch', order, step, panel: 'Live bytes' });
  return 'v1.' + zlib.deflateSync(Buffer.from(json)).toString('base64url');
}

async function openFresh(t, fragment, welcome) {
  const browser = await launch();
  if (welcome) await browser.context.addInitScript(() => sessionStorage.setItem('arenaplan.testWelcome', '1'));
  const { page, errors } = await openApp(browser.context, `${t.url}#${fragment}`);
  await page.evaluate(() => window.arenaplan.redraw(5));
  await waitFrames(page, 3);
  return { browser, page, errors };
}

// Read when a test runs: a missing CLI fails that test, not the loading of every test file.
const bestOrder = () => cliJson('schedule', 'example:two_branch');

test('first visit: on a shared A,B,D,C,E,F the welcome card offers the better order and keeps the step', async (t) => {
  const best = bestOrder();
  const { browser, page, errors } = await openFresh(t, fragmentFor(['A', 'B', 'D', 'C', 'E', 'F'], 3), true);
  try {
    let s = await state(page);
    assert.equal(s.page.welcome_open, true);
    assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
    assert.ok(s.peak_bytes > best.peak_bytes, 'the link brought a worse order');
    assert.equal(s.step, 3);
    const shot = await screenshot(page, t.artifactDir, 'first-visit-welcome');
    assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);
    await click(page, 'welcome.try_order');
    s = await state(page);
    assert.equal(s.page.welcome_open, false);
    assert.equal(s.peak_bytes, best.peak_bytes, "the card's order peaks at the CLI's best");
    assert.deepEqual(s.order, best.order);
    assert.equal(s.step, 3, "the link's step is kept");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('first visit: Live bytes states the best order\'s peak, one click shows it', async (t) => {
  const best = bestOrder();
  const { browser, page, errors } = await openFresh(t, fragmentFor(['A', 'B', 'D', 'C', 'E', 'F'], 0), false);
  try {
    let s = await state(page);
    assert.equal(s.best_order.known, true);
    assert.equal(s.best_order.peak_bytes, best.peak_bytes);
    assert.ok(s.ui['live.best_text'] && s.ui['live.show_best'], 'the best peak and its button are on the Live bytes tab');
    await click(page, 'live.show_best');
    s = await state(page);
    assert.equal(s.peak_bytes, best.peak_bytes);
    assert.ok(!s.ui['live.show_best'], 'nothing better left to show');
    assert.ok(s.ui['live.best_text'], 'it says this order is the best');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
