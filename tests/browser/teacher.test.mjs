// Teacher tools: the assignment builder in the page makes a link that two fresh pages
// open with the same questions; result files dropped on the page are graded by the same core
// function as `arenaplan exercise grade`, so the page's table equals the CLI's, rejected files and
// reasons included (a lowered wrong-answer count is caught by the attempt log).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { click, launch, openAt, screenshot, state, test, waitFrames } from './harness.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cliPath = process.env.ARENAPLAN_CLI || join(repo, 'build/native/arenaplan');

function cli(...args) {
  const r = spawnSync(cliPath, args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Drops files on the page the way the browser's drop handler does (window.arenaplan.openFile).
async function dropFiles(page, files) {
  for (const [name, text] of files) {
    const error = await page.evaluate(([n, t]) => window.arenaplan.openFile(n, new TextEncoder().encode(t)), [name, text]);
    assert.equal(error, '', `${name}: ${error}`);
  }
  await waitFrames(page, 3);
}

test('the assignment builder: built-in + generated entries, Copy assignment link, two fresh pages get the same questions', async (suite) => {
  // A browser of its own: in the shared one, what earlier tests stored (tile sizes, progress) moved
  // the builder's buttons, and a full run missed Copy assignment link or saw another panel overflow.
  const own = await launch();
  const t = { artifactDir: suite.artifactDir, open: (ctx) => suite.open(ctx ?? own.context) };
  try {
    await builderGivesOneAssignment(t);
  } finally {
    await own.close();
  }
});

async function builderGivesOneAssignment(t) {
  const { page, errors } = await openAt(t, '');
  await click(page, 'tab.Exercises').catch(() => {});
  await waitFrames(page, 2);
  await click(page, 'exercise.teacher');
  await waitFrames(page, 2);
  await click(page, 'teacher.add_builtin');      // the first built-in (the list's first entry)
  await click(page, 'teacher.add_generated');    // predict-peak, level 3, seed 1 (the defaults)
  await waitFrames(page, 2);
  let s = await state(page);
  assert.deepEqual(s.page.text_overflows, [], 'the builder fits its panel');
  assert.ok((await screenshot(page, t.artifactDir, 'teacher-builder')).distinct > 8, 'the builder is drawn');
  const builder = s.exercise.teacher.builder;
  assert.equal(s.exercise.teacher.error, '');
  assert.equal(builder.exercises.length, 2);
  assert.deepEqual(builder.exercises[1], { generate: { kind: 'predict-peak', difficulty: 3, seed: 1 } });
  // A clipboard that refuses (a plain-http classroom server): the status line says so and the link
  // stays on screen in a field to copy by hand; one that accepts gets "Assignment link copied".
  await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('NotAllowedError')); });
  await click(page, 'teacher.copy_link');
  await page.waitForFunction(() => window.arenaplanLastAssignmentLink, null, { timeout: 10000 });
  const link = await page.evaluate(() => window.arenaplanLastAssignmentLink);
  await waitFrames(page, 3);
  s = await state(page);
  assert.match(s.page.notice, /^Could not copy the assignment link: the browser refused the clipboard/);
  assert.ok(s.ui['teacher.link'], 'the link is shown in a field');
  assert.equal(s.exercise.teacher.builder_link, link, 'the field holds the link');
  const copied = [];
  await page.exposeFunction('arenaplanTestCopied', (text) => copied.push(text));
  await page.evaluate(() => { navigator.clipboard.writeText = (text) => window.arenaplanTestCopied(text); });
  await click(page, 'teacher.copy_link');
  await waitFrames(page, 3);
  s = await state(page);
  assert.equal(s.page.notice, 'Assignment link copied');
  assert.deepEqual(copied, [link]);
  const fragment = link.split('#')[1];
  // The same link as the CLI makes from the same set file.
  const dir = mkdtempSync(join(tmpdir(), 'arenaplan-teacher-'));
  try {
    writeFileSync(join(dir, 'set.json'), JSON.stringify(builder));
    assert.equal(cli('exercise', 'link', join(dir, 'set.json')).stdout.trim(), '#' + fragment);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const questions = [];
  for (let i = 0; i < 2; i++) {
    const browser = await launch();
    try {
      const fresh = await openAt({ open: (ctx) => t.open(ctx ?? browser.context), artifactDir: t.artifactDir }, fragment);
      const f = await state(fresh.page);
      assert.equal(f.error, '');
      assert.equal(f.exercise.assignment.set_hash, s.exercise.teacher.builder_hash);
      questions.push(f.exercise.assignment.questions);
      assert.deepEqual(fresh.errors, []);
    } finally {
      await browser.close();
    }
  }
  assert.equal(questions[0].length, 2);
  assert.equal(questions[0][1].name, 'gen_predict_peak_d3_s1');
  assert.deepEqual(questions[0], questions[1]);
  assert.deepEqual(errors, []);
}

