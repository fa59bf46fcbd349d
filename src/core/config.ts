// The runtime configuration: parsed once from the environment with zod, frozen, passed down.
import { z } from 'zod';
import { isValidApiKeyFormat } from './apiKeyFormat.ts';
import { invalidTargetEntry } from './webhooks/targets.ts';

const port = z.coerce.number().int().min(0).max(65535);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** http(s)://host[:port] with at most a trailing slash: the dashboard's paths are absolute, so no prefix. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    );
  } catch {
    return false;
  }
}

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  API_PORT: port.default(8025),
  SMTP_PORT: port.default(2587),
  SMTP_INBOUND_PORT: port.default(2525),
  CAPTURE_PORT: port.default(8026),
  PROBE_PORT: port.optional(),
  PUBLIC_SMTP_HOST: optionalString,
  PUBLIC_SMTP_PORT: port.optional(),
  CAPTURE_DOMAIN: optionalString.pipe(
    z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, 'must be a DNS name')
      .optional(),
  ),
  CAPTURE_PUBLIC_URL: optionalString.pipe(
    z
      .string()
      .refine((v) => v.includes('{id}'), 'must contain {id}, the place of the sandbox id')
      .optional(),
  ),
  PUBLIC_URL: optionalString.pipe(
    z
      .string()
      .refine(isOrigin, 'must be an origin such as https://sandtrap.example.com (http or https, no path)')
      .transform((v) => new URL(v).origin)
      .optional(),
  ),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  BOOTSTRAP_API_KEY: optionalString.pipe(
    z
      .string()
      .refine(isValidApiKeyFormat, 'is not a valid sandtrap key; generate one with `sandtrap keys generate`')
      .optional(),
  ),
  SMTP_TLS_CERT: optionalString,
  SMTP_TLS_KEY: optionalString,
  SMTP_INBOUND_STARTTLS: z.enum(['auto', 'on', 'off']).default('auto'),
  SMTP_CATCH_ALL: z.enum(['auto', 'on', 'off']).default('auto'),
  METRICS: z
    .string()
    .trim()
    .default('off')
    .refine(
      (v) => v === 'off' || v === 'on' || /^[^:\s]*:\d{1,5}$/.test(v),
      'must be off, on or <host>:<port>',
    ),
  METRICS_TOKEN: optionalString,
  METRICS_PER_WORKSPACE: z.enum(['on', 'off']).default('off'),
  // OpenTelemetry's own variables (the SDK reads the rest itself): they only decide whether traces are on.
  OTEL_SDK_DISABLED: optionalString,
  OTEL_TRACES_EXPORTER: optionalString,
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString,
  SMTP_CATCH_ALL_SANDBOX: z.string().trim().min(1).max(200).default('catch-all'),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_SMTP_PER_IP: z.coerce.number().int().min(1).default(120),
  RATE_LIMIT_SMTP_PER_WORKSPACE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE: z.coerce.number().int().min(1).default(300),
  RATE_LIMIT_HEALTHZ_PER_IP: z.coerce.number().int().min(1).default(120),
  RATE_LIMIT_CAPTURE_PER_IP: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_CAPTURE_PER_WORKSPACE: z.coerce.number().int().min(1).default(3000),
  RATE_LIMIT_API_PER_KEY: z.coerce.number().int().min(1).default(300),
  RATE_LIMIT_API_PER_IP: z.coerce.number().int().min(1).default(900),
  SMTP_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).default(20),
  SMTP_SOCKET_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  API_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).default(200),
  FD_RESERVE: z.coerce.number().int().min(0).default(2_000),
  OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
  ),
  SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  TRUSTED_PROXIES: optionalString,
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OAUTH_ALLOW_PRIVATE_CLIENT_URLS: z.enum(['true', 'false']).default('false'),
  WEBHOOK_TARGETS: optionalString,
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(5_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
});

/** Bind addresses only this machine can reach: OAuth needs no PUBLIC_URL there (issuer is http://host:port). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** A host that clients can connect to: a wildcard bind address is not one. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Prometheus metrics: off, on the API port at /metrics (`api`), or on a listener of their own (`listener`, with
 * its host and port).
 */
export type MetricsMode = { mode: 'off' | 'api' } | { mode: 'listener'; host: string; port: number };

