// Shared helpers for the browser tests: serve the site, launch Debian's chromium with the flags
// docs/TOOLCHAIN.md verified, open the page and wait for the app, and read the exported state.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--headless=new', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic',
  '--no-first-run',
];

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Tests register themselves with test(name, fn); run.mjs imports every *.test.mjs, then runs them.
export const registered = [];
export function test(name, fn) { registered.push({ name, fn }); }

// A fresh chromium profile per launch (docs/TOOLCHAIN.md); launchPersistentContext is how playwright
// takes a --user-data-dir. deviceScaleFactor is a property of the context, hence per launch.
// Service workers are blocked unless asked for: the page's offline cache would otherwise answer
// requests that tests intercept with page.route (a missing or corrupt app.wasm).
export async function launch({ deviceScaleFactor = 1, viewport = { width: 1280, height: 720 },
                               serviceWorkers = 'block' } = {}) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arenaplan-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    deviceScaleFactor,
    serviceWorkers,
  });
  return {
    context,
    userDataDir,  // names this browser's processes in `ps` (bench/page_bench.mjs reads their CPU time)
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// The server and default browser shared by all tests.
export async function startSession(siteDir, artifactDir) {
  const server = await serve(siteDir, 0);
  const browser = await launch();
  fs.mkdirSync(artifactDir, { recursive: true });
  return {
    url: server.url,
    context: browser.context,
    artifactDir,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

// Opens the page in `context`, collects console errors, page errors and failed requests, and
// waits until window.arenaplan exists and the app has drawn a few frames.
export async function openApp(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('requestfailed', (req) => errors.push('request failed: ' + req.url()));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.arenaplan || window.arenaplanFailure, null, { timeout: 60000 });
  const failure = await page.evaluate(() => window.arenaplanFailure || null);
  if (failure) throw new Error('page reported: ' + failure);
  await waitFrames(page, 3);
  return { page, errors };
}

export async function state(page) {
  return page.evaluate(() => window.arenaplan.state());
}

// Waits until the app has drawn `n` more frames (edits from input land on the next frame). The
// app skips idle frames, so ask for them explicitly.
export async function waitFrames(page, n = 2) {
  const start = (await state(page)).frame;
  await page.evaluate((k) => window.arenaplan.redraw(k + 1), n);
  await page.waitForFunction((target) => window.arenaplan.state().frame >= target, start + n, { timeout: 10000 });
}

// Centre of a widget the app recorded with record_item_rect(), in CSS pixels.
export async function widgetCenter(page, key) {
  const rects = (await state(page)).ui;
  const r = rects[key];
  if (!r) throw new Error(`no widget "${key}" in the exported state (have: ${Object.keys(rects).join(', ')})`);
  return { x: (r[0] + r[2]) / 2, y: (r[1] + r[3]) / 2 };
}

// A real mouse click at a point; ImGui needs a frame between press and release.
export async function clickAt(page, x, y) {
  await page.mouse.move(x, y);
  await waitFrames(page, 1);
  await page.mouse.down();
  await sleep(50);
  await waitFrames(page, 1);
  await page.mouse.up();
  await waitFrames(page, 2);
}

// A real mouse click on a widget the app recorded.
export async function click(page, key) {
  const { x, y } = await widgetCenter(page, key);
  await clickAt(page, x, y);
}

// Presses a key chord (e.g. "Alt+ArrowDown") with a frame between down and up.
export async function chord(page, keys) {
  const parts = keys.split('+');
  for (const k of parts) await page.keyboard.down(k);
  await sleep(50);
  await waitFrames(page, 1);
  for (const k of parts.reverse()) await page.keyboard.up(k);
  await waitFrames(page, 2);
}

// Distinct colours of a PNG (base64), decoded page-side into a 2D canvas, sampling every
// `stride`-th pixel. Returns {colours, width, height}.
export async function pngInfo(page, b64, stride = 7) {
  return page.evaluate(async ([data, step]) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + data;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < px.length; i += 4 * step) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return { colours: seen.size, width: img.width, height: img.height };
  }, [b64, stride]);
}

export async function pngColours(page, b64) {
  return (await pngInfo(page, b64)).colours;
}

// Screenshot saved as an artifact; returns how many distinct colours it has (a blank or
// uniform canvas has 1 or 2), counted page-side by decoding the PNG into a 2D canvas.
export async function screenshot(page, artifactDir, name) {
  const file = path.join(artifactDir, name + '.png');
  const png = await page.screenshot({ path: file });
  const distinct = await pngColours(page, png.toString('base64'));
  return { file, distinct };
}

