// `npm test [-- files… options…]`: node's test runner on every test/**/*.test.ts, or only on the files given.
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import { join } from 'node:path';

// A test's own bound, for a test that would otherwise hang: long enough for the process helpers' waits
// (test/helpers/process.ts) on a machine loaded far beyond its cores.
const DEFAULT_FLAGS = ['--test', '--test-concurrency=1', '--test-timeout=300000'];
// test/browser needs Chromium and runs with `npm run test:browser`, so `npm test` passes on a machine without it.
const BROWSER_TESTS = join('test', 'browser');
const allTests = () => globSync('test/**/*.test.ts', { exclude: (path) => path === BROWSER_TESTS }).sort();

// Options whose value may follow as the next argument (`--test-name-pattern login`), so it is not a file.
const TAKES_VALUE = new Set([
  '--test-name-pattern',
  '--test-skip-pattern',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-concurrency',
  '--test-timeout',
  '--test-shard',
  '--test-isolation',
  '--test-global-setup',
  '--test-coverage-include',
  '--test-coverage-exclude',
  '--test-coverage-branches',
  '--test-coverage-functions',
  '--test-coverage-lines',
  '--import',
  '--require',
  '-r',
  '--conditions',
  '-C',
  '--env-file',
]);

/** Splits `npm test --` arguments into node options and test files: node reads options only before files. */
function testArgs(args: string[]): string[] {
  const options: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      files.push(arg);
      continue;
    }
    options.push(arg);
    const next = args[i + 1];
    if (TAKES_VALUE.has(arg) && next !== undefined) {
      options.push(next);
      i++;
    }
  }
  // The given options come after the defaults, so they win (node keeps the last of a repeated option).
  return [...DEFAULT_FLAGS, ...options, ...(files.length > 0 ? files : allTests())];
}

const child = spawn(process.execPath, testArgs(process.argv.slice(2)), { stdio: 'inherit' });
// The runner also receives a terminal's Ctrl-C directly; passing signals on covers a `kill` of this process.
const forward = (signal: NodeJS.Signals) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
child.once('exit', (code, signal) => {
  process.removeListener('SIGINT', forward);
  process.removeListener('SIGTERM', forward);
  if (signal !== null) process.kill(process.pid, signal);
  process.exitCode = code ?? 1;
});
