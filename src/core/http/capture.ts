// The HTTP capture path in core: admit a request for a sandbox (exists, under its rate limits), then record
// it and build the mock reply. The reply is returned only after the request is committed.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { chooseRule, compileRules, fallbackRule, type CompiledRule, type RuleMatch } from '../mocks/match.ts';
import { renderTemplate, RenderLimitError, type TemplateContext } from '../mocks/render.ts';
import type { TemplatePart } from '../mocks/template.ts';
import { newId } from '../random.ts';
import type { RateLimits } from '../rateLimits.ts';
import { insertRequest } from '../store/repos/requests.ts';
import { findCaptureSandbox } from '../store/repos/sandboxes.ts';
import type { Database } from '../store/schema.ts';
import { bodyValue, headerValue } from './views.ts';

export const MAX_CAPTURE_BODY_BYTES = 5 * 1024 * 1024;
const MAX_REPLY_BYTES = 5 * 1024 * 1024;

export interface CaptureTarget {
  sandboxId: string;
  workspaceId: string;
  rules: CompiledRule[];
}

export type Admission =
  | { ok: true; target: CaptureTarget }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

export interface CapturedRequest {
  method: string;
  target: string;
  httpVersion: string;
  path: string;
  query: string | null;
  headers: Array<[string, string]>;
  body: Uint8Array;
  sourceIp: string | null;
}

export interface CaptureReply {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
  requestId: string;
}

/** Compiled rules by sandbox, reused while the sandbox's version is unchanged. */
class RuleCache {
  private readonly entries = new Map<string, { version: number; rules: CompiledRule[] }>();
  get(id: string, version: number, load: () => CompiledRule[]): CompiledRule[] {
    const hit = this.entries.get(id);
    if (hit !== undefined && hit.version === version) return hit.rules;
    if (this.entries.size >= 10_000) this.entries.clear();
    const rules = load();
    this.entries.set(id, { version, rules });
    return rules;
  }
}

function hasHeader(headers: Array<[string, string]>, name: string): boolean {
  return headerValue(headers, name) !== undefined;
}

