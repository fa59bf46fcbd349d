// The HTTP capture listener: any method, path and body sent to a sandbox is recorded exactly as received
// (raw header list, raw bytes) and answered by its mock rules, after the record is committed. It serves
// nothing else, never sets a cookie of its own, and the dashboard's session cookie never gets past core.
// Nothing is set on a response before writeHead: node then writes the header list as given (order, case,
// duplicates), which is the list core recorded as the reply sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import proxyaddr from 'proxy-addr';
import { MAX_CAPTURE_BODY_BYTES } from '../core/http/capture.ts';
import type { Core } from '../core/core.ts';
import { logFailure } from '../core/failureLog.ts';
import { isAppError } from '../core/errors.ts';
import { problem, requestIdFrom, type ProblemSlug } from '../core/problem.ts';
import { traceCapture } from './captureSpan.ts';
import { writeReply } from './faults.ts';
import { discardBody } from './linger.ts';
import { routeCapture } from './routing.ts';

/** One exchange on the capture port: its correlation id, and whether a refusal must close the connection. */
interface Exchange {
  requestId: string;
  /** A client waiting for 100 Continue that is refused may still send its body: don't keep that connection. */
  close: boolean;
}

/** Refusals in the one problem+json shape every door uses; capture replies never set a cookie. */
function refuse(
  res: ServerResponse,
  ex: Exchange,
  slug: ProblemSlug,
  detail: string,
  extra: Record<string, string> = {},
) {
  const body = problem(slug, detail, ex.requestId, res.req.url ?? '/');
  res.writeHead(body.status, {
    'X-Request-Id': ex.requestId,
    ...(ex.close ? { Connection: 'close' } : {}),
    'Content-Type': 'application/problem+json',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': 'sandbox',
    ...extra,
  });
  res.end(JSON.stringify(body));
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

/** Reads the body up to the limit; 'too-big' as soon as it is passed (nothing more is buffered). */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-big' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (value: Buffer | 'too-big' | 'aborted') => {
      req.off('data', onData);
      req.off('end', onEnd);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_CAPTURE_BODY_BYTES) return void chunks.push(chunk);
      chunks.length = 0;
      req.pause(); // until the refusal is sent; then the rest is discarded (linger.ts)
      finish('too-big');
    };
    const onEnd = () => finish(Buffer.concat(chunks, size));
    req.on('data', onData);
    req.on('end', onEnd);
    req.once('error', () => finish('aborted'));
    req.once('aborted', () => finish('aborted'));
  });
}

export function createCaptureListener(core: Core, logger: Logger): Server {
  const log = logger.child({ listener: 'capture' });
  const trust = proxyaddr.compile(core.config.trustedProxies);
  const domain = core.config.captureDomain;

  /** `ex.close` starts true when the client waits for 100 Continue, sent only once the request is admitted. */
  async function handle(req: IncomingMessage, res: ServerResponse, ex: Exchange): Promise<void> {
    const expectsContinue = ex.close;
    const routed = routeCapture(req.headers.host, req.url ?? '/', domain);
    const sourceIp = proxyaddr(req, trust) || null;
    if (routed === undefined) {
      discardBody(req);
      return refuse(
        res,
        ex,
        'not-found',
        `No sandbox here: send to <sandbox id>.${domain} or /<sandbox id>/... on this port.`,
      );
    }
    const admission = await core.capture.admit(routed.sandboxId, sourceIp);
    if (!admission.ok) {
      discardBody(req);
      if (admission.reason === 'not_found') {
        return refuse(
          res,
          ex,
          'not-found',
          'No such sandbox: it was deleted, has expired, or never existed.',
        );
      }
      return refuse(res, ex, 'rate-limited', 'Over the capture rate limit; nothing was recorded.', {
        'Retry-After': String(admission.retryAfterSeconds),
      });
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > MAX_CAPTURE_BODY_BYTES) {
      discardBody(req);
      return refuse(res, ex, 'payload-too-large', 'The body is over 5 MB; nothing was recorded.');
    }
    if (expectsContinue) {
      ex.close = false;
      res.writeContinue();
    }
    const body = await readBody(req);
    if (body === 'aborted') return;
    if (body === 'too-big') {
      discardBody(req);
      return refuse(res, ex, 'payload-too-large', 'The body is over 5 MB; nothing was recorded.');
    }
    const reply = await core.capture.record(admission.target, {
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      httpVersion: req.httpVersion,
      path: routed.path,
      query: routed.query,
      headers: pairs(req.rawHeaders),
      body,
      sourceIp,
      replyHeaders: [['X-Request-Id', ex.requestId]],
    });
    if (reply === undefined) {
      return refuse(
        res,
        ex,
        'not-found',
        'The sandbox was deleted while the request arrived; nothing was recorded.',
      );
    }
    core.metrics.workspaceItems?.inc({ workspace: admission.target.workspaceId, stream: 'requests' });
    // Core built the whole list, Content-Length included, and recorded it with the body as sent; a rule's
    // delay or fault is applied now, after the record is committed.
    await writeReply(res, reply);
  }

  const server = createServer(
    {
      requestTimeout: 30_000,
      headersTimeout: 10_000,
      keepAliveTimeout: 5_000,
      maxHeaderSize: 64 * 1024,
    },
    (req, res) => serve(req, res, false),
  );
  server.on('checkContinue', (req, res) => serve(req, res, true));
  const capitalize = (phrase: string) => phrase.charAt(0).toUpperCase() + phrase.slice(1);
  const metricsOn = core.config.metrics.mode !== 'off';

  function serve(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void {
    const ex: Exchange = { requestId: requestIdFrom(req.headers['x-request-id']), close: expectsContinue };
    if (metricsOn) res.once('finish', () => core.metrics.captures.inc({ status: String(res.statusCode) }));
    traceCapture(req, res);
    handle(req, res, ex).catch((err: unknown) => {
      const unavailable = isAppError(err) && err.code === 'unavailable';
      // The store's reason ("disk full in DATA_DIR", "the database is unreachable") goes into the log and reply.
      logFailure(log, err, { url: req.url }, { refused: 'capture refused', failed: 'capture failed' });
      if (res.headersSent) return void res.destroy();
      discardBody(req);
      refuse(
        res,
        ex,
        'unavailable',
        unavailable && err.reason !== undefined
          ? `${capitalize(err.reason)}; nothing was recorded. Retry in ${err.retryAfterSeconds ?? 5} s.`
          : 'The request could not be recorded; nothing was kept. Retry later.',
        { 'Retry-After': String(unavailable ? (err.retryAfterSeconds ?? 5) : 5) },
      );
    });
  }
  server.on('clientError', (err, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
    log.debug({ err: (err as Error).message }, 'malformed capture request');
  });
  return server;
}
