// Keeps the embedded store from holding the event loop. PGlite runs each statement synchronously in
// WebAssembly and starts the next queued one from the previous one's promise, so a backlog (a burst of 2,000
// requests queues thousands of statements) drains in one event-loop turn: no socket is read, /healthz included,
// until it is empty (9.4 s measured). Here a statement that would run after the current turn has already spent
// TURN_SLICE_MS in the store first lets the loop go round (setImmediate): sockets are read, timers run, and
// the backlog goes on in the next turn. Statements inside a transaction are not held (they run on PGlite's
// transaction object, not through here); a transaction's start is, like a statement.
// Why it exists and when it goes: the store map, src/core/store/README.md.

/** Store time one turn may take before the next statement waits for the following turn. */
export const TURN_SLICE_MS = 20;

type Runner = (...args: never[]) => Promise<unknown>;

export function yieldingTurns<P extends { query: Runner; transaction: Runner }>(pglite: P): P {
  /** When the current slice of store work began; undefined once the loop has gone round since. */
  let sliceStart: number | undefined;
  const turnAhead = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function takeTurn(): Promise<void> {
    for (;;) {
      const now = performance.now();
      if (sliceStart === undefined) {
        sliceStart = now;
        // Runs once the loop has gone round: the next statement starts a new slice.
        setImmediate(() => (sliceStart = undefined));
        return;
      }
      if (now - sliceStart < TURN_SLICE_MS) return;
      await turnAhead();
    }
  }

  const wrap =
    (run: Runner) =>
    async (...args: never[]): Promise<unknown> => {
      await takeTurn();
      return run(...args);
    };

  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'query' || prop === 'transaction') {
        const run = (Reflect.get(target, prop, target) as Runner).bind(target);
        return wrap(run);
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
