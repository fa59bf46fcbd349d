// GET /sandboxes/{sandboxId}/messages/{messageId}/html: a message's HTML part for the dashboard's sandboxed
// iframe. The CSP sandboxes it again on its own (no script; same-origin kept so the dashboard can measure its
// height and its cid: images load with the session cookie), blocks every fetch but images and fonts, and lets
// only this origin frame it; links open in a new tab through an injected <base>; cid: URLs point at /parts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { AppError } from '../../core/errors.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';

export const MESSAGE_HTML_CSP = [
  // allow-same-origin without allow-scripts: nothing in the mail can run, so the origin it keeps is only read by
  // the parent (the frame's height) and sent with the /parts requests (the SameSite=Strict session cookie).
  // With no script-src, 'unsafe-inline' is missing too, which also blocks javascript: URLs the mail navigates to.
  'sandbox allow-same-origin allow-popups allow-popups-to-escape-sandbox',
  "default-src 'none'",
  "img-src 'self' data: https: http:",
  "style-src 'unsafe-inline'",
  'font-src data: https:',
  "frame-ancestors 'self'",
].join('; ');

const messageParams = z.object({ sandboxId: uuid, messageId: uuid });

/** Comments and a doctype may come first; anything placed before the doctype would force quirks mode. */
const LEADING_DOCTYPE = /^\uFEFF?(?:\s|<!--[\s\S]*?-->)*<!doctype[^>]*>/i;

/**
 * Puts `<base target="_blank">` ahead of everything the mail has (after its doctype): the parser opens the
 * head for it, the mail's own <html>/<head> tags merge into that, and being the first base with a target,
 * it is the one that counts.
 */
export function withBaseTarget(html: string): string {
  const base = '<base target="_blank">';
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

/**
 * Points `cid:` URLs at this message's /parts/{contentId}, relative to the /html URL so no id is repeated here.
 * Done on the server, as Mailpit does, so the frame needs no script and the parent never edits the mail.
 */
export function withPartUrls(html: string): string {
  return html.replace(
    CID_URL,
    (_all, lead: string, cid: string) => `${lead}parts/${encodeURIComponent(decodedOrSame(cid))}`,
  );
}

export function messageHtmlRoutes(app: FastifyInstance, core: Core): void {
  app.get('/sandboxes/:sandboxId/messages/:messageId/html', async (request, reply) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    const message = await core.messages.get(request.principal.workspaceId, sandboxId, messageId);
    if (message.htmlBody === null) {
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
      .send(withBaseTarget(withPartUrls(withoutHttpEquiv(message.htmlBody))));
  });
}
