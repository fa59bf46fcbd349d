// The composition root: opens the store, builds core, starts every listener, and stops them in order.
import type { Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { SMTPServer } from 'smtp-server';
import { createCaptureListener } from '../capture/captureListener.ts';
import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import { createCore, type Core } from '../core/core.ts';
import { openStore, type Store } from '../core/store/openStore.ts';
import { buildApi } from '../rest/app.ts';
import { createCaptureSmtpServer } from '../smtp/captureServer.ts';
import { loadTlsCredentials } from '../smtp/tlsCredentials.ts';

export interface RunningServer {
  core: Core;
  api: FastifyInstance;
  ports: { api: number; smtp: number; smtpInbound: number | null; capture: number };
  /** The first key of a brand-new store, when this start created it. */
  firstKey: string | undefined;
  close(): Promise<void>;
}

export function storeFor(config: Readonly<Config>): Promise<Store> {
  return config.databaseUrl === undefined
    ? openStore({ kind: 'pglite', dataDir: config.dataDir })
    : openStore({ kind: 'postgres', url: config.databaseUrl });
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

function closeServer(server: NetServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Stops accepting; sessions in DATA finish (smtp-server gives them closeTimeout) before the store closes. */
function closeSmtp(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function startServer(
  config: Readonly<Config>,
  options: { logger: Logger; clock?: Clock; store?: Store },
): Promise<RunningServer> {
  const { logger } = options;
  const store = options.store ?? (await storeFor(config));
  const core = createCore({
    store,
    config,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });

  let ready = false;
  const started: NetServer[] = [];
  const smtpServers: SMTPServer[] = [];
  const api = await buildApi({ core, logger, isReady: () => ready });
  try {
    const tls = await loadTlsCredentials({
      certFile: config.smtpTlsCert,
      keyFile: config.smtpTlsKey,
      dataDir: config.dataDir,
      hostname: config.publicSmtpHost,
    });
    const startSmtp = async (mode: 'submission' | 'inbound', port: number, variable: string) => {
      const smtp = createCaptureSmtpServer({ core, logger, tls, mode, hostname: config.publicSmtpHost });
      smtp.on('error', (err) => logger.warn({ err, listener: `smtp-${mode}` }, 'SMTP connection error'));
      const bound = await listen(smtp.server, port, config.host, variable);
      smtpServers.push(smtp);
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
    await api.listen({ port: config.apiPort, host: config.host }).catch((err: unknown) => {
      throw listenFailure(err, 'API_PORT', config.apiPort, config.host);
    });
    const apiPort = (api.server.address() as AddressInfo).port;
    // Only once every port is ours: a start that fails earlier must not swallow the one-time first key.
    const { firstKey } = await core.workspaces.bootstrap(config.bootstrapApiKey);
    ready = true;
    logger.info(
      { api: apiPort, smtp: smtpPort, smtpInbound: inboundPort, capture: capturePort, store: store.kind },
      'sandtrap is ready',
    );

    let closing: Promise<void> | undefined;
    return {
      core,
      api,
      firstKey,
      ports: { api: apiPort, smtp: smtpPort, smtpInbound: inboundPort, capture: capturePort },
      close() {
        closing ??= (async () => {
          ready = false;
          await Promise.all([api.close(), ...started.map(closeServer), ...smtpServers.map(closeSmtp)]);
          await store.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await Promise.allSettled([api.close(), ...started.map(closeServer), ...smtpServers.map(closeSmtp)]);
    await store.close();
    throw err;
  }
}
