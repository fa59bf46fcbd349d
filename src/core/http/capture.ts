// The HTTP capture path in core: admit a request for a sandbox (exists, under its rate limits), then record
// it and build the mock reply. The reply is returned only after the request is committed.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { LiveSandboxCache, type LiveEntry } from '../liveSandboxCache.ts';
import {
  chooseRuleWithin,
  compileRulesInSlices,
  fallbackRule,
  type CompiledRule,
  type RuleMatch,
} from '../mocks/match.ts';
import { renderCallbacks, type RenderedCallback } from '../mocks/callbacks.ts';
import { chooseWithConditions, hasConditions, stateKeyOf, type ConditionStore } from '../mocks/conditions.ts';
import { renderTemplate, RenderLimitError, type TemplateContext } from '../mocks/render.ts';
import { parseTemplate, type TemplatePart } from '../mocks/template.ts';
import type { MockDelay, MockFault, StoredMockRule } from '../mocks/types.ts';
import { claimRuleUse, compareAndSetState, readScenarioState } from '../store/repos/mockState.ts';
import { insertCallbacks } from '../store/repos/webhooks.ts';
import { newId, newItemId } from '../random.ts';
import type { RateLimits } from '../rateLimits.ts';
import { findCaptureSandbox } from '../store/repos/sandboxes.ts';
import { storeWriteFailure } from '../store/unavailable.ts';
import type { Database } from '../store/schema.ts';
import type { RequestWriter } from '../store/writers.ts';
import { decodeBody } from './decode.ts';
import { shieldSessionCookies, withoutServiceSetCookies } from './sessionShield.ts';
import { bodyValue, headerValue, jsonDeeperThan, MAX_JSON_DEPTH } from './views.ts';
import { traceparentOf } from '../traceparent.ts';

export const MAX_CAPTURE_BODY_BYTES = 5 * 1024 * 1024;
const MAX_REPLY_BYTES = 5 * 1024 * 1024;
/** The recorded reply keeps this much of the body sent (its full size is kept too). */
export const MAX_RECORDED_REPLY_BYTES = 64 * 1024;

export type CaptureTarget = CachedSandbox;

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
  /** Headers the transport puts first on its reply (the correlation id), so the record holds them too. */
  replyHeaders?: Array<[string, string]>;
}

/** The reply exactly as the listener writes it: every header (framing included) in order, then the body. */
export interface CaptureReply {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
  requestId: string;
  /** Wait this long (a timer) before answering: the rule's delay. */
  delayMs?: number;
  /** What the listener does instead of (or while) writing the reply; the request is already recorded. */
  fault?: MockFault;
}

interface RenderedReply {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
  /** Why the reply may not be what the rule's author meant; stored with it, never sent. */
  note?: string | undefined;
  delayMs?: number;
  fault?: MockFault;
  callbacks?: RenderedCallback[];
}

/** A delay's length for one request: fixed, or drawn evenly from the range. */
function delayOf(delay: MockDelay | undefined): number | undefined {
  if (delay === undefined) return undefined;
  if (typeof delay === 'number') return delay;
  return delay.min + Math.floor(Math.random() * (delay.max - delay.min + 1));
}

/** What the record says a fault did, since the reply it holds is not what the client got. */
function faultNote(fault: MockFault): string {
  switch (fault.type) {
    case 'reset':
      return 'fault "reset": the connection was reset instead of sending this reply';
    case 'empty':
      return 'fault "empty": the connection was closed without a reply';
    case 'malformed':
      return 'fault "malformed": the status line and headers were sent, then a broken chunked body';
    case 'slow':
      return `fault "slow": this reply's body was sent in pieces over ${fault.durationMs ?? 0} ms`;
  }
}

function joinNotes(...notes: Array<string | undefined>): string | undefined {
  const kept = notes.filter((n) => n !== undefined);
  return kept.length === 0 ? undefined : kept.join('; ');
}

/** The first `max` bytes of a UTF-8 body, never ending inside a character (a cut text stays valid text). */
function recordedPrefix(body: Buffer, max: number): Buffer {
  if (body.byteLength <= max) return body;
  let end = max;
  // Back up over continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (end > 0 && end > max - 4 && ((body[end] as number) & 0xc0) === 0x80) end--;
  return body.subarray(0, end);
}

