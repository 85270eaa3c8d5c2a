#!/usr/bin/env node
// Runs every tests/browser/*.test.mjs against a built site in headless Chromium.
//   node tests/browser/run.mjs SITE_DIR [name-filter]     (or SITE_DIR in the environment)
// Prints PASS/FAIL per test; exits 1 if any failed, 2 on bad usage. Screenshots go to
// SITE_DIR/../browser-artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openApp, registered, startSession } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const siteDir = path.resolve(process.argv[2] || process.env.SITE_DIR || '');
const filter = process.argv[3] || '';
if (!process.argv[2] && !process.env.SITE_DIR || !fs.existsSync(path.join(siteDir, 'index.html'))) {
  console.error('usage: node tests/browser/run.mjs SITE_DIR [filter]   (SITE_DIR holds index.html, app.js, app.wasm)');
  process.exit(2);
}
const artifactDir = path.join(siteDir, '..', 'browser-artifacts');

for (const f of fs.readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort())
  await import(pathToFileURL(path.join(here, f)).href);

const TEST_TIMEOUT_MS = 180000;  // generous: CI machines share 2 cores with builds
const session = await startSession(siteDir, artifactDir);
let failed = 0, ran = 0;
try {
  for (const { name, fn } of registered) {
    if (filter && !name.includes(filter)) continue;
    ran++;
    const pages = [];
    // Each test gets its own page (fresh app state); pages are closed after the test so that
    // background tabs never throttle the next test's animation frames.
    const ctx = {
      session, artifactDir, url: session.url,
      // Opens the app in a new page of `context` (default: the shared browser).
      open: async (context = session.context) => {
        const r = await openApp(context, session.url);
        pages.push(r.page);
        return r;
      },
    };
    const started = Date.now();
    try {
      let timer;
      await Promise.race([
        fn(ctx),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), TEST_TIMEOUT_MS); }),
      ]).finally(() => clearTimeout(timer));
      console.log(`PASS  ${name}  (${Date.now() - started} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL  ${name}\n      ${String(e && e.stack || e).split('\n').join('\n      ')}`);
    } finally {
      // Every test starts from a first visit's settings: what one test stores (a 20 px text size,
      // saved classroom work, the welcome seen) must not change the layout the next one measures.
      const shared = pages.find((p) => !p.isClosed() && p.context() === session.context);
      if (shared) await shared.evaluate(() => localStorage.clear()).catch(() => {});
      for (const p of pages) await p.close().catch(() => {});
    }
  }
} finally {
  await session.close();
}
console.log(`${ran - failed} of ${ran} browser tests passed; artifacts in ${artifactDir}`);
process.exit(failed || ran === 0 ? 1 : 0);
