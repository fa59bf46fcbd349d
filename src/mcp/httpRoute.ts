// POST /mcp on the API listener: stateless Streamable HTTP for the 2026-07-28 and 2025 protocol eras, the same
// API keys as REST or an OAuth access token (acting as the grant's workspace and key), and Host/Origin checks
// against DNS rebinding when bound to loopback.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthResult, Principal } from '../core/apiKeys.ts';
import type { Core } from '../core/core.ts';
import { duplicateCredentialMessage, presentedCredential } from '../core/credentials.ts';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../core/http/views.ts';
import type { AccessTokenAuth } from '../core/oauth/types.ts';
import { problem } from '../core/problem.ts';
import { inProcessBackend } from './backend.ts';
import { bearerChallenge } from './bearerChallenge.ts';
import { sameServerCheck } from './originCheck.ts';
import { buildMcpServer } from './server.ts';
import { TaskStore } from './tasks/index.ts';

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

/** With OAuth on, a client without a key can connect through the authorization server instead. */
const MISSING_WITH_OAUTH =
  'No API key or access token was sent: add the header "Authorization: Bearer <key>" to the MCP client ' +
  'configuration, or connect with OAuth (the WWW-Authenticate header names the metadata to start from).';

const TOKEN_REFUSALS: Record<Exclude<AccessTokenAuth, { ok: true }>['reason'], string> = {
  unknown: 'The access token is not recognised. Connect the MCP client again to get a new one.',
  expired: 'The access token has expired (they last one hour); get a new one with the refresh token.',
  revoked:
    'The access token has been revoked (the connection was ended, or a refresh token was used twice). ' +
    'Connect the MCP client again.',
  'wrong-audience': 'The access token was issued for another resource, not this MCP server.',
  'key-revoked':
    'The API key that approved this connection has been revoked, which ended it. Connect again and approve ' +
    'with a live key.',
  'key-expired':
    'The API key that approved this connection has expired, which ended it. Connect again and approve with ' +
    'a live key.',
};

/** Who a request acts for, and what the SDK is told about its credential. */
interface Caller {
  principal: Principal;
  authInfo: AuthInfo;
  /** Whose request ids a cancellation may name: the key, or the OAuth grant (one key can approve several). */
  owner: string;
}

function apiKeyCaller(principal: Principal): Caller {
  return {
    principal,
    authInfo: { token: principal.keyPrefix, clientId: principal.keyId, scopes: [] },
    owner: principal.keyId,
  };
}

function oauthCaller(auth: Extract<AccessTokenAuth, { ok: true }>): Caller {
  return {
    principal: auth.principal,
    authInfo: {
      // Never the token itself: AuthInfo reaches tool handlers and logs.
      token: `oauth-grant:${auth.grantId}`,
      clientId: auth.clientId,
      scopes: auth.scopes,
      expiresAt: Math.floor(auth.expiresAt.getTime() / 1000),
      resource: new URL(auth.resource),
    },
    owner: `grant:${auth.grantId}`,
  };
}

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
  const flightKey = (owner: string, id: string | number) => `${owner}\u0000${typeof id}:${id}`;
  // MCP tasks (2026-07-28 only) live in this process, each its workspace's: any later request can read them.
  const taskStore = new TaskStore();
  app.addHook('onClose', async () => taskStore.close());
  const handler = createMcpHandler(
    (ctx) => {
      const principal = ctx.authInfo?.extra?.principal as Principal | undefined;
      if (principal === undefined) throw new Error('MCP request without an authenticated principal');
      const tasks = ctx.era === 'modern' ? { store: taskStore, owner: principal.workspaceId } : undefined;
      return buildMcpServer(() => inProcessBackend(core, principal), version, { tasks });
    },
    { legacy: 'stateless', keepAliveMs: 15_000 },
  );

  const host = core.config.host;
  const loopbackOnly = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
  const allowed = [...new Set([...LOOPBACK, core.config.publicSmtpHost])];

  /** Who sent each request: authenticated in onRequest, before a byte of the body is read. */
  const callers = new WeakMap<FastifyRequest, Caller>();
  const oauthUrls = core.oauth.enabled ? core.oauth.urls : undefined;
  const refuse = (request: FastifyRequest, reply: FastifyReply, sent: boolean, detail: string) => {
    reply.header('WWW-Authenticate', bearerChallenge(oauthUrls, sent, detail));
    const body = problem('unauthorized', detail, request.id, request.url);
    return reply.code(401).type('application/problem+json').send(body);
  };
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
    const credential = presented.key;
    // API keys (stk_) go on exactly as before; only something shaped like our tokens is an OAuth token.
    if (oauthUrls !== undefined && credential !== undefined && core.oauth.isOAuthToken(credential)) {
      const auth = await core.oauth.authenticateAccessToken(credential);
      if (auth.ok) return void callers.set(request, oauthCaller(auth));
      request.log.info({ reason: auth.reason }, 'MCP access token refused');
      return refuse(request, reply, true, TOKEN_REFUSALS[auth.reason]);
    }
    const auth = await core.apiKeys.authenticate(credential, request.ip);
    if (auth.ok) return void callers.set(request, apiKeyCaller(auth.principal));
    const missing = auth.reason === 'missing';
    const detail = missing && oauthUrls !== undefined ? MISSING_WITH_OAUTH : REFUSALS[auth.reason];
    return refuse(request, reply, !missing, detail);
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
    onRequest: loopbackOnly
      ? [sameServerCheck(allowed, core.config.publicUrl), authenticate]
      : [authenticate],
    async handler(request, reply) {
      const caller = callers.get(request);
      if (caller === undefined) throw new Error('MCP request without an authenticated principal');
      const principal = caller.principal;
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
      const owner = caller.owner;
      const registered: string[] = [];
      for (const message of messagesOf(request.body)) {
        const cancelled = message.params?.requestId;
        if (message.method === 'notifications/cancelled' && cancelled !== undefined) {
          inFlight.get(flightKey(owner, cancelled))?.abort();
        } else if (message.id !== undefined && message.id !== null && message.method !== undefined) {
          const k = flightKey(owner, message.id);
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
        authInfo: { ...caller.authInfo, extra: { principal, requestId: request.id, log: request.log } },
      });
      return sendWebResponse(reply, res);
    },
  });
}
