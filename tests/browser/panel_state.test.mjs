// Panel state derived once per change: the Simulator runs its simulation once per
// change of the graph, the order or its settings, never per frame; the Graph tab lays the DAG out
// once per graph, not per order change or undo. Counts come from the exported state.
import assert from 'node:assert/strict';
import { click, cliJson, state, test, waitFrames } from './harness.mjs';

test('simulator: one simulation per change of graph, order or settings, none per frame or step', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Simulator');
  await waitFrames(page, 3);
  let s = await state(page);
  assert.equal(s.sim.error, '');
  // The whole run is reported: the panel's planner and default profile, as `arenaplan simulate` runs them.
  assert.equal(s.sim.report.cycles_total,
               cliJson('simulate', 'example:two_branch', '--planner', 'best', '--profile', 'cortex-m4').cycles_total);
  assert.equal(s.sim.simulations, 1);
  await waitFrames(page, 10);
  await page.evaluate(() => window.arenaplan.setStep(3));  // a view change, not an input change
  await waitFrames(page, 3);
  assert.equal((await state(page)).sim.simulations, 1, 'frames and steps do not re-run it');

  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  await waitFrames(page, 3);
  s = await state(page);
  assert.equal(s.sim.simulations, 2, 'a new order runs it once');
  assert.deepEqual(s.sim.report.order, ['A', 'B', 'D', 'C', 'E', 'F']);

  await click(page, 'sim.fault.shared');
  await waitFrames(page, 3);
  s = await state(page);
  assert.equal(s.sim.simulations, 3, 'a new setting runs it once');
  assert.equal(s.sim.report.sessions, 2);
  assert.deepEqual(errors, []);
});

test('graph view: the DAG is laid out once per graph, not per order change or undo', async (t) => {
  const { page, errors } = await t.open();
  await click(page, 'tab.Graph');
  await waitFrames(page, 3);
  const before = (await state(page)).graph_view.layouts_computed;
  assert.ok(before >= 1);
  assert.equal(await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F')), '');
  await waitFrames(page, 3);
  assert.equal(await page.evaluate(() => window.arenaplan.undo()), '');
  await waitFrames(page, 3);
  let s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.graph_view.layouts_computed, before, 'an order change and its undo keep the drawing');
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('residual_block')), '');
  await waitFrames(page, 3);
  s = await state(page);
  assert.equal(s.graph_view.layouts_computed, before + 1, 'a new graph is laid out once');
  assert.deepEqual(errors, []);
});
