// Sandboxes: create (optionally ephemeral), read, list, rename/retag, rotate the SMTP secret, replace mock rules.
// Every entry point validates its own input with the core schemas, whichever door (REST, MCP) it came through.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { notFound } from './errors.ts';
import type { EventBus } from './events.ts';
import { changeWithEvent, sandboxChange } from './liveEvents/journal.ts';
import { PROVIDERS, type ProviderName } from './mail/providers/providerMail.ts';
import { vetCallbackTargets } from './mocks/callbackRules.ts';
import { parseMockRules } from './mocks/rules.ts';
import type { StoredMockRule } from './mocks/types.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from './pagination.ts';
import { goneSandbox } from './ownedSandbox.ts';
import { newId, newSmtpPassword } from './random.ts';
import { insertTombstones } from './store/repos/tombstones.ts';
import { createSandboxInput, listSandboxesQuery, updateSandboxInput } from './schemas.ts';
import {
  deleteSandbox,
  findSandbox,
  insertSandbox,
  listSandboxes,
  updateSandbox,
} from './store/repos/sandboxes.ts';
import type { Database, SandboxRow } from './store/schema.ts';
import { parseId, parseInput } from './validation.ts';
import type { TargetPolicy } from './webhooks/targets.ts';

export interface Sandbox {
  id: string;
  name: string;
  tags: Record<string, string>;
  smtpHost: string;
  smtpPort: number;
  smtpUsername: string;
  smtpPassword: string;
  captureUrl: string;
  emailDomain: string;
  emailAddress: string;
  /** The sandbox's page in the dashboard, for a person to open. */
  dashboardUrl: string;
  mocks: StoredMockRule[];
  createdAt: Date;
  isEphemeral: boolean;
  expiresAt: Date | null;
  /** The inbound port's catch-all (SMTP_CATCH_ALL): mail to any address outside the sandboxes' domains. */
  catchAll: boolean;
  /** Where each provider's SDK sends to reach this sandbox (its key is `smtpPassword`). */
  providerBaseUrls: Record<ProviderName, string>;
}

export const DEFAULT_TTL_MINUTES = 60;

/** What sandboxes report as their SMTP endpoint and capture URL; ports are final once listeners are bound. */
export type Endpoints = Pick<
  Config,
  'publicSmtpHost' | 'publicSmtpPort' | 'captureDomain' | 'capturePublicUrl' | 'dashboardBaseUrl'
>;

