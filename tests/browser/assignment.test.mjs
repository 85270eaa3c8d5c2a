// Assignments: a link carrying a set gives every fresh page the same questions; the
// result file the page exports is graded by the CLI (core checks every answer), and a tampered
// copy is rejected. The CLI is the native build next to the site (ARENAPLAN_CLI overrides it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { chord, click, clickField, launch, openAt, state, test, typeText, waitFrames } from './harness.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cliPath = process.env.ARENAPLAN_CLI || join(repo, 'build/native/arenaplan');

const SET = {
  format: 'arenaplan-assignment', version: 1, title: 'Week 3', per_student: false,
  exercises: ['exercise_predict_peak', { generate: { kind: 'find-order', difficulty: 3, seed: 7 } },
              { generate: { kind: 'cache-misses', difficulty: 4, seed: 99 } }],
};

// The link's fragment, encoded here independently of the page: "v1." + base64url(zlib(JSON)).
function fragmentFor(set) {
  const json = JSON.stringify({ v: 1, example: 'two_branch', panel: 'Exercises', step: 0, assignment: set });
  return 'v1.' + zlib.deflateSync(Buffer.from(json)).toString('base64url');
}

async function lastDownload(page) {
  await page.waitForFunction(() => window.arenaplanLastDownload, null, { timeout: 10000 });
  return page.evaluate(async () => ({ name: window.arenaplanLastDownload.name, body: await window.arenaplanLastDownload.blob.text() }));
}

function grade(dir, files) {
  const setFile = join(dir, 'set.json');
  writeFileSync(setFile, JSON.stringify(SET));
  return spawnSync(cliPath, ['exercise', 'grade', ...files, '--set', setFile, '--json'], { encoding: 'utf8' });
}

test('an assignment link opened in two fresh pages gives the same questions', async (t) => {
  const questions = [];
  for (let i = 0; i < 2; i++) {
    const browser = await launch();
    try {
      const { page, errors } = await openAt({ open: (ctx) => t.open(ctx ?? browser.context), artifactDir: t.artifactDir }, fragmentFor(SET));
      const s = await state(page);
      assert.equal(s.error, '');
      assert.ok(s.exercise.assignment, 'the Exercises panel shows the set');
      questions.push(s.exercise.assignment.questions);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  }
  assert.equal(questions[0].length, 3);
  assert.equal(questions[0][0].name, 'exercise_predict_peak');
  assert.equal(questions[0][1].name, 'gen_find_order_d3_s7');
  assert.deepEqual(questions[0], questions[1]);
});

test('a result file exported by the page is graded by the CLI; a tampered copy is rejected', async (t) => {
  assert.ok(existsSync(cliPath), `the native CLI is needed to grade: ${cliPath} (scripts/build.sh native)`);
  const { page, errors } = await openAt(t, fragmentFor(SET));
  await click(page, 'exercise.select.exercise_predict_peak');
  await clickField(page, 'exercise.answer');
  await typeText(page, '192 KiB');  // docs/DESIGN.md: ABDCEF peaks at 192 KiB
  await click(page, 'exercise.check');
  let s = await state(page);
  assert.equal(s.exercise.correct, true, s.exercise.feedback);
  await clickField(page, 'exercise.student');
  await typeText(page, 'Ada');
  await chord(page, 'Enter');  // the name is taken when the field is left
  await waitFrames(page, 2);
  assert.equal((await state(page)).exercise.assignment.student, 'Ada');
  await click(page, 'exercise.export');
  const file = await lastDownload(page);
  assert.equal(file.name, 'result-ada.json');
  const result = JSON.parse(file.body);
  assert.equal(result.student, 'Ada');
  assert.equal(result.score, 10);
  const dir = mkdtempSync(join(tmpdir(), 'arenaplan-grade-'));
  try {
    writeFileSync(join(dir, 'ada.json'), file.body);
    const tampered = structuredClone(result);
    tampered.student = 'Eve';
    Object.assign(tampered.answers[1], { solved: true, attempts: 1, answer: 'A,B,C,D,E,F,G,H', score: 20 });
    tampered.score = 30;
    writeFileSync(join(dir, 'eve.json'), JSON.stringify(tampered));
    const r = grade(dir, [join(dir, 'ada.json'), join(dir, 'eve.json')]);
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(report.students.map((x) => [x.student, x.accepted, x.score]), [['Ada', true, 10], ['Eve', false, 0]]);
    assert.match(report.students[1].reason, /\/answers\/1\/(answer|attempts)/);  // the attempt log is checked first
    const alone = grade(dir, [join(dir, 'ada.json')]);
    assert.equal(alone.status, 0, alone.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(errors, []);
});
