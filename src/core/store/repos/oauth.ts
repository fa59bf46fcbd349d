// SQL for OAuth (migrations 012 and 015): clients, pending consent requests, grants, codes and tokens. Every
// lookup of a token joins the grant's key and workspace, so a revoked key is seen on the same read.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type {
  ApiKeyRow,
  AuthorizationRequestRow,
  CodeRow,
  Database,
  GrantRow,
  OAuthClientRow,
  TokenRow,
  WorkspaceRow,
} from '../schema.ts';
import { isDiskRefusal } from '../unavailable.ts';
import { preparedLookup } from './prepared.ts';

type Db = Kysely<Database>;

// ---- clients

export async function insertClient(db: Db, row: OAuthClientRow): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values({ ...row, redirect_uris: JSON.stringify(row.redirect_uris) })
    .execute();
}

/** A metadata-document client is written (or refreshed) each time its document is read. */
export async function upsertDocumentClient(db: Db, row: OAuthClientRow): Promise<void> {
  const values = { ...row, redirect_uris: JSON.stringify(row.redirect_uris) };
  await db
    .insertInto('oauth_clients')
    .values(values)
    .onConflict((oc) =>
      oc.column('client_id').doUpdateSet({
        client_name: values.client_name,
        client_uri: values.client_uri,
        logo_uri: values.logo_uri,
        redirect_uris: values.redirect_uris,
        token_endpoint_auth_method: values.token_endpoint_auth_method,
        updated_at: values.updated_at,
      }),
    )
    .execute();
}

export async function findClient(db: Db, clientId: string): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

// ---- authorization requests (the consent page's subject)

export async function insertAuthorizationRequest(db: Db, row: AuthorizationRequestRow): Promise<void> {
  await db.insertInto('oauth_authorization_requests').values(row).execute();
}

export async function deleteExpiredAuthorizationRequests(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('oauth_authorization_requests').where('expires_at', '<=', now).execute();
}

export async function findAuthorizationRequest(
  db: Db,
  id: string,
  now: Date,
): Promise<{ request: AuthorizationRequestRow; client: OAuthClientRow } | undefined> {
  const request = await db
    .selectFrom('oauth_authorization_requests')
    .selectAll()
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (request === undefined) return undefined;
  const client = await findClient(db, request.client_id);
  return client === undefined ? undefined : { request, client };
}

/** Takes a pending request exactly once: two decisions racing see one winner. */
export async function takeAuthorizationRequest(
  db: Db,
  id: string,
  now: Date,
): Promise<AuthorizationRequestRow | undefined> {
  return db
    .deleteFrom('oauth_authorization_requests')
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

// ---- grants, codes, tokens

export async function insertGrantWithCode(db: Db, grant: GrantRow, code: CodeRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('oauth_grants').values(grant).execute();
    await trx.insertInto('oauth_codes').values(code).execute();
  });
}

export interface GrantContext {
  grant: GrantRow;
  key: Pick<ApiKeyRow, 'id' | 'prefix' | 'label' | 'revoked_at' | 'expires_at' | 'workspace_id'>;
  workspace: Pick<WorkspaceRow, 'id' | 'name'>;
}

function grantContextQuery(db: Db) {
  return (
    db
      .selectFrom('oauth_grants as g')
      .innerJoin('api_keys as k', 'k.id', 'g.key_id')
      .innerJoin('workspaces as w', 'w.id', 'g.workspace_id')
      .selectAll('g')
      .select([
        'k.prefix as k_prefix',
        'k.label as k_label',
        'k.revoked_at as k_revoked_at',
        'k.expires_at as k_expires_at',
        'k.workspace_id as k_workspace_id',
        'w.name as w_name',
      ])
      // A grant stands only for a key of its own workspace; the join says so rather than trusting the row.
      .whereRef('k.workspace_id', '=', 'g.workspace_id')
  );
}

type GrantContextRow = GrantRow & {
  k_prefix: string;
  k_label: string;
  k_revoked_at: Date | null;
  k_expires_at: Date | null;
  k_workspace_id: string;
  w_name: string;
};

function toGrantContext(row: GrantContextRow): GrantContext {
  const { k_prefix, k_label, k_revoked_at, k_expires_at, k_workspace_id, w_name, ...grant } = row;
  return {
    grant,
    key: {
      id: grant.key_id,
      prefix: k_prefix,
      label: k_label,
      revoked_at: k_revoked_at,
      expires_at: k_expires_at,
      workspace_id: k_workspace_id,
    },
    workspace: { id: grant.workspace_id, name: w_name },
  };
}

