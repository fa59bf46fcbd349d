// The composition of core: one object built from the store, config and clock, handed to every adapter.
import { createApiKeyService } from './apiKeys.ts';
import { createBackupService } from './backup.ts';
import { createCheckService } from './checks/service.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { EventBus } from './events.ts';
import { createCaptureService } from './http/capture.ts';
import { createLiveEventService } from './liveEvents/service.ts';
import { createExpiryWatch } from './sandboxExpiry.ts';
import { createMailIngest } from './mail/ingest.ts';
import { createSmtpAccess } from './mail/smtpAccess.ts';
import { createSmtpAdmission } from './mail/smtpAdmission.ts';
import { createCatchAll, type CatchAll } from './mail/catchAll.ts';
import { probeStore } from './health.ts';
import { createMetrics } from './metrics.ts';
import { createProviderMailService } from './mail/providers/service.ts';
import { createMessageService } from './messages.ts';
import { createClientMetadataFetcher } from './oauth/clientMetadataFetch.ts';
import { createOAuthService } from './oauth/service.ts';
import { createRateLimits } from './rateLimits.ts';
import { createReplayService } from './replay/service.ts';
import { createRequestService } from './requests.ts';
import { createMockStateService } from './mocks/mockState.ts';
import { createSandboxService, type Endpoints } from './sandboxes.ts';
import { createSessionService } from './sessions.ts';
import { createSmtpFaultService } from './smtpFaults/service.ts';

import { createStreamActions } from './streamActions.ts';
import { createSweeper } from './sweeps.ts';
import {
  analyzeGrownTables,
  maintainTables,
  type MaintenanceOptions,
  type MaintenanceResult,
} from './store/maintenance.ts';
import { createWaitService } from './waits.ts';
import { createExpectationService } from './expectations/service.ts';
import type { Store } from './store/openStore.ts';
import { createStoreWriters } from './store/writers.ts';
import { createWorkspaceService } from './workspaces.ts';
import { startWebhookDelivery, type WebhookSender, type WireEvent } from './webhooks/delivery.ts';
import { createWebhookService } from './webhooks/service.ts';

export interface CoreDeps {
  store: Store;
  config: Readonly<Config>;
  clock?: Clock;
  /** Change events; in-process only unless given a transport (PostgreSQL LISTEN/NOTIFY). */
  bus?: EventBus;
  /** How often waits re-check the store for arrivals another process may have announced in vain. */
  waitRecheckMs?: number;
  /** An ioredis client for shared rate-limit counters (REDIS_URL). */
  redis?: unknown;
}

