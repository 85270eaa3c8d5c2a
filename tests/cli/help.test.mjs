// Help as people expect it: `arenaplan CMD --help`, `-h` and `arenaplan help CMD` print the same
// text (purpose, usage, every option with its line, examples) with exit 0; every example runs.
import assert from 'node:assert/strict';

// The commands `arenaplan --help` lists ("  NAME  summary").
function commands(cli) {
  const r = cli('--help');
  assert.equal(r.status, 0, r.stderr);
  const names = [...r.stdout.matchAll(/^ {2}([a-z-]+) {2,}\S/gm)].map((m) => m[1]);
  assert.ok(names.length >= 13, `only ${names.join(', ')}`);
  return names;
}

// The options a command accepts, from its usage line ("--order A,B" -> "order"): found independently
// of the help table, so an option the table forgot shows up here.
function usageOptions(text) {
  const usage = text.split('\n').find((l) => l.startsWith('usage: arenaplan '));
  assert.ok(usage, text);
  return [...new Set([...usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]))];
}

// A command line as the help prints it, split into arguments (the examples use no quoting).
const argsOf = (line) => line.trim().replace(/^arenaplan /, '').split(/\s+/);

export const tests = [
  ['every command answers --help, -h and help CMD alike, naming every option with a description', (cli) => {
    for (const name of commands(cli)) {
      const r = cli(name, '--help');
      assert.equal(r.status, 0, `${name}: ${r.stderr}`);
      assert.equal(cli(name, '-h').stdout, r.stdout, name);
      assert.equal(cli('help', name).stdout, r.stdout, name);
      assert.match(r.stdout, new RegExp(`^arenaplan ${name}: \\S`), name);
      assert.doesNotMatch(r.stdout, /\(no description\)/, `${name} has an option without a line`);
      for (const option of usageOptions(r.stdout))
        assert.match(r.stdout, new RegExp(`^  --${option}( VALUE)? +\\S`, 'm'), `${name} --help lacks --${option}`);
    }
  }],
  ['--help wins over everything else on the line: no input needed, nothing run', (cli) => {
    const r = cli('simulate', 'no-such-file.json', '--runs', 'many', '--help');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^arenaplan simulate: /);
  }],
  ['every example a help text prints runs (exit 0, or 1 for a check that fails on purpose)', (cli) => {
    let ran = 0;
    for (const name of commands(cli)) {
      const text = cli('help', name).stdout;
      const examples = text.split('examples:\n')[1].split('\n\n')[0].split('\n').filter((l) => l.trim());
      assert.ok(examples.length >= 1, `${name} has no example`);
      for (const line of examples) {
        const r = cli(...argsOf(line));
        assert.ok(r.status === 0 || r.status === 1, `${line}: exit ${r.status}: ${r.stderr}`);
        ran++;
      }
    }
    assert.ok(ran >= 20, `${ran} examples`);
  }],
  ['help NOSUCH is bad input; --version prints the version', (cli) => {
    const r = cli('help', 'nosuch');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no command "nosuch"/);
    const v = cli('--version');
    assert.equal(v.status, 0);
    assert.match(v.stdout, /^arenaplan \d+\.\d+\.\d+/);
  }],
];
