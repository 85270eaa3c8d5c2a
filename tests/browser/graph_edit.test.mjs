// The Graph tab: the layered DAG view and its structural editor, driven through real clicks on the
// canvas and typing into its fields; numbers read back from the exported state. docs/DESIGN.md's rules
// predict every peak checked here.
import assert from 'node:assert/strict';
import { chord, click, clickField, openBigGraph, openGraphTab, screenshot, state, test, typeInto, typeText,
         waitFrames } from './harness.mjs';

const KiB = 1024;

test('graph edit: select B on the canvas, grow tensor B 96 -> 112 KiB (peak 136 -> 152 KiB), Ctrl+Z, Ctrl+Shift+Z', async (t) => {
  const { page, errors } = await openGraphTab(t);
  let s = await state(page);
  assert.equal(s.panel, 'Graph');
  assert.equal(s.graph_view.layers, 5, 'I; A; B D; C E; F');
  assert.equal(s.graph_view.crossings, 0);
  assert.equal(s.graph_view.visible_ops, 6);

  await click(page, 'graph.op.B');
  s = await state(page);
  assert.equal(s.selected_op, 'B');
  assert.equal(s.step, 1, 'clicking an op moves the step to its place in the order');
  assert.equal(s.step_op, 'B');

  await click(page, 'graph.editor.tab.Tensors');
  await typeInto(page, 'graph.tensor.B.bytes', '112KiB');
  s = await state(page);
  // ABCDEF with B = 112 KiB: during C, A + B + C = 32 + 112 + 8 = 152 KiB (was 136).
  assert.equal(s.peak_bytes, 152 * KiB);
  assert.deepEqual(s.analysis.steps.map((x) => x.live_bytes / KiB), [48, 144, 152, 104, 80, 32]);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F'], 'a size edit keeps the order');
  assert.equal(s.history.undo, 1);
  assert.match(s.history.undo_what, /B/);
  assert.equal(s.selected_op, 'B', 'the selection survives the edit');
  assert.equal(s.graph_view.last_error, '');
  const shot = await screenshot(page, t.artifactDir, 'graph-tab-edited');
  assert.ok(shot.distinct > 12, `screenshot has only ${shot.distinct} colours`);

  await chord(page, 'Control+z');
  s = await state(page);
  assert.equal(s.peak_bytes, 136 * KiB, 'undo brings the original peak back');
  assert.deepEqual(s.analysis.steps.map((x) => x.live_bytes / KiB), [48, 128, 136, 104, 80, 32]);
  assert.equal(s.history.redo, 1);

  await chord(page, 'Control+Shift+z');
  s = await state(page);
  assert.equal(s.peak_bytes, 152 * KiB, 'redo applies the edit again');
  assert.equal(s.history.undo, 1);
  assert.deepEqual(errors, []);
});

test('graph edit: renaming tensor B to the existing name A is refused next to the field and changes nothing', async (t) => {
  const { page, errors } = await openGraphTab(t);
  await click(page, 'graph.editor.tab.Tensors');
  const before = await state(page);
  await typeInto(page, 'graph.tensor.B.name', 'A');
  const s = await state(page);
  assert.match(s.graph_view.last_error, /tensor B/);
  assert.match(s.graph_view.last_error, /"A"/);
  assert.equal(s.graph_view.error_field, 'graph.tensor.B.name');
  assert.ok(s.ui['graph.error'], 'the message is drawn in the editor');
  const [, fieldTop, , fieldBottom] = s.ui['graph.tensor.B.name'];
  assert.ok(s.ui['graph.error'][1] >= fieldBottom - 1 && s.ui['graph.error'][1] - fieldTop < 80,
            'the message sits right under the field that caused it');
  assert.match(s.error, /refused/i, 'the status line says so too');
  assert.equal(s.revision, before.revision, 'no edit happened');
  assert.equal(s.history.undo, 0);
  assert.equal(s.peak_bytes, 136 * KiB);
  assert.ok(s.ui['graph.tensor.B.name'] && s.ui['graph.tensor.A.name'], 'both tensors are still there');
  await screenshot(page, t.artifactDir, 'graph-tab-refused');

  // A valid rename then clears the message and is one undoable edit.
  await typeInto(page, 'graph.tensor.B.name', 'B2');
  const r = await state(page);
  assert.equal(r.graph_view.last_error, '');
  assert.ok(r.ui['graph.tensor.B2.name']);
  assert.equal(r.peak_bytes, 136 * KiB);
  assert.equal(r.history.undo, 1);
  assert.deepEqual(errors, []);
});

