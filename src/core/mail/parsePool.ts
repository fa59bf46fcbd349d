// Parses MIME on a pool of worker threads (one per core), so the main thread keeps the SMTP protocol and the
// store while messages are parsed on the other cores; messages under `poolFromBytes` are parsed inline. On the
// 2-core bench machine the pool lost over SMTP at 4 KB and at 64 KB on both stores, or at best tied (handing a
// 4 KB message over still costs the main thread ~75-100 µs of the ~120-140 µs an inline parse does, and doubles
// the process's CPU per message: bench/parseHandoff.ts), so core parses inline; the pool is there for machines
// with cores to spare.
import { availableParallelism } from 'node:os';
import { isMarkedAsUntransferable } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { parseMessage, type ParsedMessage } from './parseMessage.ts';
import type { ParseResult, ParseTask } from './parseWorker.ts';

export interface MessageParser {
  /**
   * Parses `raw`; resolves with its fields and the bytes to store, which are `raw` itself or, when it went to
   * a worker by transfer, the same bytes handed back (`raw` is then detached: the caller gives it up).
   */
  (raw: Uint8Array, envelopeFrom: string | null): Promise<ParseResult>;
}

/** Worker threads idle this long are stopped (one stays). */
const IDLE_MS = 30_000;

/** One pool per process: every core built in it (tests build hundreds) shares the same threads. */
let shared: Piscina<ParseTask, ParseResult> | undefined;

function pool(): Piscina<ParseTask, ParseResult> {
  shared ??= new Piscina<ParseTask, ParseResult>({
    filename: new URL('./parseWorker.ts', import.meta.url).href,
    maxThreads: availableParallelism(),
    minThreads: 1,
    idleTimeout: IDLE_MS,
  });
  return shared;
}

/**
 * Bytes that can go to a worker by transfer: `raw` itself when it owns its whole buffer, else a copy. Transferring
 * a shared buffer would hand over its other contents too, and Node refuses to transfer its own pool's slabs
 * (Buffer.concat takes one even for a 4 KB message).
 */
function ownedBytes(raw: Uint8Array): Uint8Array {
  const whole = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength;
  if (whole && raw.buffer instanceof ArrayBuffer && !isMarkedAsUntransferable(raw.buffer)) return raw;
  // Not raw.slice(): on a Buffer, slice is a view of the same memory.
  return new Uint8Array(raw);
}

/** `poolFromBytes`: messages at least this large go to the pool; Infinity parses everything inline. */
export function createMessageParser({ poolFromBytes }: { poolFromBytes: number }): MessageParser {
  return async (raw, envelopeFrom) => {
    if (raw.byteLength < poolFromBytes) {
      const parsed: ParsedMessage = await parseMessage(raw, envelopeFrom);
      return { raw, parsed };
    }
    const bytes = ownedBytes(raw);
    return pool().run({ raw: bytes, envelopeFrom }, { transferList: [bytes.buffer as ArrayBuffer] });
  };
}
