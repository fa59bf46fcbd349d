// The three message checks as core serves them: HTML compatibility and the spam-style score read the stored
// message; the link check fetches its links under the webhooks' target policy, and only when asked.
import type { MessageDetail } from '../messages.ts';
import type { TargetPolicy } from '../webhooks/targets.ts';
import { htmlCompatibility, type HtmlCompatReport } from './htmlCompat.ts';
import { checkMessageLinks, type LinkCheckReport } from './linkCheck.ts';
import { spamScore, type SpamReport } from './spamScore.ts';

export const CHECK_NAMES = ['html', 'spam', 'links'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export interface CheckReports {
  html?: HtmlCompatReport;
  spam?: SpamReport;
  links?: LinkCheckReport;
}

type GetMessage = (workspaceId: string, sandboxId: string, messageId: string) => Promise<MessageDetail>;

export function createCheckService(getMessage: GetMessage, policy: TargetPolicy) {
  return {
    async html(workspaceId: string, sandboxId: string, messageId: string): Promise<HtmlCompatReport> {
      return htmlCompatibility((await getMessage(workspaceId, sandboxId, messageId)).htmlBody);
    },
    async spam(workspaceId: string, sandboxId: string, messageId: string): Promise<SpamReport> {
      return spamScore(await getMessage(workspaceId, sandboxId, messageId));
    },
    /** Fetches every http(s) link of the message: call only on an explicit request, never on capture. */
    async links(workspaceId: string, sandboxId: string, messageId: string): Promise<LinkCheckReport> {
      return checkMessageLinks(await getMessage(workspaceId, sandboxId, messageId), policy);
    },
    /** The named checks of one message read once (MCP get_email's `checks`). */
    async of(message: MessageDetail, names: readonly CheckName[]): Promise<CheckReports> {
      const out: CheckReports = {};
      if (names.includes('html')) out.html = htmlCompatibility(message.htmlBody);
      if (names.includes('spam')) out.spam = spamScore(message);
      if (names.includes('links')) out.links = await checkMessageLinks(message, policy);
      return out;
    },
  };
}
