// Inputs that make a careless text scanner quadratic or worse: the extraction tests assert what comes out of
// them, and bench/linearTime.ts times the same inputs.

/** `size` characters of digit runs (1..9 long) and spaces from a fixed LCG: many near-miss OTP candidates. */
export function digitsAndSpaces(size: number): string {
  let out = '';
  let seed = 7;
  while (out.length < size) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const len = 1 + (seed % 9);
    out += String(seed).padStart(10, '0').slice(0, len) + (seed % 5 === 0 ? '  ' : ' ');
  }
  return out;
}

/**
 * Repetitive shapes, each run as both the text and the HTML of a message, with what extraction finds in them:
 * the code (null: none, status not_found) and how many links.
 */
export const PATHOLOGICAL_SHAPES: ReadonlyArray<{ shape: string; code: string | null; links: number }> = [
  { shape: '1-'.repeat(100_000), code: null, links: 0 },
  { shape: '+('.repeat(100_000), code: null, links: 0 },
  { shape: 'code '.repeat(40_000), code: null, links: 0 },
  { shape: 'promo code 1234 '.repeat(12_000), code: null, links: 0 },
  { shape: '&'.repeat(200_000), code: null, links: 0 },
  { shape: '&#'.repeat(100_000), code: null, links: 0 },
  { shape: '<a href="'.repeat(20_000), code: null, links: 0 },
  { shape: `<b>${'<i>'.repeat(50_000)}code 123456`, code: '123456', links: 0 },
  { shape: "<a x='".repeat(30_000), code: null, links: 0 },
  { shape: 'A1-'.repeat(60_000), code: null, links: 0 },
  { shape: `https://${'a'.repeat(200_000)}`, code: null, links: 1 },
  { shape: `${'•'.repeat(100_000)}1234`, code: null, links: 0 },
];
