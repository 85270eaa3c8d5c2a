// The classroom that holds: a student's work kept in the browser across reloads (answers, the
// attempt log, the score, the name), exam mode (tools that would answer the open question are
// locked), a cache question opened in the Cache lab, and feedback in the aria-live region.
// Every set gets a title of its own, so work another test left in the shared browser never meets it.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { chord, click, cliJson, clickField, openAt, screenshot, state, test, typeText, waitFrames } from './harness.mjs';

let sets = 0;
function makeSet(fields) {
  return { format: 'arenaplan-assignment', version: 1, title: `Classroom ${process.pid}-${Date.now()}-${sets++}`,
           per_student: false, ...fields };
}
const CACHE_GEN = { kind: 'cache-misses', difficulty: 4, seed: 99 };
const BASIC = () => makeSet({ exercises: ['exercise_predict_peak', { generate: CACHE_GEN }] });

// The link's fragment, encoded here independently of the page: "v1." + base64url(zlib(JSON)).
function fragmentFor(set) {
  const json = JSON.stringify({ v: 1, example: 'two_branch', panel: 'Exercises', step: 0, assignment: set });
  return 'v1.' + zlib.deflateSync(Buffer.from(json)).toString('base64url');
}

async function answer(page, name, text) {
  await click(page, `exercise.select.${name}`);
  await clickField(page, 'exercise.answer');
  await chord(page, 'Control+a');
  await typeText(page, text);
  await click(page, 'exercise.check');
  return (await state(page)).exercise;
}

async function typeName(page, name) {
  await clickField(page, 'exercise.student');
  await chord(page, 'Control+a');
  await typeText(page, name);
  await chord(page, 'Enter');
  await waitFrames(page, 2);
}

async function reload(page) {
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => window.arenaplan || window.arenaplanFailure, null, { timeout: 60000 });
  await page.evaluate(() => window.arenaplan.redraw(5));
  await waitFrames(page, 3);
  return (await state(page)).exercise;
}

const answersOf = (ex) => Object.fromEntries(ex.assignment.answers.map((a) => [a.name, a]));

test('classroom: answers, the attempt log, the score and the name survive a reload; a wrong answer cannot be erased', async (t) => {
  const { page, errors } = await openAt(t, fragmentFor(BASIC()));
  const cacheName = (await state(page)).exercise.assignment.questions[1].name;
  let ex = await answer(page, 'exercise_predict_peak', '100 KiB');
  assert.equal(ex.correct, false);
  ex = await answer(page, 'exercise_predict_peak', '192 KiB');  // docs/DESIGN.md: ABDCEF peaks at 192 KiB
  assert.equal(ex.correct, true, ex.feedback);
  ex = await answer(page, cacheName, '0');  // the first request of any trace misses: 0 is wrong
  assert.equal(ex.correct, false);
  await typeName(page, 'Ada');
  const before = (await state(page)).exercise;
  assert.equal(before.assignment.student, 'Ada');
  assert.equal(before.assignment.work_saved, true, 'the work reached local storage');
  assert.equal(before.total_score, 8, '10 points - 2 for one wrong answer');

  for (let i = 0; i < 2; i++) {
    const after = await reload(page);
    assert.equal(after.assignment.student, 'Ada', 'the name comes back');
    assert.equal(after.assignment.work_error, '');
    assert.deepEqual(answersOf(after), answersOf(before), 'every answer, log and score comes back');
    assert.deepEqual(answersOf(after)[cacheName].log, ['0'], 'the wrong answer is still in the log');
    assert.equal(answersOf(after)[cacheName].wrong, 1);
    assert.equal(after.total_score, before.total_score);
  }
  // The restored feedback is core's, recomputed: the open question shows its last answer.
  await click(page, 'exercise.select.exercise_predict_peak');
  ex = (await state(page)).exercise;
  assert.equal(ex.draft, '192 KiB');
  assert.equal(ex.correct, true);
  // Export result carries the whole log.
  await click(page, 'exercise.export');
  await page.waitForFunction(() => window.arenaplanLastDownload, null, { timeout: 10000 });
  const result = JSON.parse(await page.evaluate(() => window.arenaplanLastDownload.blob.text()));
  assert.equal(result.student, 'Ada');
  assert.deepEqual(result.answers[0].log, ['100 KiB', '192 KiB']);
  assert.deepEqual(result.answers[1].log, ['0']);
  assert.equal(result.score, 8);
  const shot = await screenshot(page, t.artifactDir, 'classroom-restored');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);
  assert.deepEqual(errors, []);
});

