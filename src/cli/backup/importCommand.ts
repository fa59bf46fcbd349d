// `sandtrap import`: reads an export (folder or .tar) back into one sandbox. Everything is checked before the
// first item is stored, so a broken export stores nothing; items are then read and stored one at a time.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { createInterface } from 'node:readline';
import { extract } from 'tar';
import type { ZodType } from 'zod';
import type { Core } from '../../core/core.ts';
import { workspaceNamed } from './exportCommand.ts';
import {
  BackupError,
  HAR_CLOSING,
  HAR_FILE,
  harEntrySchema,
  MAIL_INDEX_FILE,
  MANIFEST_FILE,
  manifestSchema,
  mailIndexLine,
  restoredRequest,
  type HarEntry,
  type MailIndexLine,
  type Manifest,
  type ManifestSandbox,
} from './format.ts';

export interface ImportOptions {
  from: string;
  sandbox?: string | undefined;
  newSandbox?: string | undefined;
  workspace?: string | undefined;
}

/** The lines of a text file, one at a time. */
async function* lines(file: string): AsyncGenerator<{ text: string; number: number }> {
  const reader = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let number = 0;
  for await (const text of reader) yield { text, number: ++number };
}

function parsed<T>(schema: ZodType<T>, text: string, where: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupError(`${where} is not valid JSON; the export is damaged`);
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new BackupError(
      `${where} is not what sandtrap export writes (${issue?.path.join('.') || 'value'}: ${issue?.message})`,
    );
  }
  return result.data;
}

/** messages.jsonl, one index line at a time. */
async function* mailIndex(root: string, sandbox: ManifestSandbox): AsyncGenerator<MailIndexLine> {
  const file = join(root, sandbox.path, MAIL_INDEX_FILE);
  if (!existsSync(file)) throw new BackupError(`${sandbox.path}/${MAIL_INDEX_FILE} is missing`);
  for await (const { text, number } of lines(file)) {
    if (text === '') continue;
    yield parsed(mailIndexLine, text, `${sandbox.path}/${MAIL_INDEX_FILE} line ${number}`);
  }
}

/** requests.har, one entry at a time: sandtrap writes each entry on a line of its own between fixed lines. */
async function* harEntries(root: string, sandbox: ManifestSandbox): AsyncGenerator<HarEntry> {
  const name = `${sandbox.path}/${HAR_FILE}`;
  const file = join(root, sandbox.path, HAR_FILE);
  if (!existsSync(file)) throw new BackupError(`${name} is missing`);
  let closed = false;
  for await (const { text, number } of lines(file)) {
    if (number === 1) {
      if (!text.startsWith('{"log":{"version":"1.2"') || !text.endsWith('"entries":[')) {
        throw new BackupError(`${name} is not a HAR file written by sandtrap export`);
      }
      continue;
    }
    if (closed && text !== '') throw new BackupError(`${name} has text after its end (line ${number})`);
    if (`${text}\n` === HAR_CLOSING) {
      closed = true;
      continue;
    }
    if (text === '') continue;
    yield parsed(harEntrySchema, text.endsWith(',') ? text.slice(0, -1) : text, `${name} line ${number}`);
  }
  if (!closed) throw new BackupError(`${name} ends too early; the export is incomplete`);
}

/** An item's file: inside the sandbox's folder, present, and of the size recorded. */
async function checkedFile(
  root: string,
  sandbox: ManifestSandbox,
  file: string,
  size: number,
): Promise<string> {
  const path = join(root, sandbox.path, normalize(file));
  const found = await stat(path).catch(() => undefined);
  if (found === undefined || !found.isFile()) throw new BackupError(`${sandbox.path}/${file} is missing`);
  if (found.size !== size) {
    throw new BackupError(`${sandbox.path}/${file} has ${found.size} bytes, the export recorded ${size}`);
  }
  return path;
}

async function readManifest(root: string, shown: string): Promise<Manifest> {
  const file = join(root, MANIFEST_FILE);
  if (!existsSync(file)) {
    throw new BackupError(`${shown} has no ${MANIFEST_FILE}: not a complete sandtrap export`);
  }
  return parsed(manifestSchema, await readFile(file, 'utf8'), `${shown}: ${MANIFEST_FILE}`);
}

