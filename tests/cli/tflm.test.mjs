// arenaplan tflm-arena: the tensor_arena_size TFLM needs, against figures measured in
// the real TFLM interpreter (tests/unit/data/tflm/README.md).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The project's own models, with the minimum arenas measured in the real TFLM interpreter.
const fixtures = join(repo, 'tests/unit/data/tflm');
const inception = join(fixtures, 'int8_inception.tflite');  // 54,292 B (32-bit), 55,784 B (64-bit)
const svdf = join(fixtures, 'svdf_int8.tflite');

const dsCnn = join(fixtures, 'ds_cnn_small.tflite');  // measured in QEMU per core (README)

export const tests = [
  ['tflm-arena --kernels cmsis-nn --core: the arena measured in QEMU for each CMSIS-NN code path', (cli) => {
    for (const [core, bytes, isa] of [['cortex-m4', 12172, 'dsp'], ['cortex-m55', 21612, 'mve'], ['cortex-m3', 12156, 'plain-c']]) {
      const r = cli('tflm-arena', dsCnn, '--kernels', 'cmsis-nn', '--core', core, '--json');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.json.min_arena_bytes, bytes, core);
      assert.equal(r.json.kernels, 'cmsis-nn');
      assert.equal(r.json.cmsis_nn_isa, isa);
      assert.equal(r.json.enum_bytes, 1);
      assert.equal(r.json.core, core);
    }
    // The reference kernels built for a Cortex-M (short enums) and for wasm32 (4-byte enums).
    assert.equal(cli('tflm-arena', dsCnn, '--core', 'cortex-m4', '--json').json.min_arena_bytes, 12088);
    assert.equal(cli('tflm-arena', dsCnn, '--core', 'cortex-m4', '--enum-bytes', '4', '--json').json.kernels, 'reference');
    const text = cli('tflm-arena', dsCnn, '--kernels', 'cmsis-nn', '--core', 'cortex-m55');
    assert.match(text.stdout, /CMSIS-NN kernels \(mve\) for cortex-m55, 32-bit pointers, 1-byte enums/);
    assert.match(text.stdout, /tensor_arena_size needed: 21,612 B/);
  }],
  ['--kernels / --core refusals name the option; budget takes the board\'s core', (cli) => {
    const bad = cli('tflm-arena', dsCnn, '--core', 'cortex-m99');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--core: unknown core "cortex-m99"; known: cortex-m0, cortex-m0plus/);
    assert.equal(cli('tflm-arena', dsCnn, '--kernels', 'cmsis').status, 2);
    assert.match(cli('tflm-arena', dsCnn, '--pointer-bytes', '8', '--enum-bytes', '1').stderr,
                 /--enum-bytes: short enums are modelled for 32-bit targets only/);
    const b = cli('budget', dsCnn, '--board', 'stm32h743', '--kernels', 'cmsis-nn');
    assert.match(b.stdout, /CMSIS-NN kernels \(dsp\) for cortex-m7/);
    const esp = cli('budget', dsCnn, '--board', 'esp32s3_psram8', '--kernels', 'cmsis-nn');
    assert.equal(esp.status, 2);
    assert.match(esp.stderr, /cmsis-nn needs a Cortex-M core; the board's is "xtensa-lx7"/);
  }],
  ['export c-header for a core: ARENAPLAN_TFLM_ARENA_BYTES for its kernels, the arena alignas(16)', (cli) => {
    const r = cli('export', dsCnn, '--format', 'c-header', '--kernels', 'cmsis-nn', '--core', 'cortex-m55');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /#define ARENAPLAN_TFLM_ARENA_BYTES 21612\n/);
    assert.match(r.stdout, /CMSIS-NN@4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae/);
    assert.match(r.stdout, /can lose\n\/\/ up to 15 bytes/);
    assert.match(r.stdout, /alignas\(16\) static uint8_t tensor_arena\[ARENAPLAN_TFLM_ARENA_BYTES\];/);
  }],
  ['tflm-arena: int8_inception needs 54,292 B with 32-bit pointers (the default)', (cli) => {
    assert.ok(existsSync(inception), `${inception} is missing`);
    const r = cli('tflm-arena', inception, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tflm_version, 'tflite-micro@90b983c2b3f1480642e040bbd2ddb37b998f3424');
    assert.equal(r.json.pointer_bytes, 4);
    assert.equal(r.json.plan, 'tflm');
    assert.equal(r.json.min_arena_bytes, 54292);
    assert.equal(r.json.head_bytes, 50176);  // the largest op's inputs and outputs: no plan is smaller
    assert.equal(r.json.arena_used_bytes, r.json.head_bytes + r.json.tail_bytes);
    assert.deepEqual(r.json.estimated_ops, []);
  }],
  ['tflm-arena: int8_inception on a 64-bit host needs 55,784 B', (cli) => {
    const r = cli('tflm-arena', inception, '--pointer-bytes', '8', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.min_arena_bytes, 55784);
    assert.equal(r.json.head_bytes, 50176);
  }],
  ['tflm-arena: an SVDF stack keeps its state among the variable tensors', (cli) => {
    const r = cli('tflm-arena', svdf, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.categories.variable_tensors.count, 2);
    // int16 state: 16 filters x memory 8, and 16 filters x memory 6 (tflm_fixture_models.h)
    assert.equal(r.json.categories.variable_tensors.requested_bytes, (16 * 8 + 16 * 6) * 2);
    assert.deepEqual(r.json.estimated_ops, []);
  }],
  ['tflm-arena --plan offline and reordered size the models export writes', (cli) => {
    for (const plan of ['offline', 'reordered']) {
      const r = cli('tflm-arena', inception, '--plan', plan, '--planner', 'portfolio', '--json');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.json.plan, plan);
      assert.equal(r.json.head_bytes, 50176);
      assert.equal(r.json.min_arena_bytes, 54292);
    }
  }],
  ['tflm-arena text view names the size to pass to MicroInterpreter', (cli) => {
    const r = cli('tflm-arena', inception);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /tensor_arena_size needed: 54,292 B/);
  }],
  ['tflm-arena refuses bad input with exit 2', (cli) => {
    let r = cli('tflm-arena', inception, '--pointer-bytes', '2');
    assert.equal(r.status, 2);
    r = cli('tflm-arena', inception, '--plan', 'greedy');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--plan/);
    r = cli('tflm-arena', 'examples/two_branch.json');
    assert.equal(r.status, 2);
  }],
  ['export c-header sizes tensor_arena with what TFLM needs and names the plan head apart', (cli) => {
    const out = join(mkdtempSync(join(tmpdir(), 'ap-')), 'inception.h');
    const r = cli('export', inception, '--format', 'c-header', '-o', out);
    assert.equal(r.status, 0, r.stderr);
    const h = readFileSync(out, 'utf8');
    assert.match(h, /#define ARENAPLAN_TFLM_ARENA_BYTES 54292\b/);
    assert.match(h, /tensor_arena\[ARENAPLAN_TFLM_ARENA_BYTES\]/);
    assert.match(h, /#define ARENAPLAN_PLAN_HEAD_BYTES 50176\b/);
  }],
  ['import and budget show TFLM\'s whole arena next to the plan', (cli) => {
    let r = cli('import', inception, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tflm_arena.tflm_planner_arena_bytes, 54292);
    r = cli('import', inception);
    assert.match(r.stdout, /TFLM's own planner: 54,292 bytes; with arenaplan's offline plan: 54,292 bytes \(saves 0\)/);
  }],
  ['budget of a .tflite takes the persistent part from the model, not the board', (cli) => {
    const r = cli('budget', inception, '--board', 'examples/two_branch_board.json', '--planner', 'portfolio', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tflm_arena.offline_plan_arena_bytes, 54292);
    assert.deepEqual(r.json.tflm_arena.replaced_reservations, ['persistent model state']);
    const t = cli('budget', inception, '--board', 'examples/two_branch_board.json', '--planner', 'portfolio');
    assert.match(t.stdout, /persistent part from the model: 4116 B/);  // 54,292 - the 50,176 B head
  }],
];
