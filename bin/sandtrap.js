#!/usr/bin/env -S node --max-semi-space-size=4
// Entry point of the `sandtrap` command. An installed package runs its compiled `lib/` (built at pack time: Node
// does not strip types under node_modules); a checkout runs the TypeScript sources on Node's type stripping
// (22.18+, 24). This file stays plain JavaScript that parses on Node 18+: on a Node that cannot strip types it hands over to
// the Node 24 that `npm ci` installs next to the package (the `node` devDependency), or says in one line what
// is needed instead of crashing with ERR_UNKNOWN_FILE_EXTENSION.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Set by the hand-over parent to its pid: marks the child (so a bundled Node that cannot strip types either
// is reported instead of handing over again) and tells it whose death to follow.
const HANDOVER_ENV = 'SANDTRAP_NODE_HANDOVER';
// The signals a supervisor or a terminal uses to stop a process; the hand-over parent passes them on.
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const binFile = fileURLToPath(import.meta.url);
const packageDir = dirname(dirname(binFile));
const bundledPath = join(packageDir, 'node_modules', '.bin', 'node');
// A packed package holds lib (compiled at pack time) and no src; a checkout runs src even while `npm pack` has
// a lib beside it, so a stale lib never shadows the sources.
const compiledMain = join(packageDir, 'lib', 'cli', 'main.js');
const sourceMain = join(packageDir, 'src', 'cli', 'main.ts');

function canStripTypes() {
  return Boolean(process.features && process.features.typescript);
}

function realpathOrSelf(path) {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The Node 24 installed with the package's devDependencies, unless it is missing or is this very Node. */
function bundledNode() {
  const candidates = [bundledPath];
  try {
    // The `node` package may be hoisted above this package's own node_modules.
    const nodePackage = createRequire(import.meta.url).resolve('node/package.json');
    candidates.push(join(dirname(nodePackage), 'bin', 'node'));
  } catch {
    // not installed
  }
  const self = realpathOrSelf(process.execPath);
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (realpathOrSelf(candidate) !== self) return candidate;
  }
  return undefined;
}

/** One line on stderr (stdout may be an MCP client's protocol stream) and a failing exit code. */
function refuse(detail) {
  process.stderr.write(
    `sandtrap: needs Node >= 22.18 or 24 (type stripping); this is Node ${process.version}${detail}. ` +
      `Run \`npm ci\` in ${packageDir} (it installs Node 24 into node_modules/.bin/node), then \`npm start\`, ` +
      `\`npx sandtrap\`, or ${bundledPath} ${binFile}\n`,
  );
  process.exitCode = 1;
}

/**
 * Stops this process (SIGTERM, so `serve` shuts down gracefully) once the parent that started it is gone: a
 * parent killed outright (SIGKILL) cannot pass a signal on, and an orphaned server would keep its ports and
 * the DATA_DIR lock. Linux and macOS re-parent orphans, so a changed ppid means the parent died.
 */
function exitWithParent(parentPid) {
  const timer = setInterval(() => {
    if (process.ppid === parentPid) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  timer.unref();
}

/** Re-runs this command on `nodePath` with the same flags, arguments and stdio, and ends as the child ends. */
function handOver(nodePath) {
  const child = spawn(nodePath, [...process.execArgv, binFile, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, [HANDOVER_ENV]: String(process.pid) },
  });
  const forward = (signal) => {
    child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  const stopForwarding = () => {
    for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, forward);
  };
  child.once('error', (err) => {
    stopForwarding();
    refuse(`, and starting ${nodePath} failed (${err.message})`);
  });
  child.once('exit', (code, signal) => {
    stopForwarding();
    if (signal !== null) {
      // Die of the same signal, so whoever started us sees the same status as without the hand-over.
      process.kill(process.pid, signal);
      process.exitCode = 1;
      return;
    }
    process.exitCode = code ?? 1;
  });
}

/** Node 22.18+ runs the compiled package; older ones lack what its dependencies use. */
function modernNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 18);
}

if (!existsSync(sourceMain) && existsSync(compiledMain) && modernNode()) {
  module.enableCompileCache?.();
  await import(pathToFileURL(compiledMain).href);
} else if (canStripTypes()) {
  const handoverParent = process.env[HANDOVER_ENV];
  // Not for the server's own children: only this process was started by the hand-over parent.
  delete process.env[HANDOVER_ENV];
  if (handoverParent !== undefined) exitWithParent(Number(handoverParent));
  // `npm start` execs node in place of its shell, so npm passes SIGTERM/SIGINT straight on; this covers npm
  // itself being killed outright.
  else if (process.env.npm_lifecycle_event === 'start') exitWithParent(process.ppid);
  // Reusing compiled code (and stripped types) from earlier runs saves about a third of a second at startup.
  module.enableCompileCache?.();
  await import('../src/cli/main.ts');
} else if (process.env[HANDOVER_ENV] !== undefined) {
  refuse(` at ${process.execPath}, run in place of the bundled Node`);
} else {
  const nodePath = bundledNode();
  if (nodePath === undefined) refuse(`, and there is no Node 24 at ${bundledPath}`);
  else handOver(nodePath);
}
