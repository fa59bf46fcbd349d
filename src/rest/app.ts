// Builds the API listener: /api/v1 (REST), the OAuth authorization server (/oauth, /.well-known),
// /openapi/v1.json, /api-docs, /healthz and the dashboard (/).
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { Core } from '../core/core.ts';
import { installAuth } from './auth.ts';
import { clientErrorHandler } from './clientError.ts';
import { capConnectionsPerAddress } from './connectionCaps.ts';
import { installDocs } from './docs.ts';
import { installErrorHandling, sendProblem } from './errorHandler.ts';
import { problem } from '../core/problem.ts';
import { consentRoutes } from './oauth/consentRoutes.ts';
import { oauthEndpoints } from './oauth/endpoints.ts';
import { apiLimiters } from './rateLimit.ts';
import { providerRoutes } from './providers/routes.ts';
import { requestIdFor } from './requestId.ts';
import { requestForLog } from './requestLog.ts';
import { accountRoutes } from './routes/account.ts';
import { dashboardNotFoundPage, dashboardRoutes } from './routes/dashboard.ts';
import { eventRoutes } from './routes/events.ts';
import { keyRoutes } from './routes/keys.ts';
import { messageCheckRoutes } from './routes/messageChecks.ts';
import { messageHtmlRoutes } from './routes/messageHtml.ts';
import { messageRoutes } from './routes/messages.ts';
import { metricsRoutes } from './metricsRoutes.ts';
import { probeRoutes, type ReadinessPart } from './probes.ts';
import { mockPreviewRoutes } from './routes/mockPreview.ts';
import { mockStateRoutes } from './routes/mockState.ts';
import { requestRoutes } from './routes/requests.ts';
import { sandboxRoutes } from './routes/sandboxes.ts';
import { sessionRoutes } from './routes/session.ts';
import { waitRoutes } from './routes/waits.ts';
import { expectationRoutes } from './routes/expectations.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { smtpFaultRoutes } from './routes/smtpFaults.ts';
import { gatedServerFactory, type ServerTimeouts } from './turnGate.ts';

export interface ApiOptions {
  core: Core;
  logger: Logger;
  /** /healthz answers 200 only once this says every listener is up. */
  isReady?: () => boolean;
  /** The other listeners for /readyz, named, and whether each accepts connections now. */
  listeners?: () => ReadinessPart[];
  /** Other routes on this listener (MCP), under the per-IP limit; they do their own authentication. */
  mount?: (scope: FastifyInstance) => void;
  /** The built dashboard (index.html, assets/); dist/web unless a test says otherwise. */
  webDir?: string;
  /** Open connections at most (below the process's file-descriptor limit; see cli/fdLimit.ts). */
  maxConnections?: number;
  /** A span per request (@fastify/otel), continuing an incoming `traceparent`; off unless traces are on. */
  traces?: boolean;
}

/** Mock rule lists can reach 100 rules of 64 KB bodies. */
const BODY_LIMIT = 8 * 1024 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
const IDLE_SOCKET_MS = 120_000;
/** Routes that hold a request open on purpose (waits up to 300 s, MCP calls that wait, event streams). */
const HOLDING_SOCKET_MS = 330_000;
const HOLDS_OPEN = /\/wait$|\/events$|^\/mcp$/;
const PROBE_PATHS = new Set(['/healthz', '/livez', '/readyz', '/metrics']);
/** Open connections at most: 10,000 held waits plus room for everything else. */
export const MAX_CONNECTIONS = 20_000;

const closeAfterReply = async (_request: FastifyRequest, reply: FastifyReply) => {
  reply.header('Connection', 'close');
};

