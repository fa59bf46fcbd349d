// The catch-all sandbox (SMTP_CATCH_ALL): where the inbound port puts mail for any recipient outside the
// sandboxes' domains, so an app configured the Mailpit way (localhost, no login, any address) is caught. It is
// a kept sandbox of the first workspace, named `catch-all` (or SMTP_CATCH_ALL_SANDBOX), made at first start and
// made again if someone deletes it; SMTP_CATCH_ALL_SANDBOX may also name an existing sandbox by id.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { UUID_PATTERN } from '../random.ts';
import { findKeptSandboxesByName, findLiveSandboxById } from '../store/repos/sandboxes.ts';
import type { Database } from '../store/schema.ts';
import type { MailTarget } from './smtpAccess.ts';

export interface CatchAllOptions {
  enabled: boolean;
  /** A sandbox id, or the name of the kept sandbox to use (made when missing). */
  sandbox: string;
}

export interface CatchAllDeps {
  /** The workspace the catch-all belongs to: the first one. */
  firstWorkspaceId(): Promise<string | undefined>;
  /** Makes a kept sandbox with this name (with its event, as the API does); returns its id. */
  createSandbox(workspaceId: string, name: string): Promise<string>;
  /** Deletes a sandbox this process made in a race another process won. */
  deleteSandbox(workspaceId: string, id: string): Promise<void>;
  /** Whether a sandbox can still receive (cached; deletions arrive on the bus). */
  isLive(sandboxId: string): Promise<boolean>;
}

export interface CatchAll {
  readonly enabled: boolean;
  /** The catch-all sandbox, made if missing; undefined when off (or no workspace exists yet). */
  ensure(): Promise<(MailTarget & { name: string }) | undefined>;
  /** Whether `sandboxId` is the catch-all (as of its last lookup). */
  is(sandboxId: string): boolean;
}

export function createCatchAll(
  db: Kysely<Database>,
  clock: Clock,
  options: CatchAllOptions,
  deps: CatchAllDeps,
): CatchAll {
  let known: (MailTarget & { name: string }) | undefined;
  let ensuring: Promise<(MailTarget & { name: string }) | undefined> | undefined;

  async function lookup(): Promise<(MailTarget & { name: string }) | undefined> {
    if (UUID_PATTERN.test(options.sandbox)) {
      const row = await findLiveSandboxById(db, options.sandbox.toLowerCase(), clock.now());
      return row === undefined
        ? undefined
        : { sandboxId: row.id, workspaceId: row.workspace_id, name: row.id };
    }
    const workspaceId = await deps.firstWorkspaceId();
    if (workspaceId === undefined) return undefined;
    const oldest = async () => (await findKeptSandboxesByName(db, workspaceId, options.sandbox))[0];
    let row = await oldest();
    if (row === undefined) {
      const made = await deps.createSandbox(workspaceId, options.sandbox);
      // Two processes starting together may both make one: the oldest wins, the other goes.
      row = await oldest();
      if (row !== undefined && row.id !== made) await deps.deleteSandbox(workspaceId, made);
    }
    return row === undefined ? undefined : { sandboxId: row.id, workspaceId, name: row.name };
  }

  return {
    enabled: options.enabled,
    async ensure() {
      if (!options.enabled) return undefined;
      if (known !== undefined && (await deps.isLive(known.sandboxId))) return known;
      ensuring ??= lookup().finally(() => (ensuring = undefined));
      known = await ensuring;
      return known;
    },
    is: (sandboxId) => known?.sandboxId === sandboxId,
  };
}
