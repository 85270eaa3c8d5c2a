// Opening and editing graphs: File > Open with a real file chooser, dropping a file on the page,
// and the Graph JSON editor (typed text, Apply; a typo is refused and the old graph stays).
import assert from 'node:assert/strict';
import { chord, click, screenshot, state, test, waitFrames } from './harness.mjs';

// A small graph different from two-branch: a chain X -> P -> Y -> Q -> Z.
const CHAIN = {
  format: 'arenaplan-graph', version: 1, name: 'chain', alignment: 16,
  tensors: { X: { bytes: '4KiB' }, Y: { bytes: '8KiB' }, Z: { bytes: '2KiB' } },
  ops: [{ name: 'P', kind: 'conv2d', inputs: ['X'], outputs: ['Y'] },
        { name: 'Q', kind: 'relu', inputs: ['Y'], outputs: ['Z'] }],
  inputs: ['X'], outputs: ['Z'],
};

test('File > Open graph JSON loads the chosen file', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'menu.file');
  const chooser = page.waitForEvent('filechooser', { timeout: 20000 });
  await click(page, 'menu.file.open');
  await (await chooser).setFiles({ name: 'chain.json', mimeType: 'application/json',
                                   buffer: Buffer.from(JSON.stringify(CHAIN)) });
  await page.waitForFunction(() => window.arenaplan.state().graph === 'chain', null, { timeout: 20000 });
  const s = await state(page);
  assert.deepEqual(s.order, ['P', 'Q']);
  assert.equal(s.peak_bytes, 12 * 1024);  // X+Y during P, Y+Z during Q: max(12, 10) KiB
  assert.equal(s.example, '');
  assert.deepEqual(errors, []);
});

// The same chain as Checkmate and MOCCASIN publish computation graphs (networkx node-link JSON):
// one node per op with its output's bytes, the input a node of its own.
const CHAIN_NODE_LINK = {
  directed: true, multigraph: false, graph: { name: 'chain (node-link)' },
  nodes: [{ id: 0, name: 'X', cost_ram: 4096 }, { id: 1, name: 'P', cost_ram: 8192 }, { id: 2, name: 'Q', cost_ram: 2048 }],
  links: [{ source: 0, target: 1 }, { source: 1, target: 2 }],
};

test('dropping a node-link computation graph (Checkmate, MOCCASIN) opens it, the CLI\'s figures', async (t) => {
  const { page, errors } = await t.open();
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'chain_nx.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, JSON.stringify(CHAIN_NODE_LINK));
  await page.waitForFunction(() => window.arenaplan.state().graph === 'chain (node-link)', null, { timeout: 20000 });
  const s = await state(page);
  assert.deepEqual(s.order, ['X', 'P', 'Q']);
  assert.equal(s.peak_bytes, 12 * 1024);  // X+P's output during P, then P's and Q's: max(12, 10) KiB
  assert.equal(s.error, '');
  // A link to no node: refused by its place, the chain stays.
  const bad = { ...CHAIN_NODE_LINK, links: [{ source: 0, target: 7 }] };
  const err = await page.evaluate((text) => window.arenaplan.loadGraphJson(text), JSON.stringify(bad));
  assert.match(err, /\/links\/0\/target: no node 7/);
  assert.equal((await state(page)).graph, 'chain (node-link)');
  assert.deepEqual(errors, []);
});

test('dropping a bad JSON file on the page is refused and keeps two-branch', async (t) => {
  const { page } = await t.open();
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['{"format": "arenaplan-graph", "tensors": '], 'bad.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction(() => window.arenaplan.state().error !== '', null, { timeout: 20000 });
  const s = await state(page);
  assert.equal(s.graph, 'two-branch');
  assert.equal(s.peak_bytes, 139264);
  assert.match(s.error, /refused/i);
});

// Typed through real key events, one per frame under software rendering: keep it short.
const TINY = '{"format":"arenaplan-graph","name":"tiny","tensors":{"X":{"bytes":"1KiB"},"Y":{"bytes":"2KiB"}},' +
             '"ops":[{"name":"P","inputs":["X"],"outputs":["Y"]}],"inputs":["X"],"outputs":["Y"]}';

test('the Graph JSON editor: a typo is refused, a typed graph is applied', async (t) => {
  const { page } = await t.open();
  await click(page, 'tab.Graph JSON');
  await click(page, 'json.editor');
  // A stray character after the closing brace: invalid JSON.
  await chord(page, 'Control+End');
  await page.keyboard.type('x');
  await waitFrames(page, 3);
  assert.equal((await state(page)).json_editor.edited, true);
  await click(page, 'json.apply');
  let s = await state(page);
  assert.equal(s.graph, 'two-branch', 'the typo is refused');
  assert.equal(s.peak_bytes, 139264);
  assert.match(s.error, /line \d+/, 'the message names the place');
  await screenshot(page, t.artifactDir, 'json-editor-refused');

  await click(page, 'json.editor');
  await chord(page, 'Control+a');
  await page.keyboard.type(TINY);
  await waitFrames(page, 3);
  await click(page, 'json.apply');
  s = await state(page);
  assert.equal(s.error, '');
  assert.equal(s.graph, 'tiny');
  assert.equal(s.peak_bytes, 3 * 1024);
  assert.equal(s.json_editor.edited, false);
  await screenshot(page, t.artifactDir, 'json-editor-applied');
});