export async function buildApi({
  core,
  logger,
  isReady = () => true,
  listeners = () => [],
  mount,
  webDir,
  maxConnections = MAX_CONNECTIONS,
  traces = false,
}: ApiOptions): Promise<FastifyInstance> {
  const timeouts: ServerTimeouts = {
    // Every request must arrive whole within this (a slow or stalled sender is cut off); answering may take
    // longer: a wait's request is received at once and then held.
    requestTimeout: core.config.requestTimeoutSeconds * 1000,
    // A connection with no traffic at all is closed after this; waits and streams lift it for their request.
    connectionTimeout: IDLE_SOCKET_MS,
    keepAliveTimeout: 72_000,
    http: {
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, core.config.requestTimeoutSeconds * 1000),
      connectionsCheckingInterval: 1_000,
    },
  };
  const app = Fastify({
    // A child whose `req` serializer replaces fastify's: secret query values are redacted (requestLog.ts).
    loggerInstance: logger.child({}, { serializers: { req: requestForLog } }) as FastifyBaseLogger,
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT,
    ...timeouts,
    // Requests pass the turn gate before fastify sees them: a burst queues there instead of in one long turn.
    serverFactory: gatedServerFactory(timeouts, PROBE_PATHS),
    routerOptions: { ignoreTrailingSlash: true },
    // A path the router cannot even read (bad percent-encoding, a segment over 100 characters): no id of ours
    // looks like that, so it is an invalid path, in the documented shape.
    frameworkErrors: (err, request, reply) => {
      const why =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'a path segment is longer than any id (100 characters at most)'
          : 'the path is not valid percent-encoded UTF-8';
      reply.header('X-Request-Id', request.id);
      return sendProblem(
        reply,
        problem(
          'validation-error',
          `The URL path is not one this API has: ${why}.`,
          request.id,
          request.url,
          [{ path: '(path)', message: why }],
        ),
      );
    },
    clientErrorHandler: clientErrorHandler(logger as FastifyBaseLogger),
  });

  app.server.maxConnections = maxConnections;
  // First, so that its hooks wrap every route's. Loaded only when traces are on.
  if (traces) {
    const { FastifyOtelInstrumentation } = await import('@fastify/otel');
    const otel = new FastifyOtelInstrumentation({
      // Probes and scrapes come every few seconds and say nothing about a trace.
      ignorePaths: ({ url }) => PROBE_PATHS.has(url),
      instrumentHooks: false,
    });
    await app.register(otel.plugin());
  }
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // (`inject` requests have no real socket.)
    if (HOLDS_OPEN.test(request.routeOptions.url ?? '')) request.raw.socket?.setTimeout?.(HOLDING_SOCKET_MS);
  });
  metricsRoutes(app, core);
  capConnectionsPerAddress(app, {
    perAddress: core.config.connectionsPerIp.api,
    trustedProxies: core.config.trustedProxies,
    onRefused: (ip) =>
      logger.warn(
        { ip, limit: core.config.connectionsPerIp.api },
        'API connections refused: too many at once from this address (API_MAX_CONNECTIONS_PER_IP)',
      ),
  });
  installErrorHandling(app, dashboardNotFoundPage(webDir));
  const limiters = apiLimiters(core.limits, core.config);

  // A probe's connection is not kept alive: probing every few seconds must not hold a socket for good.
  probeRoutes(app, {
    core,
    isReady,
    listeners,
    onRequest: [closeAfterReply, ...(limiters ? [limiters.healthz] : [])],
  });
  await installDocs(app);
  await app.register(async (scope) => dashboardRoutes(scope, webDir));

  // Sign-in and sign-out authenticate themselves (a key in the body, or the cookie itself).
  await app.register(
    async (session) => {
      if (limiters !== undefined) session.addHook('onRequest', limiters.perIp);
      sessionRoutes(session, core);
    },
    { prefix: '/api/v1' },
  );

  await app.register(
    async (v1) => {
      if (limiters !== undefined) v1.addHook('onRequest', limiters.perIp);
      installAuth(v1, core);
      if (limiters !== undefined) v1.addHook('onRequest', limiters.perKey);
      accountRoutes(v1, core);
      keyRoutes(v1, core);
      sandboxRoutes(v1, core);
      mockPreviewRoutes(v1, core);
      mockStateRoutes(v1, core);
      smtpFaultRoutes(v1, core);
      messageRoutes(v1, core);
      messageHtmlRoutes(v1, core);
      messageCheckRoutes(v1, core);
      requestRoutes(v1, core);
      waitRoutes(v1, core);
      expectationRoutes(v1, core);
      eventRoutes(v1, core);
      webhookRoutes(v1, core);
      consentRoutes(v1, core);
    },
    { prefix: '/api/v1' },
  );
  // Provider send APIs (SendGrid, Postmark, Resend…) authenticate with the sandbox's key, in each one's shape.
  await app.register(async (scope) => {
    if (limiters !== undefined) scope.addHook('onRequest', limiters.perIp);
    await providerRoutes(scope, core);
  });
  // Without PUBLIC_URL off loopback there is no issuer URL clients could trust: no OAuth at all (404s).
  if (core.oauth.enabled) {
    await app.register(async (scope) => oauthEndpoints(scope, core, { perIp: limiters?.perIp }));
  }
  if (mount !== undefined) {
    await app.register(async (scope) => {
      if (limiters !== undefined) scope.addHook('onRequest', limiters.perIp);
      mount(scope);
    });
  }
  return app;
}
