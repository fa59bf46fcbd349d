// GET /sandboxes/{sandboxId}/messages/{messageId}/html: a message's HTML part for the dashboard's sandboxed
// iframe. The CSP sandboxes it again on its own (an opaque origin; the one script that may run is ours, which
// tells the dashboard the mail's height), blocks every fetch but images and fonts, and lets only this origin
// frame it; links open in a new tab through an injected <base>; cid: images are inlined as data: URLs.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { AppError } from '../../core/errors.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';

/**
 * The frame's one script. The frame has an opaque origin, so the dashboard cannot read its height; this posts
 * the mail's height to the dashboard each time it changes (late images, a new width). Nothing else can run:
 * the CSP allows exactly this text by its hash, so the mail's scripts, handlers and javascript: URLs stay dead.
 */
export const FRAME_HEIGHT_SCRIPT =
  "new ResizeObserver(function(){parent.postMessage({sandtrapFrameHeight:Math.ceil(document.documentElement.getBoundingClientRect().height)},'*')}).observe(document.documentElement)";

export const MESSAGE_HTML_CSP = [
  // No allow-same-origin: the mail's document is an opaque origin, with no access to the dashboard, its
  // storage or its cookies. allow-scripts only lets FRAME_HEIGHT_SCRIPT run (script-src names its hash).
  'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox',
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(FRAME_HEIGHT_SCRIPT).digest('base64')}'`,
  'img-src data: https: http:',
  "style-src 'unsafe-inline'",
  'font-src data: https:',
  "frame-ancestors 'self'",
].join('; ');

/** cid: parts inlined into one view at most; a mail with more shows the rest as broken images (Attachments lists them). */
export const MAX_INLINE_PART_BYTES = 20 * 1024 * 1024;

const messageParams = z.object({ sandboxId: uuid, messageId: uuid });

/** Comments and a doctype may come first; anything placed before the doctype would force quirks mode. */
const LEADING_DOCTYPE = /^\uFEFF?(?:\s|<!--[\s\S]*?-->)*<!doctype[^>]*>/i;

/**
 * Puts `<base target="_blank">` and the height script ahead of everything the mail has (after its doctype): the parser opens the
 * head for it, the mail's own <html>/<head> tags merge into that, and being the first base with a target,
 * it is the one that counts.
 */
export function withBaseTarget(html: string): string {
  const base = `<base target="_blank"><script>${FRAME_HEIGHT_SCRIPT}</script>`;
  const doctype = LEADING_DOCTYPE.exec(html);
  return doctype === null ? base + html : doctype[0] + base + html.slice(doctype[0].length);
}

/**
 * A sandboxed frame still obeys `<meta http-equiv="refresh">` and navigates itself, fetching whatever the mail
 * names; no CSP directive stops that. Renaming the attribute everywhere (one linear pass; a mail's text that
 * happens to say "http-equiv" shows renamed) leaves every meta tag inert.
 */
export function withoutHttpEquiv(html: string): string {
  return html.replace(/http-equiv/gi, 'data-sandtrap-http-equiv');
}

/** A cid: URL as RFC 2392 writes it (percent-encoded Content-ID), inside an attribute or a CSS url(). */
const CID_URL = /(^|["'(\s=])cid:([^"'\s)>]+)/gi;

function decodedOrSame(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A part's type as a data: URL may carry it; anything else is sent as bytes of no type. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

export interface InlinePart {
  contentType: string;
  content: Buffer;
}

/**
 * Points `cid:` URLs at the part they name, inlined as a data: URL (the frame's opaque origin sends no cookie,
 * so it could not fetch /parts); a Content-ID with no part here points at this message's /parts/{contentId},
 * relative to the /html URL, as Mailpit does. Done on the server, so the parent never edits the mail.
 */
export function withPartUrls(html: string, parts: ReadonlyMap<string, InlinePart> = new Map()): string {
  const dataUrls = new Map<string, string>();
  const dataUrl = (cid: string): string | undefined => {
    const known = dataUrls.get(cid);
    if (known !== undefined) return known;
    const part = parts.get(cid);
    if (part === undefined) return undefined;
    const type = MEDIA_TYPE.test(part.contentType) ? part.contentType : 'application/octet-stream';
    const url = `data:${type};base64,${part.content.toString('base64')}`;
    dataUrls.set(cid, url);
    return url;
  };
  return html.replace(CID_URL, (_all, lead: string, cid: string) => {
    const id = decodedOrSame(cid);
    return `${lead}${dataUrl(id) ?? `parts/${encodeURIComponent(id)}`}`;
  });
}

export function messageHtmlRoutes(app: FastifyInstance, core: Core): void {
  app.get('/sandboxes/:sandboxId/messages/:messageId/html', async (request, reply) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    const { html, parts } = await core.messages.htmlWithParts(
      request.principal.workspaceId,
      sandboxId,
      messageId,
      MAX_INLINE_PART_BYTES,
    );
    if (html === null) {
      throw new AppError(
        'not_found',
        'This message has no HTML part. Read its text in the message detail (textBody) or its raw source.',
      );
    }
    return reply
      .header('Content-Security-Policy', MESSAGE_HTML_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'private, no-cache')
      .type('text/html; charset=utf-8')
      .send(withBaseTarget(withPartUrls(withoutHttpEquiv(html), parts)));
  });
}