test('classroom: a name typed after starting keeps the answers; in a per-student set it asks first', async (t) => {
  const { page, errors } = await openAt(t, fragmentFor(BASIC()));
  await answer(page, 'exercise_predict_peak', '100 KiB');
  await typeName(page, 'Grace');
  let ex = (await state(page)).exercise;
  assert.equal(ex.assignment.student, 'Grace');
  assert.deepEqual(answersOf(ex).exercise_predict_peak.log, ['100 KiB'], 'the answer given before the name is kept');
  ex = await reload(page);
  assert.equal(ex.assignment.student, 'Grace');
  assert.deepEqual(answersOf(ex).exercise_predict_peak.log, ['100 KiB']);

  // Per student: another name means other questions, so the page asks before leaving answers behind.
  const per = makeSet({ per_student: true, exercises: [{ generate: CACHE_GEN }] });
  await page.evaluate((f) => { location.hash = f; }, fragmentFor(per));
  ex = await reload(page);
  await typeName(page, 'Ada');
  const adaQuestion = (await state(page)).exercise.assignment.questions[0].name;
  await answer(page, adaQuestion, '0');
  await typeName(page, 'Alan');
  ex = (await state(page)).exercise;
  assert.equal(ex.assignment.pending_student, 'Alan', 'the new name waits for a yes');
  assert.equal(ex.assignment.student, 'Ada');
  assert.deepEqual(answersOf(ex)[adaQuestion].log, ['0'], 'nothing is discarded while asking');
  await click(page, 'exercise.student.confirm');
  ex = (await state(page)).exercise;
  assert.equal(ex.assignment.student, 'Alan');
  assert.notEqual(ex.assignment.questions[0].name, adaQuestion, 'Alan gets his own question');
  await typeName(page, 'Ada');  // Alan answered nothing: no question to ask
  ex = (await state(page)).exercise;
  assert.equal(ex.assignment.student, 'Ada');
  assert.deepEqual(answersOf(ex)[adaQuestion].log, ['0'], "Ada's answers were kept under her name");
  assert.deepEqual(errors, []);
});