function looksLikeJson(body: string): boolean {
  const t = body.trim();
  if (!/^[[{]/.test(t)) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

function usesBodyKeys(rule: CompiledRule): boolean {
  const parts: TemplatePart[] = [...(rule.body ?? []), ...rule.headers.flatMap(([, v]) => v)];
  return parts.some((p) => typeof p !== 'string' && p.root === 'body' && p.keys.length > 0);
}

function corsPreflight(req: CapturedRequest): Array<[string, string]> {
  return [
    ['Access-Control-Allow-Origin', headerValue(req.headers, 'origin') ?? '*'],
    ['Access-Control-Allow-Methods', headerValue(req.headers, 'access-control-request-method') ?? '*'],
    ['Access-Control-Allow-Headers', headerValue(req.headers, 'access-control-request-headers') ?? '*'],
    ['Access-Control-Max-Age', '600'],
    ['Vary', 'Origin'],
  ];
}

export function createCaptureService(db: Kysely<Database>, clock: Clock, limits: RateLimits, bus: EventBus) {
  const cache = new RuleCache();

  async function render(
    match: RuleMatch,
    req: CapturedRequest,
    requestId: string,
    now: Date,
  ): Promise<{ status: number; headers: Array<[string, string]>; body: Buffer }> {
    const rule = match.rule;
    const value = usesBodyKeys(rule) ? await bodyValue(req.headers, req.body) : undefined;
    const query = new URLSearchParams(req.query ?? '');
    const ctx: TemplateContext = {
      requestId,
      now: now.toISOString(),
      method: req.method,
      bodyText: Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength).toString('utf8'),
      bodyValue: () => value,
      query: (name) => query.get(name) ?? undefined,
      header: (name) => headerValue(req.headers, name),
      path: match.params,
    };
    const headers: Array<[string, string]> = rule.headers.map(([name, parts]) => {
      const rendered = renderTemplate(parts, ctx, 8192);
      if (/[\r\n\0]/.test(rendered)) throw new ReplyError(`header ${name} rendered a CR, LF or NUL`);
      // HTTP/1.1 header values are bytes; text beyond Latin-1 has no faithful encoding there.
      if (/[^\x00-\xff]/.test(rendered)) throw new ReplyError(`header ${name} rendered text beyond Latin-1`);
      return [name, rendered];
    });
    const bodyText = rule.body === null ? '' : renderTemplate(rule.body, ctx, MAX_REPLY_BYTES);
    const body = Buffer.from(bodyText, 'utf8');
    if (body.byteLength > MAX_REPLY_BYTES) throw new RenderLimitError();
    if (!hasHeader(headers, 'content-type') && body.byteLength > 0) {
      headers.push([
        'Content-Type',
        looksLikeJson(bodyText) ? 'application/json' : 'text/plain; charset=utf-8',
      ]);
    }
    // A 1xx is informational: it cannot be the final answer a sender waits for.
    if (rule.rule.statusCode < 200) {
      throw new ReplyError(`status ${rule.rule.statusCode} cannot be a final response`);
    }
    return { status: rule.rule.statusCode, headers, body };
  }

  return {
    /** Before the body is read: does the sandbox exist, and is the sender within its limits? */
    async admit(sandboxId: string, ip: string | null): Promise<Admission> {
      const sandbox = await findCaptureSandbox(db, sandboxId, clock.now());
      if (sandbox === undefined) return { ok: false, reason: 'not_found' };
      const perIp = await limits.capturePerIp.consume(ip ?? 'unknown');
      if (!perIp.ok) return { ok: false, reason: 'rate_limited', retryAfterSeconds: perIp.retryAfterSeconds };
      const perWorkspace = await limits.capturePerWorkspace.consume(sandbox.workspace_id);
      if (!perWorkspace.ok) {
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: perWorkspace.retryAfterSeconds };
      }
      const rules = cache.get(sandbox.id, sandbox.version, () => compileRules(sandbox.mocks));
      return { ok: true, target: { sandboxId: sandbox.id, workspaceId: sandbox.workspace_id, rules } };
    },

    /** Chooses and renders the reply, commits the request with it, then returns the reply. */
    async record(target: CaptureTarget, req: CapturedRequest): Promise<CaptureReply | undefined> {
      const requestId = newId();
      const now = clock.now();
      const match = chooseRule(target.rules, req.method, req.path);
      const preflight =
        req.method === 'OPTIONS' && headerValue(req.headers, 'access-control-request-method') !== undefined;
      let reply: { status: number; headers: Array<[string, string]>; body: Buffer };
      let mockName: string | null = null;
      if (match === null && preflight) {
        reply = { status: 204, headers: corsPreflight(req), body: Buffer.alloc(0) };
      } else {
        const chosen = match ?? fallbackRule(target.rules);
        if (chosen === null) {
          reply = { status: 200, headers: [['Content-Type', 'application/json']], body: Buffer.from('{}') };
        } else {
          mockName = chosen.rule.rule.name;
          try {
            reply = await render(chosen, req, requestId, now);
          } catch (err) {
            if (!(err instanceof ReplyError || err instanceof RenderLimitError)) throw err;
            const message =
              err instanceof RenderLimitError ? 'the rendered reply is over 5 MB' : (err as Error).message;
            reply = {
              status: 500,
              headers: [
                [
                  'X-Sandtrap-Error',
                  `mock rule "${mockName}" failed: ${message}`.replace(/[^\x20-\x7e]/g, '?'),
                ],
                ['Content-Type', 'application/json'],
              ],
              body: Buffer.from(JSON.stringify({ error: `mock rule failed: ${message}` })),
            };
          }
        }
      }
      if (!hasHeader(reply.headers, 'x-content-type-options'))
        reply.headers.push(['X-Content-Type-Options', 'nosniff']);
      if (!hasHeader(reply.headers, 'access-control-allow-origin'))
        reply.headers.push(['Access-Control-Allow-Origin', '*']);
      reply.headers.push(['X-Sandtrap-Request-Id', requestId]);

      let stored: boolean;
      try {
        stored = await insertRequest(db, {
          id: requestId,
          sandbox_id: target.sandboxId,
          received_at: now,
          method: req.method,
          target: req.target,
          http_version: req.httpVersion,
          path: req.path,
          query: req.query,
          headers: JSON.stringify(req.headers),
          body: req.body,
          size_bytes: req.body.byteLength,
          source_ip: req.sourceIp,
          mock_status_code: reply.status,
          mock_name: mockName,
        });
      } catch (err) {
        throw new AppError('unavailable', 'The request could not be recorded; retry later.', { cause: err });
      }
      if (!stored) return undefined;
      bus.publish({ kind: 'request', sandboxId: target.sandboxId, id: requestId });
      return { ...reply, requestId };
    },
  };
}

class ReplyError extends Error {}

export type CaptureService = ReturnType<typeof createCaptureService>;
