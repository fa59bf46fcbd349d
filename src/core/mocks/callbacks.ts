// Renders a rule's callbacks against the request it answered (the same values its reply's templates see), for
// the outbox: what to send, where, when and how signed. A callback that renders badly is left out and noted.
import { urlRefusal } from '../webhooks/targets.ts';
import { renderTemplate, type TemplateContext } from './render.ts';
import { parseTemplate } from './template.ts';
import type { CallbackSigning, StoredMockRule } from './types.ts';

export interface RenderedCallback {
  ruleId: string;
  /** Its position in the rule's list: with the request id, what makes it one outbox row. */
  index: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
  signing: CallbackSigning | null;
}

const MAX_BODY = 1024 * 1024;

function render(text: string, ctx: TemplateContext, max: number): string {
  const parsed = parseTemplate(text);
  // Saved rules were parsed when saved; this cannot fail for them.
  if (!parsed.ok) throw new Error(parsed.message);
  return renderTemplate(parsed.parts, ctx, max);
}

export function renderCallbacks(
  rule: StoredMockRule,
  ctx: TemplateContext,
): { rendered: RenderedCallback[]; problem?: string } {
  const rendered: RenderedCallback[] = [];
  const problems: string[] = [];
  for (const [index, cb] of (rule.callbacks ?? []).entries()) {
    try {
      const url = render(cb.url, ctx, 8192);
      const bad = urlRefusal(url);
      if (bad !== undefined) throw new Error(`its URL ${bad}`);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(cb.headers)) {
        const v = render(value, ctx, 8192);
        if (/[\r\n\0]/.test(v) || /[^\x00-\xff]/.test(v)) {
          throw new Error(`header ${name} rendered a CR, LF, NUL or text beyond Latin-1`);
        }
        headers[name.toLowerCase()] = v;
      }
      const body = cb.body === null ? '' : render(cb.body, ctx, MAX_BODY);
      rendered.push({
        ruleId: rule.id,
        index,
        method: cb.method,
        url,
        headers,
        body,
        delayMs: cb.delayMs,
        signing: cb.signing,
      });
    } catch (err) {
      problems.push(`callback ${index} was not queued: ${(err as Error).message}`);
    }
  }
  return problems.length === 0 ? { rendered } : { rendered, problem: problems.join('; ') };
}
