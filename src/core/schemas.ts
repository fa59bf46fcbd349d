// zod schemas for every domain input; adapters (REST, MCP) validate with these, nothing else. Every string
// goes through `text()` and every instant through `instant`, so what one door refuses every door refuses.
import { z } from 'zod';
import { MAX_PAGE_SIZE } from './pagination.ts';

/**
 * int32 fields also accept a string of decimal digits, as the spec allows; a digit string reads like the same
 * number sent as JSON (up to 16 digits, past which no bound here is reachable). The bounds are repeated as
 * metadata so the JSON Schema that MCP clients see (the input side: number or digit string) still shows them.
 */
export function intField(min: number, max: number) {
  return z
    .union([
      z.number(),
      z
        .string()
        .regex(/^-?\d{1,16}$/, 'must be an integer')
        .transform(Number),
    ])
    .pipe(z.number().int('must be an integer').min(min).max(max))
    .meta({ minimum: min, maximum: max });
}

/**
 * Text both stores can hold. PostgreSQL text cannot hold U+0000, and a lone surrogate (an unpaired
 * \uD800-\uDFFF, which JSON can carry) has no UTF-8 form: JSON columns refuse it with a driver error and text
 * columns silently turn it into U+FFFD. Refused here, with the field named, before any store sees it.
 */
export function text() {
  return z
    .string()
    .refine((v) => !v.includes('\u0000'), 'cannot contain the NUL character (U+0000)')
    .refine(
      (v) => v.isWellFormed(),
      'cannot contain a lone surrogate (an unpaired \\uD800-\\uDFFF escape); send well-formed Unicode text',
    );
}

/**
 * `text()` of at most `max` characters. JSON Schema shows a pipe's input side only, so the bound is repeated
 * as metadata for the MCP clients that read it.
 */
export function textMax(max: number, message = `at most ${max} characters`) {
  return text().pipe(z.string().max(max, message)).meta({ maxLength: max });
}

/**
 * The instants both stores and the drivers' date formats handle: PGlite and node-postgres both fail on year 0
 * and on years past 9999 (a JavaScript Date writes them as -000001 or +010000), and nothing captured predates
 * 1970, so an earlier `since` would only mean "everything", which omitting it already says.
 */
export const EARLIEST_INSTANT = Date.UTC(1970, 0, 1);
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const INSTANT_RANGE = 'must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z';

export function inInstantRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_INSTANT && ms <= LATEST_INSTANT;
}

/**
 * An ISO 8601 instant with an offset, within the range above, as a Date. A Date already parsed from one is
 * taken too (as its ISO form), so a parsed query parses to itself; JSON Schema still shows the string.
 */
export const instant = z.preprocess(
  (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : v),
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 instant, e.g. 2026-01-31T12:00:00Z' })
    .refine((v) => inInstantRange(Date.parse(v)), INSTANT_RANGE)
    .transform((v) => new Date(v)),
);

export const uuid = z.uuid({ message: 'must be a UUID' }).transform((s) => s.toLowerCase());

/** Refused record keys are reported with the key schema's own message instead of zod's "Invalid key". */
function keyMessage(issue: { code?: string; issues?: ReadonlyArray<{ message: string }> }) {
  return issue.code === 'invalid_key' ? issue.issues?.[0]?.message : undefined;
}

export const MAX_TAGS = 50;
export const tags = z
  .record(
    text().pipe(z.string().min(1, 'tag keys cannot be empty').max(64, 'tag keys are at most 64 characters')),
    textMax(256, 'tag values are at most 256 characters'),
    { error: keyMessage },
  )
  .refine((t) => Object.keys(t).length <= MAX_TAGS, `at most ${MAX_TAGS} tags`)
  .meta({ maxProperties: MAX_TAGS, propertyNames: { type: 'string', minLength: 1, maxLength: 64 } });

export const sandboxName = text()
  .pipe(z.string().trim().min(1, 'cannot be empty').max(64, 'at most 64 characters'))
  .meta({ minLength: 1, maxLength: 64 });