// Clicks the text part of an input field (its recorded rect also covers the -/+ buttons on the right).
export async function clickField(page, key) {
  const r = (await state(page)).ui[key];
  if (!r) throw new Error(`no widget "${key}"`);
  await clickAt(page, r[0] + 12, (r[1] + r[3]) / 2);
}

// Types text key by key with a frame between each down and up (ImGui reads input per frame).
export async function typeText(page, text) {
  for (const ch of text) {
    await page.keyboard.down(ch);
    await sleep(30);
    await waitFrames(page, 1);
    await page.keyboard.up(ch);
    await waitFrames(page, 1);
  }
}

// Opens the app at a share-link fragment (a reload with the fragment, as a pasted link does).
export async function openAt(t, fragment) {
  const { page, errors } = await t.open();
  await page.evaluate((f) => { location.hash = f; }, fragment);
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => window.arenaplan || window.arenaplanFailure, null, { timeout: 60000 });
  await page.evaluate(() => window.arenaplan.redraw(5));
  await waitFrames(page, 3);
  return { page, errors };
}

// A network-like graph: a chain with skip connections, `n` ops.
export function bigGraph(n) {
  const tensors = { in: { bytes: 4096 } };
  const ops = [];
  for (let i = 0; i < n; i++) {
    const inputs = [i === 0 ? 'in' : `t${i - 1}`];
    if (i >= 3 && i % 3 === 0) inputs.push(`t${i - 3}`);
    tensors[`t${i}`] = { bytes: 1024 * (1 + (i % 7)) };
    ops.push({ name: `op${i}`, kind: i % 3 === 0 ? 'add' : 'conv2d', inputs, outputs: [`t${i}`] });
  }
  return JSON.stringify({ format: 'arenaplan-graph', version: 1, name: `big-${n}`, tensors, ops,
                          inputs: ['in'], outputs: [`t${n - 1}`] });
}

// Replaces the text of a field (ImGui selects it all on click; Ctrl+A makes sure) and commits it
// with Enter. Keys are held for a frame (chord): ImGui 1.86 polls key state once per frame.
export async function typeInto(page, key, text) {
  await clickField(page, key);
  await chord(page, 'Control+a');
  await typeText(page, text);
  await chord(page, 'Enter');
  await waitFrames(page, 2);
}

// Opens the app on the Graph tab.
export async function openGraphTab(t) {
  const opened = await t.open();
  await click(opened.page, 'tab.Graph');
  await waitFrames(opened.page, 2);
  return opened;
}

// A model file scripts/setup.sh fetched into the repository's .cache/models (the test fails with
// the fix when it is missing).
export function modelFile(name) {
  const file = path.join(path.dirname(new URL(import.meta.url).pathname), '../../.cache/models', name);
  if (!fs.existsSync(file)) throw new Error(`${path.resolve(file)} is missing: run scripts/setup.sh`);
  return path.resolve(file);
}

// Opens the app on the Graph tab with a big graph loaded and drawn: bigGraph(n) for a number, the
// .tflite model of that name (modelFile) for a string. Fails unless the page accepts it.
export async function openBigGraph(t, graph) {
  const opened = await openGraphTab(t);
  const error = typeof graph === 'number'
    ? await opened.page.evaluate((text) => window.arenaplan.loadGraphJson(text), bigGraph(graph))
    : await opened.page.evaluate((b) => window.arenaplan.loadTflite(new Uint8Array(b)),
                                 Array.from(fs.readFileSync(modelFile(graph))));
  if (error !== '') throw new Error(`the page refused ${graph}: ${error}`);
  await waitFrames(opened.page, 4);
  return opened;
}

// What the native CLI (build/native/arenaplan) prints as JSON for `args` (--json added): the
// independent figure a page's number is checked against. Throws unless it exits 0.
export function cliJson(...args) {
  const cli = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../build/native/arenaplan');
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build it with scripts/build.sh native`);
  const r = spawnSync(cli, [...args, '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`arenaplan ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// The overprint check of drawn labels (state().page.labels): each label inside its clip
// horizontally, no two overlapping. Returns the problems found, in words.
export function labelProblems(s, where) {
  const labels = s.page.labels;
  const problems = [];
  for (const l of labels)
    if (!(l.rect[0] >= l.clip[0] - 0.5 && l.rect[2] <= l.clip[2] + 0.5)) problems.push(`${where}: label "${l.text}" leaves its clip`);
  for (let i = 0; i < labels.length; i++)
    for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i].rect, b = labels[j].rect;
      if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3])
        problems.push(`${where}: "${labels[i].text}" overprints "${labels[j].text}"`);
    }
  return problems;
}
