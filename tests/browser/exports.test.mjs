// One answer everywhere: every file the page's File > Export offers is byte for byte what
// `arenaplan export` writes for the same input and order (both call core/session's entry point
// with the same planner policy). Models of several kinds: CNNs with branches and an inception
// block, SVDF stacks with state, MediaPipe models with float16 weights that TFLM dequantizes at
// each invoke (folded in the views, run in the exports), and every example graph.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { state, test } from './harness.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repo, 'build/native/arenaplan');
const models = [
  'tests/unit/data/tflm/int8_branches_small.tflite', 'tests/unit/data/tflm/int8_inception.tflite',
  'tests/unit/data/tflm/svdf_int8.tflite', 'tests/unit/data/tflm/svdf_float.tflite',
  '.cache/models/selfie_segmentation.tflite', '.cache/models/face_detection_short_range.tflite',
  '.cache/models/hand_landmark_lite.tflite',
];
const graphFormats = ['json', 'c-header', 'minimalloc-csv', 'trace'];
const modelFormats = [...graphFormats, 'tflite-offline', 'tflite-reordered'];

// What `arenaplan export` writes for the page's order.
function cliExport(input, format, order, extra = []) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ap-export-')), 'out');
  execFileSync(cli, ['export', input, '--format', format, '--order', order.join(','), '-o', out, ...extra],
               { stdio: 'pipe' });
  return fs.readFileSync(out);
}

// The page's download of `format`, as bytes.
async function pageExport(page, format) {
  await page.evaluate(() => { window.arenaplanLastDownload = null; });
  const refused = await page.evaluate((f) => window.arenaplan.exportFile(f), format);
  assert.equal(refused, '', `${format}: ${refused}`);
  await page.waitForFunction(() => window.arenaplanLastDownload, null, { timeout: 30000 });
  return Buffer.from(await page.evaluate(async () =>
    Array.from(new Uint8Array(await window.arenaplanLastDownload.blob.arrayBuffer()))));
}

async function checkSame(page, input, formats, extra = []) {
  const s = await state(page);
  assert.equal(s.error, '', `${input}: ${s.error}`);
  for (const format of formats) {
    const mine = await pageExport(page, format);
    const theirs = cliExport(input, format, s.order, extra);
    assert.ok(mine.length > 0, `${input} ${format}: empty download`);
    assert.ok(mine.equals(theirs), `${input} ${format}: the page's ${mine.length} bytes differ from the CLI's ${theirs.length}`);
  }
}

test('every page export of every model is byte-identical to `arenaplan export` of the same file and order', async (t) => {
  const { page, errors } = await t.open();
  for (const model of models) {
    const file = path.join(repo, model);
    assert.ok(fs.existsSync(file), `${file} is missing (scripts/setup.sh installs .cache/models)`);
    // As File > Open gives it: the file's name names the model, as the CLI names it.
    const refused = await page.evaluate(([name, b]) => window.arenaplan.openFile(name, new Uint8Array(b)),
                                        [path.basename(file), Array.from(fs.readFileSync(file))]);
    assert.equal(refused, '', `${model}: ${refused}`);
    await checkSame(page, file, modelFormats);
  }
  assert.deepEqual(errors, []);
});

test('every example\'s page exports are byte-identical to `arenaplan export example:NAME`; a graph has no .tflite to export', async (t) => {
  const { page } = await t.open();
  const examples = fs.readdirSync(path.join(repo, 'examples'))
    .filter((f) => f.endsWith('.json') && fs.readFileSync(path.join(repo, 'examples', f), 'utf8').includes('"arenaplan-graph"'))
    .map((f) => f.replace(/\.json$/, ''));
  assert.ok(examples.length >= 5, examples.join(', '));
  for (const name of examples) {
    assert.equal(await page.evaluate((n) => window.arenaplan.loadExample(n), name), '', name);
    await checkSame(page, `example:${name}`, graphFormats);
  }
  const refused = await page.evaluate(() => window.arenaplan.exportFile('tflite-offline'));
  assert.match(refused, /needs a \.tflite model/);
});