export const createSandboxInput = z
  .object({
    name: sandboxName,
    tags: tags.nullish(),
    ephemeral: z.boolean().nullish(),
    ttlMinutes: intField(1, 1440).nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.ttlMinutes !== undefined && v.ttlMinutes !== null && v.ephemeral !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['ttlMinutes'],
        message: 'only applies to ephemeral sandboxes; send "ephemeral": true with it, or drop it',
      });
    }
  });
export type CreateSandboxInput = z.output<typeof createSandboxInput>;

/** `name` must be sent; null keeps the current name. Omitted or null `tags` keep the current tags. */
export const updateSandboxInput = z.object({
  name: sandboxName.nullable(),
  tags: tags.nullish(),
});

export const MAX_MOCK_RULES = 100;
/** A rule's delay (and a slow fault's duration) stays under the capture listener's 30 s request timeout. */
export const MAX_MOCK_DELAY_MS = 25_000;
export const MAX_MOCK_CALLBACKS = 5;
/** A callback may wait up to a day before its first attempt. */
export const MAX_CALLBACK_DELAY_MS = 86_400_000;

export const mockCallbackInput = z.object({
  delayMs: intField(0, MAX_CALLBACK_DELAY_MS).nullish(),
  method: textMax(16).nullish(),
  url: textMax(2048),
  headers: z.record(text(), text(), { error: keyMessage }).nullish(),
  body: textMax(65536).nullish(),
  signing: z
    .object({
      scheme: textMax(32),
      secret: textMax(200).nullish(),
      header: textMax(100).nullish(),
      encoding: z.enum(['hex', 'base64']).nullish(),
      prefix: textMax(40).nullish(),
    })
    .nullish(),
});
export type MockCallbackInput = z.output<typeof mockCallbackInput>;
export const mockRuleInput = z.object({
  id: uuid.nullish(),
  name: textMax(120).nullish(),
  method: textMax(16).nullish(),
  pattern: textMax(512).nullish(),
  statusCode: intField(100, 599),
  headers: z.record(text(), text(), { error: keyMessage }).nullish(),
  body: textMax(65536).nullish(),
  isFallback: z.boolean().nullish(),
  // Issue 40: faults, delays, use counts, scenario state and callbacks; their meaning is checked in mocks/rules.ts.
  delayMs: z
    .union([
      intField(0, MAX_MOCK_DELAY_MS),
      z.object({ min: intField(0, MAX_MOCK_DELAY_MS), max: intField(0, MAX_MOCK_DELAY_MS) }),
    ])
    .nullish(),
  fault: z
    .union([
      textMax(32),
      z.object({ type: textMax(32), durationMs: intField(1, MAX_MOCK_DELAY_MS).nullish() }),
    ])
    .nullish(),
  times: intField(1, 1_000_000).nullish(),
  scenario: textMax(120).nullish(),
  requiredState: textMax(120).nullish(),
  newState: textMax(120).nullish(),
  stateKey: textMax(200).nullish(),
  callbacks: z
    .array(mockCallbackInput)
    .max(MAX_MOCK_CALLBACKS, `at most ${MAX_MOCK_CALLBACKS} callbacks per rule`)
    .nullish(),
});
export type MockRuleInput = z.output<typeof mockRuleInput>;

/** The envelope only: each rule is checked by `parseMockRules` so every rule's problems are reported together. */
export const updateMocksEnvelope = z.object({
  mocks: z.array(z.unknown()).max(MAX_MOCK_RULES, `at most ${MAX_MOCK_RULES} rules per sandbox`),
});

export const createKeyInput = z
  .object({
    label: text().pipe(z.string().trim().max(64, 'at most 64 characters')).nullish(),
    expiresInDays: intField(1, 3650).nullish(),
  })
  .nullish()
  .transform((v) => v ?? {});
export type CreateKeyInput = z.output<typeof createKeyInput>;

