// Keeps one address from holding an SMTP listener: at most N sessions per client address (the next one is
// refused with 421 4.7.0), and a session that makes no progress (AUTH, MAIL, RCPT, DATA) within the socket
// timeout is closed even if it keeps the socket busy with NOOP, RSET or EHLO, which reset smtp-server's own
// idle timer. Built only on smtp-server's hooks and the listening socket's public 'connection' event.
import type { Server as NetServer, Socket } from 'node:net';
import type { SMTPServerSession } from 'smtp-server';
import { replies, type SmtpReplyError } from './replies.ts';

/** After asking smtp-server to time the session out, this long before the socket is destroyed outright. */
const FORCE_CLOSE_MS = 5_000;

export interface ConnectionGuardOptions {
  /** Sessions at once per client address; Infinity lifts the cap. */
  maxPerAddress: number;
  /** Time allowed from one step of progress to the next (the listener's socket timeout). */
  idleMs: number;
  /** Told at the first refusal of an address, again only after it went back under the cap. */
  onRefused?: (ip: string) => void;
  /** Told when a session is closed for making no progress. */
  onIdleClose?: (closed: { session: string; ip: string }) => void;
}

interface Tracked {
  address: string;
  /** The socket smtp-server times: the accepted one, then the TLS socket after STARTTLS. */
  socket: Socket | undefined;
  raw: Socket | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Hooks in flight: the client waits for us meanwhile, so the timeout is only decided when they finish. */
  busy: number;
  /** The timeout passed while a hook was in flight. */
  lapsed: boolean;
}

/** The form smtp-server gives session.remoteAddress: an IPv4 peer of a dual-stack listener without ::ffff:. */
function normalize(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
}

const socketKey = (address: string | undefined, port: number | undefined) =>
  `${normalize(address)}|${port ?? 0}`;

export interface ConnectionGuard {
  /** Watches the listening socket's accepted connections (before any hook runs). */
  attach(server: NetServer): void;
  /** From onConnect: a reply error when the address already has its share of sessions. */
  admit(session: SMTPServerSession): SmtpReplyError | undefined;
  /** From onSecure: the session's traffic now runs on this TLS socket. */
  secured(session: SMTPServerSession, socket: Socket): void;
  /** A hook (AUTH, MAIL, RCPT, DATA) started: while it runs the client waits for us and is not idle. */
  busy(session: SMTPServerSession): void;
  /** The hook finished. Accepted, the session gets a whole timeout for its next step; refused, its clock
   * runs on (a client looping over refused commands is not making progress). */
  done(session: SMTPServerSession, accepted: boolean): void;
  /** Closes the session's connection at once, without a reply (an SMTP fault script's `drop`). */
  drop(session: SMTPServerSession): void;
  /** From onClose. */
  closed(session: SMTPServerSession): void;
}

export function createConnectionGuard(options: ConnectionGuardOptions): ConnectionGuard {
  /** Accepted sockets not yet matched to a session, by peer address and port. */
  const accepted = new Map<string, Socket>();
  const sessions = new Map<string, Tracked>();
  const perAddress = new Map<string, number>();
  /** Addresses refused since they last were under the cap (one log line per episode, not per connection). */
  const refusing = new Set<string>();

  function expire(id: string): void {
    const tracked = sessions.get(id);
    if (tracked === undefined) return;
    tracked.timer = undefined;
    if (tracked.busy > 0) {
      tracked.lapsed = true;
      return;
    }
    options.onIdleClose?.({ session: id, ip: tracked.address });
    // smtp-server closes a socket idle for its socketTimeout with its own 421; a 1 ms window makes that happen
    // at the next pause in the client's traffic. A client that never pauses is cut off a little later.
    tracked.socket?.setTimeout(1);
    const raw = tracked.raw;
    if (raw !== undefined) setTimeout(() => raw.destroy(), FORCE_CLOSE_MS).unref();
  }

  function arm(id: string, tracked: Tracked): void {
    clearTimeout(tracked.timer);
    tracked.timer = setTimeout(() => expire(id), options.idleMs);
    tracked.timer.unref();
  }

  return {
    attach(server) {
      server.on('connection', (socket: Socket) => {
        const key = socketKey(socket.remoteAddress, socket.remotePort);
        accepted.set(key, socket);
        socket.once('close', () => {
          if (accepted.get(key) === socket) accepted.delete(key);
        });
      });
    },
    admit(session) {
      const address = normalize(session.remoteAddress);
      const count = perAddress.get(address) ?? 0;
      if (count >= options.maxPerAddress) {
        if (!refusing.has(address)) {
          refusing.add(address);
          options.onRefused?.(address);
        }
        return replies.tooManyConnections(options.maxPerAddress);
      }
      perAddress.set(address, count + 1);
      const key = socketKey(session.remoteAddress, session.remotePort);
      const raw = accepted.get(key);
      accepted.delete(key);
      const tracked: Tracked = { address, socket: raw, raw, timer: undefined, busy: 0, lapsed: false };
      sessions.set(session.id, tracked);
      arm(session.id, tracked);
      return undefined;
    },
    secured(session, socket) {
      const tracked = sessions.get(session.id);
      if (tracked === undefined) return;
      tracked.socket = socket;
      arm(session.id, tracked);
    },
    busy(session) {
      const tracked = sessions.get(session.id);
      if (tracked !== undefined) tracked.busy++;
    },
    done(session, accepted) {
      const tracked = sessions.get(session.id);
      if (tracked === undefined) return;
      tracked.busy = Math.max(0, tracked.busy - 1);
      if (accepted) {
        tracked.lapsed = false;
        arm(session.id, tracked);
      } else if (tracked.lapsed && tracked.busy === 0) {
        expire(session.id);
      }
    },
    drop(session) {
      const tracked = sessions.get(session.id);
      tracked?.socket?.destroy();
      tracked?.raw?.destroy();
    },
    closed(session) {
      const tracked = sessions.get(session.id);
      if (tracked === undefined) return; // refused at onConnect: never counted
      sessions.delete(session.id);
      clearTimeout(tracked.timer);
      refusing.delete(tracked.address);
      const left = (perAddress.get(tracked.address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(tracked.address);
      else perAddress.set(tracked.address, left);
    },
  };
}
