// Guided exercises in the browser: answered wrong and right through real clicks and typing, a hint,
// the score, and the share link carrying the open exercise and its progress.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { chord, click, openAt, screenshot, sleep, state, test, waitFrames } from './harness.mjs';

const KiB = 1024;

// Focuses the answer field, clears it and types `text` (ImGui reads the queued characters per frame).
async function typeAnswer(page, text) {
  await click(page, 'exercise.answer');
  await chord(page, 'Control+a');  // held across frames: a same-frame press can be missed
  await chord(page, 'Backspace');
  await waitFrames(page, 1);
  await page.keyboard.type(text, { delay: 30 });
  await sleep(50);
  await waitFrames(page, 3);
}

async function answer(page, text) {
  await typeAnswer(page, text);
  assert.equal((await state(page)).exercise.draft, text, 'the typed answer reached the field');
  await click(page, 'exercise.check');
  return (await state(page)).exercise;
}

test('exercise: predict the peak of ABDCEF, wrong then a hint then right; the share link keeps the progress', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Exercises');
  await click(page, 'exercise.select.exercise_predict_peak');
  let s = await state(page);
  assert.equal(s.exercise.open, 'exercise_predict_peak');
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F'], 'the order in question stays hidden (its peak is the answer)');
  assert.notEqual(s.peak_bytes, 192 * KiB);
  assert.equal(s.exercise.score, 0);
  assert.equal(s.exercise.worth, 10);

  let e = await answer(page, '150 KiB');
  assert.equal(e.checked, true);
  assert.equal(e.correct, false);
  assert.match(e.feedback, /150 KiB is too low/);
  assert.doesNotMatch(e.feedback, /192/);
  assert.deepEqual([e.progress.attempts, e.progress.wrong, e.score, e.worth], [1, 1, 0, 8], 'a wrong answer costs 2');

  await click(page, 'exercise.hint');
  e = (await state(page)).exercise;
  assert.equal(e.hints.length, 1);
  assert.match(e.hints[0], /A tensor is live from the step its producer runs/);
  assert.equal(e.worth, 5, 'a hint costs 3');

  e = await answer(page, '192 KiB');
  assert.equal(e.correct, true);
  assert.match(e.feedback, /192 KiB at step 2 \(op D\)/);
  assert.deepEqual(e.progress, { attempts: 2, wrong: 1, hints_shown: 1, solved: true, last_answer: '192 KiB',
    log: ['150 KiB', '192 KiB'] });
  assert.equal(e.score, 5);
  assert.equal(e.hints.length, 3, 'once solved every hint is shown');
  s = await state(page);
  assert.equal(s.exercise.total_score, 5);
  assert.equal(s.exercise.total_points, 60);  // six built-in exercises of 10 points
  await click(page, 'exercise.show');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F'], 'once solved, the order goes to the panels');
  assert.equal(s.peak_bytes, 192 * KiB);
  const shot = await screenshot(page, t.artifactDir, 'exercise-predict-peak-solved');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);

  const fragment = await page.evaluate(() => window.arenaplan.shareFragment());
  const { page: other, errors: otherErrors } = await openAt(t, fragment);
  const back = await state(other);
  assert.equal(back.error, '');
  assert.equal(back.panel, 'Exercises');
  assert.deepEqual(back.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(back.peak_bytes, 192 * KiB);
  assert.equal(back.exercise.open, 'exercise_predict_peak');
  assert.deepEqual(back.exercise.progress, e.progress);
  assert.equal(back.exercise.score, 5);
  assert.equal(back.exercise.total_score, 5);
  assert.equal(back.exercise.correct, true);
  assert.equal(back.exercise.feedback, e.feedback, 'the feedback is recomputed from the last answer');
  assert.deepEqual(errors, []);
  assert.deepEqual(otherErrors, []);
});

test('exercise: place C names the collision of a wrong offset; the cache exercise leaves the graph alone', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Exercises');
  await click(page, 'exercise.select.exercise_place_c');
  let s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.ok(s.ui['exercise.answer'] && s.ui['exercise.check'] && s.ui['exercise.hint']);
  let e = await answer(page, '0');
  assert.equal(e.correct, false);
  assert.match(e.feedback, /C at 0 B collides with B/);
  const shot = await screenshot(page, t.artifactDir, 'exercise-place-c-wrong');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);
  e = await answer(page, '128 KiB');
  assert.equal(e.correct, true);
  assert.equal(e.score, 8);

  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,D,E,B,C,F')), '');
  await click(page, 'exercise.select.exercise_cache_misses');
  s = await state(page);
  assert.equal(s.exercise.open, 'exercise_cache_misses');
  assert.deepEqual(s.order, ['A', 'D', 'E', 'B', 'C', 'F'], 'a cache exercise opens no graph');
  e = await answer(page, '4');
  assert.equal(e.correct, false);
  assert.match(e.feedback, /4 is too low/);
  e = await answer(page, '17');
  assert.equal(e.correct, true);
  s = await state(page);
  assert.equal(s.exercise.total_score, 8 + 8);
  assert.deepEqual(errors, []);
});

// "v1." + base64url(zlib(JSON)): the link format of core/teach/share.h, edited here to forge a bad section.
function editFragment(fragment, edit) {
  const json = JSON.parse(zlib.inflateSync(Buffer.from(fragment.slice(3), 'base64url')).toString('utf8'));
  edit(json);
  return 'v1.' + zlib.deflateSync(Buffer.from(JSON.stringify(json))).toString('base64url');
}

test('exercise: a share link with impossible progress is refused with the place named', async (t) => {
  const { page } = await t.open();
  await click(page, 'tab.Exercises');
  await click(page, 'exercise.select.exercise_find_order');
  await answer(page, 'A,B,D,C,E,F');
  const good = await page.evaluate(() => window.arenaplan.shareFragment());
  const bad = editFragment(good, (j) => {
    const section = j.panels?.exercise ?? j.panels?.['exercise'];
    assert.ok(section, `the link has an exercise section: ${JSON.stringify(j)}`);
    section.progress.exercise_find_order.wrong = 7;  // more wrong answers than attempts
  });
  const { page: other } = await openAt(t, bad);
  const s = await state(other);
  assert.match(s.error, /Share link refused/);
  assert.match(s.error, /panels\/exercise\/progress\/exercise_find_order\/wrong/);
  assert.equal(s.exercise.total_score, 0);
});

test('exercise: the plan kinds in the page: spot the broken rule, pick the planner that fits', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Exercises');
  await click(page, 'exercise.select.exercise_broken_rule');
  let e = await answer(page, 'overlap A D');  // A and D do share bytes, but the plan's own lifetimes hide it
  assert.equal(e.correct, false);
  assert.match(e.feedback, /plan's own lifetimes/);
  e = await answer(page, 'freed-early A');  // the plan ends A at step 1; D reads it at step 3
  assert.equal(e.correct, true, e.feedback);
  assert.match(e.feedback, /buffers A and D overlap/);
  assert.equal(e.score, 8);
  await click(page, 'exercise.select.exercise_fit_budget');
  e = await answer(page, 'naive');  // naive gives every buffer its own bytes: 240 KiB (docs/DESIGN.md)
  assert.equal(e.correct, false);
  assert.match(e.feedback, /240 KiB/);
  e = await answer(page, 'portfolio');
  assert.equal(e.correct, true, e.feedback);
  assert.deepEqual(errors, []);
});
