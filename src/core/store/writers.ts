// The write path of the two capture streams (messages, requests): one writer each per store, which owns group
// commit, how many batches commit at once and how long a batch waits for announced rows (inserts run as padded
// prepared statements on both stores). Domain code builds rows and hands them here; it knows nothing of the store.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import { tracer } from '../tracing.ts';
import { GroupCommit } from './groupCommit.ts';
import type { StoreKind } from './openStore.ts';
import type { LiveRow } from './repos/insertIfLive.ts';
import { insertMessagesIfLive } from './repos/messages.ts';
import { insertRequestsIfCurrent, type RequestToStore } from './repos/requests.ts';
import type { Database, NewMessageRow } from './schema.ts';
import { isDiskRefusal } from './unavailable.ts';

type Stream = 'messages' | 'requests';

export type MessageRowToStore = NewMessageRow & LiveRow;
export type { RequestToStore };

/** A message still being prepared (parsed): its place in a batch is held until it is submitted or withdrawn. */
export interface AnnouncedMessage {
  /** Commits the message's rows (one per sandbox) together; resolves with the ids stored once committed. */
  submit(rows: MessageRowToStore[]): Promise<Set<string>>;
  /** The message will not come (it failed before it was submitted): batches stop waiting for it. */
  withdraw(): void;
}

export interface MessageWriter {
  announce(): AnnouncedMessage;
}

export interface RequestWriter {
  /** Commits the request; resolves true once committed, false when its sandbox is gone or changed version. */
  submit(item: RequestToStore): Promise<boolean>;
}

export interface StoreWriters {
  messages: MessageWriter;
  requests: RequestWriter;
}

interface Tuning {
  commitConcurrency: number;
  waitForAnnouncedMs: number;
}

function tuningFor(kind: StoreKind): Tuning {
  return {
    // The embedded store has one connection; PostgreSQL commits a few batches at once from its pool.
    commitConcurrency: kind === 'pglite' ? 1 : 4,
    // The embedded store runs each statement on this thread, so a statement per message or two cost the thread
    // more than waiting for the messages still being parsed (about 20% less CPU per message over SMTP). On
    // PostgreSQL the wait only added latency.
    waitForAnnouncedMs: kind === 'pglite' ? 5 : 0,
  };
}

/** What the writers report (core/metrics.ts): each batch's size and each item's wait for its commit. */
export interface WriterMetrics {
  batch(stream: Stream, items: number): void;
  acknowledged(stream: Stream, seconds: number): void;
}

const noMetrics: WriterMetrics = { batch: () => {}, acknowledged: () => {} };

/**
 * One span per committed batch. A root span: a batch serves many senders, so it belongs to none of their traces
 * (the pump runs in whichever context scheduled it first).
 */
function traced<T>(stream: Stream, items: number, commit: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    'store commit',
    {
      root: true,
      kind: SpanKind.CLIENT,
      attributes: {
        'db.operation.name': 'INSERT',
        'db.collection.name': stream,
        'db.operation.batch.size': items,
      },
    },
    async (span) => {
      try {
        return await commit();
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', (err as { code?: string }).code ?? 'error');
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Resolves as `work` does, reporting how long it took. */
async function timed<T>(work: Promise<T>, done: (seconds: number) => void): Promise<T> {
  const started = performance.now();
  try {
    return await work;
  } finally {
    done((performance.now() - started) / 1000);
  }
}

function messageWriter(db: Kysely<Database>, tuning: Tuning, metrics: WriterMetrics): MessageWriter {
  // Messages parsed while a commit is running are committed together in the next transaction; each sender's
  // rows resolve only when the transaction holding them has committed.
  const commits = new GroupCommit<MessageRowToStore[], Set<string>>(
    async (messages) => {
      metrics.batch('messages', messages.length);
      const stored = await traced('messages', messages.length, () =>
        insertMessagesIfLive(db, messages.flat()),
      );
      return messages.map((rows) => new Set(rows.filter((r) => stored.has(r.id)).map((r) => r.id)));
    },
    {
      maxItems: 64,
      maxBytes: 16 * 1024 * 1024,
      // Each row carries the raw message: a message for three sandboxes writes its bytes three times.
      sizeOf: (rows) => rows.reduce((sum, r) => sum + Number(r.size_bytes), 0),
      concurrency: tuning.commitConcurrency,
      announcedWaitMs: tuning.waitForAnnouncedMs,
      failsEveryItem: isDiskRefusal,
    },
  );
  return {
    announce: () => {
      const announced = commits.announce();
      return {
        submit: (rows) => timed(announced.submit(rows), (s) => metrics.acknowledged('messages', s)),
        withdraw: () => announced.withdraw(),
      };
    },
  };
}

function requestWriter(db: Kysely<Database>, tuning: Tuning, metrics: WriterMetrics): RequestWriter {
  // Concurrent captures share one INSERT (one commit); each sender is answered when its batch commits.
  const commits = new GroupCommit<RequestToStore, boolean>(
    async (items) => {
      metrics.batch('requests', items.length);
      const stored = await traced('requests', items.length, () => insertRequestsIfCurrent(db, items));
      return items.map((item) => stored.has(item.row.id));
    },
    {
      maxItems: 256,
      maxBytes: 8 * 1024 * 1024,
      // The recorded reply (at most 64 KB) travels in the same statement as the request's body.
      sizeOf: (item) => Number(item.row.size_bytes) + (item.row.response_body?.byteLength ?? 0),
      concurrency: tuning.commitConcurrency,
      failsEveryItem: isDiskRefusal,
    },
  );
  return {
    submit: (item) => timed(commits.submit(item), (s) => metrics.acknowledged('requests', s)),
  };
}

export function createStoreWriters(
  store: { db: Kysely<Database>; kind: StoreKind },
  metrics: WriterMetrics = noMetrics,
): StoreWriters {
  const tuning = tuningFor(store.kind);
  return {
    messages: messageWriter(store.db, tuning, metrics),
    requests: requestWriter(store.db, tuning, metrics),
  };
}
