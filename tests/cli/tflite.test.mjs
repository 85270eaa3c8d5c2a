// .tflite models on the command line: import, export, and a model wherever a graph goes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const model = '.cache/models/face_detection_short_range.tflite';  // installed by scripts/setup.sh

const branches = 'tests/unit/data/tflm/int8_branches_small.tflite';

export const tests = [
  ['export --format tflite-offline for an order not the file\'s writes the operators in that order, proven as TFLM runs it', (cli) => {
    const order = 'pad_0,conv_2d_1,conv_2d_4,depthwise_conv_2d_2,conv_2d_3,add_5,concatenation_6,max_pool_2d_7,' +
                  'mean_8,fully_connected_9,softmax_10';
    const out = join(mkdtempSync(join(tmpdir(), 'ap-')), 'offline.tflite');
    let r = cli('export', branches, '--format', 'tflite-offline', '--order', order, '-o', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /operators are written in that order too/);
    // The written file's own order is the planned one: its steps are the planned order's steps.
    const planned = cli('analyze', branches, '--order', order, '--json');
    r = cli('analyze', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    // (An imported op is named after its kind and its index in the file, so compare kinds.)
    const kinds = (names) => names.map((n) => n.replace(/_\d+$/, ''));
    assert.deepEqual(kinds(r.json.order), kinds(order.split(',')));
    assert.deepEqual(r.json.steps.map((s) => s.live_bytes), planned.json.steps.map((s) => s.live_bytes));
    // The file order's export keeps the file's operators and says nothing of an order.
    r = cli('export', branches, '--format', 'tflite-offline', '-o', out);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /written in that order/);
    assert.deepEqual(cli('analyze', out, '--json').json.order, cli('analyze', branches, '--json').json.order);
  }],
  ['import summarises a real model: face_detection_short_range peaks at 1,376,256 bytes', (cli) => {
    assert.ok(existsSync(model), `${model} is missing: run scripts/setup.sh`);
    const r = cli('import', model, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.peak_bytes, 1376256);
  }],
  ['a .tflite model is accepted wherever a GRAPH is (analyze, layout)', (cli) => {
    let r = cli('analyze', model, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.peak_bytes, 1376256);
    r = cli('layout', model, '--planner', 'tflm-greedy', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.json.arena_bytes >= 1376256 && r.json.verified);
  }],
  ['import -o writes graph JSON that analyzes to the same peak', (cli) => {
    const out = join(mkdtempSync(join(tmpdir(), 'ap-')), 'face.json');
    let r = cli('import', model, '-o', out);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).format, 'arenaplan-graph');
    r = cli('analyze', out, '--json');
    assert.equal(r.json.peak_bytes, 1376256);
  }],
  ['export c-header carries the arena size and an offset table', (cli) => {
    const out = join(mkdtempSync(join(tmpdir(), 'ap-')), 'plan.h');
    const r = cli('export', 'examples/two_branch.json', '--format', 'c-header', '-o', out);
    assert.equal(r.status, 0, r.stderr);
    const h = readFileSync(out, 'utf8');
    assert.match(h, /alignas\(16\) static uint8_t tensor_arena\[ARENAPLAN_ARENA_BYTES\]/);
    assert.match(h, /#define ARENAPLAN_ARENA_BYTES 139264\b/);
  }],
  ['a corrupt model exits 2 with a reason', (cli) => {
    const r = cli('import', 'examples/two_branch.json');
    assert.equal(r.status, 2);
    // A JSON file's bytes 4..8 ("for) are not the FlatBuffers identifier TFL3: the message names
    // the file, the place and what was expected.
    assert.match(r.stderr, /examples\/two_branch\.json: .*not a TFLite model: file identifier .* at byte 4, expected "TFL3"/);
  }],
  ['kernel-level rewrites: a refused foldpad names the consumer; an in-place 1x1 conv stays bit-exact and its export names the kernel stock TFLM lacks', (cli) => {
    // BlazeFace pads channels before a residual add: nothing a window op could read as a border.
    let r = cli('transform', model, '--apply', 'foldpad:pad_18');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /foldpad:pad_18: refused: consumer add_19 \(kind "add"\) is not a conv/);
    r = cli('transform', model, '--apply', 'inplace:conv_2d_9', '--report', '--json', '--seconds', '0.5');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.outputs.check, 'bit-exact');
    assert.ok(r.json.after.verified && r.json.after.sim_ok);
    const dir = mkdtempSync(join(tmpdir(), 'ap-'));
    r = cli('transform', model, '--apply', 'inplace:conv_2d_9', '-o', join(dir, 'r.json'));
    assert.equal(r.status, 0, r.stderr);
    r = cli('export', join(dir, 'r.json'), '--format', 'c-header', '-o', join(dir, 'r.h'));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /needs 1 kernel\(s\) the stock TFLM runtime does not have/);
    assert.match(r.stderr, /op conv_2d_9: conv_2d_in_place \(writes its output over its input/);
    const h = readFileSync(join(dir, 'r.h'), 'utf8');
    assert.match(h, /#define ARENAPLAN_CUSTOM_KERNELS 1\b/);
    assert.match(h, /\/\/   op conv_2d_9: conv_2d_in_place/);
  }],
];
