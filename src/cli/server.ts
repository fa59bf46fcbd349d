// The composition root: opens the store, builds core, starts every listener, and stops them in order.
import type { Server as HttpServer } from 'node:http';
import type { Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { SMTPServer } from 'smtp-server';
import { createCaptureListener } from '../capture/captureListener.ts';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import { createCore, type Core } from '../core/core.ts';
import { EventBus } from '../core/events.ts';
import { createPgNotifyTransport } from '../core/store/pgNotify.ts';
import { openStore, type Store } from '../core/store/openStore.ts';
import { installMcpRoute } from '../mcp/httpRoute.ts';
import { buildApi, MAX_CONNECTIONS } from '../rest/app.ts';
import { createMetricsListener } from './metricsListener.ts';
import { createProbeListener } from './probeListener.ts';
import { apiConnectionBudget, readFdLimit } from './fdLimit.ts';
import { VERSION } from './version.ts';
import { createCaptureSmtpServer } from '../smtp/captureServer.ts';
import { loadTlsCredentials } from '../smtp/tlsCredentials.ts';
import { startSweeps, type Sweeps } from './sweeps.ts';
import type { WebhookSender } from '../core/webhooks/delivery.ts';
import { liveEventWire } from '../rest/routes/events.ts';

export interface RunningServer {
  core: Core;
  api: FastifyInstance;
  ports: {
    api: number;
    smtp: number;
    smtpInbound: number | null;
    capture: number;
    metrics: number | null;
    probe: number | null;
  };
  /** The first key of a brand-new store, when this start created it. */
  firstKey: string | undefined;
  /** The inbound port's catch-all sandbox, when SMTP_CATCH_ALL is on and the inbound port listens. */
  catchAll: { sandboxId: string; workspaceId: string; name: string } | undefined;
  close(): Promise<void>;
}

export function storeFor(config: Readonly<Config>, logger?: Logger): Promise<Store> {
  return config.databaseUrl === undefined
    ? openStore({
        kind: 'pglite',
        dataDir: config.dataDir,
        onEvent: (event) => logger?.[event.level](event.fields, event.message),
      })
    : openStore({
        kind: 'postgres',
        url: config.databaseUrl,
        onConnectionError: (err) =>
          logger?.warn(
            { err: err.message },
            'a database connection was lost; the pool opens a new one when needed',
          ),
      });
}

export class ListenError extends Error {
  override name = 'ListenError';
}

function listenFailure(err: unknown, variable: string, port: number, host: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new ListenError(
      `${host}:${port} (${variable}) is already in use. Stop the other process or set ${variable} to a free port.`,
    );
  }
  if (code === 'EACCES') {
    return new ListenError(`Not allowed to listen on ${host}:${port} (${variable}); use a port above 1023.`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

function listen(server: NetServer, port: number, host: string, variable: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(listenFailure(err, variable, port, host)));
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** In-flight requests get this long to finish on shutdown; then every connection is dropped. */
const SHUTDOWN_GRACE_MS = 1_500;

/** Stops accepting; a connection that never sent a request would otherwise hold close() open for ever. */
function closeServer(server: NetServer): Promise<void> {
  const force = setTimeout(() => (server as Partial<HttpServer>).closeAllConnections?.(), SHUTDOWN_GRACE_MS);
  return new Promise((resolve) =>
    server.close(() => {
      clearTimeout(force);
      resolve();
    }),
  );
}

/** Stops accepting; sessions in DATA finish (smtp-server gives them closeTimeout) before the store closes. */
function closeSmtp(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface ServerOptions {
  logger: Logger;
  clock?: Clock;
  store?: Store;
}

/**
 * Imported only when REDIS_URL is set: most installations never load the client. While Redis is away, commands
 * fail at once (no offline queue) and every limit counts in this process's memory instead (rateLimits.ts,
 * rest/rateLimit.ts): capture, SMTP and REST keep working. The outage and the return are logged once each.
 */
async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 200, 5_000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { err: err.message },
      'Redis is unreachable: rate limits count in this process only until it is back',
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('Redis is back: rate limits are shared again');
  });
  return redis;
}

/** Change events: in-process, plus LISTEN/NOTIFY across processes when the store is PostgreSQL. */
export function eventBusFor(config: Readonly<Config>, logger: Logger): EventBus {
  if (config.databaseUrl === undefined) return new EventBus();
  const onError = (err: unknown) =>
    logger.warn(
      { err: (err as Error).message },
      'the change-event connection was lost; reconnecting, waits re-check the store meanwhile',
    );
  const onReconnected = () =>
    logger.info('the change-event connection is back; open waits re-check the store');
  return new EventBus(createPgNotifyTransport(config.databaseUrl, { onError, onReconnected }));
}

export async function startServer(config: Readonly<Config>, options: ServerOptions): Promise<RunningServer> {
  const { logger } = options;
  // A first start's key generation runs on libuv's thread pool while the store opens on the main thread; the
  // pair is written into DATA_DIR only once the store (and with it DATA_DIR's lock) is ours.
  const tlsLoading = loadTlsCredentials({
    certFile: config.smtpTlsCert,
    keyFile: config.smtpTlsKey,
    dataDir: config.dataDir,
    hostname: config.publicSmtpHost,
  });
  tlsLoading.catch(() => {}); // awaited below; a failure must not surface first as an unhandled rejection
  const store = options.store ?? (await storeFor(config, logger));
  const redis = config.redisUrl === undefined ? undefined : await connectRedis(config.redisUrl, logger);
  const bus = eventBusFor(config, logger);
  const core = createCore({
    store,
    config,
    bus,
    redis,
    // Cross-process waits also re-check now and then, in case a notification was lost.
    ...(config.databaseUrl === undefined ? {} : { waitRecheckMs: 15_000 }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });

  let ready = false;
  let sweeps: Sweeps | undefined;
  let webhookSender: WebhookSender | undefined;
  const started: NetServer[] = [];
  const smtpServers: SMTPServer[] = [];
  /** The listeners besides the API, named for /readyz. */
  const listening: Array<{ part: string; server: NetServer }> = [];
  /** What /readyz reports of each listener, on the API port and on PROBE_PORT alike. */
  const listenerStates = () => listening.map(({ part, server }) => ({ part, ok: server.listening }));
  const stopAll = async () => {
    ready = false;
    const sweepsStopped = sweeps?.stop();
    // Deliveries in flight are recorded before the store closes (each ends within WEBHOOK_TIMEOUT_MS).
    const webhooksStopped = webhookSender?.stop();
    // Open waits answer with their timeout reply so the API can close.
    core.waits.endAll();
    // Event streams end cleanly (their clients reconnect to another process, or after the restart).
    core.liveEvents.endAll();
    const forceApi = setTimeout(() => api.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await Promise.allSettled([api.close(), ...started.map(closeServer), ...smtpServers.map(closeSmtp)]);
    clearTimeout(forceApi);
    await Promise.allSettled([bus.close(), redis?.quit(), sweepsStopped, webhooksStopped]);
    await store.close();
  };
  // Node raised the soft limit to the hard one at start; the API listener may take all of it but FD_RESERVE.
  const fdLimit = readFdLimit();
  if (fdLimit !== undefined && fdLimit.soft < fdLimit.hard && fdLimit.hard !== Infinity) {
    logger.warn(
      fdLimit,
      'the open-file soft limit is below the hard limit; Node normally raises it at start',
    );
  }
  const budget = apiConnectionBudget(fdLimit, config.fdReserve, MAX_CONNECTIONS);
  if (budget.warning !== undefined) logger.warn({ fdLimit: fdLimit?.soft }, budget.warning);
  const api = await buildApi({
    core,
    logger,
    isReady: () => ready,
    listeners: listenerStates,
    mount: (scope) => installMcpRoute(scope, core, VERSION),
    traces: config.traces,
    maxConnections: budget.maxConnections,
  });
  try {
    await redis?.connect();
    await bus.start((err) => logger.warn({ err }, 'could not announce a change to other processes'));
    const tls = await tlsLoading;
    await tls.save();
    const startSmtp = async (mode: 'submission' | 'inbound', port: number, variable: string) => {
      const smtp = createCaptureSmtpServer({ core, logger, tls, mode, hostname: config.publicSmtpHost });
      smtp.on('error', (err) => logger.warn({ err, listener: `smtp-${mode}` }, 'SMTP connection error'));
      const bound = await listen(smtp.server, port, config.host, variable);
      smtpServers.push(smtp);
      listening.push({ part: mode === 'submission' ? 'smtp' : 'smtp-inbound', server: smtp.server });
      return bound;
    };
    const smtpPort = await startSmtp('submission', config.smtpPort, 'SMTP_PORT');
    const inboundPort =
      config.smtpInboundPort === 0
        ? null
        : await startSmtp('inbound', config.smtpInboundPort, 'SMTP_INBOUND_PORT');
    const capture = createCaptureListener(core, logger);
    const capturePort = await listen(capture, config.capturePort, config.host, 'CAPTURE_PORT');
    started.push(capture);
    listening.push({ part: 'capture', server: capture });
    let probePort: number | null = null;
    if (config.probePort !== undefined) {
      const probes = createProbeListener({
        core,
        isReady: () => ready,
        listeners: listenerStates,
      });
      probePort = await listen(probes, config.probePort, config.host, 'PROBE_PORT');
      started.push(probes);
      listening.push({ part: 'probe', server: probes });
    }
    let metricsPort: number | null = null;
    if (config.metrics.mode === 'listener') {
      const metricsListener = createMetricsListener(core);
      metricsPort = await listen(metricsListener, config.metrics.port, config.metrics.host, 'METRICS');
      started.push(metricsListener);
      listening.push({ part: 'metrics', server: metricsListener });
    }
    await api.listen({ port: config.apiPort, host: config.host, backlog: 4096 }).catch((err: unknown) => {
      throw listenFailure(err, 'API_PORT', config.apiPort, config.host);
    });
    const apiPort = (api.server.address() as AddressInfo).port;
    if (config.publicSmtpPort === 0) core.endpoints.publicSmtpPort = smtpPort;
    if (config.apiPort === 0 && config.publicUrl === undefined) {
      core.endpoints.dashboardBaseUrl = config.dashboardBaseUrl.replace(/:0$/, `:${apiPort}`);
    }
    if (config.capturePort === 0) {
      core.endpoints.capturePublicUrl = config.capturePublicUrl.replace(/:0\//, `:${capturePort}/`);
    }
    // Only once every port is ours: a start that fails earlier must not swallow the one-time first key.
    const { firstKey } = await core.workspaces.bootstrap(config.bootstrapApiKey);
    // Made now, so the banner and the dashboard show it before the first mail arrives.
    const catchAll = inboundPort === null ? undefined : await core.catchAll.ensure();
    sweeps = startSweeps(core, logger, { intervalSeconds: config.sweepIntervalSeconds });
    webhookSender = core.startWebhookSender(liveEventWire, (err, what) => logger.warn({ err }, what));
    ready = true;
    logger.info(
      {
        api: apiPort,
        smtp: smtpPort,
        smtpInbound: inboundPort,
        capture: capturePort,
        probe: probePort,
        store: store.kind,
        fdLimit: fdLimit?.soft ?? null,
        apiMaxConnections: budget.maxConnections,
        catchAll: catchAll?.sandboxId ?? null,
      },
      'sandtrap is ready',
    );

    let closing: Promise<void> | undefined;
    return {
      core,
      api,
      firstKey,
      catchAll,
      ports: {
        api: apiPort,
        smtp: smtpPort,
        smtpInbound: inboundPort,
        capture: capturePort,
        metrics: metricsPort,
        probe: probePort,
      },
      close: () => (closing ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
