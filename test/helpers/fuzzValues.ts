// What the REST and MCP fuzz tests share: hostile strings and dates, the text that must never leak to a
// client, percent-encoding, and the walk that corrupts exactly one place of an otherwise valid value.
import fc from 'fast-check';

/** Text that belongs to the store, the driver, the parser or the runtime, never to an answer or a result. */
export const LEAK =
  /invalid input syntax|\brelation "|syntax error at|Maximum call stack|node_modules|\.ts:\d+|\bat (?:async )?[\w.<>]+ \(|\bPGlite\b|\bkysely\b|ZodError|TypeError|RangeError|ECONNREFUSED|date\/time field/i;

export const loneSurrogate = fc
  .tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 4 }))
  .map(([a, unit, b]) => `${a}${String.fromCharCode(unit)}${b}`);

export const EXTREME_DATES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '1970-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59-14:00',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T00:00:00',
  '2026-01-01',
  '1e400',
  'yesterday',
];

/**
 * Hostile text: lone surrogates most often (they are the likeliest to pass every type check and reach a
 * store), control and bidi characters, extreme dates, lengths around every limit, numbers as text, the
 * door's own syntax (`doorSpecific`), and random binary.
 */
export function hostileStrings(doorSpecific: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: loneSurrogate },
    fc.constantFrom(
      '\u0000',
      'a\u0000b',
      '',
      ' ',
      '\ufeff',
      '\u202e',
      '\ud83d',
      '\ude00',
      '😀\ud800',
      '\ud800\udc00',
    ),
    fc.constantFrom(...EXTREME_DATES),
    fc.constantFrom(17, 65, 121, 201, 257, 321, 513, 1025, 65537, 100_000).map((n) => 'x'.repeat(n)),
    fc.constantFrom(
      '1e3',
      '-1',
      '0',
      '1',
      '99999999999',
      'NaN',
      'Infinity',
      '0x10',
      ' 5',
      '1.0',
      '2147483648',
    ),
    fc.constantFrom(
      '%',
      '_',
      '\\',
      '"',
      '{{',
      '{{body.__proto__}}',
      "'; drop table sandboxes; --",
      ...doorSpecific,
    ),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );
}

/** Percent-encodes every UTF-8 byte outside the unreserved set (a lone surrogate becomes U+FFFD's bytes). */
export function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export type Path = Array<string | number>;

/** Every place a value can be corrupted: each leaf, and each object (to gain a hostile key). */
export function places(value: unknown, path: Path = [], out: Array<{ path: Path; leaf: boolean }> = []) {
  if (Array.isArray(value)) value.forEach((v, i) => places(v, [...path, i], out));
  else if (typeof value === 'object' && value !== null) {
    out.push({ path, leaf: false });
    for (const [k, v] of Object.entries(value)) places(v, [...path, k], out);
  } else out.push({ path, leaf: true });
  return out;
}

/** `value` with the thing at `path` replaced by `make(old)`; nothing else is copied more than needed. */
export function replaced(value: unknown, path: Path, make: (old: unknown) => unknown): unknown {
  if (path.length === 0) return make(value);
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaced(v, rest, make) : v));
  const obj = value as Record<string, unknown>;
  return { ...obj, [head]: replaced(obj[head], rest, make) };
}
