// `sandtrap export`: a workspace's (or one sandbox's) mail as .eml files and requests as HAR plus body files,
// with a manifest, into a folder or a .tar; each item is written as it is read, a page at a time.
import { once } from 'node:events';
import { createWriteStream, existsSync, readdirSync, statSync, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { create as createTar } from 'tar';
import type { Core } from '../../core/core.ts';
import type { Sandbox } from '../../core/sandboxes.ts';
import { VERSION } from '../version.ts';
import {
  BackupError,
  FORMAT,
  FORMAT_VERSION,
  HAR_CLOSING,
  HAR_FILE,
  harEntry,
  harOpening,
  itemFileStem,
  MAIL_INDEX_FILE,
  MANIFEST_FILE,
  type Manifest,
  type ManifestSandbox,
} from './format.ts';

export interface ExportOptions {
  out: string;
  workspace?: string | undefined;
  sandbox?: string | undefined;
}

/** Writes `text`, waiting for the stream to drain when its buffer is full. */
async function put(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await finished(stream);
}

/** The workspace and the sandboxes to export: one sandbox by id, or every live sandbox of a workspace. */
async function selection(
  core: Core,
  options: ExportOptions,
): Promise<{ workspace: Manifest['workspace']; sandboxes: Sandbox[] }> {
  if (options.sandbox !== undefined) {
    const workspaceId = await core.backup.workspaceOf(options.sandbox).catch(() => {
      throw new BackupError(`No live sandbox "${options.sandbox}"`);
    });
    const account = await core.workspaces.findBySubdomainOrId(workspaceId);
    if (account === undefined) throw new BackupError(`No live sandbox "${options.sandbox}"`);
    const sandbox = await core.sandboxes.get(workspaceId, options.sandbox);
    return {
      workspace: { id: account.orgId, name: account.name, subdomain: account.subdomain },
      sandboxes: [sandbox],
    };
  }
  const account = await workspaceNamed(core, options.workspace);
  const sandboxes: Sandbox[] = [];
  let cursor: string | undefined;
  do {
    const page = await core.sandboxes.list(account.orgId, { limit: 200, ...(cursor ? { cursor } : {}) });
    sandboxes.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  // Oldest first, as their items are.
  sandboxes.reverse();
  return { workspace: { id: account.orgId, name: account.name, subdomain: account.subdomain }, sandboxes };
}

/** A workspace by subdomain or id; optional when the store has just one. */
export async function workspaceNamed(
  core: Core,
  ref: string | undefined,
): Promise<{ orgId: string; name: string; subdomain: string }> {
  if (ref === undefined) {
    const all = await core.workspaces.all();
    if (all.length !== 1) {
      throw new BackupError(
        `There are ${all.length} workspaces; pick one with --workspace (${all.map((w) => w.subdomain).join(', ')})`,
      );
    }
    return all[0] as { orgId: string; name: string; subdomain: string };
  }
  const account = await core.workspaces.findBySubdomainOrId(ref);
  if (account === undefined) throw new BackupError(`No workspace "${ref}"`);
  return account;
}

/** One sandbox's folder: its mail (index + .eml files) and requests (HAR + body files). */
async function exportSandbox(core: Core, root: string, sandbox: Sandbox): Promise<ManifestSandbox> {
  const path = `sandboxes/${sandbox.id}`;
  const dir = join(root, path);
  await mkdir(join(dir, 'mail'), { recursive: true });
  await mkdir(join(dir, 'bodies'), { recursive: true });

  let messages = 0;
  const index = createWriteStream(join(dir, MAIL_INDEX_FILE));
  try {
    for await (const m of core.backup.messages(sandbox.id)) {
      const file = `mail/${itemFileStem(messages, m.id)}.eml`;
      await writeFile(join(dir, file), m.raw);
      const line = {
        id: m.id,
        file,
        sizeBytes: m.raw.byteLength,
        receivedAt: m.receivedAt.toISOString(),
        envelopeFrom: m.envelopeFrom,
        capturedFor: m.capturedFor,
        subject: m.subject,
        isRead: m.isRead,
      };
      await put(index, `${JSON.stringify(line)}\n`);
      messages++;
    }
  } finally {
    await close(index);
  }

  let requests = 0;
  const har = createWriteStream(join(dir, HAR_FILE));
  try {
    await put(har, harOpening(VERSION));
    for await (const r of core.backup.requests(sandbox.id)) {
      const bodyFile = r.body.byteLength === 0 ? null : `bodies/${itemFileStem(requests, r.id)}.bin`;
      if (bodyFile !== null) await writeFile(join(dir, bodyFile), r.body);
      await put(har, `${requests === 0 ? '' : ',\n'}${JSON.stringify(harEntry(r, bodyFile))}`);
      requests++;
    }
    await put(har, `${requests === 0 ? '' : '\n'}${HAR_CLOSING}`);
  } finally {
    await close(har);
  }

  return {
    id: sandbox.id,
    name: sandbox.name,
    path,
    messages,
    requests,
    tags: sandbox.tags,
    mocks: sandbox.mocks,
    isEphemeral: sandbox.isEphemeral,
    createdAt: sandbox.createdAt.toISOString(),
  };
}

/** Writes the export into `root` (an empty folder); the manifest goes last, so a cut-short export has none. */
async function exportInto(core: Core, root: string, options: ExportOptions): Promise<Manifest> {
  const { workspace, sandboxes } = await selection(core, options);
  const written: ManifestSandbox[] = [];
  for (const sandbox of sandboxes) written.push(await exportSandbox(core, root, sandbox));
  const manifest: Manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    sandtrapVersion: VERSION,
    exportedAt: core.clock.now().toISOString(),
    workspace,
    sandboxes: written,
  };
  await writeFile(join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * A folder unless `out` ends in .tar. A folder must be new or empty; a .tar is built from a staging folder
 * beside it (so it is never held in memory) and appears under its name only when complete.
 */
export async function runExport(core: Core, options: ExportOptions): Promise<string> {
  const out = resolve(options.out);
  let manifest: Manifest;
  if (out.toLowerCase().endsWith('.tar')) {
    if (existsSync(out)) throw new BackupError(`${options.out} already exists; export to a new file`);
    if (!existsSync(dirname(out)))
      throw new BackupError(`No folder ${dirname(options.out)} to write the .tar into`);
    const staging = await mkdtemp(join(dirname(out), `.${basename(out)}-`));
    const partial = `${staging}.tar`;
    try {
      manifest = await exportInto(core, staging, options);
      await createTar({ file: partial, cwd: staging, portable: true }, readdirSync(staging));
      await rename(partial, out);
    } finally {
      await rm(staging, { recursive: true, force: true });
      await rm(partial, { force: true });
    }
  } else {
    if (existsSync(out) && (!statSync(out).isDirectory() || readdirSync(out).length > 0)) {
      throw new BackupError(`${options.out} already exists and is not an empty folder; export to a new one`);
    }
    await mkdir(out, { recursive: true });
    manifest = await exportInto(core, out, options);
  }
  const messages = manifest.sandboxes.reduce((n, s) => n + s.messages, 0);
  const requests = manifest.sandboxes.reduce((n, s) => n + s.requests, 0);
  const sandboxes = manifest.sandboxes.length;
  return `Exported ${messages} messages and ${requests} requests from ${sandboxes} sandbox${sandboxes === 1 ? '' : 'es'} of workspace ${manifest.workspace.subdomain} to ${options.out}`;
}