/** Reads every index line and entry and checks every file, storing nothing. */
async function verify(root: string, manifest: Manifest): Promise<void> {
  for (const sandbox of manifest.sandboxes) {
    let messages = 0;
    for await (const line of mailIndex(root, sandbox)) {
      await checkedFile(root, sandbox, line.file, line.sizeBytes);
      messages++;
    }
    let requests = 0;
    for await (const entry of harEntries(root, sandbox)) {
      const bodyFile = entry.request._sandtrapBodyFile;
      if (bodyFile !== undefined) await checkedFile(root, sandbox, bodyFile, entry.request.bodySize);
      else if (entry.request.bodySize !== 0) {
        throw new BackupError(
          `${sandbox.path}/${HAR_FILE}: a request of ${entry.request.bodySize} bytes names no body file`,
        );
      }
      requests++;
    }
    if (messages !== sandbox.messages || requests !== sandbox.requests) {
      throw new BackupError(
        `${sandbox.path} holds ${messages} messages and ${requests} requests, the manifest says ` +
          `${sandbox.messages} and ${sandbox.requests}; the export is damaged`,
      );
    }
  }
}

/** The sandbox to import into: an existing one, or a new one in --workspace (optional with one workspace). */
async function target(core: Core, options: ImportOptions): Promise<{ id: string; name: string }> {
  if (options.sandbox !== undefined) {
    const workspaceId = await core.backup.workspaceOf(options.sandbox).catch(() => {
      throw new BackupError(`No live sandbox "${options.sandbox}"`);
    });
    const sandbox = await core.sandboxes.get(workspaceId, options.sandbox);
    return { id: sandbox.id, name: sandbox.name };
  }
  const account = await workspaceNamed(core, options.workspace);
  const sandbox = await core.sandboxes.create(account.orgId, { name: options.newSandbox });
  return { id: sandbox.id, name: sandbox.name };
}

async function importFrom(core: Core, root: string, shown: string, options: ImportOptions): Promise<string> {
  const manifest = await readManifest(root, shown);
  await verify(root, manifest);
  const into = await target(core, options);
  let messages = 0;
  let requests = 0;
  for (const sandbox of manifest.sandboxes) {
    for await (const line of mailIndex(root, sandbox)) {
      const raw = await readFile(join(root, sandbox.path, normalize(line.file)));
      await core.backup.restoreMessage(into.id, {
        raw,
        envelopeFrom: line.envelopeFrom,
        capturedFor: line.capturedFor,
        receivedAt: new Date(line.receivedAt),
      });
      messages++;
    }
    for await (const entry of harEntries(root, sandbox)) {
      const bodyFile = entry.request._sandtrapBodyFile;
      const body =
        bodyFile === undefined
          ? new Uint8Array(0)
          : await readFile(join(root, sandbox.path, normalize(bodyFile)));
      await core.backup.restoreRequest(into.id, restoredRequest(entry, body));
      requests++;
    }
  }
  return `Imported ${messages} messages and ${requests} requests into sandbox "${into.name}" (${into.id})`;
}

/** A folder is read in place; a file is unpacked as a tar into a temporary folder first (and checked whole). */
export async function runImport(core: Core, options: ImportOptions): Promise<string> {
  const from = options.from;
  if (!existsSync(from)) throw new BackupError(`No export at ${from} (neither a folder nor a .tar file)`);
  if (statSync(from).isDirectory()) return importFrom(core, from, from, options);
  const unpacked = await mkdtemp(join(tmpdir(), 'sandtrap-import-'));
  try {
    try {
      await extract({ file: from, cwd: unpacked, strict: true });
    } catch (err) {
      throw new BackupError(`${from} is not a readable tar archive (${(err as Error).message})`);
    }
    return await importFrom(core, unpacked, from, options);
  } finally {
    await rm(unpacked, { recursive: true, force: true });
  }
}
