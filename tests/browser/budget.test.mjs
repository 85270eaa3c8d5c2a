// The budget panel: the article's budget in the browser (same core JSON as the CLI),
// recomputed when the order or a reservation changes through real mouse and keyboard input.
import assert from 'node:assert/strict';
import { chord, click, clickField, screenshot, state, test, typeText, waitFrames } from './harness.mjs';

const KiB = 1024;

test('budget: ABCDEF on the article board uses 224 of 256 KiB, 32 free; the panel draws bars', async (t) => {
  const { page, errors } = await t.open();
  let s = await state(page);
  assert.equal(s.budget.board, 'two_branch_board');
  const r = s.budget.report;
  assert.equal(r.fits, true);
  assert.equal(r.arena_bytes, 136 * KiB);
  assert.equal(r.outside_arena_bytes, 88 * KiB);
  assert.equal(r.regions[0].used_bytes, 224 * KiB);
  assert.equal(r.regions[0].free_bytes, 32 * KiB);
  await click(page, 'tab.Budget');
  s = await state(page);
  assert.ok(s.ui['budget.bar.0'], 'the region bar was drawn');
  const shot = await screenshot(page, t.artifactDir, 'budget-ABCDEF');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} distinct colours`);
  assert.deepEqual(errors, []);
});

test('budget: moving C after D (ABDCEF) makes it 280 KiB, which does not fit', async (t) => {
  const { page } = await t.open();
  await click(page, 'order.row.C');
  await click(page, 'order.move_down');
  const s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'D', 'C', 'E', 'F']);
  assert.equal(s.budget.report.fits, false);
  assert.equal(s.budget.report.regions[0].used_bytes, 280 * KiB);
  assert.match(s.budget.report.reason, /^region SRAM needs 280 KiB but has 256 KiB \(over by 24 KiB\)/);
});

test('budget: editing a reservation replans (persistent 24 -> 56 KiB fills the board exactly, 57 overflows)', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Budget');
  const before = (await state(page)).budget.board_version;
  await clickField(page, 'budget.reservation.0.kib');
  await chord(page, 'Control+a');  // held across frames: a same-frame press can be missed
  await typeText(page, '56');
  await chord(page, 'Enter');
  await waitFrames(page, 3);
  let s = await state(page);
  assert.ok(s.budget.board_version > before, 'the edit reached the board');
  assert.equal(s.budget.report.regions[0].items[0].bytes, 56 * KiB);
  assert.equal(s.budget.report.regions[0].used_bytes, 256 * KiB);
  assert.equal(s.budget.report.regions[0].free_bytes, 0);
  assert.equal(s.budget.report.fits, true);
  await clickField(page, 'budget.reservation.0.kib');
  await chord(page, 'Control+a');  // held across frames: a same-frame press can be missed
  await typeText(page, '57');
  await chord(page, 'Enter');
  await waitFrames(page, 3);
  s = await state(page);
  assert.equal(s.budget.report.fits, false);
  assert.equal(s.budget.report.regions[0].free_bytes, -1 * KiB);
  const shot = await screenshot(page, t.artifactDir, 'budget-overflow');
  assert.ok(shot.distinct > 12);
  assert.deepEqual(errors, []);
});
