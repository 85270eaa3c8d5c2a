// Real networks in the simulated arena: raw inputs in, raw outputs out, stand-ins named.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The project's own models and the output bytes TFLM's reference kernels gave for their inputs
// (tests/unit/data/tflm/README.md).
const ref = resolve(dirname(fileURLToPath(import.meta.url)), '../../tests/unit/data/tflm');

// FNV-1a-64 of the output bytes TFLM's reference kernels wrote (tests/unit/data/tflm/README.md).
const TFLM_INCEPTION_FNV = 'e07c7cbcd603ccb0';
function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

export const tests = [
  ['simulate --input-file --output-dir writes the bytes TFLM produced for int8_inception, oracles green', (cli) => {
    assert.ok(existsSync(`${ref}/int8_inception.tflite`), `${ref} is missing`);
    const dir = mkdtempSync(join(tmpdir(), 'ap-sim-'));
    const r = cli('simulate', `${ref}/int8_inception.tflite`, '--input-file', `input=${ref}/int8_inception.input.bin`,
                  '--output-dir', dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /oracle flash: +ok/);
    assert.match(r.stdout, /outputs: +the model's/);
    assert.match(r.stdout, /inputs fed from files: input/);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.equal(fnv1a64(readFileSync(join(dir, files[0]))), TFLM_INCEPTION_FNV);
  }],
  ['simulate --runs 3 --output-dir writes every run: run 1 in DIR, run k in DIR/run<k>, each TFLM\'s bytes (svdf_int8, state carried over)', (cli) => {
    // FNV-1a-64 of TFLM's output after invokes 1, 2 and 3 (tests/unit/data/tflm/README.md).
    const tflm = ['29f681ff807148a5', '138cac533dbe43f1', '1dcdba534400562d'];
    const dir = mkdtempSync(join(tmpdir(), 'ap-sim-runs-'));
    const r = cli('simulate', `${ref}/svdf_int8.tflite`, '--input-file', `input=${ref}/svdf_int8.input.bin`, '--runs', '3',
                  '--output-dir', dir);
    assert.equal(r.status, 0, r.stderr);
    const got = ['', 'run2', 'run3'].map((sub) => {
      const files = readdirSync(join(dir, sub)).filter((f) => f.endsWith('.bin'));
      assert.equal(files.length, 1, sub);
      return fnv1a64(readFileSync(join(dir, sub, files[0])));
    });
    assert.deepEqual(got, tflm);
  }],
  ['a model with an op the simulator has no kernel for runs, naming the stand-in and saying its numbers are not the model\'s', (cli) => {
    // selfie_segmentation's custom op Convolution2DTransposeBias (MediaPipe's) has no kernel.
    const model = '.cache/models/selfie_segmentation.tflite';  // installed by scripts/setup.sh
    const r = cli('simulate', model, '--planner', 'tflm-greedy');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /1 op\(s\) ran a byte-level stand-in/);
    assert.match(r.stdout, /Convolution2DTransposeBias_244: stand-in, output bytes are not the model's: no kernel for kind "Convolution2DTransposeBias"/);
    const j = cli('simulate', model, '--json').json;
    assert.equal(j.ok, true);
    assert.equal(j.outputs_are_the_model, false);
    assert.deepEqual(j.stand_ins.map((s) => s.op), ['Convolution2DTransposeBias_244']);
  }],
  ['stateful SVDF stacks (int8 with int16 state, float32) simulate with the model\'s own numbers over several runs', (cli) => {
    for (const model of ['svdf_int8.tflite', 'svdf_float.tflite']) {
      const r = cli('simulate', `${ref}/${model}`, '--planner', 'tflm-greedy');
      assert.equal(r.status, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /stand-in/);
      const j = cli('simulate', `${ref}/${model}`, '--json', '--runs', '3').json;
      assert.equal(j.ok, true, model);
      assert.equal(j.outputs_are_the_model, true, model);
      assert.deepEqual(j.stand_ins, [], model);
      assert.deepEqual(j.foreign_writes, [], model);  // the SVDF state updates are the ops' own writes
    }
  }],
  ['--input-file of the wrong size or an unknown input is bad input (exit 2) naming it', (cli) => {
    let r = cli('simulate', `${ref}/int8_inception.tflite`, '--input-file', `input=${ref}/README.md`);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /input input: has \d+ bytes; tensor input holds 9408/);
    r = cli('simulate', `${ref}/int8_inception.tflite`, '--input-file', `nope=${ref}/int8_inception.input.bin`);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /input nope: is not a graph input \(inputs: input\)/);
    r = cli('simulate', `${ref}/int8_inception.tflite`, '--input-file', 'input');
    assert.equal(r.status, 2);
  }],
  ['simulate --board takes the board\'s core, kernel library and clock; --clock-mhz overrides it; latency has its band', (cli) => {
    let j = cli('simulate', 'example:tiny_cnn', '--board', 'stm32h743', '--json').json;
    assert.equal(j.core, 'cortex-m7');
    assert.equal(j.kernels, 'cmsis-nn');
    assert.equal(j.clock_mhz, 480);
    assert.match(j.latency_text, /^[0-9,]+\.[0-9]{3} ms \(\+-[0-9]+ %\)$/);
    const at480 = j.latency_us;
    j = cli('simulate', 'example:tiny_cnn', '--board', 'stm32h743', '--clock-mhz', '240', '--json').json;
    assert.equal(j.clock_mhz, 240);
    assert.ok(Math.abs(j.latency_us - 2 * at480) < 0.01, `${j.latency_us} vs ${at480}`);
    const text = cli('simulate', 'example:tiny_cnn', '--board', 'esp32');
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /ms \(\+-[0-9]+ %\) at 240 MHz, riscv32 with reference kernels/);
    assert.match(text.stdout, /stands in for the board's xtensa-lx6/);
    let r = cli('simulate', 'example:tiny_cnn', '--board', 'stm32h743', '--profile', 'cortex-m4');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /give --board or --profile, not both/);
    r = cli('simulate', 'example:tiny_cnn', '--board', 'no_such_board');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no library board "no_such_board"/);
    r = cli('simulate', 'example:tiny_cnn', '--clock-mhz', '-5');
    assert.equal(r.status, 2);
    assert.equal(cli('simulate', 'example:tiny_cnn', '--profile', 'cortex-m4/reference', '--json').json.kernels, 'reference');
  }],
];