/** `limit` over the cap is clamped, not refused: a client asking for more simply gets the maximum. */
export const pageQuery = z.object({
  limit: intField(1, Number.MAX_SAFE_INTEGER)
    .optional()
    .transform((v) => (v === undefined ? undefined : Math.min(v, MAX_PAGE_SIZE))),
  cursor: text().optional(),
});

/** A page of a list with free-text search (`q`). */
export const searchPageQuery = pageQuery.extend({
  q: textMax(200).optional(),
});

/** A query string carries "true"/"false"; a JSON argument (MCP) carries the boolean itself. */
const queryBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
  message: 'must be true or false',
});

/** `search=` on the message and request lists (src/core/search parses it). */
const searchText = textMax(500);

export const listMessagesQuery = pageQuery.extend({
  q: textMax(200).optional(),
  search: searchText.optional(),
  capturedFor: textMax(320).optional(),
  since: instant.optional(),
  isRead: queryBoolean.optional(),
});

export const updateMessageInput = z.object({ isRead: z.boolean({ message: 'must be true or false' }) });

export const attachmentIndex = intField(0, 10_000);

export const listSandboxesQuery = searchPageQuery;

const timeoutSeconds = intField(0, 300).default(30);

/** An empty filter value filters nothing, the same for items already captured and for arrivals. */
const waitFilter = (max: number) =>
  textMax(max)
    .optional()
    .transform((v) => (v === '' ? undefined : v));

export const messageWaitQuery = z.object({
  subjectContains: waitFilter(200),
  fromContains: waitFilter(200),
  capturedFor: waitFilter(320),
  isRead: queryBoolean.optional(),
  since: instant.optional(),
  timeoutSeconds,
});

export const requestWaitQuery = z.object({
  method: waitFilter(16),
  pathContains: waitFilter(512),
  isRead: queryBoolean.optional(),
  since: instant.optional(),
  timeoutSeconds,
});

/** Additive REST wait options, off unless asked: claim the item (mark it read), explain what did not match. */
export const waitOptionsQuery = z.object({
  markRead: queryBoolean.optional(),
  explain: queryBoolean.optional(),
  onlyNewer: queryBoolean.optional(),
});

/** The most a condition's count may name: its items are read up to one past it (expectations/service.ts). */
export const MAX_EXPECTED_COUNT = 1000;
export const MAX_EXPECTATION_CONDITIONS = 10;
const expectedCount = intField(0, MAX_EXPECTED_COUNT).optional();

/** The counts of a condition: `exactly`, or `atLeast` and/or `atMost`; none means at least one. */
const countShape = { exactly: expectedCount, atLeast: expectedCount, atMost: expectedCount };

// Strict objects: a misspelt count or filter ("atleast") would otherwise be dropped and change the expectation.
const expectationCondition = z
  .discriminatedUnion(
    'stream',
    [
      z.strictObject({
        stream: z.literal('messages'),
        filter: z
          .strictObject({
            subjectContains: messageWaitQuery.shape.subjectContains,
            fromContains: messageWaitQuery.shape.fromContains,
            capturedFor: messageWaitQuery.shape.capturedFor,
            isRead: z.boolean({ message: 'must be true or false' }).optional(),
          })
          .prefault({}),
        ...countShape,
      }),
      z.strictObject({
        stream: z.literal('requests'),
        filter: z
          .strictObject({
            method: requestWaitQuery.shape.method,
            pathContains: requestWaitQuery.shape.pathContains,
            isRead: z.boolean({ message: 'must be true or false' }).optional(),
          })
          .prefault({}),
        ...countShape,
      }),
    ],
    { error: 'stream must be "messages" or "requests"' },
  )
  .superRefine((c, ctx) => {
    if (c.exactly !== undefined && (c.atLeast !== undefined || c.atMost !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['exactly'],
        message: 'give exactly alone, or atLeast and/or atMost',
      });
    }
    if (c.atLeast !== undefined && c.atMost !== undefined && c.atLeast > c.atMost) {
      ctx.addIssue({ code: 'custom', path: ['atMost'], message: 'must be at least atLeast' });
    }
  });

