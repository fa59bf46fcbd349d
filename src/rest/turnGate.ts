// Lets API requests into the app a slice of the event loop at a time, so a burst cannot hold one turn.
// When 2,000 requests arrive together, the loop's poll phase reads every socket in one go, and each request
// then runs fastify's preamble (request id, logger child, routing, query parsing), its hooks and auth in that
// same phase: about 0.05–0.4 ms each, so the whole burst became one long turn in which nothing else was
// answered (bench/waits.ts, `burst of 2,000 new …, longest event-loop turn`: 0.8 s with no gate, 104–127 ms
// with the gate as fastify's first onRequest hook, where 1,631 requests were still routed in one turn).
// The gate therefore sits in front of fastify, on the raw server's request event: a request queued here has
// cost only Node's HTTP parsing. Once the current turn has spent SLICE_MS since the first request came
// through, the next requests queue, and are let in one at a time on later turns: each one runs until it waits
// on I/O, then the next is let in if the slice still has time, else the loop goes round first.
// The store's own slices (core/store/pgliteTurns.ts) only space out the statements, not this work around them.
// Probes never queue: a liveness probe must answer while a burst drains.
// Why it exists and when it goes: the store map, src/core/store/README.md ("Event-loop turns").
import { createServer, type Server } from 'node:http';
import type { FastifyServerFactory } from 'fastify';

/** Request work one turn may take before further requests wait for a later turn. */
export const SLICE_MS = 15;

export interface TurnGate {
  /** Calls `go` now if this turn still has time and nobody waits, else once a later turn lets it in. */
  enter(go: () => void): void;
  /** Requests waiting (tests, metrics). */
  waiting(): number;
}

export function createTurnGate(sliceMs = SLICE_MS, clock: () => number = () => performance.now()): TurnGate {
  /** When the current turn's slice began; undefined once the loop has gone round since. */
  let sliceStart: number | undefined;
  const queue: Array<() => void> = [];
  let draining = false;

  const spent = (): boolean => {
    const now = clock();
    if (sliceStart === undefined) {
      sliceStart = now;
      setImmediate(() => (sliceStart = undefined));
      return false;
    }
    return now - sliceStart >= sliceMs;
  };

  // The next request is let in only once the let-in one's promise chain has run as far as it can this turn
  // (to its first real I/O wait), so `spent` sees the time that request really took. A nextTick queued
  // directly would run before that chain (Node runs the tick queue before the microtask queue): the gate
  // then let in 15 ms of requests' synchronous first steps, and their continuations (auth's key lookup,
  // building queries) ran after, unbounded, in the same turn. A nextTick queued from a microtask queued
  // behind the request's runs once the microtask queue is empty.
  const letInNext = (): void => {
    if (queue.length === 0) {
      draining = false;
      return;
    }
    if (spent()) {
      setImmediate(letInNext);
      return;
    }
    (queue.shift() as () => void)();
    queueMicrotask(() => process.nextTick(letInNext));
  };

  return {
    enter(go) {
      if (queue.length === 0 && !draining && !spent()) return go();
      queue.push(go);
      if (!draining) {
        draining = true;
        setImmediate(letInNext);
      }
    },
    waiting: () => queue.length,
  };
}

/** How fastify's own HTTP/1 server is configured; a server factory must apply them itself. */
export interface ServerTimeouts {
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  http: { headersTimeout: number; connectionsCheckingInterval: number };
}

/**
 * A fastify `serverFactory` whose server lets each request through `gate` before fastify sees it, except the
 * probe paths in `exempt` (matched on the path without its query).
 */
export function gatedServerFactory(
  timeouts: ServerTimeouts,
  exempt: ReadonlySet<string>,
  gate = createTurnGate(),
): FastifyServerFactory<Server> {
  return (handler) => {
    const server = createServer(timeouts.http, (req, res) => {
      const url = req.url ?? '';
      const query = url.indexOf('?');
      if (exempt.has(query === -1 ? url : url.slice(0, query))) return handler(req, res);
      gate.enter(() => handler(req, res));
    });
    // What fastify sets on the server it makes itself (lib/server.js getServerInstance).
    server.keepAliveTimeout = timeouts.keepAliveTimeout;
    server.requestTimeout = timeouts.requestTimeout;
    server.setTimeout(timeouts.connectionTimeout);
    return server;
  };
}
