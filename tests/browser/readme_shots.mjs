#!/usr/bin/env node
// Takes the README's playground screenshots (docs/playground*.png) from a built site:
//   node tests/browser/readme_shots.mjs build/wasm/site OUT_DIR
// The PNGs are then reduced to a small palette (ImageMagick: convert X.png -colors 48 X.png).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { click, launch, openApp, waitFrames } from './harness.mjs';
import { serve } from '../../scripts/serve.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [site, out] = [process.argv[2], process.argv[3]];
const server = await serve(site, 0);
const browser = await launch({ viewport: { width: 1280, height: 720 } });
try {
  const { page } = await openApp(browser.context, server.url);
  await page.evaluate(() => window.arenaplan.setOrder('A,B,D,C,E,F'));
  await page.evaluate(() => window.arenaplan.setStep(2));
  await waitFrames(page, 3);
  await page.screenshot({ path: path.join(out, 'playground.png') });
  const bytes = Array.from(fs.readFileSync(path.join(repo, '.cache/models/selfie_segmentation.tflite')));
  await page.evaluate((b) => window.arenaplan.openFile('selfie_segmentation.tflite', new Uint8Array(b)), bytes);
  await waitFrames(page, 3);
  await click(page, 'tab.Budget');
  await click(page, 'budget.board');
  await click(page, 'budget.board.esp32s3_psram8');
  await page.evaluate(() => window.arenaplan.redraw(4));
  await waitFrames(page, 4);
  await page.screenshot({ path: path.join(out, 'playground-budget.png') });
} finally {
  await browser.close();
  await server.close();
}