test('result files dropped on the page give the table `exercise grade` prints, rejections and reasons included', async (t) => {
  assert.ok(existsSync(cliPath), `the native CLI is needed: ${cliPath} (scripts/build.sh native)`);
  const dir = mkdtempSync(join(tmpdir(), 'arenaplan-grade-'));
  try {
    const setFile = join(dir, 'set.json');
    writeFileSync(setFile, JSON.stringify({
      format: 'arenaplan-assignment', version: 1, title: 'Week 4', per_student: false,
      exercises: ['exercise_predict_peak', 'exercise_broken_rule'],
    }));
    const result = (student, file, ...answers) => {
      const r = cli('exercise', 'result', setFile, '--student', student, ...answers.flatMap((a) => ['--answer', a]), '-o', join(dir, file));
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    };
    result('Ada', 'ada.json', '192 KiB', 'freed-early A');  // docs/DESIGN.md: ABDCEF peaks at 192 KiB
    const alan = result('Alan', 'alan.json', '150 KiB', 'overlap A D');
    // Eve lowers Alan's wrong-answer count: the attempt log, replayed by core, disagrees.
    const eve = structuredClone(alan);
    eve.student = 'Eve';
    eve.answers[0].wrong = 0;
    eve.answers[0].attempts = 0;
    writeFileSync(join(dir, 'eve.json'), JSON.stringify(eve));
    const files = ['ada.json', 'alan.json', 'eve.json'].map((f) => join(dir, f));
    const graded = cli('exercise', 'grade', ...files, '--json');
    assert.equal(graded.status, 1, graded.stderr);
    const expected = JSON.parse(graded.stdout);
    assert.deepEqual(expected.students.map((x) => [x.student, x.accepted]), [['Ada', true], ['Alan', true], ['Eve', false]]);
    assert.match(expected.students[2].reason, /\/answers\/0\/(attempts|wrong)/);

    const { page, errors } = await openAt(t, '');
    await dropFiles(page, files.map((f) => [f, readFileSync(f, 'utf8')]));
    const s = await state(page);
    assert.equal(s.exercise.teacher.open, true, 'a dropped result opens the teacher tools');
    assert.deepEqual(s.exercise.teacher.grading, expected);
    assert.equal(s.exercise.teacher.grading_text, cli('exercise', 'grade', ...files).stdout);
    assert.ok((await screenshot(page, t.artifactDir, 'teacher-grading')).distinct > 8, 'the table is drawn');
    // At 1280x720 the table and the rejection are in view, the reason in words first.
    assert.ok(s.ui['teacher.grades'] && s.ui['teacher.grades'][3] <= 720, `grading table at ${s.ui['teacher.grades']}`);
    const rejected = s.ui[`teacher.reason.${files[2]}`] ?? s.ui['teacher.reason.eve.json'];
    assert.ok(rejected && rejected[3] <= 720, 'the rejection is in view');
    assert.match(expected.students[2].reason_words, /^Answer 1 \(exercise_predict_peak\), its (attempt count|count of wrong answers): /);
    assert.match(expected.students[2].where, /^\/answers\/0\/(attempts|wrong)$/);
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
