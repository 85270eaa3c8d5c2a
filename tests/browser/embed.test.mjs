// Embeds: a link with "embed" shows one view alone, without the menu bar, filling the
// <iframe> it is in; File > Copy embed code gives the snippet for the open view.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { click, pngColours, state, test, waitFrames } from './harness.mjs';

// The fragment, encoded independently of the page: "v1." + base64url(zlib(JSON)).
function fragmentFor(embed) {
  const json = JSON.stringify({ v: 1, example: 'two_branch', step: 2, embed });
  return 'v1.' + zlib.deflateSync(Buffer.from(json)).toString('base64url');
}

test('File > Copy embed code gives an iframe snippet whose link opens the open view alone', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Arena');
  await click(page, 'menu.file');
  await click(page, 'menu.file.embed');
  const code = await page.evaluate(() => window.arenaplanLastEmbed);
  assert.match(code, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/[^"]*#v1\.[A-Za-z0-9_-]+" width="720" height="420" [^>]*title="arenaplan: Arena"><\/iframe>$/);
  const fragment = code.match(/#(v1\.[A-Za-z0-9_-]+)"/)[1];
  const decoded = JSON.parse(zlib.inflateSync(Buffer.from(fragment.slice(3), 'base64url')).toString());
  assert.equal(decoded.embed, 'arena');
  assert.deepEqual(errors, []);
});

test('an embed of each view renders inside an iframe with no menu bar, sized to the frame', async (t) => {
  const { page, errors } = await t.open();
  const views = ['live', 'lifetimes', 'arena', 'graph', 'cache', 'exercise:exercise_predict_peak'];
  for (const view of views) {
    await page.evaluate((frag) => {
      document.getElementById('embed-test')?.remove();
      const f = document.createElement('iframe');
      f.id = 'embed-test';
      f.width = '640';
      f.height = '400';
      f.style = 'position:fixed;left:0;top:0;border:0;z-index:10;background:#fff';
      f.src = location.href.split('#')[0] + '#' + frag;
      document.body.appendChild(f);
    }, fragmentFor(view));
    const frame = await (await page.waitForSelector('#embed-test')).contentFrame();
    await frame.waitForFunction(() => window.arenaplan, null, { timeout: 60000 });
    await frame.evaluate(() => window.arenaplan.redraw(5));
    await waitFrames(frame, 3);
    const s = await frame.evaluate(() => window.arenaplan.state());
    assert.equal(s.error, '', `${view}: ${s.error}`);
    assert.equal(s.embed.view, view);
    const keys = Object.keys(s.ui);
    assert.ok(!keys.some((k) => k.startsWith('menu.') || k.startsWith('tab.') || k.startsWith('tile.')),
      `${view}: menus or tabs drawn: ${keys.filter((k) => /^(menu|tab|tile)\./.test(k)).join(', ')}`);
    const [x0, y0, x1, y1] = s.ui['embed.view'];
    assert.deepEqual([x0, y0, x1, y1], [0, 0, 640, 400], `${view}: the view fills the frame`);
    if (view.startsWith('exercise:')) assert.equal(s.exercise.open, 'exercise_predict_peak');
    const png = await (await page.$('#embed-test')).screenshot({ path: `${t.artifactDir}/embed-${view.replace(':', '-')}.png` });
    const distinct = await pngColours(page, png.toString('base64'));
    assert.ok(distinct > 8, `${view}: the embedded view looks blank (${distinct} colours)`);
  }
  assert.deepEqual(errors, []);
});
