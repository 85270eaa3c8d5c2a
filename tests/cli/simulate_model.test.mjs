// Real networks in the simulated arena (issue 21): raw inputs in, raw outputs out, stand-ins named.
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
  ['a model with ops the simulator has no kernel for runs, naming each stand-in and saying its numbers are not the model\'s', (cli) => {
    const r = cli('simulate', `${ref}/keyword_scrambled.tflite`, '--planner', 'tflm-greedy');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /op\(s\) ran a byte-level stand-in/);
    assert.match(r.stdout, /svdf_1: stand-in, output bytes are not the model's: no kernel for kind "svdf"/);
    const j = cli('simulate', `${ref}/keyword_scrambled.tflite`, '--json').json;
    assert.equal(j.ok, true);
    assert.equal(j.outputs_are_the_model, false);
    assert.ok(j.stand_ins.some((s) => s.op === 'svdf_1'));
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