/** Marks a code used (once); the row as it was, or undefined when no such code exists. */
export async function claimCode(
  db: Db,
  codeHash: string,
  now: Date,
): Promise<{ code: CodeRow; firstUse: boolean } | undefined> {
  const claimed = await db
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (claimed !== undefined) return { code: claimed, firstUse: true };
  const used = await db
    .selectFrom('oauth_codes')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
  return used === undefined ? undefined : { code: used, firstUse: false };
}

/** Marks a refresh token used (once), like claimCode. */
export async function claimRefreshToken(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<{ token: TokenRow; firstUse: boolean } | undefined> {
  const claimed = await db
    .updateTable('oauth_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'refresh')
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (claimed !== undefined) return { token: claimed, firstUse: true };
  const used = await db
    .selectFrom('oauth_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'refresh')
    .executeTakeFirst();
  return used === undefined ? undefined : { token: used, firstUse: false };
}

export async function findGrantContext(db: Db, grantId: string): Promise<GrantContext | undefined> {
  const row = await preparedLookup(db, 'grant_context', grantContextQuery(db).where('g.id', '=', grantId));
  return row === undefined ? undefined : toGrantContext(row as GrantContextRow);
}

export async function findTokenWithGrant(
  db: Db,
  tokenHash: string,
): Promise<{ token: TokenRow; context: GrantContext } | undefined> {
  const token = await preparedLookup(
    db,
    'oauth_token_by_hash',
    db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash),
  );
  if (token === undefined) return undefined;
  const context = await findGrantContext(db, token.grant_id);
  return context === undefined ? undefined : { token, context };
}

/** Issues a token pair; the grant's expired tokens and used codes are dropped in the same transaction. */
export async function insertTokenPair(
  db: Db,
  grantId: string,
  access: TokenRow,
  refresh: TokenRow,
  now: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('oauth_tokens')
      .where('grant_id', '=', grantId)
      .where('expires_at', '<=', now)
      .execute();
    await trx.insertInto('oauth_tokens').values([access, refresh]).execute();
    const grant = await trx
      .updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', grantId)
      .returning('client_id')
      .executeTakeFirst();
    // The client's use, for the sweep's pruning: first completed authorization and latest tokens.
    if (grant !== undefined) {
      await trx
        .updateTable('oauth_clients')
        .set((eb) => ({
          last_used_at: now,
          first_authorized_at: eb.fn.coalesce('first_authorized_at', eb.val(now)),
        }))
        .where('client_id', '=', grant.client_id)
        .execute();
    }
  });
}

export async function deleteToken(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('oauth_tokens').where('token_hash', '=', tokenHash).execute();
}

/** Ends a grant: its codes and tokens go with it (cascade). */
export async function deleteGrant(db: Db, grantId: string, workspaceId?: string): Promise<boolean> {
  let q = db.deleteFrom('oauth_grants').where('id', '=', grantId);
  if (workspaceId !== undefined) q = q.where('workspace_id', '=', workspaceId);
  const result = await q.executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * last_used_at moves at most once a minute per grant: a write per MCP call would cost more than it says. A full
 * disk skips it, not the call it rides on.
 */
export async function touchGrant(db: Db, grantId: string, now: Date): Promise<void> {
  try {
    await db
      .updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', grantId)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<', sql<Date>`${now}::timestamptz - interval '60 seconds'`),
        ]),
      )
      .execute();
  } catch (err) {
    if (!isDiskRefusal(err)) throw err;
  }
}

export interface GrantListRow {
  grant: GrantRow;
  client: Pick<OAuthClientRow, 'client_id' | 'kind' | 'client_name' | 'client_uri'>;
  keyLabel: string;
}

/** A workspace's grants whose key still stands (a revoked or expired key's grants are dead). */
export async function listGrants(db: Db, workspaceId: string, now: Date): Promise<GrantListRow[]> {
  const rows = await db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
    .innerJoin('api_keys as k', 'k.id', 'g.key_id')
    .selectAll('g')
    .select(['c.kind as c_kind', 'c.client_name as c_name', 'c.client_uri as c_uri', 'k.label as k_label'])
    .where('g.workspace_id', '=', workspaceId)
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]))
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id', 'desc')
    .limit(500)
    .execute();
  return rows.map(({ c_kind, c_name, c_uri, k_label, ...grant }) => ({
    grant,
    client: { client_id: grant.client_id, kind: c_kind, client_name: c_name, client_uri: c_uri },
    keyLabel: k_label,
  }));
}

