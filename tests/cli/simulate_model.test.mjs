// Real networks in the simulated arena: raw inputs in, raw outputs out, stand-ins named.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ref = '/work/shared/data/tflm-reference';  // TFLM's models and the bytes its kernels produced

export const tests = [
  ['simulate person_detect --input-file --output-dir writes the bytes TFLM produced (65 9b), oracles green', (cli) => {
    assert.ok(existsSync(`${ref}/person_detect.tflite`), `${ref} is missing`);
    const dir = mkdtempSync(join(tmpdir(), 'ap-sim-'));
    const r = cli('simulate', `${ref}/person_detect.tflite`, '--input-file', `input=${ref}/person_detect.input.bin`,
                  '--output-dir', dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /oracle flash: +ok/);
    assert.match(r.stdout, /inputs fed from files: input/);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.deepEqual([...readFileSync(join(dir, files[0]))], [0x65, 0x9b]);
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
  ['TFLM\'s stateful keyword models (SVDF, softmax int8->int16, quantize int16->int32) simulate with the model\'s own numbers over several runs', (cli) => {
    for (const model of ['keyword_scrambled.tflite', 'keyword_scrambled_8bit.tflite']) {
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
    let r = cli('simulate', `${ref}/person_detect.tflite`, '--input-file', `input=${ref}/README.md`);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /input input: has \d+ bytes; tensor input holds 9216/);
    r = cli('simulate', `${ref}/person_detect.tflite`, '--input-file', `nope=${ref}/person_detect.input.bin`);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /input nope: is not a graph input \(inputs: input\)/);
    r = cli('simulate', `${ref}/person_detect.tflite`, '--input-file', 'input');
    assert.equal(r.status, 2);
  }],
];
