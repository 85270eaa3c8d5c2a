// Deep graphs you can read: the Graph tab's overview of the whole DAG, search by
// name, follow-step on a real network, labels culled when zoomed out. Every fact is read from the
// exported state (graph_view) and checked against the graph the test built or the model's order.
import assert from 'node:assert/strict';
import { chord, click, clickAt, clickField, openBigGraph, screenshot, state, test, typeInto, typeText,
         waitFrames } from './harness.mjs';

const inside = (r, box, slack = 1) =>
  r[0] >= box[0] - slack && r[1] >= box[1] - slack && r[2] <= box[2] + slack && r[3] <= box[3] + slack;
const drawnOps = (s) => Object.keys(s.ui).filter((k) => k.startsWith('graph.op.')).map((k) => k.slice(9));

test('graph overview: a 400-op graph\'s overview shows every op, a click in it moves the view there', async (t) => {
  const { page, errors } = await openBigGraph(t, 400);
  let s = await state(page);
  assert.equal(s.order.length, 400);
  const o = s.graph_view.overview;
  assert.equal(o.shown, true, 'a 400-layer graph does not fit the canvas, so the overview is there');
  assert.equal(o.ops, 400, 'every op of the graph is drawn in the overview');
  assert.ok(o.cells > 0 && o.cells <= 400, `${o.cells} marks`);
  assert.ok(inside(o.rect, s.ui['graph.canvas']), 'the overview sits inside the canvas');
  assert.ok(inside(o.viewport, o.rect), 'the view rectangle is drawn inside the overview');
  assert.ok(s.graph_view.visible_ops > 0 && s.graph_view.visible_ops < 60, 'the canvas itself draws only what it shows');
  assert.ok(drawnOps(s).every((name) => Number(name.slice(2)) < 100), 'the view starts at the top of the graph');
  // Its frame time and layout time are figures of bench/page_bench.mjs ("graph"), not checked here.
  const shot = await screenshot(page, t.artifactDir, 'graph-overview-400-ops');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);

  // A click near the bottom of the overview brings the last ops into the canvas.
  const before = o.viewport;
  await clickAt(page, (o.rect[0] + o.rect[2]) / 2, o.rect[3] - 5);
  s = await state(page);
  assert.ok(s.graph_view.overview.viewport[1] > before[1] + 20, 'the view rectangle moved down the overview');
  const late = drawnOps(s).map((name) => Number(name.slice(2)));
  assert.ok(late.length > 0 && Math.max(...late) >= 360, `ops now drawn: ${late.join(', ')}`);
  assert.equal(s.selected_op, '', 'a click on the overview moves the view and selects nothing');
  assert.equal(s.graph_view.overview.ops, 400);

  // Zoomed all the way out, no op name is written (it would not fit its box), yet ops are drawn.
  for (let i = 0; i < 14; i++) await click(page, 'graph.zoom_out');
  s = await state(page);
  assert.ok(s.graph_view.zoom < 0.1, `zoom ${s.graph_view.zoom}`);
  assert.ok(s.graph_view.visible_ops > 10, `${s.graph_view.visible_ops} ops drawn zoomed out`);
  assert.equal(s.graph_view.labelled_ops, 0, 'labels are culled: nothing overprints');
  assert.deepEqual(errors, []);
});

test('graph search: a name and Enter centre and select the op; a tensor is found with its producer', async (t) => {
  const { page, errors } = await openBigGraph(t, 400);
  await clickField(page, 'graph.search');
  await typeText(page, 'op250');
  await waitFrames(page, 2);
  let s = await state(page);
  assert.equal(s.graph_view.search.matches[0].name, 'op250', 'the exact name comes first');
  assert.ok(!drawnOps(s).includes('op250'), 'op250 is far below the view before the jump');
  await chord(page, 'Enter');
  await waitFrames(page, 2);
  s = await state(page);
  assert.equal(s.graph_view.search.jumped_to, 'op250');
  assert.equal(s.selected_op, 'op250', 'Enter selects the op');
  assert.equal(s.step_op, 'op250', 'and moves the step to it');
  const r = s.ui['graph.op.op250'];
  const c = s.ui['graph.canvas'];
  assert.ok(r, 'op250 is drawn');
  const cx = (r[0] + r[2]) / 2, cy = (r[1] + r[3]) / 2;
  assert.ok(Math.abs(cx - (c[0] + c[2]) / 2) < (c[2] - c[0]) / 4 && Math.abs(cy - (c[1] + c[3]) / 2) < (c[3] - c[1]) / 4,
            `op250 at ${cx},${cy} is centred in the canvas ${c}`);

  // A tensor: t12 is highlighted with its producer op12 and listed in the editor's tensor table.
  await typeInto(page, 'graph.search', 't12');
  s = await state(page);
  assert.deepEqual(s.graph_view.search.matches[0], { name: 't12', kind: 'tensor' });
  assert.equal(s.graph_view.selected_tensor, 't12');
  assert.ok(s.ui['graph.op.op12'], 'its producer is in view');
  assert.ok(s.ui['graph.tensor.t12.name'], 'the tensor table shows it');
  await screenshot(page, t.artifactDir, 'graph-search-tensor');
  assert.deepEqual(errors, []);
});

test('graph follow-step: stepping through selfie_segmentation.tflite keeps the running op in the canvas', async (t) => {
  const { page, errors } = await openBigGraph(t, 'selfie_segmentation.tflite');
  let s = await state(page);
  const n = s.order.length;
  assert.ok(n > 100, `${n} ops`);
  assert.equal(s.graph_view.follow_step, true);
  assert.equal(s.graph_view.overview.ops, n, 'the overview holds every op of the model');
  for (const step of [1, 40, 80, 120, n - 1, 60, 3]) {
    await page.evaluate((k) => window.arenaplan.setStep(k), step);
    await waitFrames(page, 3);
    s = await state(page);
    assert.equal(s.step, step);
    assert.equal(s.graph_view.running_op, s.step_op);
    const canvas = s.ui['graph.canvas'];
    assert.ok(inside(s.graph_view.running_rect, canvas),
              `step ${step}: running op ${s.step_op} at ${s.graph_view.running_rect} outside the canvas ${canvas}`);
    assert.ok(s.ui[`graph.op.${s.step_op}`], `step ${step}: ${s.step_op} is drawn and clickable (not under the overview)`);
  }
  await screenshot(page, t.artifactDir, 'graph-follow-step-selfie');
  assert.deepEqual(errors, []);
});