test('classroom: saved work that cannot be read is refused with a reason and put aside, never half-loaded', async (t) => {
  const set = BASIC();
  const { page, errors } = await openAt(t, fragmentFor(set));
  const key = (await state(page)).exercise.assignment.work_key;
  await page.evaluate((k) => localStorage.setItem('arenaplan.' + k, '{"format":"arenaplan-saved-work","version":1,'), key);
  const ex = await reload(page);
  assert.match(ex.assignment.work_error, /could not be read \(line 1/);
  assert.equal(ex.total_score, 0);
  assert.ok(ex.assignment.answers.every((a) => a.log.length === 0));
  const aside = await page.evaluate((k) => localStorage.getItem('arenaplan.' + k + '.unreadable'), key);
  assert.match(aside, /arenaplan-saved-work/);
  assert.deepEqual(errors, []);
});

const locked = (s) => s.exercise.locked.map((l) => l.tool);

test('exam mode: the tools that answer the open question are locked under an assignment, free without one', async (t) => {
  const { page, errors } = await t.open();
  // Without an assignment: the built-in exercise leaves every tool free.
  await click(page, 'tab.Exercises');
  await click(page, 'exercise.select.exercise_predict_peak');
  await click(page, 'tab.Schedule');
  let s = await state(page);
  assert.deepEqual(locked(s), []);
  assert.ok(s.ui['schedule.optimise'] && s.ui['order.move_down'], 'the optimiser and reordering are there');

  const exam = makeSet({ exercises: ['exercise_predict_peak', { generate: { kind: 'place-tensor', difficulty: 2, seed: 3 } }] });
  await page.evaluate((f) => { location.hash = f; }, fragmentFor(exam));
  await reload(page);
  await click(page, 'exercise.select.exercise_predict_peak');
  s = await state(page);
  assert.deepEqual(locked(s), ['optimise-order', 'order-list', 'reorder']);
  assert.match(s.exercise.locked[0].note, /^Locked while you answer "Predict the peak/);
  assert.ok(s.ui['exam.reorder'] && !s.ui['order.move_down'], 'reordering is replaced by the note');
  const order = s.order;
  await click(page, 'order.row.C');
  await chord(page, 'Alt+ArrowDown');
  assert.deepEqual((await state(page)).order, order, 'Alt+Down does not reorder');
  await click(page, 'tab.Schedule');
  s = await state(page);
  assert.ok(s.ui['exam.optimise-order'] && !s.ui['schedule.optimise'], 'the optimiser is locked');
  assert.ok(s.ui['exam.order-list'] && !s.ui['schedule.order.0'], 'the order list is locked');
  await click(page, 'tab.Exercises');
  const place = s.exercise.assignment.questions[1].name;
  await click(page, `exercise.select.${place}`);
  await click(page, 'tab.Arena');
  s = await state(page);
  assert.deepEqual(locked(s), ['arena-planners']);
  assert.ok(s.ui['exam.arena-planners'], 'the planners are locked');
  const shot = await screenshot(page, t.artifactDir, 'exam-arena-locked');
  assert.ok(shot.distinct > 8, `screenshot has only ${shot.distinct} colours`);
  // Once the question is solved its tools are free again.
  await click(page, 'tab.Exercises');
  await answer(page, 'exercise_predict_peak', '192 KiB');  // docs/DESIGN.md: ABDCEF peaks at 192 KiB
  s = await state(page);
  assert.equal(s.exercise.correct, true);
  assert.deepEqual(locked(s), []);
  assert.ok(s.ui['order.move_down'], 'reordering is back');

  // The set can allow a tool.
  const allowed = makeSet({ allow: ['reorder', 'optimise-order'], exercises: ['exercise_predict_peak'] });
  await page.evaluate((f) => { location.hash = f; }, fragmentFor(allowed));
  await reload(page);
  await click(page, 'exercise.select.exercise_predict_peak');
  await click(page, 'tab.Schedule');
  s = await state(page);
  assert.deepEqual(locked(s), ['order-list']);
  assert.ok(s.ui['schedule.optimise'] && s.ui['order.move_down']);
  // A bad "allow" is refused with the place and the names it takes.
  const bad = makeSet({ allow: ['optimizer'], exercises: ['exercise_predict_peak'] });
  const why = await page.evaluate((f) => window.arenaplan.applyShareFragment(f), fragmentFor(bad));
  assert.match(why, /\/allow\/0: unknown tool "optimizer" \(expected one of "optimise-order"/);
  assert.deepEqual(errors, []);
});

test('a generated cache question opens in the Cache lab with its trace; the aria-live region reads the feedback', async (t) => {
  const { page, errors } = await openAt(t, fragmentFor(BASIC()));
  const q = cliJson('exercise', 'generate', '--kind', 'cache-misses', '--difficulty', '4', '--seed', '99');
  const name = (await state(page)).exercise.assignment.questions[1].name;
  await click(page, `exercise.select.${name}`);
  const live = () => page.evaluate(() => document.getElementById('live').textContent);
  await clickField(page, 'exercise.answer');
  await typeText(page, '1');
  await click(page, 'exercise.check');
  const fb = (await state(page)).exercise.feedback;
  assert.ok((await live()).startsWith(`${q.title}: ${(await state(page)).exercise.correct ? 'Correct.' : 'Not yet.'} ${fb}`),
            await live());
  await click(page, 'exercise.try_cache');
  await waitFrames(page, 3);
  const s = await state(page);
  assert.equal(s.panel, 'Cache lab');
  assert.equal(s.cache.capacity, q.capacity);
  assert.equal(s.cache.ways, q.ways || q.capacity, 'ways (0 in the question: fully associative)');
  assert.equal(s.cache.policy, q.policy);
  if (q.blocks) assert.deepEqual(s.cache.blocks, q.blocks);
  else assert.equal(s.cache.stride, q.stride);
  assert.equal(s.cache.question, q.title);
  assert.equal(s.cache.requests, 0, 'loaded, not run: the student steps it');
  await click(page, 'cache.step');
  const c = (await state(page)).cache;
  assert.equal(c.requests, 1);
  assert.match(await live(), new RegExp(`^Cache lab: request 0 \\(block ${q.blocks ? q.blocks[0] : 0}\\) missed`));
  assert.deepEqual(errors, []);
});
