// Vela-compiled (Ethos-U) models: the project's own vela_npu.tflite (tests/unit/data/tflm/README.md,
// written by tflite_from_graph with Vela's nested offline plan) through import, tflm-arena,
// simulate and export.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../tests/unit/data/tflm');
const vela = join(fixtures, 'vela_npu.tflite');

export const tests = [
  ['import: the ethos-u op is an NPU op, its scratch tensors TFLM-allocated at Vela\'s offsets', (cli) => {
    assert.ok(existsSync(vela), `${vela} is missing`);
    const r = cli('import', vela, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.json.npu_ops, ['ethos-u_1']);
    assert.deepEqual(r.json.working_tensors.map((w) => [w.tensor, w.bytes, w.op, w.offline_offset]),
                     [['main_split_1_scratch', 1024, 'ethos-u_1', 0], ['main_split_1_scratch_fast', 1024, 'ethos-u_1', 0]]);
    assert.equal(r.json.has_offline_plan, true);
    assert.match(r.json.tflm_arena.offline_plan_kept, /^ethos-u_1 runs on the Ethos-U NPU/);
    assert.equal(r.json.tflm_arena.saved_bytes, 0);
    const text = cli('import', vela);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /NPU ops +1 run on the Ethos-U NPU \(not on the CPU\): ethos-u_1/);
    assert.match(text.stdout, /working memory +main_split_1_scratch: 1,024 B, allocated by TFLM at offset 0/);
    assert.doesNotMatch(text.stdout, /not available/);
  }],
  ['tflm-arena: Vela\'s scratch at 0 holds every feature map; the kernel\'s arrays come after it', (cli) => {
    const r = cli('tflm-arena', vela, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.head_bytes, 1024 + 48 + 32);
    assert.deepEqual(r.json.estimated_ops, []);
  }],
  ['simulate: the CPU ops run, the NPU op is refused by name, its outputs are not computed (exit 0)', (cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-vela-'));
    const r = cli('simulate', vela, '--input-file', `input=${fixtures}/vela_npu.input.bin`, '--output-dir', dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /ethos-u_1: ethos-u: runs on the Ethos-U NPU, not simulated/);
    assert.match(r.stdout, /outputs: +1 of 1 NOT computed/);
    assert.match(r.stdout, /oracle writes: +ok/);
    assert.doesNotMatch(r.stdout, /the model's \(every op ran/);
    // A placeholder is never written as the model's output.
    assert.deepEqual(readdirSync(dir), []);
    assert.match(r.stderr, /not written: output output is not computed/);
    const j = cli('simulate', vela, '--json').json;
    assert.deepEqual(j.outputs_not_computed, ['output']);
    assert.deepEqual(j.not_simulated, [{ op: 'ethos-u_1', why: 'ethos-u: runs on the Ethos-U NPU, not simulated' }]);
    assert.equal(j.outputs_are_the_model, false);
    assert.equal(j.ok, true);
  }],
  ['transform: the what-if does not compare outputs an NPU op leaves not computed', (cli) => {
    const r = cli('transform', vela, '--auto', '--time-limit', '2', '--report');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /outputs: not compared \(an NPU op \(Vela's ethos-u\) is not simulated/);
  }],
  ['export of an offline plan refuses a Vela model by the NPU op\'s name (exit 2)', (cli) => {
    const out = join(mkdtempSync(join(tmpdir(), 'ap-vela-')), 'x.tflite');
    const r = cli('export', vela, '--format', 'tflite-offline', '-o', out);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /op ethos-u_1: runs on the Ethos-U NPU/);
    assert.equal(existsSync(out), false);
  }],
];
