// `arenaplan budget` and `arenaplan check-shape`: the issue-5 contract (keys, numbers, exit statuses).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KiB = 1024;

// The two-branch graph with docs/DESIGN.md's 48 KiB scratch during D, in a temporary file.
function scratchGraph() {
  const g = JSON.parse(readFileSync('examples/two_branch.json', 'utf8'));
  g.ops.find((op) => op.name === 'D').scratch_bytes = '48KiB';
  const path = join(mkdtempSync(join(tmpdir(), 'arenaplan-budget-')), 'two_branch_scratch.json');
  writeFileSync(path, JSON.stringify(g));
  return path;
}

export const tests = [
  ['ABCDEF: 136 KiB arena + 88 KiB = 224 KiB of 256, fits with 32 free', (cli) => {
    const r = cli('budget', 'examples/two_branch.json', '--board', 'examples/two_branch_board.json', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.fits, true);
    assert.equal(r.json.arena_bytes, 136 * KiB);
    assert.equal(r.json.outside_arena_bytes, 88 * KiB);
    assert.equal(r.json.reason, undefined);
    const [sram] = r.json.regions;
    assert.deepEqual(Object.keys(sram).slice(0, 5), ['name', 'size_bytes', 'used_bytes', 'free_bytes', 'items']);
    assert.equal(sram.name, 'SRAM');
    assert.equal(sram.size_bytes, 256 * KiB);
    assert.equal(sram.used_bytes, 224 * KiB);
    assert.equal(sram.free_bytes, 32 * KiB);
    assert.equal(sram.items.reduce((s, it) => s + it.bytes, 0), 224 * KiB);
    for (const it of sram.items) assert.equal(typeof it.owner, 'string');
  }],
  ['ABDCEF: 280 KiB, does not fit, exit 1 with a reason', (cli) => {
    const r = cli('budget', 'example:two_branch', '--board', 'example:two_branch_board', '--order', 'A,B,D,C,E,F', '--json');
    assert.equal(r.status, 1);
    assert.equal(r.json.fits, false);
    assert.equal(r.json.arena_bytes, 192 * KiB);
    assert.equal(r.json.regions[0].used_bytes, 280 * KiB);
    assert.match(r.json.reason, /^region SRAM needs 280 KiB but has 256 KiB \(over by 24 KiB\)/);
  }],
  ['48 KiB scratch during D: separate reservation 272 KiB (no fit), new verified plan 240 KiB (fits)', (cli) => {
    const graph = scratchGraph();
    let r = cli('budget', graph, '--board', 'examples/two_branch_board.json', '--scratch', 'separate', '--json');
    assert.equal(r.status, 1);
    assert.equal(r.json.regions[0].used_bytes, 272 * KiB);
    assert.equal(r.json.arena_bytes, 136 * KiB);
    r = cli('budget', graph, '--board', 'examples/two_branch_board.json', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.arena_bytes, 152 * KiB);
    assert.equal(r.json.regions[0].used_bytes, 240 * KiB);
    assert.equal(r.json.fits, true);
  }],
  ['two regions: the DMA-read output F moves to SRAM2', (cli) => {
    const r = cli('budget', 'example:two_branch', '--board', 'example:two_region_board', '--json');
    assert.equal(r.status, 0, r.stderr);
    const f = r.json.placement.find((p) => p.name === 'F');
    assert.equal(f.region, 'SRAM2');
    assert.deepEqual(f.constraints, ['/constraints/0']);
    assert.deepEqual(r.json.regions.map((x) => x.name), ['DTCM', 'SRAM2']);
  }],
  ['text mode states the three answers and the measurement record', (cli) => {
    const r = cli('budget', 'example:two_branch', '--board', 'example:two_branch_board');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /FITS: arena 136 KiB \+ outside the arena 88 KiB/);
    assert.match(r.stdout, /1\. which data coexist: peak 136 KiB during C \(A \+ B \+ C\)/);
    assert.match(r.stdout, /2\. where they are placed/);
    assert.match(r.stdout, /3\. how much room is left/);
    assert.match(r.stdout, /measurement record: model fnv1a64:[0-9a-f]{16}/);
  }],
  ['budget input errors exit 2 naming the place', (cli) => {
    let r = cli('budget', 'example:two_branch');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--board: missing/);
    r = cli('budget', 'example:two_branch', '--board', 'examples/two_branch.json');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /examples\/two_branch.json: \/format: expected "arenaplan-board"/);
  }],
  ['--board takes a library board by name; --list-boards lists the library', (cli) => {
    let r = cli('budget', '--list-boards');
    assert.equal(r.status, 0, r.stderr);
    for (const name of ['nrf52840', 'stm32f746', 'stm32h743', 'rp2040', 'rp2350', 'esp32s3_psram8', 'imxrt1062', 'samd51j19'])
      assert.match(r.stdout, new RegExp('^  ' + name + ' ', 'm'));
    assert.match(r.stdout, /^ +cortex-m7 at 480 MHz, flash 2 MiB, TFLM kernels cmsis-nn$/m);
    assert.match(r.stdout, /^ +source: ST RM0433/m);
    r = cli('budget', '--list-boards', '--json');
    assert.ok(r.json.boards.length >= 40);
    const h7 = r.json.boards.find((b) => b.name === 'stm32h743');
    assert.match(h7.source, /RM0433/);
    assert.equal(h7.clock_mhz, 480);
    assert.equal(h7.flash_bytes, 2 * 1024 * KiB);
    assert.equal(h7.kernels, 'cmsis-nn');
    for (const b of r.json.boards) {
      assert.ok(b.clock_source.length > 20 && b.kernels_source.length > 20, b.name);
      for (const region of b.regions) assert.ok(region.source.length > 0, `${b.name} ${region.name}`);
    }
    // two-branch (136 KiB) on the H743: AXI SRAM alone holds it, with the default reservations in DTCM.
    r = cli('budget', 'example:two_branch', '--board', 'stm32h743', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.fits, true);
    assert.ok(r.json.regions.some((x) => x.name === 'AXI_SRAM' && x.size_bytes === 512 * KiB));
    r = cli('budget', 'example:two_branch', '--board', 'no_such_board');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--board: no library board "no_such_board" \(see `arenaplan budget --list-boards`\)/);
  }],
  ['flash: a .tflite model + TFLM runtime + kernels against the board flash, --kernels and --opt', (cli) => {
    const model = 'tests/unit/data/tflm/int8_inception.tflite';
    let r = cli('budget', model, '--board', 'stm32h743', '--kernels', 'cmsis-nn', '--opt', 'O2', '--json');
    assert.equal(r.status, 0, r.stderr);
    const f = r.json.flash;
    assert.equal(f.model_bytes, readFileSync(model).length);
    assert.equal(f.total_bytes, f.model_bytes + f.runtime_bytes + f.kernel_bytes);
    assert.equal(f.kernel_library, 'cmsis-nn');
    assert.equal(f.opt, 'O2');
    assert.equal(f.flash_bytes, 2 * 1024 * KiB);
    assert.equal(f.fits, true);
    assert.deepEqual(f.estimated, []);
    assert.deepEqual(f.kernels.map((k) => k.kind).sort(),
      ['add', 'concatenation', 'conv_2d', 'depthwise_conv_2d', 'fully_connected', 'max_pool_2d', 'mean', 'pad', 'softmax']);
    r = cli('budget', model, '--board', 'stm32h743');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^flash: model 17,184 B \+ TFLM runtime [\d,]+ B \+ 9 kernels [\d,]+ B = [\d,]+ B of 2 MiB: fits \(free [\d.]+ MiB\) \(cortex-m4f, reference kernels, -Os\)$/m);
    r = cli('budget', model, '--board', 'stm32h743', '--opt', 'O3');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--opt: expected Os or O2, found "O3"/);
  }],
  ['flash: a board with too little flash does not fit, exit 1, though its RAM holds the arena', (cli) => {
    const board = JSON.parse(readFileSync('examples/two_branch_board.json', 'utf8'));
    board.core = 'cortex-m4';
    board.flash = { size: '48KiB', source: 'a made-up part for this test' };
    const path = join(mkdtempSync(join(tmpdir(), 'arenaplan-flash-')), 'small_flash.json');
    writeFileSync(path, JSON.stringify(board));
    let r = cli('budget', 'tests/unit/data/tflm/int8_inception.tflite', '--board', path, '--json');
    assert.equal(r.status, 1);
    assert.equal(r.json.fits, true);  // the RAM budget
    assert.equal(r.json.flash.fits, false);
    assert.equal(r.json.flash.free_bytes, 48 * KiB - r.json.flash.total_bytes);
    r = cli('budget', 'tests/unit/data/tflm/int8_inception.tflite', '--board', path);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^flash: .* of 48 KiB: DOES NOT FIT \(over by [\d.]+ KiB\)/m);
  }],
  ['check-shape: N = 2 accepted, N = 9 rejected naming N <= 8', (cli) => {
    let r = cli('check-shape', 'examples/batch_contract.json', '--input', 'x=2x16x16x3', '--range', 'N=1..2', '--range', 'N=3..8', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.accepted, true);
    assert.deepEqual(r.json.binding, { N: 2 });
    assert.deepEqual(r.json.plans[r.json.selected_plan].ranges, { N: { min: 1, max: 2 } });
    r = cli('check-shape', 'example:batch_contract', '--input', 'x=9x16x16x3');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /rejected: input x dim 0 \(N\) is 9, above the contract's bound N <= 8/);
    r = cli('check-shape', 'example:batch_contract', '--input', 'y=2x10');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /has no input named y/);
  }],
];
