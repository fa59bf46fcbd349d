// Tool schemas in the JSON Schema spelling every MCP client can map and in few characters (every client puts
// them in the model's context): a nullable field is `anyOf` of single-type branches, never a `type` array, which
// single-type dialects (Gemini's OpenAPI subset) reject or flatten.
import type { z } from 'zod';

type Json = Record<string, unknown>;

/** Keywords that belong to the non-null branch when a `type` array is split. */
function splitTypeArray(node: Json, types: string[]): Json {
  const { type: _type, ...rest } = node;
  const branches = types.map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...rest }));
  const meta: Json = {};
  for (const key of ['description', 'title', 'default', 'examples']) {
    if (key in rest) {
      meta[key] = rest[key];
      for (const b of branches) delete (b as Json)[key];
    }
  }
  return { ...meta, anyOf: branches };
}

/** Core's numbers also accept digit strings (query strings); tools get JSON, so they are shown as integers. */
const DIGIT_STRING = '^-?\\d{1,16}$';

function isCoercedNumber(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const [n, s] = anyOf as Json[];
  return (
    n?.type === 'number' && s?.type === 'string' && s.pattern === DIGIT_STRING && Object.keys(n).length === 1
  );
}

/** Keys that say nothing a client needs: zod's spelled-out formats, JSON's own bounds, the default dialect. */
function redundant(key: string, value: unknown, node: Json): boolean {
  if (key === '$schema') return true;
  // `format` (uuid, date-time) says what zod's several-hundred-character pattern says; the server still checks
  // every argument with the full schema.
  if (key === 'pattern' && typeof node.format === 'string') return true;
  if ((key === 'maximum' || key === 'minimum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER)
    return true;
  // Object keys are strings in JSON.
  // additionalProperties {} allows anything, as leaving it out does.
  if (key === 'additionalProperties' && JSON.stringify(value) === '{}') return true;
  return key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}';
}

/** Rewrites one JSON Schema tree (a fresh copy; the input is left alone). */
export function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== 'object') return node;
  let out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (!redundant(key, value, node as Json)) out[key] = portable(value);
  }
  if (isCoercedNumber(out.anyOf)) {
    const { anyOf: _anyOf, ...rest } = out;
    out = { type: 'integer', ...rest };
  }
  const type = out.type;
  if (Array.isArray(type)) {
    if (type.length === 1) out.type = type[0];
    else return splitTypeArray(out, type as string[]);
  }
  return out;
}

/**
 * A zod schema as the SDK takes it (Standard Schema with JSON Schema), validating with zod and describing
 * itself in the portable spelling.
 */
export function portableSchema<S extends z.ZodType>(schema: S): S {
  const std = schema['~standard'];
  const json = (std as { jsonSchema?: Record<'input' | 'output', (o: unknown) => unknown> }).jsonSchema;
  if (json === undefined) throw new Error('zod >= 4.2 is required for tool schemas');
  const wrapped = {
    '~standard': {
      ...std,
      validate: (value: unknown) => std.validate(value),
      jsonSchema: {
        input: (options: unknown) => portable(json.input(options)),
        output: (options: unknown) => portable(json.output(options)),
      },
    },
  };
  // zod: the SDK reads only '~standard', so this stands in for S, which zod gives no way to build.
  return wrapped as unknown as S;
}
