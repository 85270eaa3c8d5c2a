// `arenaplan exercise`: the guided exercises from the command line. Answers are checked by core;
// exit 0 correct, 1 not yet, 2 bad input.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BUILTIN = ['exercise_broken_rule', 'exercise_cache_misses', 'exercise_find_order', 'exercise_fit_budget',
  'exercise_place_c', 'exercise_predict_peak'];

// Runs fn(dir) with a fresh temporary folder, removed afterwards.
function withTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'arenaplan-exercise-'));
  try { return fn(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
}

export const tests = [
  ['list names the six built-in exercises with their kinds', (cli) => {
    const r = cli('exercise', 'list', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.json.map((e) => e.name), BUILTIN);
    assert.deepEqual(r.json.map((e) => e.kind),
      ['broken_rule', 'cache_misses', 'find_order', 'fit_budget', 'place_tensor', 'predict_peak']);
    const text = cli('exercise', 'list');
    assert.match(text.stdout, /exercise_place_c\s+place_tensor\s+Place C so the arena is 136 KiB/);
  }],
  ['show gives the question and the fixed offsets, never the answer', (cli) => {
    const r = cli('exercise', 'show', 'exercise_place_c', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.kind, 'place_tensor');
    assert.equal(r.json.tensor, 'C');
    assert.equal(r.json.arena_at_most_bytes, 136 * 1024);
    assert.deepEqual(r.json.fixed.map((b) => b.name), ['I', 'A', 'B', 'D', 'E', 'F']);
    assert.ok(!('answer' in r.json));
    const text = cli('exercise', 'show', 'exercise_place_c');
    assert.equal(text.status, 0);
    assert.match(text.stdout, /At which offset must C/);
    assert.match(text.stdout, /3 hints/);
    assert.doesNotMatch(text.stdout, /Hint 1:/);
    assert.match(cli('exercise', 'show', 'exercise_place_c', '--hints').stdout, /Hint 2: At step 2, A \(32 KiB\)/);
  }],
  ['check: a right answer exits 0, a wrong one exits 1 with feedback', (cli) => {
    let r = cli('exercise', 'check', 'exercise_predict_peak', '--answer', '192 KiB', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.correct, true);
    r = cli('exercise', 'check', 'exercise_predict_peak', '--answer', '150 KiB', '--json');
    assert.equal(r.status, 1);
    assert.equal(r.json.correct, false);
    assert.match(r.json.feedback, /150 KiB is too low/);
    r = cli('exercise', 'check', 'exercise_find_order', '--answer', 'A,B,D,C,E,F');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^Not yet: A,B,D,C,E,F peaks at 192 KiB at step 2 \(op D\)/);
    r = cli('exercise', 'check', 'example:exercise_find_order', '--answer', 'A D E B C F');
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /^Correct: A,D,E,B,C,F peaks at 136 KiB/);
    r = cli('exercise', 'check', 'exercise_place_c', '--answer', '0');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /collides with B/);
    assert.equal(cli('exercise', 'check', 'exercise_place_c', '--answer', '131072').status, 0);
    assert.equal(cli('exercise', 'check', 'exercise_cache_misses', '--answer', '17').status, 0);
    r = cli('exercise', 'check', 'exercise_cache_misses', '--answer', 'many', '--json');
    assert.equal(r.status, 1, 'a malformed answer is a wrong answer, not bad input');
    assert.match(r.json.feedback, /not a whole number/);
  }],
  ['a teacher\'s own exercise file is checked by core too', (cli) => withTempDir((dir) => {
    const file = join(dir, 'residual.json');
    writeFileSync(file, JSON.stringify({
      format: 'arenaplan-exercise', name: 'residual_order', kind: 'find_order', graph: 'residual_block',
      peak_below: '70KiB', question: 'Find an order of the residual block under 70 KiB.',
      hints: ['Which op frees x?'],
    }));
    assert.equal(cli('exercise', 'check', file, '--answer', 'pool,expand,depthwise,shortcut,project,add,relu').status, 0);
    const r = cli('exercise', 'check', file, '--answer', 'expand,depthwise,project,pool,shortcut,add,relu');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /peaks at 78 KiB/);
  })],
  ['bad input exits 2 and names the place', (cli) => withTempDir((dir) => {
    let r = cli('exercise', 'check', 'exercise_nope', '--answer', '1');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /exercise_nope: no built-in exercise of that name/);
    r = cli('exercise', 'check', 'exercise_predict_peak');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--answer: missing/);
    r = cli('exercise', 'grade');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /missing: the result files to grade/);
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({
      format: 'arenaplan-exercise', name: 'bad', kind: 'place_tensor', graph: 'two_branch', tensor: 'C',
      arena_at_most: '136KiB', fixed: { A: 0 }, question: 'Where?',
    }));
    r = cli('exercise', 'show', file);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /bad\.json: \/fixed: missing the offset of buffer I/);
    writeFileSync(file, JSON.stringify({
      format: 'arenaplan-exercise', name: 'bad', kind: 'predict_peak', graph: 'two_branch',
      order: 'A,B,D,C,E,F', answer: '192 KiB', question: 'Peak?',
    }));
    r = cli('exercise', 'show', file);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /bad\.json: \/answer: unknown key/);
  })],
  ['generate writes an exercise file that show prints and check grades', (cli) => withTempDir((dir) => {
    for (const kind of ['predict-peak', 'find-order', 'place-tensor', 'cache-misses', 'fit-budget', 'broken-rule']) {
      const file = join(dir, `${kind}.json`);
      const r = cli('exercise', 'generate', '--kind', kind, '--difficulty', '3', '--seed', '7', '-o', file);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`wrote .*${kind}\\.json`));
      const show = cli('exercise', 'show', file, '--json');
      assert.equal(show.status, 0, show.stderr);
      assert.equal(show.json.kind, kind.replace('-', '_'));
      assert.deepEqual(show.json.generator, { kind, difficulty: 3, seed: 7 });
      assert.ok(!('answer' in show.json) && !('reference_answer' in show.json));
      assert.equal(cli('exercise', 'show', file).status, 0);
      // The same seed gives the same file.
      assert.equal(cli('exercise', 'generate', '--kind', kind, '--difficulty', '3', '--seed', '7').stdout,
        readFileSync(file, 'utf8'));
    }
  })],
  ['a generated find-order gives its graph and bound X; an order core schedules within X is right, the file order is not', (cli) => withTempDir((dir) => {
    const file = join(dir, 'fo.json');
    assert.equal(cli('exercise', 'generate', '--kind', 'find-order', '--difficulty', '3', '--seed', '7', '-o', file).status, 0);
    const q = cli('exercise', 'show', file, '--json').json;
    const bound = q.peak_at_most_bytes;
    assert.ok(bound > 0);
    assert.equal(q.peak_bound_bytes, bound);
    assert.equal(q.peak_bound_inclusive, true);
    // Solve it independently of the generator: the graph goes to `arenaplan schedule`.
    const graphFile = join(dir, 'graph.json');
    writeFileSync(graphFile, JSON.stringify(q.graph_json));
    const best = cli('schedule', graphFile, '--json').json;
    assert.ok(best.proven_optimal && best.peak_bytes <= bound, JSON.stringify(best));
    assert.ok(best.baseline_peak_bytes > bound, 'the file order must not already fit');
    const right = cli('exercise', 'check', file, '--answer', best.order.join(','));
    assert.equal(right.status, 0, right.stdout);
    const fileOrder = q.graph_json.ops.map((op) => op.name).join(',');
    const wrong = cli('exercise', 'check', file, '--answer', fileOrder);
    assert.equal(wrong.status, 1, wrong.stdout);
    assert.match(wrong.stdout, /That is more than/);
  })],
  ['a generated fit-budget gives a budget some choices miss; core plans each answer', (cli) => withTempDir((dir) => {
    const file = join(dir, 'fb.json');
    assert.equal(cli('exercise', 'generate', '--kind', 'fit-budget', '--difficulty', '1', '--seed', '7', '-o', file).status, 0);
    const q = cli('exercise', 'show', file, '--json').json;
    assert.ok(q.budget_bytes > 0 && q.planners.length >= 2);
    // Plan each choice independently with `arenaplan layout` on the question's graph and order.
    const graphFile = join(dir, 'graph.json');
    writeFileSync(graphFile, JSON.stringify(q.graph_json));
    const fits = q.planners.map((p) =>
      cli('layout', graphFile, '--order', q.order.join(','), '--planner', p, '--json').json.arena_bytes <= q.budget_bytes);
    assert.ok(fits.includes(true) && fits.includes(false), JSON.stringify(fits));
    q.planners.forEach((p, i) => assert.equal(cli('exercise', 'check', file, '--answer', p).status, fits[i] ? 0 : 1, p));
  })],
  ['a broken-rule plan: the verifier names what the student must name', (cli) => withTempDir((dir) => {
    let r = cli('exercise', 'show', 'exercise_broken_rule');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /The plan: arena 136 KiB/);
    assert.match(r.stdout, /A\s+0\s+32,768\s+0\.\.1/);  // the lifetime the plan assumed for A
    // One unit on every row: a misaligned offset must not stand out in bytes among KiB.
    const rows = r.stdout.split('\n').filter((l) => /^\s+[A-Z]\s+[\d,]+\s+[\d,]+\s+\d+\.\.\d+/.test(l));
    assert.ok(rows.length >= 6, r.stdout);
    assert.ok(!/\d ?(KiB|MiB|B)\b/.test(rows.join('\n')), rows.join('\n'));
    assert.equal(cli('exercise', 'check', 'exercise_broken_rule', '--answer', 'freed-early A').status, 0);
    r = cli('exercise', 'check', 'exercise_broken_rule', '--answer', 'overlap A D');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /plan's own lifetimes/);
    // `arenaplan verify` on the same offsets (true lifetimes) reports the pair too.
    const q = cli('exercise', 'show', 'exercise_broken_rule', '--json').json;
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ arena_bytes: q.plan.arena_bytes, buffers: q.plan.buffers.map(({ name, offset }) => ({ name, offset })) }));
    r = cli('verify', 'example:two_branch', plan, '--order', 'A,B,C,D,E,F', '--json');
    assert.equal(r.status, 1);
    assert.equal(r.json.rule, 'overlap');
    assert.match(r.json.message, /\bA\b.*\bD\b|\bD\b.*\bA\b/);
  })],
  ['generate refuses a bad kind, level or seed, naming the option (exit 2)', (cli) => {
    let r = cli('exercise', 'generate', '--kind', 'guess', '--difficulty', '1', '--seed', '1');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--kind: unknown kind "guess"/);
    r = cli('exercise', 'generate', '--kind', 'find-order', '--difficulty', '6', '--seed', '1');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--difficulty/);
    r = cli('exercise', 'generate', '--kind', 'find-order', '--difficulty', '2', '--seed', '-3');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--seed/);
    r = cli('exercise', 'generate', '--difficulty', '2');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--kind: missing/);
  }],
  ['a class: result files made for a set are graded and tabulated; a tampered one and another set are rejected', (cli) => withTempDir((dir) => {
    const set = join(dir, 'set.json');
    writeFileSync(set, JSON.stringify({
      format: 'arenaplan-assignment', version: 1, title: 'Week 3', per_student: false,
      exercises: ['exercise_predict_peak', { generate: { kind: 'cache-misses', difficulty: 2, seed: 11 } }],
    }));
    const result = (student, file, ...answers) => {
      const r = cli('exercise', 'result', set, '--student', student, ...answers.flatMap((a) => ['--answer', a]), '-o', join(dir, file));
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    };
    const ada = result('Ada', 'ada.json', '192 KiB');  // docs/DESIGN.md: ABDCEF peaks at 192 KiB
    assert.equal(ada.score, 10);
    result('Alan', 'alan.json', '150 KiB');
    const tampered = { ...ada, student: 'Eve', score: 20 };
    tampered.answers = ada.answers.map((a, i) => (i === 1 ? { ...a, solved: true, attempts: 1, score: 10, answer: '3' } : a));
    writeFileSync(join(dir, 'eve.json'), JSON.stringify(tampered));
    let r = cli('exercise', 'grade', join(dir, 'ada.json'), join(dir, 'alan.json'), join(dir, 'eve.json'), '--set', set, '--json');
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(r.json.students.map((s) => [s.student, s.accepted, s.score]), [['Ada', true, 10], ['Alan', true, 0], ['Eve', false, 0]]);
    // The attempt log (empty: Ada never answered Q2) does not back the claimed attempt.
    assert.match(r.json.students[2].reason, /\/answers\/1\/(answer|score|attempts)/);
    r = cli('exercise', 'grade', join(dir, 'ada.json'), join(dir, 'alan.json'), '--set', set);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Week 3 \(set [0-9a-f]{16}\)\nstudent\s+score\s+Q1\s+Q2\nAda\s+10\/25\s+10\s+0\nAlan\s+0\/25/);
    // Another set (another seed): the hash differs.
    const other = join(dir, 'other.json');
    writeFileSync(other, readFileSync(set, 'utf8').replace('"seed":11', '"seed":12'));
    r = cli('exercise', 'grade', join(dir, 'ada.json'), '--set', other, '--json');
    assert.equal(r.status, 1);
    assert.match(r.json.students[0].reason, /\/set_hash/);
    r = cli('exercise', 'link', set, '--base', 'http://x/');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^http:\/\/x\/#v1\.[A-Za-z0-9_-]+\n$/);
  })],
];
