// One front door: every TFLM figure a command prints is the figure of the file `export` writes
// with the same options, and the C header of a board is sized for the board's core, as `budget`.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = (name) => join(repo, 'tests/unit/data/tflm', `${name}.tflite`);
// The project's own models: branches (the optimal order is not the file's), an LSTM, an SVDF
// stack with state, a stem whose one-way SPLIT copies the image.
const models = ['int8_branches_small', 'int8_inception', 'lstm_int8', 'svdf_int8', 'swiftnet_stem', 'ds_cnn_small'];
const targets = [[], ['--kernels', 'cmsis-nn', '--core', 'cortex-m4'], ['--pointer-bytes', '8']];

function ok(r) {
  assert.equal(r.status, 0, r.stderr);
  return r;
}

function headerArena(text) {
  const m = /#define ARENAPLAN_TFLM_ARENA_BYTES (\d+)\b/.exec(text);
  assert.ok(m, 'the header names ARENAPLAN_TFLM_ARENA_BYTES');
  return Number(m[1]);
}

export const tests = [
  ['tflm-arena --plan offline|reordered equals tflm-arena of the file export writes, for every model and target', (cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-door-'));
    for (const name of models)
      for (const target of targets)
        for (const plan of ['offline', 'reordered']) {
          const what = `${name} ${plan} ${target.join(' ')}`;
          const figure = ok(cli('tflm-arena', fixture(name), '--plan', plan, ...target, '--json')).json;
          assert.equal(figure.plan, plan, what);
          const out = join(dir, `${name}.${plan}.tflite`);
          ok(cli('export', fixture(name), '--format', `tflite-${plan}`, ...target, '-o', out));
          const written = ok(cli('tflm-arena', out, ...target, '--json')).json;
          assert.equal(figure.min_arena_bytes, written.min_arena_bytes, what);
          assert.equal(figure.head_bytes, written.head_bytes, what);
        }
  }],
  ['tflm-arena --plan offline --order X sizes the file export --order X writes (operators in that order)', (cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-door-'));
    const model = fixture('int8_branches_small');
    // A valid order other than the file's (the branches swapped): the file is written in it.
    const orderArg = 'pad_0,conv_2d_1,conv_2d_4,depthwise_conv_2d_2,conv_2d_3,add_5,concatenation_6,max_pool_2d_7,' +
                     'mean_8,fully_connected_9,softmax_10';
    const figure = ok(cli('tflm-arena', model, '--plan', 'offline', '--order', orderArg, '--json')).json;
    const out = join(dir, 'ordered.tflite');
    ok(cli('export', model, '--format', 'tflite-offline', '--order', orderArg, '-o', out));
    assert.equal(figure.min_arena_bytes, ok(cli('tflm-arena', out, '--json')).json.min_arena_bytes);
    const fileOrder = ok(cli('tflm-arena', model, '--plan', 'offline', '--json')).json;
    assert.equal(fileOrder.plan, 'offline');
  }],
  ['budget, import and the C header carry the same TFLM figures, the header sized for the board core (export --board)', (cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-door-'));
    for (const name of ['ds_cnn_small', 'int8_inception'])
      for (const board of ['alif_e7_hp', 'nrf52840', 'esp32s3']) {
        const what = `${name} on ${board}`;
        const budget = cli('budget', fixture(name), '--board', board, '--json');
        assert.ok(budget.status === 0 || budget.status === 1, budget.stderr);
        const t = budget.json.tflm_arena;
        const out = join(dir, `${name}.${board}.h`);
        ok(cli('export', fixture(name), '--format', 'c-header', '--board', board, '-o', out));
        const header = headerArena(readFileSync(out, 'utf8'));
        assert.equal(header, Math.max(t.tflm_planner_arena_bytes, t.offline_plan_arena_bytes), what);
        // The offline figure is the written file's, sized for the board's core.
        const offline = join(dir, `${name}.${board}.tflite`);
        ok(cli('export', fixture(name), '--format', 'tflite-offline', '--board', board, '-o', offline));
        const sized = ok(cli('tflm-arena', offline, '--board', board, '--json')).json;
        assert.equal(sized.min_arena_bytes, t.offline_plan_arena_bytes, what);
        assert.equal(sized.core, t.core, what);
      }
    // Without --board the same model's header is for a generic 32-bit target: on a Cortex-M55
    // with CMSIS-NN the board's figure differs, which is why --board exists.
    const generic = join(dir, 'generic.h');
    ok(cli('export', fixture('ds_cnn_small'), '--format', 'c-header', '--kernels', 'cmsis-nn', '-o', generic));
    const m55 = join(dir, 'm55.h');
    ok(cli('export', fixture('ds_cnn_small'), '--format', 'c-header', '--kernels', 'cmsis-nn', '--board', 'alif_e7_hp', '-o', m55));
    assert.notEqual(headerArena(readFileSync(generic, 'utf8')), headerArena(readFileSync(m55, 'utf8')));
    const imported = ok(cli('import', fixture('int8_inception'), '--json')).json.tflm_arena;
    const sized = ok(cli('tflm-arena', fixture('int8_inception'), '--plan', 'offline', '--json')).json;
    assert.equal(imported.offline_plan_arena_bytes, sized.min_arena_bytes);
  }],
];