test('graph edit: add an op after F and remove it again through the editor', async (t) => {
  const { page, errors } = await openGraphTab(t);
  await click(page, 'graph.op.F');
  await click(page, 'graph.editor.tab.Add');
  await clickField(page, 'graph.add.name');
  await typeText(page, 'G');
  await clickField(page, 'graph.add.inputs');
  await chord(page, 'Control+a');
  await typeText(page, 'F');
  await clickField(page, 'graph.add.outputs');
  await typeText(page, 'G');
  await click(page, 'graph.add_op');
  let s = await state(page);
  assert.equal(s.graph_view.last_error, '', s.graph_view.last_error);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F', 'G']);
  assert.equal(s.selected_op, 'G', 'the new op is selected');
  assert.equal(s.graph_view.layers, 6);
  // G's step: F (a graph output, kept) + G (16 KiB) = 32 KiB; the peak stays 136 KiB.
  assert.deepEqual(s.analysis.steps.map((x) => x.live_bytes / KiB), [48, 128, 136, 104, 80, 32, 32]);
  assert.ok(s.ui['graph.op.G'], 'G is drawn');

  // Selecting the new op asks the editor for its Op tab; ImGui switches tabs a frame later.
  await waitFrames(page, 3);
  await click(page, 'graph.sel.remove');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(s.history.undo, 2);
  // Removing B while C reads it is refused with core's message next to the button. (Selecting G
  // scrolled the view down to it; Fit shows the whole graph again.)
  await click(page, 'graph.fit');
  await click(page, 'graph.op.B');
  await click(page, 'graph.sel.remove');
  s = await state(page);
  assert.match(s.graph_view.last_error, /op B.*read by op C/);
  assert.equal(s.graph_view.error_field, 'graph.sel.remove');
  assert.deepEqual(s.order, ['A', 'B', 'C', 'D', 'E', 'F']);
  await screenshot(page, t.artifactDir, 'graph-tab-op-refused');
  // ... unless with everything downstream: B, C and F go, E becomes the result.
  await click(page, 'graph.sel.remove_cascade');
  s = await state(page);
  assert.deepEqual(s.order, ['A', 'D', 'E']);
  assert.deepEqual(s.analysis.steps.map((x) => x.live_bytes / KiB), [48, 96, 72]);
  assert.deepEqual(errors, []);
});

test('graph view: a 500-op graph draws only the visible ops, pans, zooms and follows the step', async (t) => {
  const { page, errors } = await openBigGraph(t, 500);
  let s = await state(page);
  assert.equal(s.graph, 'big-500');
  assert.ok(s.graph_view.layers >= 500, `layers: ${s.graph_view.layers}`);
  assert.ok(s.graph_view.visible_ops > 0 && s.graph_view.visible_ops < 60,
            `only the visible part is drawn (${s.graph_view.visible_ops} ops)`);
  // How long that frame takes is measured by bench/page_bench.mjs ("graph view"), not asserted here.

  // Clicking a drawn op selects it and moves the step there.
  const drawn = Object.keys(s.ui).filter((k) => k.startsWith('graph.op.')).map((k) => k.slice(9));
  const target = drawn[drawn.length - 1];
  await click(page, `graph.op.${target}`);
  s = await state(page);
  assert.equal(s.selected_op, target);
  assert.equal(s.step_op, target);

  // Wheel over the canvas zooms out: more ops become visible (still culled to the view).
  const [x0, y0, x1, y1] = s.ui['graph.canvas'];
  const zoom = s.graph_view.zoom;
  await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2);
  await page.mouse.wheel(0, 600);
  await waitFrames(page, 3);
  s = await state(page);
  assert.ok(s.graph_view.zoom < zoom, `zoom ${zoom} -> ${s.graph_view.zoom}`);

  // A far step (through the JS API, as a share link would) brings its op into view.
  await page.evaluate(() => window.arenaplan.setStep(450));
  await waitFrames(page, 3);
  s = await state(page);
  assert.ok(s.ui['graph.op.op450'], 'the running op is scrolled into view');
  await screenshot(page, t.artifactDir, 'graph-tab-500-ops');
  assert.deepEqual(errors, []);
});

test('graph view: a real imported network (selfie_segmentation.tflite, 136 ops) is drawn and edited', async (t) => {
  const { page, errors } = await openBigGraph(t, 'selfie_segmentation.tflite');
  let s = await state(page);
  const peak = s.peak_bytes;
  assert.ok(s.order.length > 100, `${s.order.length} ops`);
  assert.ok(s.graph_view.layers > 100);
  assert.equal(s.graph_view.crossings, 0, 'the sweeps untangle it completely');
  assert.ok(s.graph_view.visible_ops > 0 && s.graph_view.visible_ops < s.order.length);
  const drawn = Object.keys(s.ui).filter((k) => k.startsWith('graph.op.')).map((k) => k.slice(9));
  const op = drawn[0];
  await click(page, `graph.op.${op}`);
  s = await state(page);
  assert.equal(s.selected_op, op);
  // Double the op's first output through the Op tab's size field.
  // The size field of a tensor live at the op's step (so it counts in the peak) that the editor
  // shows without scrolling (its column is as tall as the canvas).
  const bottom = s.ui['graph.canvas'][3];
  const live = new Set(s.analysis.buffers.filter((b) => b.first <= s.step && s.step <= b.last).map((b) => b.name));
  const field = Object.keys(s.ui).find((k) => k.startsWith('graph.sel.tensor.') && k.endsWith('.bytes') &&
                                              live.has(k.slice(17, -6)) && s.ui[k][3] <= bottom);
  assert.ok(field, 'the selected op lists its tensors with size fields');
  await typeInto(page, field, '4MiB');
  s = await state(page);
  assert.equal(s.graph_view.last_error, '', s.graph_view.last_error);
  assert.equal(s.history.undo, 2, 'opening the model, then the edit');
  assert.ok(s.peak_bytes >= 4 * 1024 * 1024, `peak ${s.peak_bytes} holds the 4 MiB tensor`);
  await screenshot(page, t.artifactDir, 'graph-tab-selfie-segmentation');
  await chord(page, 'Control+z');
  assert.equal((await state(page)).peak_bytes, peak);
  assert.deepEqual(errors, []);
});
