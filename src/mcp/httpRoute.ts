// POST /mcp on the API listener: stateless Streamable HTTP for the 2026-07-28 and 2025 protocol eras, the same
// API keys as REST, and Host/Origin checks against DNS rebinding when bound to loopback.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthResult, Principal } from '../core/apiKeys.ts';
import type { Core } from '../core/core.ts';
import { duplicateCredentialMessage, presentedCredential } from '../core/credentials.ts';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../core/http/views.ts';
import { problem } from '../core/problem.ts';
import { inProcessBackend } from './backend.ts';
import { sameServerCheck } from './originCheck.ts';
import { buildMcpServer } from './server.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const MCP_BODY_LIMIT = 1024 * 1024;

const REFUSALS: Record<Exclude<AuthResult, { ok: true }>['reason'], string> = {
  missing:
    'No API key was sent: add the header "Authorization: Bearer <key>" to the MCP client configuration.',
  malformed: 'The API key is malformed (keys start with stk_ and carry a checksum).',
  unknown: 'The API key is not recognised. Create one with `sandtrap keys create`.',
  revoked: 'The API key has been revoked. Configure another key.',
  expired: 'The API key has expired. Create a new one.',
};

async function sendWebResponse(reply: FastifyReply, res: Response): Promise<FastifyReply> {
  reply.code(res.status);
  res.headers.forEach((value, name) => reply.header(name, value));
  if (res.body === null) return reply.send();
  return reply.send(Readable.fromWeb(res.body as WebReadableStream));
}

interface JsonRpcMessage {
  id?: string | number | null;
  method?: string;
  params?: { requestId?: string | number };
}

function messagesOf(body: unknown): JsonRpcMessage[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is JsonRpcMessage => typeof m === 'object' && m !== null);
}

export function installMcpRoute(app: FastifyInstance, core: Core, version: string): void {
  // Stateless: a cancellation arrives as its own POST, so calls in flight are found by key and request id.
  const inFlight = new Map<string, AbortController>();
  const flightKey = (keyId: string, id: string | number) => `${keyId}\u0000${typeof id}:${id}`;
  const handler = createMcpHandler(
    (ctx) => {
      const principal = ctx.authInfo?.extra?.principal as Principal | undefined;
      if (principal === undefined) throw new Error('MCP request without an authenticated principal');
      return buildMcpServer(() => inProcessBackend(core, principal), version);
    },
    { legacy: 'stateless', keepAliveMs: 15_000 },
  );

  const host = core.config.host;
  const loopbackOnly = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
  const allowed = [...new Set([...LOOPBACK, core.config.publicSmtpHost])];

  /** Who sent each request: authenticated in onRequest, before a byte of the body is read. */
  const principals = new WeakMap<FastifyRequest, Principal>();
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedCredential(request.raw.rawHeaders);
    if (!presented.ok) {
      const body = problem(
        'validation-error',
        duplicateCredentialMessage(presented.header),
        request.id,
        request.url,
        [{ path: presented.header, message: 'sent more than once' }],
      );
      return reply.code(400).type('application/problem+json').send(body);
    }
    const auth = await core.apiKeys.authenticate(presented.key, request.ip);
    if (auth.ok) return void principals.set(request, auth.principal);
    reply.header(
      'WWW-Authenticate',
      `Bearer realm="sandtrap"${auth.reason === 'missing' ? '' : ', error="invalid_token"'}`,
    );
    const body = problem('unauthorized', REFUSALS[auth.reason], request.id, request.url);
    return reply.code(401).type('application/problem+json').send(body);
  };

  // JSON-RPC bodies are parsed here (this scope only) so a message nested past the bound that every parsed view
  // keeps is refused with 400 before the SDK's recursive validators could overflow the stack.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const source = text as string;
    if (jsonDeeperThan(source, MAX_JSON_DEPTH)) {
      const err = new Error(
        `The JSON-RPC message nests deeper than ${MAX_JSON_DEPTH} levels; send a flatter message.`,
      ) as Error & { statusCode: number };
      err.statusCode = 400;
      return done(err);
    }
    try {
      done(null, source === '' ? undefined : (JSON.parse(source) as unknown));
    } catch (err) {
      done(Object.assign(err as Error, { statusCode: 400 }));
    }
  });

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    // JSON-RPC messages are small; tool arguments (mock rule lists) fit well under this.
    bodyLimit: MCP_BODY_LIMIT,
    onRequest: loopbackOnly ? [sameServerCheck(allowed), authenticate] : [authenticate],
    async handler(request, reply) {
      const principal = principals.get(request);
      if (principal === undefined) throw new Error('MCP request without an authenticated principal');
      if (request.method !== 'POST') {
        return reply
          .code(405)
          .header('Allow', 'POST')
          .send({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Method not allowed: this server is stateless; use POST.' },
            id: null,
          });
      }
      const controller = new AbortController();
      const keyId = principal.keyId;
      const registered: string[] = [];
      for (const message of messagesOf(request.body)) {
        const cancelled = message.params?.requestId;
        if (message.method === 'notifications/cancelled' && cancelled !== undefined) {
          inFlight.get(flightKey(keyId, cancelled))?.abort();
        } else if (message.id !== undefined && message.id !== null && message.method !== undefined) {
          const k = flightKey(keyId, message.id);
          inFlight.set(k, controller);
          registered.push(k);
        }
      }
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
        for (const k of registered) if (inFlight.get(k) === controller) inFlight.delete(k);
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      }
      const webRequest = new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(request.body),
        signal: controller.signal,
      });
      const res = await handler.fetch(webRequest, {
        parsedBody: request.body,
        authInfo: {
          token: principal.keyPrefix,
          clientId: principal.keyId,
          scopes: [],
          extra: { principal, requestId: request.id, log: request.log },
        },
      });
      return sendWebResponse(reply, res);
    },
  });
}
