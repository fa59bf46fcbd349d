// The link check: each link of a message fetched with GET (body not read), redirects followed by hand, and
// every hop vetted by the outbound webhooks' target policy and pinned to the addresses vetted, so a link can
// never reach what a webhook could not. Runs only when asked; a link that cannot be checked says why.
import type { LookupAddress } from 'node:dns';
import { extractLinks } from '../extract/index.ts';
import { failure, pinnedRequest } from '../pinnedRequest.ts';
import { vetTarget, type TargetPolicy } from '../webhooks/targets.ts';

export const LINK_TIMEOUT_MS = 5000;
export const MAX_REDIRECTS = 5;
export const LINK_CONCURRENCY = 4;
export const MAX_LINKS_CHECKED = 100;

export type LinkStatus = 'ok' | 'broken' | 'refused' | 'unreachable' | 'skipped';

export interface LinkHop {
  url: string;
  statusCode: number;
}

export interface LinkResult {
  url: string;
  text: string;
  /** ok: a 2xx at the end; broken: a 4xx/5xx; refused: the target policy refused a hop; unreachable: no answer. */
  status: LinkStatus;
  /** The last hop's HTTP status, or null when none was answered. */
  statusCode: number | null;
  /** Each redirect answered on the way, in order (status 3xx with the URL that answered it). */
  redirects: LinkHop[];
  finalUrl: string;
  /** Why the link could not be checked or is broken; for `refused`, the policy rule that refused it. */
  reason: string | null;
}

export interface LinkCheckReport {
  checked: number;
  errors: number;
  links: LinkResult[];
}

interface Answer {
  statusCode: number | null;
  location: string | null;
  error: string | null;
}

/** One GET to the vetted addresses; only the status line and headers are read. */
function getPinned(target: string, addresses: LookupAddress[]): Promise<Answer> {
  return new Promise((resolve) => {
    const req = pinnedRequest(target, addresses, {
      method: 'GET',
      headers: { 'user-agent': 'sandtrap-link-check', accept: '*/*' },
      timeoutMs: LINK_TIMEOUT_MS,
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ statusCode: null, location: null, error: failure(err, LINK_TIMEOUT_MS) }),
    );
    req.on('response', (res) => {
      const location = typeof res.headers.location === 'string' ? res.headers.location : null;
      resolve({ statusCode: res.statusCode ?? null, location, error: null });
      res.destroy();
    });
    req.end();
  });
}

/** Checks one URL, following up to MAX_REDIRECTS redirects, each hop vetted afresh. */
export async function checkLink(raw: string, text: string, policy: TargetPolicy): Promise<LinkResult> {
  const redirects: LinkHop[] = [];
  let current = raw;
  const result = (status: LinkStatus, statusCode: number | null, reason: string | null): LinkResult => ({
    url: raw,
    text,
    status,
    statusCode,
    redirects,
    finalUrl: current,
    reason,
  });
  for (;;) {
    const vetted = await vetTarget(current, policy);
    // A name that does not resolve (or no DNS at all) is not the policy's refusal: the link is unreachable.
    if (!vetted.ok && /^the host \S+ does not resolve/.test(vetted.reason)) {
      return result('unreachable', redirects.at(-1)?.statusCode ?? null, vetted.reason);
    }
    if (!vetted.ok) {
      return result(
        'refused',
        redirects.at(-1)?.statusCode ?? null,
        `refused by the target policy: ${vetted.reason}`,
      );
    }
    const answer = await getPinned(current, vetted.addresses);
    if (answer.statusCode === null) return result('unreachable', null, answer.error);
    const code = answer.statusCode;
    if (code >= 300 && code < 400 && answer.location !== null) {
      redirects.push({ url: current, statusCode: code });
      if (redirects.length > MAX_REDIRECTS) {
        return result('broken', code, `more than ${MAX_REDIRECTS} redirects`);
      }
      try {
        current = new URL(answer.location, current).href.replace(/#.*$/, '');
      } catch {
        return result('broken', code, `the redirect to "${answer.location}" is not a valid URL`);
      }
      continue;
    }
    if (code >= 200 && code < 300) return result('ok', code, null);
    return result('broken', code, `the server answered ${code}`);
  }
}

/** Runs `task` over `items` with at most `limit` at a time, keeping the input order in the result. */
async function mapBounded<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The http(s) links of a message's HTML and text parts, each checked (first MAX_LINKS_CHECKED). */
export async function checkMessageLinks(
  message: { textBody: string | null; htmlBody: string | null },
  policy: TargetPolicy,
): Promise<LinkCheckReport> {
  const links = extractLinks({ text: message.textBody, html: message.htmlBody });
  const web = links.filter((l) => /^https?:/i.test(l.url)).slice(0, MAX_LINKS_CHECKED);
  const skipped: LinkResult[] = links
    .filter((l) => !/^https?:/i.test(l.url))
    .map((l) => ({
      url: l.url,
      text: l.text,
      status: 'skipped',
      statusCode: null,
      redirects: [],
      finalUrl: l.url,
      reason: 'not an http or https link (app links are not fetched)',
    }));
  const checked = await mapBounded(web, LINK_CONCURRENCY, (l) => checkLink(l.url, l.text, policy));
  const all = [...checked, ...skipped];
  return { checked: checked.length, errors: checked.filter((l) => l.status !== 'ok').length, links: all };
}