export function createCore({
  store,
  config,
  clock = systemClock,
  bus = new EventBus(),
  waitRecheckMs,
  redis,
}: CoreDeps) {
  const { db } = store;
  const limits = createRateLimits(config, redis);
  const metrics = createMetrics({
    perWorkspace: config.metricsPerWorkspace,
    processMetrics: config.metrics.mode !== 'off',
  });
  const apiKeys = createApiKeyService(db, clock);
  // Group commit, its concurrency and prepared inserts are the store's business, per stream.
  // Timing each commit costs a little on the hottest path: only when someone scrapes it.
  const writers = createStoreWriters(
    store,
    config.metrics.mode === 'off'
      ? undefined
      : {
          batch: (stream, items) => metrics.batchSize.observe({ stream }, items),
          acknowledged: (stream, seconds) => metrics.commitSeconds.observe({ stream }, seconds),
        },
  );
  // Mutable only until the listeners are bound: port 0 (tests) is replaced by the port actually taken.
  const endpoints: Endpoints = {
    publicSmtpHost: config.publicSmtpHost,
    publicSmtpPort: config.publicSmtpPort,
    captureDomain: config.captureDomain,
    capturePublicUrl: config.capturePublicUrl,
    dashboardBaseUrl: config.dashboardBaseUrl,
  };
  // One timer per expiring sandbox, shared by the waits and streams open on it.
  const expiry = createExpiryWatch(clock);
  const liveEvents = createLiveEventService(db, clock, bus, expiry, { recheckMs: waitRecheckMs });
  const waits = createWaitService(db, clock, bus, expiry, {
    recheckMs: waitRecheckMs,
    onEnded: (stream, outcome) => metrics.waits.inc({ stream, outcome }),
    onWake: (seconds) => metrics.waitWake.observe(seconds),
  });
  metrics.read('sandtrap_waits_open', () => waits.active());
  metrics.read('sandtrap_event_streams_open', () => liveEvents.openCount());
  metrics.read('sandtrap_store_connections', () => store.connections?.().total ?? 1);
  metrics.read('sandtrap_store_connections_waiting', () => store.connections?.().waiting ?? 0);
  const sweep = createSweeper(db, clock, bus, {
    retentionDays: config.retentionDays,
    useAdvisoryLock: store.kind === 'postgres',
  });
  const oauth = createOAuthService(db, clock, {
    enabled: config.oauthEnabled,
    // Read on each use: the API port is known only once the listener is bound (port 0 in tests).
    urls: {
      issuer: () => endpoints.dashboardBaseUrl.replace(/\/$/, ''),
      resource: () => `${endpoints.dashboardBaseUrl.replace(/\/$/, '')}/mcp`,
    },
    fetcher: createClientMetadataFetcher({ allowPrivate: config.oauthAllowPrivateClientUrls, clock }),
    registrations: limits.oauthRegistrations,
    useAdvisoryLock: store.kind === 'postgres',
  });
  const smtpAccess = createSmtpAccess(db, clock, bus, config.captureDomain);
  const workspaces = createWorkspaceService(db, clock);
  // The catch-all and the sandbox service refer to each other; both are only called after start.
  const catchAll: CatchAll = createCatchAll(
    db,
    clock,
    { enabled: config.smtpCatchAll, sandbox: config.smtpCatchAllSandbox },
    {
      firstWorkspaceId: async () =>
        ((await workspaces.findBySubdomainOrId('default')) ?? (await workspaces.all())[0])?.orgId,
      createSandbox: async (workspaceId, name) => (await sandboxes.create(workspaceId, { name })).id,
      deleteSandbox: (workspaceId, id) => sandboxes.delete(workspaceId, id),
      isLive: (id) => smtpAccess.isLive(id),
    },
  );
  const webhookPolicy = { targets: config.webhooks.targets, loopbackBound: config.webhooks.loopbackBound };
  const sandboxes = createSandboxService(db, clock, endpoints, bus, (id) => catchAll.is(id), webhookPolicy);
  const ingestMail = createMailIngest(clock, bus, writers.messages);
  let webhookSender: WebhookSender | undefined;
  const messages = createMessageService(db, clock, bus);
  return {
    config,
    clock,
    storeKind: store.kind,
    bus,
    workspaces,
    apiKeys,
    sessions: createSessionService(db, clock, apiKeys, bus),
    endpoints,
    sandboxes,
    messages,
    /** Per-message checks: HTML compatibility, spam-style score, and the link check (fetches only when asked). */
    checks: createCheckService((ws, sid, mid) => messages.get(ws, sid, mid), webhookPolicy),
    ingestMail,
    /** Mail sent through provider HTTP APIs (SendGrid, Postmark, Resend…), captured as Messages. */
    providers: createProviderMailService({ db, clock, limits, access: smtpAccess, ingestMail }),
    /** SMTP commands' admission (login, sender, recipient), as `capture.admit` is for HTTP. */
    smtp: createSmtpAdmission(smtpAccess, limits, catchAll),
    /** Per-sandbox SMTP fault scripts and the log of the sessions they shaped (both SMTP ports apply them). */
    smtpFaults: createSmtpFaultService(db, clock, bus),
    /** The inbound port's catch-all sandbox (SMTP_CATCH_ALL). */
    catchAll,
    /** Prometheus metrics (METRICS): the adapters count what they answer. */
    metrics,
    /** Whether the store answers now (/readyz). */
    probeStore: () => probeStore(db),
    limits,
    capture: createCaptureService(db, clock, limits, bus, writers.requests, () => webhookSender?.wake()),
    waits,
    /** Counts over mail and requests together, in one long poll under the waits' limits. */
    expectations: createExpectationService(db, clock, bus, expiry, waits, { recheckMs: waitRecheckMs }),
    /** VACUUM/ANALYZE where the store has no autovacuum of its own (embedded); PostgreSQL runs autovacuum. */
    maintainStore: (options?: MaintenanceOptions): Promise<MaintenanceResult> =>
      store.kind === 'pglite' ? maintainTables(db, options) : Promise.resolve({ analyzed: [], vacuumed: [] }),
    /** ANALYZE of tables that outgrew their statistics, on either store (maintenance.ts). */
    analyzeGrownTables: (options?: MaintenanceOptions): Promise<MaintenanceResult> =>
      analyzeGrownTables(db, store.kind === 'pglite', options),
    /** One sweep; the process that ran it (held the lock) also drops journaled changes past keeping. */
    sweep: async () => {
      const result = await sweep();
      if (result.ran) {
        await liveEvents.prune();
        await oauth.prune();
      }
      return result;
    },
    liveEvents,
    requests: createRequestService(db, clock, bus),
    /** Bulk marks and deletes on either stream, and each sandbox's activity counts (the dashboard's). */
    streamActions: createStreamActions(db, clock, bus),
    /** A captured request sent again to a URL a person gives, under the webhooks' target rules. */
    replay: createReplayService(db, clock, webhookPolicy, config.webhooks.timeoutMs),
    oauth,
    /** Export and import of a sandbox's streams (`sandtrap export`, `sandtrap import`). */
    backup: createBackupService(db, clock, bus, ingestMail, writers.requests),
    /** Mock rules' scenario states and queued callbacks (issue 40). */
    mockState: createMockStateService(db, sandboxes, bus, clock, waits.acquireSlot),
    /** Outgoing webhooks: subscriptions, the delivery log and pings (the sender runs apart, below). */
    webhooks: createWebhookService(db, clock, webhookPolicy, () => webhookSender?.wake()),
    /**
     * Starts this process's webhook fan-out and sender; `wire` is the event stream's wire form (the payload's
     * `data` is what an SSE client sees).
     */
    startWebhookSender: (wire: WireEvent, onError: (err: unknown, what: string) => void): WebhookSender => {
      webhookSender = startWebhookDelivery(db, clock, bus, {
        policy: webhookPolicy,
        retryBaseMs: config.webhooks.retryBaseMs,
        timeoutMs: config.webhooks.timeoutMs,
        soleProcess: store.kind === 'pglite',
        wire,
        onError,
        onAttempt: (outcome, seconds) => {
          metrics.webhookAttempts.inc({ outcome });
          if (seconds !== null) metrics.webhookDelivered.observe(seconds);
        },
      });
      return webhookSender;
    },
  };
}

export type Core = ReturnType<typeof createCore>;
