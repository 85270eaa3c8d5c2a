// arenaplan tflm-arena: the tensor_arena_size TFLM needs, against figures measured in
// the real TFLM interpreter (../shared/data/tflm-reference/README.md).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Next to the repository (/work/main -> /work/shared), next to a worktrees folder, or the machine's own.
const reference = [resolve(repo, '../shared/data/tflm-reference'), resolve(repo, '../../shared/data/tflm-reference'),
  '/work/shared/data/tflm-reference']  // a CI clone elsewhere on this machine
  .find((d) => existsSync(join(d, 'person_detect.tflite'))) ?? resolve(repo, '../shared/data/tflm-reference');
const person = join(reference, 'person_detect.tflite');
const keyword = join(reference, 'keyword_scrambled.tflite');

export const tests = [
  ['tflm-arena: person_detect needs 82,296 B with 32-bit pointers (the default)', (cli) => {
    assert.ok(existsSync(person), `${person} is missing`);
    const r = cli('tflm-arena', person, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tflm_version, 'tflite-micro@90b983c2b3f1480642e040bbd2ddb37b998f3424');
    assert.equal(r.json.pointer_bytes, 4);
    assert.equal(r.json.plan, 'tflm');
    assert.equal(r.json.min_arena_bytes, 82296);
    assert.equal(r.json.arena_used_bytes, 82292);
    assert.equal(r.json.head_bytes, 55296);
    assert.equal(r.json.tail_bytes, 26996);
    assert.equal(r.json.categories.kernel_persistent_buffers.used_bytes, 23828);
    assert.deepEqual(r.json.estimated_ops, []);
  }],
  ['tflm-arena: person_detect on a 64-bit host needs 85,016 B (head 55,296 + tail 29,720 at that size)', (cli) => {
    const r = cli('tflm-arena', person, '--pointer-bytes', '8', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.min_arena_bytes, 85016);
    assert.equal(r.json.head_bytes, 55296);
    assert.equal(r.json.tail_bytes, 29720);
  }],
  ['tflm-arena: keyword_scrambled needs more than arena_used_bytes (planning temporaries)', (cli) => {
    const r = cli('tflm-arena', keyword, '--pointer-bytes', '8', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.min_arena_bytes, 17632);
    assert.equal(r.json.arena_used_bytes, 14720);
    assert.equal(r.json.categories.variable_tensors.used_bytes, 10240);
  }],
  ['tflm-arena --plan offline and reordered size the models export writes', (cli) => {
    for (const plan of ['offline', 'reordered']) {
      const r = cli('tflm-arena', person, '--plan', plan, '--planner', 'portfolio', '--json');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.json.plan, plan);
      assert.equal(r.json.head_bytes, 55296);  // the lower bound: no plan is smaller
      assert.equal(r.json.min_arena_bytes, 82296);
    }
  }],
  ['tflm-arena text view names the size to pass to MicroInterpreter', (cli) => {
    const r = cli('tflm-arena', person);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /tensor_arena_size needed: 82,296 B/);
  }],
  ['tflm-arena refuses bad input with exit 2', (cli) => {
    let r = cli('tflm-arena', person, '--pointer-bytes', '2');
    assert.equal(r.status, 2);
    r = cli('tflm-arena', person, '--plan', 'greedy');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--plan/);
    r = cli('tflm-arena', 'examples/two_branch.json');
    assert.equal(r.status, 2);
  }],
  ['export c-header sizes tensor_arena with what TFLM needs and names the plan head apart', (cli) => {
    const out = join(mkdtempSync(join(tmpdir(), 'ap-')), 'person.h');
    const r = cli('export', person, '--format', 'c-header', '--planner', 'portfolio', '-o', out);
    assert.equal(r.status, 0, r.stderr);
    const h = readFileSync(out, 'utf8');
    assert.match(h, /#define ARENAPLAN_TFLM_ARENA_BYTES 82296\b/);
    assert.match(h, /tensor_arena\[ARENAPLAN_TFLM_ARENA_BYTES\]/);
    assert.match(h, /#define ARENAPLAN_PLAN_HEAD_BYTES 55296\b/);
  }],
  ['import and budget show TFLM\'s whole arena next to the plan', (cli) => {
    let r = cli('import', person, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tflm_arena.tflm_planner_arena_bytes, 82296);
    r = cli('import', person);
    assert.match(r.stdout, /TFLM's own planner: 82,296 bytes; with arenaplan's offline plan: 82,296 bytes \(saves 0\)/);
  }],
  ['budget of a .tflite takes the persistent part from the model, not the board', (cli) => {
    const r = cli('budget', person, '--board', 'examples/two_branch_board.json', '--planner', 'portfolio', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tflm_arena.offline_plan_arena_bytes, 82296);
    assert.deepEqual(r.json.tflm_arena.replaced_reservations, ['persistent model state']);
    const t = cli('budget', person, '--board', 'examples/two_branch_board.json', '--planner', 'portfolio');
    assert.match(t.stdout, /persistent part from the model: 27000 B/);
  }],
];
