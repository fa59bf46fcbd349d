// Lets API requests into their own work a slice of the event loop at a time, so a burst cannot hold one turn.
// When 2,000 requests arrive together, the loop's poll phase reads every socket in one go, and each request
// then runs its hooks (auth looks its key up, builds and compiles a query) in the microtasks of that same
// phase: about 0.1–0.4 ms each, so the whole burst became one 0.8 s turn in which nothing else was answered
// (bench/waits.ts, `burst of 2,000 new …, longest event-loop turn`). The store's own slices
// (core/store/pgliteTurns.ts) only space out the statements, not this work around them.
// Here, once the current turn has spent SLICE_MS since the first request came through the gate, the next
// requests queue, and are let in one at a time on later turns: each one runs until it waits on I/O (its
// microtasks drain), then the next is let in if the slice still has time, else the loop goes round first.
// Probes never queue: a liveness probe must answer while a burst drains.
// Why it exists and when it goes: the store map, src/core/store/README.md ("Event-loop turns").
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

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

  // A nextTick queued from here runs only after the let-in request's microtasks have drained, so `spent`
  // sees the time that request really took.
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
    process.nextTick(letInNext);
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

/** The gate as the first onRequest hook of `app`, every route but the probes in `exempt`. */
export function installTurnGate(
  app: FastifyInstance,
  exempt: ReadonlySet<string>,
  gate = createTurnGate(),
): void {
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (exempt.has(request.routeOptions.url ?? '')) return done();
    gate.enter(() => done());
  });
}
