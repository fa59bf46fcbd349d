// Workspaces: creation with a first key, the first-start bootstrap, and the account view.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { notFound } from './errors.ts';
import { newId, randomBase62 } from './random.ts';
import type { Database, WorkspaceRow } from './store/schema.ts';
import {
  countWorkspaces,
  findWorkspaceById,
  findWorkspaceBySubdomain,
  insertWorkspace,
  listAllWorkspaces,
} from './store/repos/workspaces.ts';
import { issueKey, findKeyByPlainText, type CreatedKey } from './apiKeys.ts';

export interface Account {
  orgId: string;
  name: string;
  subdomain: string;
  createdAt: Date;
}

const DEFAULT_WORKSPACE = 'default';

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug === '' ? 'workspace' : slug;
}

function toAccount(row: WorkspaceRow): Account {
  return { orgId: row.id, name: row.name, subdomain: row.subdomain, createdAt: row.created_at };
}

export function createWorkspaceService(db: Kysely<Database>, clock: Clock) {
  /** Inserts a workspace under `subdomain`, or returns undefined when the subdomain is taken. */
  async function tryInsert(name: string, subdomain: string): Promise<WorkspaceRow | undefined> {
    const row: WorkspaceRow = { id: newId(), name, subdomain, created_at: clock.now() };
    return (await insertWorkspace(db, row)) ? row : undefined;
  }

  return {
    /** A new workspace and its first key. The subdomain is the slug of the name, made unique. */
    async create(name: string): Promise<{ account: Account; key: CreatedKey }> {
      const base = slugify(name);
      let row = await tryInsert(name, base);
      while (row === undefined) row = await tryInsert(name, `${base}-${randomBase62(6).toLowerCase()}`);
      const key = await issueKey(db, clock, row.id, { label: 'first key' });
      return { account: toAccount(row), key };
    },

    /**
     * First start: with BOOTSTRAP_API_KEY, make sure workspace "default" holds that key; without it, on an
     * empty store, create "default" and return its first key for printing. Safe when processes race.
     */
    async bootstrap(bootstrapKey: string | undefined): Promise<{ firstKey: string | undefined }> {
      if (bootstrapKey !== undefined) {
        if ((await findKeyByPlainText(db, bootstrapKey)) !== undefined) return { firstKey: undefined };
        await tryInsert(DEFAULT_WORKSPACE, DEFAULT_WORKSPACE);
        const workspace = await findWorkspaceBySubdomain(db, DEFAULT_WORKSPACE);
        if (workspace === undefined) throw new Error('workspace "default" vanished during bootstrap');
        await issueKey(db, clock, workspace.id, { label: 'bootstrap' }, bootstrapKey).catch(async (err) => {
          // Another process stored the same key first: that is the outcome we wanted.
          if ((await findKeyByPlainText(db, bootstrapKey)) === undefined) throw err;
        });
        return { firstKey: undefined };
      }
      if ((await countWorkspaces(db)) > 0) return { firstKey: undefined };
      const row = await tryInsert(DEFAULT_WORKSPACE, DEFAULT_WORKSPACE);
      if (row === undefined) return { firstKey: undefined };
      const key = await issueKey(db, clock, row.id, { label: 'first key' });
      return { firstKey: key.key };
    },

    async account(workspaceId: string): Promise<Account> {
      const row = await findWorkspaceById(db, workspaceId);
      if (row === undefined) throw notFound('The workspace');
      return toAccount(row);
    },

    async all(): Promise<Account[]> {
      return (await listAllWorkspaces(db)).map(toAccount);
    },

    async findBySubdomainOrId(ref: string): Promise<Account | undefined> {
      const bySub = await findWorkspaceBySubdomain(db, ref);
      if (bySub !== undefined) return toAccount(bySub);
      if (!/^[0-9a-f-]{36}$/i.test(ref)) return undefined;
      const byId = await findWorkspaceById(db, ref.toLowerCase());
      return byId === undefined ? undefined : toAccount(byId);
    },
  };
}
