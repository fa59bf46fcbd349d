// Decodes the HTML character references that mail templates actually use, in one linear pass.

/** Named references seen in real mail; anything else is left as written rather than guessed. */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  zwnj: '\u200c',
  zwj: '\u200d',
  shy: '\u00ad',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  deg: '°',
  aacute: 'á',
  agrave: 'à',
  acirc: 'â',
  atilde: 'ã',
  auml: 'ä',
  ccedil: 'ç',
  eacute: 'é',
  egrave: 'è',
  ecirc: 'ê',
  euml: 'ë',
  iacute: 'í',
  icirc: 'î',
  iuml: 'ï',
  ntilde: 'ñ',
  oacute: 'ó',
  ocirc: 'ô',
  otilde: 'õ',
  ouml: 'ö',
  uacute: 'ú',
  ugrave: 'ù',
  ucirc: 'û',
  uuml: 'ü',
  szlig: 'ß',
  Aacute: 'Á',
  Eacute: 'É',
  Ntilde: 'Ñ',
  Ouml: 'Ö',
  Uuml: 'Ü',
  Auml: 'Ä',
  Ccedil: 'Ç',
};

const MAX_REFERENCE = 32;

function codePoint(value: number): string | null {
  if (!Number.isFinite(value) || value <= 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) {
    return null;
  }
  return String.fromCodePoint(value);
}

function reference(body: string): string | null {
  if (body.startsWith('#x') || body.startsWith('#X')) {
    return /^[0-9a-fA-F]{1,6}$/.test(body.slice(2)) ? codePoint(Number.parseInt(body.slice(2), 16)) : null;
  }
  if (body.startsWith('#'))
    return /^[0-9]{1,7}$/.test(body.slice(1)) ? codePoint(Number(body.slice(1))) : null;
  return Object.hasOwn(NAMED, body) ? (NAMED[body] ?? null) : (NAMED[body.toLowerCase()] ?? null);
}

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  let out = '';
  let from = 0;
  let amp = text.indexOf('&');
  while (amp !== -1) {
    // A reference is short, so looking only a few characters ahead keeps this linear.
    const semi = text.slice(amp + 1, amp + 2 + MAX_REFERENCE).indexOf(';');
    if (semi !== -1) {
      const decoded = reference(text.slice(amp + 1, amp + 1 + semi));
      if (decoded !== null) {
        out += text.slice(from, amp) + decoded;
        from = amp + 2 + semi;
      }
    }
    amp = text.indexOf('&', Math.max(amp + 1, from));
  }
  return out + text.slice(from);
}
