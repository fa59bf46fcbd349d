// Picks the link a person would click in a mail: the verify, reset, magic-login or invite link, never a logo,
// home, help, privacy, unsubscribe or tracking link. Among several, the one of the kind the mail is about (the
// kind its visible text names first) wins, then the one whose own text and URL say most, then the first.
import { htmlToPlainText } from './lines.ts';
import { genericText, type LinkKind } from './linkKind.ts';
import { findLinks, type FoundLink, type LinksInput } from './links.ts';
import { INVITE_WORDS, LOGIN_WORDS, MAGIC_WORDS, RESET_WORDS, VERIFY_WORDS } from './linkWords.ts';

export interface PrimaryLink {
  url: string;
  kind: LinkKind;
  text: string;
}

const ACTION_WORDS: ReadonlyArray<[LinkKind, readonly string[]]> = [
  ['reset', RESET_WORDS],
  ['invite', INVITE_WORDS],
  ['magic_login', [...MAGIC_WORDS, ...LOGIN_WORDS]],
  ['verify', VERIFY_WORDS],
];

/** Only the opening of a mail is read for its subject: that is where it says what it is about. */
const OPENING_CHARS = 4000;

/** The action kind whose words come first in the mail's visible text, or null when it names none. */
function purposeOf(visible: string): LinkKind | null {
  const opening = visible.slice(0, OPENING_CHARS).toLowerCase();
  let best: LinkKind | null = null;
  let at = Infinity;
  for (const [kind, words] of ACTION_WORDS) {
    for (const w of words) {
      const k = opening.indexOf(w);
      if (k !== -1 && k < at) {
        at = k;
        best = kind;
      }
    }
  }
  return best;
}

/** How much a link's own text and URL say about its kind: its anchor counts most, then its URL. */
function ownWeight(link: FoundLink): number {
  const words = ACTION_WORDS.find(([kind]) => kind === link.kind)?.[1] ?? [];
  const text = link.text.toLowerCase();
  const url = link.url.toLowerCase();
  return (
    (words.some((w) => text.includes(w)) ? 2 : 0) +
    (words.some((w) => url.includes(w)) ? 1 : 0) +
    (genericText(link.text) ? 0 : 0.5)
  );
}

const ACTIONS: ReadonlySet<LinkKind> = new Set(['verify', 'reset', 'magic_login', 'invite']);

/** The link a person would click in this mail, or null when it has none of the kinds that act on an account. */
export function primaryLink(input: LinksInput): PrimaryLink | null {
  const candidates = findLinks(input).filter((l) => ACTIONS.has(l.kind) && !l.imageOnly);
  if (candidates.length === 0) return null;
  const visible =
    typeof input.html === 'string' && input.html !== ''
      ? htmlToPlainText(input.html.slice(0, OPENING_CHARS * 8))
      : (input.text ?? '');
  const purpose = purposeOf(visible);
  let best: FoundLink | undefined;
  let bestScore = -Infinity;
  for (const link of candidates) {
    const score = (link.kind === purpose ? 3 : 0) + ownWeight(link);
    if (score > bestScore) {
      best = link;
      bestScore = score;
    }
  }
  if (best === undefined) return null;
  return { url: best.url, kind: best.kind, text: best.text === '' ? best.url : best.text };
}
