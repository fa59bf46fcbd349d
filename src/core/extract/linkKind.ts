// Classifies a link by what it does for the reader, from its anchor text, its URL and, when those say
// nothing, the words around it. The words are in linkWords.ts, for the languages the OTP vocabulary covers.
import {
  INVITE_WORDS,
  JOIN_WORDS,
  LOGIN_WORDS,
  MAGIC_WORDS,
  ORDER_WORDS,
  PREFERENCE_WORDS,
  RESET_WORDS,
  UNSUBSCRIBE_WORDS,
  VERIFY_WORDS,
} from './linkWords.ts';

export type LinkKind = 'verify' | 'reset' | 'magic_login' | 'invite' | 'unsubscribe' | 'other';

/** Query names and path shapes that carry a one-use secret. */
const TOKEN_PARAM =
  /[?&#;](token|code|key|otp|t|k|auth|hash|sig|signature|nonce|ticket|magic|login_token|access_token)=[^&#]{6,}/i;
const LONG_SEGMENT = /\/[A-Za-z0-9_-]{20,}(?:[/?#]|$)/;

/** Query parameters that route or track a visit; they carry no secret. */
const ROUTING_PARAM =
  /^(utm_.*|mc_.*|_hs.*|ref|referrer|src|source|lang|locale|hl|language|redirect.*|next|return.*|continue|from|campaign|cid|medium|view|tab|page)$/i;

/** Anchor texts that say nothing about the link: its sentence has to. */
const GENERIC_TEXT =
  /^(click here|here|link|this link|click|tap here|open|open link|button|go|continue|ici|cliquez ici|hier|klicken sie hier|aquí|aqui|haz clic aquí|clique aqui|qui|clicca qui|tutaj|kliknij tutaj|здесь|сюда|тут|こちら|ここ|点击这里|这里|여기|ที่นี่|tại đây|di sini|disini|buraya|burada)$/i;

const containsAny = (haystack: string, words: readonly string[]): boolean =>
  words.some((w) => haystack.includes(w));

export function hasToken(url: string): boolean {
  return TOKEN_PARAM.test(url) || LONG_SEGMENT.test(url);
}

interface ParsedUrl {
  /** Path, query and fragment, lower case and percent-decoded: the part that says what the link does. */
  target: string;
  params: URLSearchParams | null;
  segments: string[];
}

function parse(url: string): ParsedUrl {
  try {
    const parsed = new URL(url);
    // The host says who sent it, not what the link does ("login.example.com/unsubscribe").
    const raw = parsed.pathname + parsed.search + parsed.hash;
    let target = raw;
    try {
      target = decodeURIComponent(raw);
    } catch {
      // A malformed escape: keep the raw text.
    }
    return {
      target: target.toLowerCase(),
      params: parsed.searchParams,
      segments: parsed.pathname.split('/').filter((s) => s !== ''),
    };
  } catch {
    return { target: url.toLowerCase(), params: null, segments: [] };
  }
}

/**
 * Whether a URL carries something that signs its visitor in: a token-like parameter or path segment, any
 * parameter that is not routing or tracking, or a segment after a sign-in segment ("/signin/link/Pq3").
 */
export function carriesSecret(url: string): boolean {
  if (hasToken(url)) return true;
  const { params, segments } = parse(url);
  if (params !== null) {
    for (const [name, value] of params) if (!ROUTING_PARAM.test(name) && value.length >= 3) return true;
  }
  const at = segments.findIndex(
    (s) => containsAny(s.toLowerCase(), LOGIN_WORDS) || containsAny(s, MAGIC_WORDS),
  );
  return at !== -1 && at < segments.length - 1;
}

/** Whether an anchor text says nothing about its link: empty, generic, or the URL itself. */
export function genericText(text: string): boolean {
  const t = text.trim().toLowerCase();
  return t === '' || GENERIC_TEXT.test(t) || /^(https?:\/\/|www\.)/.test(t);
}

type ActionKind = 'reset' | 'invite' | 'magic_login' | 'verify';
/** When two kinds are as likely, the first wins: a reset link also confirms, an invite also signs in. */
const PRIORITY: readonly ActionKind[] = ['reset', 'invite', 'magic_login', 'verify'];

/** How strongly words of one list point at a link: its anchor text counts most, then its URL. */
function strength(label: string, target: string, words: readonly string[]): number {
  return (containsAny(label, words) ? 3 : 0) + (containsAny(target, words) ? 2 : 0);
}

/**
 * The kind of a link. Unsubscribe wins (its links often carry tokens too); then the kind its anchor text and
 * URL point at most strongly; a sign-in link is a magic login only when it carries a secret. `context` (the
 * words around the link) decides for an anchor that says nothing, and makes "Join" or "Accept" an invite.
 */
export function linkKind(url: string, text: string, context = ''): LinkKind {
  const { target } = parse(url);
  const label = text.toLowerCase();
  const around = context.toLowerCase();
  if (containsAny(`${target} ${label}`, UNSUBSCRIBE_WORDS) || containsAny(label, PREFERENCE_WORDS)) {
    return 'unsubscribe';
  }
  if (containsAny(target, PREFERENCE_WORDS) && !carriesSecret(url)) return 'unsubscribe';
  const secret = carriesSecret(url);
  const invitation = containsAny(around, INVITE_WORDS) || containsAny(label, INVITE_WORDS);
  const score = (l: string, t: string): Record<ActionKind, number> => {
    const login = strength(l, t, LOGIN_WORDS);
    return {
      reset: strength(l, t, RESET_WORDS),
      invite: Math.max(strength(l, t, INVITE_WORDS), invitation ? strength(l, t, JOIN_WORDS) : 0),
      magic_login: Math.max(strength(l, t, MAGIC_WORDS), secret ? login : 0),
      verify: strength(l, t, VERIFY_WORDS),
    };
  };
  let scores = score(label, target);
  const silent = PRIORITY.every((k) => scores[k] === 0);
  // An anchor that says nothing ("click here") on a link with a secret: the sentence around it decides.
  if (silent && (genericText(text) || secret) && around !== '') scores = score(around, '');
  let best: ActionKind | null = null;
  for (const k of PRIORITY) if (scores[k] > 0 && (best === null || scores[k] > scores[best])) best = k;
  if (best === null) return 'other';
  // "View order confirmation", "Confirm your booking": about an order, not an account.
  if ((best === 'verify' || best === 'invite') && containsAny(`${label} ${target}`, ORDER_WORDS))
    return 'other';
  return best;
}
