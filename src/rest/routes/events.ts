// Live events over Server-Sent Events: GET /events (the workspace) and GET /sandboxes/{sandboxId}/events.
// Refusals (401, 404, 429) are ordinary problem answers; once open, the connection is the stream's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import type { LiveSink } from '../../core/liveEvents/stream.ts';
import type { StreamEvent } from '../../core/liveEvents/types.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { components } from '../../../openapi/schema.d.ts';
import { messageSummaryDto, requestSummaryDto, sandboxDto } from '../mappers.ts';

type WireEvent = components['schemas']['LiveEvent'];

const sandboxParams = z.object({ sandboxId: uuid });
const streamQuery = z.object({ lastEventId: z.string().max(100).optional() });

/** How long a client that never takes the final bytes keeps its connection after the stream ended. */
const CLOSE_GRACE_MS = 5_000;
/** EventSource waits this long before reconnecting after the connection drops. */
const RETRY_MS = 3_000;

/** An event as stream clients see it; webhooks send the same `data`. */
export function liveEventWire(event: StreamEvent): WireEvent {
  const { id } = event;
  switch (event.type) {
    case 'message.received':
      return {
        id,
        event: event.type,
        data: { ...messageSummaryDto(event.data), sandboxId: event.sandboxId },
      };
    case 'request.received':
      return {
        id,
        event: event.type,
        data: { ...requestSummaryDto(event.data), sandboxId: event.sandboxId },
      };
    case 'sandbox.created':
    case 'sandbox.updated': {
      const { smtpPassword: _never, ...shown } = sandboxDto({ ...event.data, smtpPassword: '' });
      return { id, event: event.type, data: { ...shown, sandboxId: event.data.sandboxId } };
    }
    default:
      return { id, event: event.type, data: event.data } as WireEvent;
  }
}

/** One serialisation per event, shared by every stream it is fanned out to. */
const frames = new WeakMap<StreamEvent, string>();
function frame(event: StreamEvent): string {
  let text = frames.get(event);
  if (text === undefined) {
    const w = liveEventWire(event);
    text = `id: ${w.id}\nevent: ${w.event}\ndata: ${JSON.stringify(w.data)}\n\n`;
    frames.set(event, text);
  }
  return text;
}

function sink(res: ServerResponse): LiveSink {
  let ended = false;
  return {
    send: (event) => void (ended || res.write(frame(event))),
    mark: (id) => void (ended || res.write(`id: ${id}\n\n`)),
    keepAlive: () => void (ended || res.write(': keep-alive\n\n')),
    backlog: () => res.writableLength,
    drained: () =>
      new Promise<void>((resolve) => {
        if (ended || res.writableLength === 0 || res.destroyed) return resolve();
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      }),
    close: () => {
      if (ended) return;
      ended = true;
      res.end();
      // A client that stopped reading never takes the last bytes: its connection is dropped after a grace.
      if (!res.writableFinished) setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref();
    },
  };
}

async function openStream(
  core: Core,
  request: FastifyRequest,
  reply: FastifyReply,
  sandboxId: string | undefined,
): Promise<void> {
  const { lastEventId: fromQuery } = parseInput(streamQuery, request.query, 'query string');
  const header = request.headers['last-event-id'];
  const lastEventId = typeof header === 'string' ? header : fromQuery;
  const stream = await core.liveEvents.open({
    workspaceId: request.principal.workspaceId,
    sandboxId,
    lastEventId,
    keyId: request.principal.keyId,
    session: request.principal.session,
  });
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // Proxies such as nginx would otherwise hold events back.
    'x-accel-buffering': 'no',
    // A stream's connection is not reused: when the stream ends, so does the connection.
    connection: 'close',
  });
  res.write(`retry: ${RETRY_MS}\n\n`);
  res.on('close', () => stream.close());
  stream.run(sink(res)).catch((err: unknown) => {
    request.log.warn({ err }, 'event stream ended: its replay could not be read');
  });
}

export function eventRoutes(app: FastifyInstance, core: Core): void {
  app.get('/events', async (request, reply) => openStream(core, request, reply, undefined));

  app.get('/sandboxes/:sandboxId/events', async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    return openStream(core, request, reply, sandboxId);
  });
}
