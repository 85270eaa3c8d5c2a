// When the page cannot run, it says so in HTML (not on the canvas, which may be what failed).
import assert from 'node:assert/strict';
import { test } from './harness.mjs';

// Opens the page with `prepare(page)` applied first and returns the HTML message it shows.
async function failureMessage(t, prepare) {
  const page = await t.session.context.newPage();
  try {
    await prepare(page);
    await page.goto(t.url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.arenaplanFailure, null, { timeout: 30000 });
    const visible = await page.evaluate(() => !document.getElementById('problem').hidden &&
                                              !document.getElementById('overlay').hidden);
    assert.ok(visible, 'the message box is visible');
    return page.evaluate(() => document.getElementById('problem').textContent);
  } finally {
    await page.close();
  }
}

test('without WebGL2 the page explains it in HTML', async (t) => {
  const text = await failureMessage(t, (page) => page.addInitScript(() => {
    const original = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
      return kind === 'webgl2' ? null : original.call(this, kind, ...rest);
    };
  }));
  assert.match(text, /WebGL2 is not available/);
});

test('without WebAssembly the page explains it in HTML', async (t) => {
  const text = await failureMessage(t, (page) => page.addInitScript(() => { delete window.WebAssembly; }));
  assert.match(text, /cannot run WebAssembly/);
});

test('a missing app.wasm gives a readable message instead of a spinner', async (t) => {
  const text = await failureMessage(t, (page) => page.route('**/app.wasm', (r) => r.fulfill({ status: 404, body: 'gone' })));
  assert.match(text, /Could not download the planner/);
  assert.match(text, /404/);
});

test('a corrupt app.wasm gives a readable message', async (t) => {
  const text = await failureMessage(t, (page) => page.route('**/app.wasm', (r) =>
    r.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from('not wasm at all') })));
  assert.match(text, /failed to start|stopped unexpectedly/);
});