/**
 * The sweep's share: expired consent requests and tokens go; used codes are kept a day (a replay inside it
 * still ends its grant); a grant with no token or code left (its refresh token expired unused) is over.
 */
export async function pruneOAuth(db: Db, now: Date): Promise<void> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  await db.deleteFrom('oauth_authorization_requests').where('expires_at', '<=', now).execute();
  await db.deleteFrom('oauth_tokens').where('expires_at', '<=', now).execute();
  await db.deleteFrom('oauth_codes').where('expires_at', '<', dayAgo).execute();
  await db
    .deleteFrom('oauth_grants')
    .where('created_at', '<', dayAgo)
    .where((eb) =>
      eb.and([
        eb.not(
          eb.exists(
            eb
              .selectFrom('oauth_tokens as t')
              .select('t.token_hash')
              .whereRef('t.grant_id', '=', 'oauth_grants.id'),
          ),
        ),
        eb.not(
          eb.exists(
            eb
              .selectFrom('oauth_codes as c')
              .select('c.code_hash')
              .whereRef('c.grant_id', '=', 'oauth_grants.id'),
          ),
        ),
      ]),
    )
    .execute();
}

export interface OAuthClientSweep {
  /** Clients removed because no authorization completed within a day of their registration. */
  prunedNeverAuthorized: number;
  /** Clients removed because they got no tokens for 90 days. */
  prunedUnused: number;
  /** Clients left, of both kinds, and how many of them were registered (or first fetched) in the last day. */
  clients: number;
  registeredLastDay: number;
  /** What the clients left hold of their own metadata (name, URIs), in bytes. */
  metadataBytes: number;
}

/**
 * The sweep's pruning of clients (anyone may register one): never authorized and registered before
 * `neverAuthorizedBefore`, or unused since `unusedBefore`. A client with a pending consent request or a grant
 * still being exchanged is left for a later sweep, so a slow person never loses the flow under way.
 */
export async function pruneOAuthClients(
  db: Db,
  now: Date,
  neverAuthorizedBefore: Date,
  unusedBefore: Date,
): Promise<OAuthClientSweep> {
  type Eb = ExpressionBuilder<Database, 'oauth_clients'>;
  const noPendingRequest = (eb: Eb) =>
    eb.not(
      eb.exists(
        eb
          .selectFrom('oauth_authorization_requests as r')
          .select('r.id')
          .whereRef('r.client_id', '=', 'oauth_clients.client_id')
          .where('r.expires_at', '>', now),
      ),
    );
  /** No grant of the client (created since `since`, when given). */
  const noGrant = (since?: Date) => (eb: Eb) =>
    eb.not(
      eb.exists(
        eb
          .selectFrom('oauth_grants as g')
          .select('g.id')
          .whereRef('g.client_id', '=', 'oauth_clients.client_id')
          .$if(since !== undefined, (q) => q.where('g.created_at', '>=', since as Date)),
      ),
    );
  const neverAuthorized = await db
    .deleteFrom('oauth_clients')
    .where('first_authorized_at', 'is', null)
    .where('created_at', '<', neverAuthorizedBefore)
    .where(noPendingRequest)
    .where(noGrant())
    .executeTakeFirst();
  // Grants go with the client (cascade); one still alive would have had tokens issued within 30 days, and one
  // approved since (its code not yet exchanged) counts as use.
  const unused = await db
    .deleteFrom('oauth_clients')
    .where((eb) => eb(eb.fn.coalesce('last_used_at', 'first_authorized_at', 'created_at'), '<', unusedBefore))
    .where(noPendingRequest)
    .where(noGrant(unusedBefore))
    .executeTakeFirst();
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const stats = await sql<{
    clients: string | number;
    recent: string | number;
    bytes: string | number | null;
  }>`
    select count(*) as clients,
           count(*) filter (where created_at > ${dayAgo}) as recent,
           sum(octet_length(client_name) + coalesce(octet_length(client_uri), 0)
               + coalesce(octet_length(logo_uri), 0) + octet_length(redirect_uris::text)) as bytes
      from oauth_clients`.execute(db);
  const row = stats.rows[0];
  return {
    prunedNeverAuthorized: Number(neverAuthorized.numDeletedRows),
    prunedUnused: Number(unused.numDeletedRows),
    clients: Number(row?.clients ?? 0),
    registeredLastDay: Number(row?.recent ?? 0),
    metadataBytes: Number(row?.bytes ?? 0),
  };
}
