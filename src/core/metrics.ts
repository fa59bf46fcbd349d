// Prometheus metrics (METRICS): what each door accepted and refused, waits and streams, webhook deliveries,
// and how long a commit takes to be acknowledged, in one registry per process (prom-client). No label carries
// a workspace or sandbox id: the per-workspace counters exist only with METRICS_PER_WORKSPACE=on.
import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds buckets from 0.5 ms to 5 s: a commit or a wake-up is milliseconds, a stall is seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Seconds from queued to delivered: milliseconds on the first try, minutes to hours through retries. */
const WEBHOOK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600, 86400];

export interface MetricsOptions {
  /** Per-workspace counters (a workspace label): off unless METRICS_PER_WORKSPACE=on. */
  perWorkspace: boolean;
  /** Node's process metrics (CPU, memory, event loop lag); off for cores made in tests by the dozen. */
  processMetrics: boolean;
}

export function createMetrics(options: MetricsOptions) {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  /** Values read when scraped: set by the parts that know them (waits, streams, the pool). */
  const gauges = new Map<string, () => number>();
  const gauge = (name: string, help: string) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(gauges.get(name)?.() ?? 0);
      },
    });

  const metrics = {
    registry,
    smtpReplies: new Counter({
      name: 'sandtrap_smtp_replies_total',
      help: 'SMTP replies by listener (submission, inbound), command (connect, auth, mail, rcpt, data) and code',
      labelNames: ['listener', 'command', 'code'] as const,
      registers,
    }),
    captures: new Counter({
      name: 'sandtrap_captures_total',
      help: 'HTTP captures answered by the capture listener, by status sent',
      labelNames: ['status'] as const,
      registers,
    }),
    httpRequests: new Counter({
      name: 'sandtrap_http_requests_total',
      help: 'Requests to the API listener, by route template, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    waits: new Counter({
      name: 'sandtrap_waits_total',
      help: 'Waits ended, by stream and outcome (found, timeout, gone, error)',
      labelNames: ['stream', 'outcome'] as const,
      registers,
    }),
    waitWake: new Histogram({
      name: 'sandtrap_wait_wake_seconds',
      help: 'From an arrival reaching a wait to the wait answering with it',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    commitSeconds: new Histogram({
      name: 'sandtrap_commit_seconds',
      help: 'From a capture handed to the store to its commit acknowledged, by stream',
      labelNames: ['stream'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    batchSize: new Histogram({
      name: 'sandtrap_commit_batch_size',
      help: 'Captures committed together by group commit, by stream',
      labelNames: ['stream'] as const,
      buckets: BATCH_BUCKETS,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'sandtrap_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retrying, failed: given up after 24 h)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookDelivered: new Histogram({
      name: 'sandtrap_webhook_delivered_seconds',
      help: "From an event queued for a webhook to the target's 2xx, retries included",
      buckets: WEBHOOK_BUCKETS,
      registers,
    }),
    workspaceItems: options.perWorkspace
      ? new Counter({
          name: 'sandtrap_workspace_items_total',
          help: 'Captures stored per workspace and stream (METRICS_PER_WORKSPACE=on)',
          labelNames: ['workspace', 'stream'] as const,
          registers,
        })
      : undefined,
    /** Sets how a gauge reads its value when scraped. */
    read(name: GaugeName, value: () => number): void {
      gauges.set(name, value);
    },
  };
  gauge('sandtrap_waits_open', 'Waits open now (REST and MCP)');
  gauge('sandtrap_event_streams_open', 'Live event streams (SSE) open now');
  gauge(
    'sandtrap_store_connections',
    'Connections the store holds (PostgreSQL pool; 1 for the embedded store)',
  );
  gauge('sandtrap_store_connections_waiting', 'Queries waiting for a pool connection');
  return metrics;
}

/** A scrape of /metrics: the exposition text, or 401 when METRICS_TOKEN is set and not given as a bearer token. */
export async function scrapeMetrics(
  metrics: Metrics,
  token: string | undefined,
  authorization: string | undefined,
): Promise<{ status: 200; contentType: string; body: string } | { status: 401; body: string }> {
  if (token !== undefined) {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '');
    const wanted = Buffer.from(token);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
      return { status: 401, body: 'Send the METRICS_TOKEN as Authorization: Bearer <token>.\n' };
  }
  return { status: 200, contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

export type GaugeName =
  | 'sandtrap_waits_open'
  | 'sandtrap_event_streams_open'
  | 'sandtrap_store_connections'
  | 'sandtrap_store_connections_waiting';

export type Metrics = ReturnType<typeof createMetrics>;
