// A spam-style score from offline rules (no SpamAssassin daemon): each rule that fires adds its score and says
// why. Scores follow SpamAssassin's sense (higher is spammier, 5 and over counts as spam) so a reader used to
// it reads them the same way; the rules are ours and small.
import { extractLinks, htmlToPlainText } from '../extract/index.ts';
import type { NameValue } from '../store/schema.ts';

export interface SpamRuleHit {
  /** Stable rule id, upper snake case (e.g. `MISSING_DATE`). */
  id: string;
  score: number;
  /** What the rule looks for and what was found in this message. */
  explanation: string;
}

export interface SpamReport {
  /** The sum of the hits' scores, to one decimal. */
  score: number;
  threshold: number;
  isSpam: boolean;
  hits: SpamRuleHit[];
}

export interface SpamInput {
  subject: string | null;
  headers: NameValue[];
  textBody: string | null;
  htmlBody: string | null;
}

export const SPAM_THRESHOLD = 5;

type Rule = { id: string; score: number; test: (m: Facts) => string | undefined };

interface Facts {
  subject: string;
  header: (name: string) => string | undefined;
  text: string;
  html: string | null;
  htmlText: string;
  links: Array<{ url: string; text: string }>;
  imageCount: number;
}

const BLOCKED_PHRASES = [
  'click here',
  'act now',
  'limited time',
  '100% free',
  'risk-free',
  'no credit check',
  'winner',
  'you have been selected',
  'urgent response',
  'guaranteed',
  'earn money',
  'cash bonus',
  'free gift',
  'once in a lifetime',
  'this is not spam',
];