/** POST /sandboxes/{id}/expectations/wait: counts over both streams, in one long poll as long as a wait's. */
export const expectationInput = z
  .strictObject({
    conditions: z
      .array(expectationCondition)
      .min(1, 'give at least one condition')
      .max(MAX_EXPECTATION_CONDITIONS, `at most ${MAX_EXPECTATION_CONDITIONS} conditions`),
    inOrder: z.boolean({ message: 'must be true or false' }).default(false),
    withinSeconds: intField(0, 300).default(30),
    quietForSeconds: intField(0, 300).default(0),
    since: instant.optional(),
    consume: z.boolean({ message: 'must be true or false' }).default(false),
  })
  .superRefine((e, ctx) => {
    // One call never outlasts the longest wait.
    if (e.withinSeconds <= 300 && e.quietForSeconds <= 300 && e.withinSeconds + e.quietForSeconds > 300) {
      ctx.addIssue({
        code: 'custom',
        path: ['quietForSeconds'],
        message: 'withinSeconds plus quietForSeconds must be at most 300',
      });
    }
  });
export type ExpectationInput = z.output<typeof expectationInput>;

export const listRequestsQuery = searchPageQuery.extend({
  isRead: queryBoolean.optional(),
  search: searchText.optional(),
});

export const updateRequestInput = updateMessageInput;

/** The live event types a webhook can subscribe to (the names of the event stream). */
export const WEBHOOK_EVENT_TYPES = [
  'message.received',
  'message.updated',
  'message.deleted',
  'messages.cleared',
  'request.received',
  'request.updated',
  'request.deleted',
  'requests.cleared',
  'sandbox.created',
  'sandbox.updated',
  'sandbox.deleted',
] as const;

export const createWebhookInput = z.object({
  url: textMax(2000),
  sandboxId: uuid.nullish(),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, { message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
    .min(1, 'name at least one event type')
    .max(WEBHOOK_EVENT_TYPES.length)
    .transform((v) => [...new Set(v)]),
  description: textMax(500).nullish(),
});
export type CreateWebhookInput = z.output<typeof createWebhookInput>;

/** The most items one bulk action names by id (a dashboard selection). */
export const MAX_BULK_IDS = 500;

const bulkIds = z
  .array(uuid)
  .min(1, 'name at least one item')
  .max(MAX_BULK_IDS, `at most ${MAX_BULK_IDS} ids; use upTo for more`);

/** Marks items of one stream read or unread: those named, those up to `upTo`, or (neither) all of them. */
export const bulkReadInput = z.object({
  ids: bulkIds.optional(),
  upTo: uuid.optional(),
  isRead: z.boolean({ message: 'must be true or false' }).default(true),
});

/** Deletes items of one stream: those named and/or those up to `upTo`; the whole stream stays DELETE's. */
export const bulkDeleteInput = z
  .object({ ids: bulkIds.optional(), upTo: uuid.optional() })
  .refine((v) => v.ids !== undefined || v.upTo !== undefined, {
    message: 'send ids, upTo or both (DELETE on the stream empties all of it)',
    path: ['ids'],
  });

/** The most sandboxes one activity read covers (a page of the sandbox list is at most 200). */
export const MAX_ACTIVITY_IDS = 200;

/** `ids`: comma-separated sandbox ids, as a query string carries them. */
export const activityQuery = z.object({
  ids: z
    .string({ message: 'send the sandbox ids, comma-separated' })
    .transform((v) => v.split(',').filter((s) => s !== ''))
    .pipe(
      z
        .array(uuid)
        .min(1, 'name at least one sandbox')
        .max(MAX_ACTIVITY_IDS, `at most ${MAX_ACTIVITY_IDS} sandboxes`),
    ),
});

/** Where to send a captured request again (the same target rules as outgoing webhooks). */
export const replayInput = z.object({ url: textMax(2000) });
