// Who may hand mail to which sandbox: SMTP AUTH credentials on the submission port, and recipient domains
// `<sandbox id>.<CAPTURE_DOMAIN>` on the inbound port. Checked on every use, so a deleted or expired sandbox
// stops receiving at once: from memory for sandboxes seen live (deletions arrive on the bus), and again by
// the statement that stores the message.
import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import { LiveSandboxCache, type LiveEntry } from '../liveSandboxCache.ts';
import { findLiveSandboxById } from '../store/repos/sandboxes.ts';
import type { Database } from '../store/schema.ts';
import { UUID_PATTERN } from '../random.ts';

export interface MailTarget {
  sandboxId: string;
  workspaceId: string;
}

function samePassword(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createSmtpAccess(db: Kysely<Database>, clock: Clock, bus: EventBus, captureDomain: string) {
  const suffix = `.${captureDomain.toLowerCase()}`;
  const cache = new LiveSandboxCache<LiveEntry & { workspaceId: string }>(bus);

  async function live(id: string): Promise<MailTarget | undefined> {
    const now = clock.now();
    const hit = cache.get(id, now);
    if (hit !== undefined) return { sandboxId: hit.id, workspaceId: hit.workspaceId };
    const row = await findLiveSandboxById(db, id, now);
    if (row === undefined) return undefined;
    cache.set({ id: row.id, workspaceId: row.workspace_id, expiresAt: row.expires_at });
    return { sandboxId: row.id, workspaceId: row.workspace_id };
  }

  return {
    async authenticate(username: string, password: string): Promise<MailTarget | undefined> {
      const id = username.trim().toLowerCase();
      if (!UUID_PATTERN.test(id)) return undefined;
      const sandbox = await findLiveSandboxById(db, id, clock.now());
      if (sandbox === undefined || !samePassword(password, sandbox.smtp_password)) return undefined;
      return { sandboxId: sandbox.id, workspaceId: sandbox.workspace_id };
    },

    /** The sandbox an inbound recipient address belongs to, if its domain is one of ours and it is live. */
    async recipientTarget(address: string): Promise<MailTarget | undefined> {
      const at = address.lastIndexOf('@');
      if (at < 0) return undefined;
      const domain = address.slice(at + 1).toLowerCase();
      if (!domain.endsWith(suffix)) return undefined;
      const id = domain.slice(0, -suffix.length);
      if (!UUID_PATTERN.test(id)) return undefined;
      return live(id);
    },

    /** Whether an address is under CAPTURE_DOMAIN (a sandbox's form), live sandbox or not. */
    inCaptureDomain(address: string): boolean {
      return address
        .slice(address.lastIndexOf('@') + 1)
        .toLowerCase()
        .endsWith(suffix);
    },

    /** Whether a sandbox can still receive (for a session authenticated before it was deleted). */
    async isLive(sandboxId: string): Promise<boolean> {
      return (await live(sandboxId)) !== undefined;
    },
  };
}

export type SmtpAccess = ReturnType<typeof createSmtpAccess>;
