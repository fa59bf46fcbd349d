// MCP view of a message's checks (get_email `checks`): the REST reports in the tools' snake_case, the HTML
// report condensed to client names per feature so an agent reads it in few tokens.
import { z } from 'zod';
import type { CheckReports } from '../core/checks/service.ts';

const percents = { supported: z.number(), partial: z.number(), unsupported: z.number() };

export const checksSchema = z
  .object({
    html: z
      .object({
        has_html: z.boolean(),
        clients_checked: z.number(),
        total: z.object({ ...percents, features: z.number() }),
        features: z.array(
          z.object({
            title: z.string(),
            url: z.string().nullable(),
            positions: z.array(z.object({ line: z.number(), column: z.number() })),
            unsupported_in: z.array(z.string()),
            partial_in: z.array(z.string()),
          }),
        ),
      })
      .optional(),
    spam: z
      .object({
        score: z.number(),
        threshold: z.number(),
        is_spam: z.boolean(),
        hits: z.array(z.object({ id: z.string(), score: z.number(), explanation: z.string() })),
      })
      .optional(),
    links: z
      .object({
        checked: z.number(),
        errors: z.number(),
        links: z.array(
          z.object({
            url: z.string(),
            status: z.enum(['ok', 'broken', 'refused', 'unreachable', 'skipped']),
            status_code: z.number().nullable(),
            redirects: z.array(z.object({ url: z.string(), status_code: z.number() })),
            final_url: z.string(),
            reason: z.string().nullable(),
          }),
        ),
      })
      .optional(),
  })
  .describe('The checks asked for in `checks`.');

export function checksView(r: CheckReports): z.infer<typeof checksSchema> {
  return {
    ...(r.html && {
      html: {
        has_html: r.html.hasHtml,
        clients_checked: r.html.clientsChecked,
        total: r.html.total,
        features: r.html.features.map((f) => ({
          title: f.title,
          url: f.url,
          positions: f.positions,
          unsupported_in: f.clients.filter((c) => c.support === 'none').map((c) => c.name),
          partial_in: f.clients.filter((c) => c.support === 'partial').map((c) => c.name),
        })),
      },
    }),
    ...(r.spam && {
      spam: { score: r.spam.score, threshold: r.spam.threshold, is_spam: r.spam.isSpam, hits: r.spam.hits },
    }),
    ...(r.links && {
      links: {
        checked: r.links.checked,
        errors: r.links.errors,
        links: r.links.links.map((l) => ({
          url: l.url,
          status: l.status,
          status_code: l.statusCode,
          redirects: l.redirects.map((h) => ({ url: h.url, status_code: h.statusCode })),
          final_url: l.finalUrl,
          reason: l.reason,
        })),
      },
    }),
  };
}
