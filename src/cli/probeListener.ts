// PROBE_PORT: /healthz, /livez and /readyz on a listener of their own. Node takes one new connection per
// listener per turn of the event loop, in the order they arrived, so a burst of 2,000 connections to the API
// port queued a probe behind all of them for 2-4 s (bench/waits.ts, "burst of 2,000 new waits"): long enough for
// a liveness probe with a short timeout to restart a healthy process. Here nothing else queues.
import { createServer, type Server } from 'node:http';
import { answerProbe, PROBE_PATHS, type ProbePath, type ProbeState } from '../rest/probes.ts';

const isProbePath = (path: string): path is ProbePath => (PROBE_PATHS as readonly string[]).includes(path);

export function createProbeListener(state: ProbeState): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    // A probe never holds a socket: each answer closes its connection, as on the API port.
    res.setHeader('connection', 'close');
    if (!isProbePath(path)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Only GET ${PROBE_PATHS.join(', ')} here.\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('Only GET here.\n');
      return;
    }
    answerProbe(path, state).then(
      ({ status, body }) =>
        res
          .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify(body)),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('The probe could not be answered.\n'),
    );
  });
  // Probes send a few bytes at once; a connection that sends nothing is not a probe.
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  return server;
}
