// Keeps one client address from holding the API listener: at most API_MAX_CONNECTIONS_PER_IP open connections
// from it. A connection over the cap is not served: its first request is answered 429 problem+json with
// Retry-After and `Connection: close`, and one that sends nothing is dropped after a few seconds.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import proxyaddr from 'proxy-addr';
import { AppError } from '../core/errors.ts';

/** An over-cap connection that has not sent a request by then is dropped. */
const OVER_CAP_GRACE_MS = 2_000;

export interface ConnectionCapOptions {
  /** Open connections per client address; Infinity lifts the cap. */
  perAddress: number;
  /** TRUSTED_PROXIES: a proxy carries many clients on its connections, so its address is not capped. */
  trustedProxies: string[];
  /** Told at the first refusal of an address, again only after it went back under the cap. */
  onRefused?: (ip: string) => void;
}

/** An IPv4 peer of a dual-stack listener is the same client as on an IPv4 listener. */
const normalize = (address: string | undefined) =>
  (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();

export function capConnectionsPerAddress(app: FastifyInstance, options: ConnectionCapOptions): void {
  if (options.perAddress === Infinity) return;
  const trust = proxyaddr.compile(options.trustedProxies);
  const open = new Map<string, number>();
  const overCap = new WeakSet<Socket>();
  const refusing = new Set<string>();

  app.server.on('connection', (socket: Socket) => {
    const address = normalize(socket.remoteAddress);
    if (address === '' || trust(address, 0)) return;
    const count = open.get(address) ?? 0;
    if (count >= options.perAddress) {
      overCap.add(socket);
      if (!refusing.has(address)) {
        refusing.add(address);
        options.onRefused?.(address);
      }
      const drop = setTimeout(() => socket.destroy(), OVER_CAP_GRACE_MS);
      drop.unref();
      socket.once('close', () => clearTimeout(drop));
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      refusing.delete(address);
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });

  app.addHook('onRequest', async (request, reply) => {
    // (`inject` requests have no real socket and are never over the cap.)
    if (!overCap.has(request.raw.socket)) return;
    reply.header('Connection', 'close');
    throw new AppError(
      'rate_limited',
      `Too many connections from your address (at most ${options.perAddress} at once); ` +
        'reuse or close the ones you have, and retry.',
      { retryAfterSeconds: 1 },
    );
  });
}