test('the Budget tab\'s kernels and core size the page\'s C header and report as --kernels and --core do', async (t) => {
  const { page, errors } = await t.open();
  const file = path.join(repo, 'tests/unit/data/tflm/ds_cnn_small.tflite');
  const refused = await page.evaluate(([name, b]) => window.arenaplan.openFile(name, new Uint8Array(b)),
                                      [path.basename(file), Array.from(fs.readFileSync(file))]);
  assert.equal(refused, '');
  const header = async () => (await pageExport(page, 'c-header')).toString();
  const reference = await header();
  for (const [kernels, core] of [['cmsis-nn', 'cortex-m55'], ['cmsis-nn', 'cortex-m4'], ['reference', 'cortex-m0plus']]) {
    assert.equal(await page.evaluate(([k, c]) => window.arenaplan.setTflmTarget(k, c), [kernels, core]), '');
    await checkSame(page, file, ['c-header', 'json'], ['--kernels', kernels, '--core', core]);
  }
  // MVE's 3x3 depthwise buffers make the Helium arena larger than the reference one.
  await page.evaluate(() => window.arenaplan.setTflmTarget('cmsis-nn', 'cortex-m55'));
  const bytes = (h) => Number(/#define ARENAPLAN_TFLM_ARENA_BYTES (\d+)/.exec(h)[1]);
  assert.ok(bytes(await header()) > bytes(reference), 'cortex-m55 CMSIS-NN needs more than the reference kernels');
  assert.equal(await page.evaluate(() => window.arenaplan.setTflmTarget('cmsis', '')),
               '--kernels: expected reference or cmsis-nn, found "cmsis"');
  assert.deepEqual(errors, []);
});

test('for every library board, its core and kernels: the Budget tab\'s TFLM figure, the page\'s C header and `export --board` agree', async (t) => {
  const { page, errors } = await t.open();
  const boards = JSON.parse(execFileSync(cli, ['budget', '--list-boards', '--json'], { encoding: 'utf8' })).boards;
  assert.ok(boards.length >= 40, `${boards.length} library boards`);
  const headerBytes = (h) => Number(/#define ARENAPLAN_TFLM_ARENA_BYTES (\d+)/.exec(h)[1]);
  for (const model of ['ds_cnn_small', 'int8_inception']) {
    const file = path.join(repo, `tests/unit/data/tflm/${model}.tflite`);
    assert.equal(await page.evaluate(([name, b]) => window.arenaplan.openFile(name, new Uint8Array(b)),
                                     [path.basename(file), Array.from(fs.readFileSync(file))]), '');
    const figures = new Set();
    for (const board of boards) {
      const what = `${model} on ${board.name} (${board.core}, ${board.kernels})`;
      assert.equal(await page.evaluate((b) => window.arenaplan.selectBoard(b), board.name), '', what);
      // The board's kernels, and "Core: the board's".
      assert.equal(await page.evaluate((k) => window.arenaplan.setTflmTarget(k, ''), board.kernels), '', what);
      const tflm = (await state(page)).budget.tflm_arena;
      assert.ok(tflm && !tflm.error, `${what}: ${JSON.stringify(tflm)}`);
      assert.equal(tflm.core, board.core.startsWith('cortex-m') ? board.core : null, what);
      const header = (await pageExport(page, 'c-header')).toString();
      assert.equal(headerBytes(header), Math.max(tflm.tflm_planner_arena_bytes, tflm.offline_plan_arena_bytes), what);
      const s = await state(page);
      const theirs = cliExport(file, 'c-header', s.order, ['--board', board.name, '--kernels', board.kernels]);
      assert.ok(theirs.equals(Buffer.from(header)), `${what}: the page's header differs from export --board`);
      figures.add(headerBytes(header));
    }
    assert.ok(figures.size > 1, `${model}: the boards' cores and kernels give different arenas`);
  }
  assert.deepEqual(errors, []);
});
