// An opened .tflite in the Budget and Simulator tabs (issues 16 and 21): TFLM's whole arena from
// the same core call as the CLI, and the simulator running the model's own kernels and weights.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { click, state, test, waitFrames } from './harness.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const model = path.join(repo, '.cache/models/face_detection_short_range.tflite');
const cli = path.join(repo, 'build/native/arenaplan');

async function openModel(t) {
  assert.ok(fs.existsSync(model), `${model} is missing: run scripts/setup.sh`);
  const opened = await t.open();
  const bytes = Array.from(fs.readFileSync(model));
  const err = await opened.page.evaluate((b) => window.arenaplan.loadTflite(new Uint8Array(b)), bytes);
  assert.equal(err, '');
  return opened;
}

function cliArena(plan) {
  const r = spawnSync(cli, ['tflm-arena', model, '--plan', plan, '--planner', 'portfolio', '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('Budget tab: an opened .tflite shows TFLM\'s whole arena, the same figures as arenaplan tflm-arena', async (t) => {
  const { page, errors } = await openModel(t);
  await click(page, 'tab.Budget');
  await waitFrames(page, 3);
  const tflm = (await state(page)).budget.tflm_arena;
  assert.ok(tflm && !tflm.error, JSON.stringify(tflm));
  const own = cliArena('tflm'), offline = cliArena('offline');
  assert.equal(tflm.tflm_planner_arena_bytes, own.min_arena_bytes);
  assert.equal(tflm.offline_plan_arena_bytes, offline.min_arena_bytes);
  assert.equal(tflm.offline_plan.tail_bytes, offline.tail_bytes);
  assert.equal(tflm.pointer_bytes, 4);
  // The board's hand-typed persistent reservation gives way to the model's own (as the CLI does).
  const items = (await state(page)).budget.report.regions.flatMap((r) => r.items);
  const persistent = items.filter((it) => /from the model/.test(it.owner));
  assert.equal(persistent.length, 1, JSON.stringify(items.map((it) => it.owner)));
  assert.equal(persistent[0].bytes, offline.min_arena_bytes - offline.head_bytes);
  // An edit leaves the model behind: the section goes (the arena would no longer be the file's).
  assert.equal(await page.evaluate(() => window.arenaplan.loadExample('two_branch')), '');
  await waitFrames(page, 2);
  assert.equal((await state(page)).budget.tflm_arena, null);
  assert.deepEqual(errors, []);
});

test('Simulator tab: an opened .tflite runs with its own kernels and weights, all oracles green', async (t) => {
  const { page, errors } = await openModel(t);
  await click(page, 'tab.Simulator');
  await page.waitForFunction(() => window.arenaplan.state().sim.report.ok !== undefined, null, { timeout: 60000 });
  const sim = (await state(page)).sim;
  assert.equal(sim.error, '');
  assert.equal(sim.report.ok, true, JSON.stringify(sim.report.violations));
  assert.equal(sim.report.outputs_match_reference, true);
  assert.deepEqual(sim.report.stand_ins, []);
  assert.equal(sim.report.outputs_are_the_model, true);
  // The CLI's default simulates the same model with the same plan (the session's one policy) to
  // the same arena, cycles and per-op figures.
  const r = spawnSync(cli, ['simulate', model, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const theirs = JSON.parse(r.stdout);
  assert.equal(sim.report.planner, theirs.planner);
  assert.equal(sim.report.arena_bytes, theirs.arena_bytes);
  assert.equal(sim.report.cycles_total, theirs.cycles_total);
  assert.deepEqual(sim.report.per_op, theirs.per_op);
  assert.deepEqual(errors, []);
});

test('Budget tab: an opened .tflite\'s flash line is `arenaplan budget`\'s (the page\'s default -Os)', async (t) => {
  const { page, errors } = await t.open();
  const file = path.join(repo, 'tests/unit/data/tflm/int8_inception.tflite');
  const bytes = Array.from(fs.readFileSync(file));
  assert.equal(await page.evaluate((b) => window.arenaplan.loadTflite(new Uint8Array(b)), bytes), '');
  await click(page, 'tab.Budget');
  await waitFrames(page, 3);
  let s = await state(page);
  const board = path.join(repo, 'examples', `${s.budget.board}.json`);
  assert.ok(fs.existsSync(board), `the page's default board ${s.budget.board} is an example file`);
  const page_flash = s.budget.flash;
  assert.ok(page_flash && page_flash.total_bytes > page_flash.model_bytes, JSON.stringify(page_flash));
  assert.equal(page_flash.model_bytes, bytes.length);
  const cli_flash = (opt) => {
    const r = spawnSync(cli, ['budget', file, '--board', board, '--kernels', page_flash.kernel_library, '--opt', opt, '--json'],
                        { encoding: 'utf8' });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    return JSON.parse(r.stdout).flash;
  };
  assert.deepEqual(page_flash, cli_flash('Os'));
  assert.deepEqual(errors, []);
});