function hostOf(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The registrable-ish part of a host: its last two labels (good enough to tell acme.test from evil.test). */
const siteOf = (host: string) =>
  host
    .replace(/^www\./, '')
    .split('.')
    .slice(-2)
    .join('.');

/** A domain written as a link's visible text (`www.bank.test`, `https://bank.test/login`), or undefined. */
function domainInText(text: string): string | undefined {
  const m = /^(?:https?:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#]\S*)?$/i.exec(text.trim());
  return m?.[1]?.toLowerCase();
}

const RULES: Rule[] = [
  {
    id: 'MISSING_DATE',
    score: 1.4,
    test: (m) =>
      m.header('date') === undefined ? 'The message has no Date header; RFC 5322 requires one.' : undefined,
  },
  {
    id: 'MISSING_MESSAGE_ID',
    score: 1.2,
    test: (m) =>
      m.header('message-id') === undefined
        ? 'The message has no Message-ID header; real mail systems always add one.'
        : undefined,
  },
  {
    id: 'MISSING_FROM',
    score: 2.5,
    test: (m) =>
      m.header('from') === undefined ? 'The message has no From header; RFC 5322 requires one.' : undefined,
  },
  {
    id: 'MISSING_SUBJECT',
    score: 0.8,
    test: (m) => (m.subject.trim() === '' ? 'The message has no subject.' : undefined),
  },
  {
    id: 'MISSING_LIST_UNSUBSCRIBE',
    score: 0.5,
    test: (m) =>
      m.header('list-unsubscribe') === undefined && m.links.length > 0
        ? 'The message has links but no List-Unsubscribe header; bulk senders must offer one (Gmail and Yahoo require it).'
        : undefined,
  },
  {
    id: 'SUBJECT_ALL_CAPS',
    score: 1.5,
    test: (m) => {
      const letters = m.subject.replace(/[^\p{L}]/gu, '');
      return letters.length >= 8 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()
        ? `The subject is written in capitals ("${m.subject}").`
        : undefined;
    },
  },
  {
    id: 'SUBJECT_EXCLAMATIONS',
    score: 1.0,
    test: (m) => {
      const n = (m.subject.match(/!/g) ?? []).length;
      return n >= 2 ? `The subject has ${n} exclamation marks.` : undefined;
    },
  },
  {
    id: 'BODY_EXCLAMATIONS',
    score: 0.8,
    test: (m) => {
      const run = /!{3,}/.exec(m.text + ' ' + m.htmlText);
      return run !== null ? `The body has a run of ${run[0].length} exclamation marks.` : undefined;
    },
  },
  {
    id: 'BLOCKLISTED_PHRASE',
    score: 1.0,
    test: (m) => {
      const body = `${m.subject}\n${m.text}\n${m.htmlText}`.toLowerCase();
      const found = BLOCKED_PHRASES.filter((p) => body.includes(p));
      return found.length > 0
        ? `The message uses phrases common in spam: ${found.map((p) => `"${p}"`).join(', ')}.`
        : undefined;
    },
  },
  {
    id: 'HTML_ONLY',
    score: 0.7,
    test: (m) =>
      m.html !== null && m.text.trim() === ''
        ? 'The message has an HTML part but no plain-text alternative.'
        : undefined,
  },
  {
    id: 'HTML_LOW_TEXT_RATIO',
    score: 1.0,
    test: (m) => {
      if (m.html === null || m.html.length < 1000) return undefined;
      const ratio = m.htmlText.trim().length / m.html.length;
      return ratio < 0.05
        ? `Only ${(ratio * 100).toFixed(1)}% of the HTML part is visible text (${m.htmlText.trim().length} of ${m.html.length} characters); mostly markup reads as a spam trait.`
        : undefined;
    },
  },
  {
    id: 'IMAGE_ONLY',
    score: 2.0,
    test: (m) =>
      m.imageCount > 0 && m.htmlText.replace(/\s+/g, '').length < 40 && m.text.trim().length < 40
        ? `The message is ${m.imageCount} image${m.imageCount === 1 ? '' : 's'} with almost no text; filters cannot read images.`
        : undefined,
  },
  {
    id: 'LINK_TEXT_DOMAIN_MISMATCH',
    score: 2.0,
    test: (m) => {
      const bad = m.links.flatMap((l) => {
        const shown = domainInText(l.text);
        const real = hostOf(l.url);
        return shown !== undefined && real !== undefined && siteOf(shown) !== siteOf(real)
          ? [`"${l.text}" goes to ${real}`]
          : [];
      });
      return bad.length > 0
        ? `A link shows one domain and goes to another: ${bad.slice(0, 3).join('; ')}.`
        : undefined;
    },
  },
  {
    id: 'LINK_TO_IP_ADDRESS',
    score: 1.5,
    test: (m) => {
      const ip = m.links
        .map((l) => hostOf(l.url))
        .find((h) => h !== undefined && /^(\d{1,3}\.){3}\d{1,3}$|^\[/.test(h));
      return ip !== undefined ? `A link goes to a bare IP address (${ip}) instead of a domain.` : undefined;
    },
  },
];

/** Runs every rule on the message; hits are in rule order. */
export function spamScore(input: SpamInput): SpamReport {
  const html = input.htmlBody !== null && input.htmlBody.trim() !== '' ? input.htmlBody : null;
  const facts: Facts = {
    subject: input.subject ?? '',
    header: (name) => input.headers.find((h) => h.name.toLowerCase() === name)?.value,
    text: input.textBody ?? '',
    html,
    htmlText: html === null ? '' : htmlToPlainText(html),
    links: extractLinks({ text: null, html }),
    imageCount: html === null ? 0 : (html.match(/<img\b/gi) ?? []).length,
  };
  const hits: SpamRuleHit[] = [];
  for (const rule of RULES) {
    const explanation = rule.test(facts);
    if (explanation !== undefined) hits.push({ id: rule.id, score: rule.score, explanation });
  }
  const score = Math.round(hits.reduce((sum, h) => sum + h.score, 0) * 10) / 10;
  return { score, threshold: SPAM_THRESHOLD, isSpam: score >= SPAM_THRESHOLD, hits };
}
