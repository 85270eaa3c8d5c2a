// CLI contract tests: runs every tests/cli/*.test.mjs against the arenaplan binary given as argv[2].
// A test file exports `tests`: an array of [name, async (cli) => {...}] that throw on failure.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const binary = resolve(process.argv[2] ?? join(here, '../../build/native/arenaplan'));
const repo = resolve(here, '../..');

// Runs the CLI; returns {status, stdout, stderr, json} (json parsed when stdout is JSON).
function cli(...args) {
  const r = spawnSync(binary, args, { encoding: 'utf8', cwd: repo, timeout: 120000 });
  let json;
  try { json = JSON.parse(r.stdout); } catch { json = undefined; }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

let failed = 0, passed = 0;
for (const file of readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort()) {
  const { tests } = await import(pathToFileURL(join(here, file)));
  for (const [name, fn] of tests) {
    try {
      await fn(cli);
      passed++;
      console.log(`PASS ${file}: ${name}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${file}: ${name}\n     ${e.stack ?? e}`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
