// The one mapping between MCP tool arguments (snake_case) and core's input fields (camelCase): tools take their
// argument schemas from core's through it, hand arguments back to core through it, and core's error paths are
// renamed with it, so a tool refuses exactly what REST refuses and names the argument the agent sent.
import type { z } from 'zod';

/** Tool argument name -> core field name. */
export type ArgNames = Readonly<Record<string, string>>;

export const SANDBOX_ARGS = { name: 'name', tags: 'tags', ttl_minutes: 'ttlMinutes' } as const;

export const MOCK_RULE_ARGS = {
  name: 'name',
  method: 'method',
  pattern: 'pattern',
  status_code: 'statusCode',
  headers: 'headers',
  body: 'body',
  is_fallback: 'isFallback',
  delay_ms: 'delayMs',
  fault: 'fault',
  times: 'times',
  scenario: 'scenario',
  required_state: 'requiredState',
  new_state: 'newState',
  state_key: 'stateKey',
  callbacks: 'callbacks',
} as const;

export const PAGE_ARGS = { query: 'q', limit: 'limit', cursor: 'cursor' } as const;

export const EMAIL_LIST_ARGS = { ...PAGE_ARGS, to: 'capturedFor', since: 'since', search: 'search' } as const;

export const REQUEST_LIST_ARGS = { ...PAGE_ARGS, search: 'search' } as const;

export const EMAIL_WAIT_ARGS = {
  subject_contains: 'subjectContains',
  from_contains: 'fromContains',
  to: 'capturedFor',
  since: 'since',
  timeout_seconds: 'timeoutSeconds',
} as const;

export const REQUEST_WAIT_ARGS = {
  method: 'method',
  path_contains: 'pathContains',
  since: 'since',
  timeout_seconds: 'timeoutSeconds',
} as const;

/** The wait tools' flags, which core takes as filters (`unread_only: false` lifts isRead, `include_older` onlyNewer). */
export const WAIT_FLAG_ARGS = { unread_only: 'isRead', include_older: 'onlyNewer' } as const;

export const SIGNATURE_ARGS = {
  secret: 'secret',
  header: 'header',
  encoding: 'encoding',
  prefix: 'prefix',
  tolerance_seconds: 'toleranceSeconds',
  url: 'url',
} as const;

/** Path ids as core names them in its errors (`sandboxId`, `messageId`, `requestId`). */
const ID_ARGS = {
  sandbox_id: 'sandboxId',
  email_id: 'messageId',
  request_id: 'requestId',
} as const;

/** The core schemas of `names`' fields, under the tool's argument names (descriptions are added by the tool). */
export function coreFields<S extends z.core.$ZodLooseShape, const N extends Record<string, keyof S & string>>(
  shape: S,
  names: N,
): { [K in keyof N]: S[N[K]] } {
  const out: Record<string, unknown> = {};
  for (const [arg, field] of Object.entries(names)) {
    if (shape[field] === undefined)
      throw new Error(`core has no field ${field} for the tool argument ${arg}`);
    out[arg] = shape[field];
  }
  return out as { [K in keyof N]: S[N[K]] };
}

/** Tool arguments back under core's names; arguments `names` does not list are left out. */
export function toCore<A extends object, const N extends ArgNames>(
  args: A,
  names: N,
): { [K in keyof N as N[K]]: K extends keyof A ? A[K] : never } {
  const out: Record<string, unknown> = {};
  const given = args as Record<string, unknown>;
  for (const [arg, field] of Object.entries(names)) {
    if (given[arg] !== undefined) out[field] = given[arg];
  }
  return out as { [K in keyof N as N[K]]: K extends keyof A ? A[K] : never };
}

/** Core field name -> tool argument name, from any number of tables (later ones win). */
export function invert(...tables: ArgNames[]): ArgNames {
  const out: Record<string, string> = {};
  for (const table of tables) for (const [arg, field] of Object.entries(table)) out[field] = arg;
  return out;
}

/** Core's names for ids in its errors, as the tools call them; a sandbox's own routes call its id `id`. */
export const ID_NAMES: ArgNames = { id: 'sandbox_id', ...invert(ID_ARGS) };

/** Segments below these name user data (tag keys, header names), never an argument. */
const DATA_FIELDS = new Set(['tags', 'headers']);

/** Renames a core error path (`mocks[1].statusCode`) to the tool's argument names (`rules[1].status_code`). */
export function renamePath(path: string, coreToArg: ArgNames): string {
  const segments = path.split('.');
  let inData = false;
  return segments
    .map((segment) => {
      if (inData) return segment;
      const match = /^([^[]+)(.*)$/.exec(segment);
      if (match === null) return segment;
      const [, head = '', rest = ''] = match;
      if (DATA_FIELDS.has(head)) inData = true;
      return (Object.hasOwn(coreToArg, head) ? coreToArg[head] : head) + rest;
    })
    .join('.');
}

/** Renames the core paths a message quotes (`mocks[0] is already the fallback` -> `rules[0] ...`). */
export function renamePathsIn(message: string, coreToArg: ArgNames): string {
  return message.replace(/\b[A-Za-z_]\w*(?:\[\d+\])+(?:\.[A-Za-z_]\w*)*/g, (path) =>
    renamePath(path, coreToArg),
  );
}
