#!/usr/bin/env node
// A container HEALTHCHECK without curl: asks the running server's GET /readyz on the configured HOST and
// PROBE_PORT when set (a listener no flood of API connections queues it behind), else API_PORT.
// Plain JavaScript with no imports from src/, so a probe every few seconds costs one small Node start.
// Exit 0 when ready; exit 1 with one line naming what failed (the probe's output is kept by `docker inspect`).

/** Where the server can be reached from inside its own container: a wildcard bind address is not one. */
function probeHost(host) {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

const host = probeHost((process.env.HOST ?? '127.0.0.1').trim());
const port = (process.env.PROBE_PORT ?? '').trim() || (process.env.API_PORT ?? '').trim() || '8025';
const url = `http://${host}:${port}/readyz`;
const TIMEOUT_MS = 4_000;

function done(code, line) {
  (code === 0 ? process.stdout : process.stderr).write(`${line}\n`);
  process.exit(code);
}

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await response.text();
  if (response.status === 200) done(0, `ready: ${url}`);
  let detail = text.slice(0, 300);
  try {
    const body = JSON.parse(text);
    if (Array.isArray(body.failing) && body.failing.length > 0) detail = body.failing.join('; ');
  } catch {
    // not JSON: the raw text says what there is to say
  }
  done(1, `not ready: ${url} answered ${response.status}: ${detail}`);
} catch (err) {
  const cause = err?.cause?.code ?? err?.cause?.message ?? err?.name ?? String(err);
  done(
    1,
    `not ready: ${url} did not answer (${err?.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : cause})`,
  );
}