export function createSandboxService(
  db: Kysely<Database>,
  clock: Clock,
  config: Endpoints,
  bus: EventBus,
  /** Whether a sandbox is the catch-all (known once it is looked up at start). */
  isCatchAll: (sandboxId: string) => boolean = () => false,
  /** The webhook target policy, which rules' callbacks are held to when saved (issue 40). */
  callbackPolicy?: TargetPolicy,
) {
  function toSandbox(row: SandboxRow): Sandbox {
    const emailDomain = `${row.id}.${config.captureDomain}`;
    return {
      id: row.id,
      name: row.name,
      tags: row.tags,
      smtpHost: config.publicSmtpHost,
      smtpPort: config.publicSmtpPort,
      smtpUsername: row.id,
      smtpPassword: row.smtp_password,
      captureUrl: config.capturePublicUrl.replaceAll('{id}', row.id),
      emailDomain,
      emailAddress: `inbox@${emailDomain}`,
      dashboardUrl: `${config.dashboardBaseUrl}/s/${row.id}`,
      mocks: row.mocks,
      createdAt: row.created_at,
      isEphemeral: row.is_ephemeral,
      expiresAt: row.expires_at,
      catchAll: isCatchAll(row.id),
      providerBaseUrls: Object.fromEntries(
        PROVIDERS.map((name) => [name, `${config.dashboardBaseUrl}/providers/${name}`]),
      ) as Record<ProviderName, string>,
    };
  }

  function found(row: SandboxRow | undefined): Sandbox {
    if (row === undefined) throw notFound('The sandbox');
    return toSandbox(row);
  }

  /** Applies one update and journals it as sandbox.updated, in one transaction. */
  async function updated(
    workspaceId: string,
    write: (trx: Kysely<Database>) => Promise<SandboxRow | undefined>,
  ): Promise<Sandbox> {
    return changeWithEvent(db, bus, async (trx) => {
      const sandbox = found(await write(trx));
      return { value: sandbox, change: sandboxChange('sandbox.updated', workspaceId, sandbox) };
    });
  }

  return {
    /** `body` is a CreateSandbox body as sent; an already parsed one parses to itself. */
    async create(workspaceId: string, body: unknown): Promise<Sandbox> {
      const input = parseInput(createSandboxInput, body, 'sandbox');
      const now = clock.now();
      const ephemeral = input.ephemeral === true;
      const ttl = input.ttlMinutes ?? DEFAULT_TTL_MINUTES;
      return changeWithEvent(db, bus, async (trx) => {
        const sandbox = toSandbox(
          await insertSandbox(trx, {
            id: newId(),
            workspace_id: workspaceId,
            name: input.name,
            tags: JSON.stringify(input.tags ?? {}),
            smtp_password: newSmtpPassword(),
            mocks: '[]',
            is_ephemeral: ephemeral,
            expires_at: ephemeral ? new Date(now.getTime() + ttl * 60_000) : null,
            created_at: now,
          }),
        );
        return { value: sandbox, change: sandboxChange('sandbox.created', workspaceId, sandbox) };
      });
    },

    /** A sandbox that expired or was deleted within the day is a 404 that says so (its tombstone). */
    async get(workspaceId: string, id: string): Promise<Sandbox> {
      const sandboxId = parseId(id, 'id');
      const now = clock.now();
      const row = await findSandbox(db, workspaceId, sandboxId, now);
      if (row === undefined) throw await goneSandbox(db, workspaceId, sandboxId, now);
      return toSandbox(row);
    },

    /** `raw` is the list query as sent (`limit`, `cursor`, `q`); an already parsed one parses to itself. */
    async list(workspaceId: string, raw: unknown): Promise<Page<Sandbox>> {
      const query = parseInput(listSandboxesQuery, raw, 'query');
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const q = query.q === undefined || query.q.trim() === '' ? undefined : query.q.trim();
      const rows = await listSandboxes(db, workspaceId, { limit: limit + 1, cursor, q, now: clock.now() });
      return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), toSandbox);
    },

    /** `body` is an UpdateSandbox body as sent; an already parsed one parses to itself. */
    async update(workspaceId: string, id: string, body: unknown): Promise<Sandbox> {
      const sandboxId = parseId(id, 'id');
      const input = parseInput(updateSandboxInput, body, 'sandbox update');
      const changes = {
        ...(input.name === null ? {} : { name: input.name }),
        ...(input.tags == null ? {} : { tags: input.tags }),
      };
      return updated(workspaceId, (trx) => updateSandbox(trx, workspaceId, sandboxId, clock.now(), changes));
    },

    async resetSecret(workspaceId: string, id: string): Promise<Sandbox> {
      const sandboxId = parseId(id, 'id');
      return updated(workspaceId, (trx) =>
        updateSandbox(trx, workspaceId, sandboxId, clock.now(), { smtpPassword: newSmtpPassword() }),
      );
    },

    /** Replaces the whole rule list atomically with a `{ mocks: [...] }` update; rules not sent are removed. */
    async setMocks(workspaceId: string, id: string, update: unknown): Promise<Sandbox> {
      const sandboxId = parseId(id, 'id');
      const mocks = parseMockRules(update);
      if (callbackPolicy !== undefined) await vetCallbackTargets(mocks, callbackPolicy);
      return updated(workspaceId, (trx) =>
        updateSandbox(trx, workspaceId, sandboxId, clock.now(), { mocks }),
      );
    },

    async delete(workspaceId: string, id: string): Promise<void> {
      const sandboxId = parseId(id, 'id');
      const deleted = await changeWithEvent(db, bus, async (trx) => {
        const now = clock.now();
        const gone = await deleteSandbox(trx, workspaceId, sandboxId, now);
        if (gone)
          await insertTombstones(trx, [{ id: sandboxId, workspaceId, reason: 'deleted', endedAt: now }]);
        const data = { id: sandboxId, sandboxId };
        return { value: gone, change: gone ? { type: 'sandbox.deleted', workspaceId, data } : undefined };
      });
      if (!deleted) throw notFound('The sandbox');
      bus.publish({ kind: 'sandbox_deleted', sandboxId });
    },
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;