/** The headers and body the listener writes: the transport's first, the framing, and no body where HTTP sends none. */
function onTheWire(
  req: CapturedRequest,
  out: RenderedReply,
): { headers: Array<[string, string]>; body: Buffer } {
  const headers = [...(req.replyHeaders ?? []), ...out.headers];
  const bodyless = out.status === 204 || out.status === 304;
  if (!bodyless) headers.push(['Content-Length', String(out.body.byteLength)]);
  // A HEAD reply states the length of the body a GET would get, and sends none.
  return { headers, body: bodyless || req.method === 'HEAD' ? Buffer.alloc(0) : out.body };
}

/** A live sandbox as the capture path needs it, with its rules compiled. */
interface CachedSandbox extends LiveEntry {
  workspaceId: string;
  /** Rules are current while the sandbox is at this version; the insert checks it. */
  version: number;
  rules: CompiledRule[];
  /** Some rule has `times` or a scenario: choosing one reads (and may change) the store. */
  conditional: boolean;
}

function hasHeader(headers: Array<[string, string]>, name: string): boolean {
  return headerValue(headers, name) !== undefined;
}

function looksLikeJson(body: string): boolean {
  const t = body.trim();
  if (!/^[[{]/.test(t)) return false;
  // A reply that echoes a hostile {{body}} could be megabytes of brackets: V8 takes a second over those.
  if (jsonDeeperThan(t, MAX_JSON_DEPTH)) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** Which views of the body the rule's templates read: the capture path decodes and parses only for them. */
function bodyUse(rule: CompiledRule): { text: boolean; keys: boolean } {
  const parts: TemplatePart[] = [...(rule.body ?? []), ...rule.headers.flatMap(([, v]) => v)];
  // A callback's templates read the same request (parsed here only for rules that have callbacks).
  for (const cb of rule.rule.callbacks ?? []) {
    for (const text of [cb.url, cb.body ?? '', ...Object.values(cb.headers)]) {
      const parsed = parseTemplate(text);
      if (parsed.ok) parts.push(...parsed.parts);
    }
  }
  const refs = parts.filter((p) => typeof p !== 'string' && p.root === 'body');
  return {
    text: refs.some((p) => typeof p !== 'string' && p.keys.length === 0),
    keys: refs.some((p) => typeof p !== 'string' && p.keys.length > 0),
  };
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

export function createCaptureService(
  db: Kysely<Database>,
  clock: Clock,
  limits: RateLimits,
  bus: EventBus,
  writer: RequestWriter,
  /** Wakes the webhook sender: a rule queued callbacks. */
  onCallbacksQueued: () => void = () => undefined,
) {
  const cache = new LiveSandboxCache<CachedSandbox>(bus);
  /** The sandbox from the store (the cache refreshed), or undefined when it is gone. */
  async function load(sandboxId: string, now: Date): Promise<CachedSandbox | undefined> {
    const row = await findCaptureSandbox(db, sandboxId, now);
    if (row === undefined) {
      cache.delete(sandboxId);
      return undefined;
    }
    const entry: CachedSandbox = {
      id: row.id,
      workspaceId: row.workspace_id,
      version: row.version,
      expiresAt: row.expires_at,
      rules: await compileRulesInSlices(row.mocks),
      conditional: row.mocks.some(hasConditions),
    };
    cache.set(entry);
    return entry;
  }

  async function render(
    match: RuleMatch,
    req: CapturedRequest,
    requestId: string,
    now: Date,
  ): Promise<RenderedReply> {
    const rule = match.rule;
    const uses = bodyUse(rule);
    // The same decoded bytes as the request detail's views, capped the same way, so {{body}} and
    // {{body.*}} agree with what the API shows; a body that does not decode is read as sent.
    const received = uses.text || uses.keys ? (await decodeBody(req.headers, req.body)).bytes : req.body;
    const value = uses.keys ? await bodyValue(req.headers, received) : undefined;
    // {{body.x}} over a body that is neither JSON nor a form renders as missing, as documented; the record
    // says why, so a reply such as `"amount": null` is not a mystery.
    const note =
      uses.keys && value === undefined && received.byteLength > 0
        ? 'the request body is not JSON (or it nests too deep) nor a form, so every {{body.<path>}} rendered as missing'
        : undefined;
    const query = new URLSearchParams(req.query ?? '');
    const ctx: TemplateContext = {
      requestId,
      now: now.toISOString(),
      method: req.method,
      bodyText: uses.text
        ? Buffer.from(received.buffer, received.byteOffset, received.byteLength).toString('utf8')
        : '',
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
    const callbacks = renderCallbacks(rule.rule, ctx);
    const delayMs = delayOf(rule.rule.delayMs);
    const fault = rule.rule.fault;
    return {
      status: rule.rule.statusCode,
      headers,
      body,
      note: joinNotes(
        note,
        callbacks.problem,
        delayMs === undefined ? undefined : `delayed ${delayMs} ms by the rule`,
        fault === undefined ? undefined : faultNote(fault),
      ),
      ...(delayMs === undefined ? {} : { delayMs }),
      ...(fault === undefined ? {} : { fault }),
      ...(callbacks.rendered.length === 0 ? {} : { callbacks: callbacks.rendered }),
    };
  }

  /** `header.x`, `query.x` or `body.a.b` of the request, as a scenario's correlation key; undefined when absent. */
  async function requestValue(
    req: CapturedRequest,
    source: 'header' | 'query' | 'body',
    name: string,
  ): Promise<string | undefined> {
    if (source === 'header') return headerValue(req.headers, name);
    if (source === 'query') return new URLSearchParams(req.query ?? '').get(name) ?? undefined;
    const parsed = parseTemplate(`{{body.${name}}}`);
    if (!parsed.ok) return undefined;
    const received = (await decodeBody(req.headers, req.body)).bytes;
    const value = await bodyValue(req.headers, received);
    const text = renderTemplate(parsed.parts, {
      requestId: '',
      now: '',
      method: req.method,
      bodyText: '',
      bodyValue: () => value,
      query: () => undefined,
      header: () => undefined,
      path: {},
    });
    return text === '' ? undefined : text;
  }

  /** The store's side of rule conditions for one sandbox (previews skip conditions: they change nothing). */
  function conditionStore(target: CachedSandbox, now: Date): ConditionStore {
    return {
      state: (scenario, key) => readScenarioState(db, target.id, scenario, key),
      async take(rule: StoredMockRule, key: string) {
        const move = (q: Kysely<Database>) =>
          compareAndSetState(
            q,
            target.id,
            rule.scenario as string,
            key,
            rule.requiredState,
            rule.newState as string,
            now,
          );
        const use = (q: Kysely<Database>) =>
          claimRuleUse(q, target.id, target.version, rule.id, rule.times as number);
        if (rule.newState === undefined) return (await use(db)) ? 'taken' : 'exhausted';
        if (rule.times === undefined) return (await move(db)) ? 'taken' : 'moved';
        try {
          return await db.transaction().execute(async (trx) => {
            if (!(await move(trx))) return 'moved';
            if (!(await use(trx))) throw new UsesRanOut();
            return 'taken';
          });
        } catch (err) {
          if (err instanceof UsesRanOut) return 'exhausted';
          throw err;
        }
      },
    };
  }

  /** The reply the sandbox's rules give this request (rendered, not yet stored). */
  async function reply(
    target: CachedSandbox,
    req: CapturedRequest,
    requestId: string,
    now: Date,
  ): Promise<RenderedReply & { mockName: string | null }> {
    const choice = target.conditional
      ? await chooseWithConditions(
          target.rules,
          req.method,
          req.path,
          (rule, params) => stateKeyOf(rule, params, (source, name) => requestValue(req, source, name)),
          conditionStore(target, now),
        )
      : chooseRuleWithin(target.rules, req.method, req.path);
    const match = choice.match;
    const preflight =
      req.method === 'OPTIONS' && headerValue(req.headers, 'access-control-request-method') !== undefined;
    let out: RenderedReply;
    let mockName: string | null = null;
    if (match === null && preflight) {
      out = { status: 204, headers: corsPreflight(req), body: Buffer.alloc(0) };
    } else {
      const chosen = match ?? fallbackRule(target.rules);
      if (chosen === null) {
        out = { status: 200, headers: [['Content-Type', 'application/json']], body: Buffer.from('{}') };
      } else {
        mockName = chosen.rule.rule.name;
        try {
          out = await render(chosen, req, requestId, now);
        } catch (err) {
          // Whatever goes wrong while rendering is the rule's failure, answered and recorded as such: it
          // must never reach the listener, which would report it as the store being down.
          const message =
            err instanceof RenderLimitError
              ? 'the rendered reply is over 5 MB'
              : err instanceof ReplyError
                ? err.message
                : 'the template could not be rendered for this request';
          out = {
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
    // Says why a regex rule did not answer when a limit, not the rule, decided it.
    if (choice.budgetExhausted) out.headers.push(['X-Sandtrap-Match', 'budget-exhausted']);
    else if (choice.pathTooLongForRegex) out.headers.push(['X-Sandtrap-Match', 'path-too-long']);
    // A rule may not plant the dashboard's session (the API would take it), even through a template.
    out.headers = withoutServiceSetCookies(out.headers);
    // Captured HTML opened in a browser runs without scripts or same-origin rights, unless the rule takes
    // that risk with a policy of its own.
    if (!hasHeader(out.headers, 'content-security-policy'))
      out.headers.push(['Content-Security-Policy', 'sandbox']);
    if (!hasHeader(out.headers, 'x-content-type-options'))
      out.headers.push(['X-Content-Type-Options', 'nosniff']);
    if (!hasHeader(out.headers, 'access-control-allow-origin'))
      out.headers.push(['Access-Control-Allow-Origin', '*']);
    out.headers.push(['X-Sandtrap-Request-Id', requestId]);
    return { ...out, mockName };
  }

  return {
    /** The reply `rules` give `req`, built exactly as a capture's, but neither recorded nor counted (previews). */
    preview(rules: CompiledRule[], req: CapturedRequest) {
      return reply(
        { id: '', workspaceId: '', version: 0, expiresAt: null, rules, conditional: false },
        req,
        newId(),
        clock.now(),
      );
    },

    /** Before the body is read: does the sandbox exist, and is the sender within its limits? */
    async admit(sandboxId: string, ip: string | null): Promise<Admission> {
      const sandbox = cache.get(sandboxId, clock.now()) ?? (await load(sandboxId, clock.now()));
      if (sandbox === undefined) return { ok: false, reason: 'not_found' };
      const perIp = await limits.capturePerIp.consume(ip ?? 'unknown');
      if (!perIp.ok) return { ok: false, reason: 'rate_limited', retryAfterSeconds: perIp.retryAfterSeconds };
      const perWorkspace = await limits.capturePerWorkspace.consume(sandbox.workspaceId);
      if (!perWorkspace.ok) {
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: perWorkspace.retryAfterSeconds };
      }
      return { ok: true, target: sandbox };
    },

    /**
     * Chooses and renders the reply, commits the request with it (and with the reply as it will go on the wire:
     * status, every header, the body up to 64 KB), then returns the reply; undefined when the sandbox is gone.
     * If its rules changed since admission, the reply is chosen again by the new ones.
     */
    async record(target: CaptureTarget, received: CapturedRequest): Promise<CaptureReply | undefined> {
      const requestId = newItemId();
      // The session cookie is gone before anything reads the headers: the reply's templates, the store.
      const shielded = shieldSessionCookies(received.headers);
      const req = { ...received, headers: shielded.headers };
      const traceparent = traceparentOf(req.headers);
      let current: CachedSandbox | undefined = target;
      for (let attempt = 0; attempt < 5; attempt++) {
        const now = clock.now();
        const out = await reply(current, req, requestId, now);
        const sent = onTheWire(req, out);
        const recorded = recordedPrefix(sent.body, MAX_RECORDED_REPLY_BYTES);
        let stored: boolean;
        try {
          stored = await writer.submit({
            sandboxVersion: current.version,
            row: {
              id: requestId,
              sandbox_id: current.id,
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
              mock_status_code: out.status,
              mock_name: out.mockName,
              redacted_cookies: shielded.redacted.length === 0 ? null : JSON.stringify(shielded.redacted),
              response_headers: JSON.stringify(sent.headers),
              response_body: recorded,
              response_size_bytes: sent.body.byteLength,
              response_note: out.note ?? null,
              traceparent,
            },
          });
        } catch (err) {
          // The store's reason (a full disk, say) stays with the refusal: the sender's reply and the log name it.
          throw storeWriteFailure(err, 'the request');
        }
        if (stored) {
          bus.publish({ kind: 'request', sandboxId: current.id, id: requestId });
          if (out.callbacks !== undefined) {
            // Queued once the request is committed and before the reply goes out: an answered request's
            // callbacks are in the outbox, whatever happens to this process next.
            try {
              await insertCallbacks(db, current.id, requestId, out.callbacks, now);
            } catch (err) {
              throw storeWriteFailure(err, "the rule's callbacks");
            }
            onCallbacksQueued();
          }
          return {
            status: out.status,
            headers: sent.headers,
            body: sent.body,
            requestId,
            ...(out.delayMs === undefined ? {} : { delayMs: out.delayMs }),
            ...(out.fault === undefined ? {} : { fault: out.fault }),
          };
        }
        current = await load(current.id, clock.now());
        if (current === undefined) return undefined;
      }
      throw new AppError('unavailable', 'The sandbox kept changing while the request was recorded; retry.');
    },
  };
}

class ReplyError extends Error {}

class UsesRanOut extends Error {}

export type CaptureService = ReturnType<typeof createCaptureService>;