/** METRICS: `off`, `on` (the API port), or `<host>:<port>` (a listener of its own; an empty host is HOST). */
function metricsMode(value: string, host: string): MetricsMode {
  if (value === 'off') return { mode: 'off' };
  if (value === 'on') return { mode: 'api' };
  const colon = value.lastIndexOf(':');
  return { mode: 'listener', host: value.slice(0, colon) || host, port: Number(value.slice(colon + 1)) };
}

/**
 * Traces are off unless asked for with OpenTelemetry's standard variables: an exporter named in
 * OTEL_TRACES_EXPORTER (anything but `none`), or an OTLP endpoint. OTEL_SDK_DISABLED=true wins over both.
 */
function tracesOn(e: {
  OTEL_SDK_DISABLED?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
}): boolean {
  if (e.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  if (e.OTEL_TRACES_EXPORTER !== undefined) {
    return e.OTEL_TRACES_EXPORTER.split(',').some(
      (name) => !['', 'none'].includes(name.trim().toLowerCase()),
    );
  }
  return e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
}

/** The environment as the code reads it: the type Config is this schema's output. */
const configSchema = envSchema.transform((e) => {
  const captureDomain = e.CAPTURE_DOMAIN ?? 'capture.localhost';
  const capturePublicUrl =
    e.CAPTURE_PUBLIC_URL ??
    (e.CAPTURE_DOMAIN !== undefined
      ? `https://{id}.${captureDomain}`
      : `http://${reachableHost(e.HOST)}:${e.CAPTURE_PORT}/{id}`);
  const config = {
    host: e.HOST,
    apiPort: e.API_PORT,
    smtpPort: e.SMTP_PORT,
    /** 0 disables the inbound listener. */
    smtpInboundPort: e.SMTP_INBOUND_PORT,
    capturePort: e.CAPTURE_PORT,
    /** /healthz, /livez and /readyz on a listener of their own (src/cli/probeListener.ts); unset = none. */
    probePort: e.PROBE_PORT,
    publicSmtpHost: e.PUBLIC_SMTP_HOST ?? reachableHost(e.HOST),
    publicSmtpPort: e.PUBLIC_SMTP_PORT ?? e.SMTP_PORT,
    captureDomain: captureDomain.toLowerCase(),
    /** Template with `{id}` for a sandbox's captureUrl. */
    capturePublicUrl,
    /** PUBLIC_URL: the origin browsers use for this API listener (behind a proxy); unset = none declared. */
    publicUrl: e.PUBLIC_URL,
    /** Base of a sandbox's dashboardUrl: PUBLIC_URL, else http://<public host>:<API_PORT>. */
    dashboardBaseUrl: e.PUBLIC_URL ?? `http://${reachableHost(e.HOST)}:${e.API_PORT}`,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    bootstrapApiKey: e.BOOTSTRAP_API_KEY,
    smtpTlsCert: e.SMTP_TLS_CERT,
    smtpTlsKey: e.SMTP_TLS_KEY,
    /** The inbound port offers STARTTLS: with a configured certificate (auto), always (on, self-signed if none), never. */
    smtpInboundStartTls:
      e.SMTP_INBOUND_STARTTLS === 'on' ||
      (e.SMTP_INBOUND_STARTTLS === 'auto' && e.SMTP_TLS_CERT !== undefined),
    /** The inbound port stores mail for any address outside the sandboxes' domains in the catch-all sandbox. */
    // auto: on when no other machine can reach the listeners, as Mailpit on a laptop catches everything.
    smtpCatchAll: e.SMTP_CATCH_ALL === 'on' || (e.SMTP_CATCH_ALL === 'auto' && LOOPBACK_HOSTS.has(e.HOST)),
    /** The catch-all: a sandbox id, or the name of a kept sandbox in the first workspace (made when missing). */
    smtpCatchAllSandbox: e.SMTP_CATCH_ALL_SANDBOX,
    metrics: metricsMode(e.METRICS, e.HOST),
    /** A bearer token /metrics then requires; unset = none (keep the endpoint private). */
    metricsToken: e.METRICS_TOKEN,
    /** Counters per workspace (a workspace id label). */
    metricsPerWorkspace: e.METRICS_PER_WORKSPACE === 'on',
    /** OpenTelemetry traces (src/cli/tracing.ts starts the SDK, which reads every other OTEL_* variable). */
    traces: tracesOn(e),
    rateLimits: e.RATE_LIMITS === 'on',
    /** Per 60 s window unless named otherwise; all lifted when rateLimits is false. */
    limits: {
      smtpPerIp: e.RATE_LIMIT_SMTP_PER_IP,
      smtpPerWorkspace: e.RATE_LIMIT_SMTP_PER_WORKSPACE,
      /** Anonymous inbound mail (SMTP_INBOUND_PORT) per workspace: its own budget, apart from submission's. */
      smtpInboundPerWorkspace: e.RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE,
      /** GET /healthz per client address. */
      healthzPerIp: e.RATE_LIMIT_HEALTHZ_PER_IP,
      capturePerIp: e.RATE_LIMIT_CAPTURE_PER_IP,
      capturePerWorkspace: e.RATE_LIMIT_CAPTURE_PER_WORKSPACE,
      apiPerKey: e.RATE_LIMIT_API_PER_KEY,
      apiPerIp: e.RATE_LIMIT_API_PER_IP,
      /** Anonymous OAuth client registrations per client address per hour. */
      oauthRegistrationsPerHour: e.OAUTH_REGISTRATIONS_PER_HOUR,
    },
    /** Concurrent connections from one address, per listener; lifted (with the rate limits) by RATE_LIMITS=off. */
    connectionsPerIp: {
      smtp: e.RATE_LIMITS === 'on' ? e.SMTP_MAX_CONNECTIONS_PER_IP : Infinity,
      api: e.RATE_LIMITS === 'on' ? e.API_MAX_CONNECTIONS_PER_IP : Infinity,
    },
    /** An SMTP session is closed after this long without a byte, or without AUTH/MAIL/RCPT/DATA progress. */
    smtpSocketTimeoutSeconds: e.SMTP_SOCKET_TIMEOUT_SECONDS,
    /** File descriptors kept out of the API listener's reach, so SMTP, capture and the store can still open theirs. */
    fdReserve: e.FD_RESERVE,
    /** Shared rate-limit counters for several processes; unset = in memory. */
    redisUrl: e.REDIS_URL,
    /** How often TTL and retention sweeps run. */
    sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
    /** The API listener's time to receive a whole request (headers and body) before it closes the connection. */
    requestTimeoutSeconds: e.REQUEST_TIMEOUT_SECONDS,
    /** Addresses/CIDRs (or loopback, linklocal, uniquelocal) whose X-Forwarded-For is believed. */
    trustedProxies: (e.TRUSTED_PROXIES ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''),
    retentionDays: e.RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    /** OAuth for /mcp: on when PUBLIC_URL is set or the API listener is bound to loopback. */
    oauthEnabled: e.PUBLIC_URL !== undefined || LOOPBACK_HOSTS.has(e.HOST),
    /** Client ID metadata documents may be fetched from private, loopback and link-local addresses (development). */
    oauthAllowPrivateClientUrls: e.OAUTH_ALLOW_PRIVATE_CLIENT_URLS === 'true',
    webhooks: {
      /** WEBHOOK_TARGETS: hosts or CIDRs a webhook may target; empty = the default rule (webhookTargets.ts). */
      targets: (e.WEBHOOK_TARGETS ?? '')
        .split(',')
        .map((t) => t.trim().toLowerCase())
        .filter((t) => t !== ''),
      /** Loopback targets are allowed by default only when no other machine can reach the service. */
      loopbackBound: LOOPBACK_HOSTS.has(e.HOST),
      /** The first retry waits this long, each next one twice as long (capped at an hour). */
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      /** One delivery attempt's limit, connection to last byte. */
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    /** Messages at least this large are parsed on a worker pool; Infinity (unset) parses all on the main thread. */
  };
  // Frozen in place, so the type stays the plain one callers may copy and adjust (loadConfig freezes the top).
  Object.freeze(config.limits);
  Object.freeze(config.connectionsPerIp);
  Object.freeze(config.webhooks);
  return config;
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined>): Readonly<Config> {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if ((config.smtpTlsCert === undefined) !== (config.smtpTlsKey === undefined)) {
    throw new ConfigError('Invalid environment:\n  SMTP_TLS_CERT and SMTP_TLS_KEY must be set together');
  }
  const badTarget = invalidTargetEntry(config.webhooks.targets);
  if (badTarget !== undefined) {
    throw new ConfigError(
      `Invalid environment:\n  WEBHOOK_TARGETS: ${badTarget} is not a host name, an IP address or a CIDR`,
    );
  }
  return Object.freeze(config);
}
