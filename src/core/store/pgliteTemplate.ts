// A migrated PGlite data directory kept per installation: a fresh store loads it instead of running initdb and the migrations in WASM.
// Why it exists and when it goes: the store map, src/core/store/README.md.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pglitePackage = join(dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))), '..');

function pgliteVersion(): string {
  const pkg = JSON.parse(readFileSync(join(pglitePackage, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `node_modules/.cache/sandtrap/` beside the installed PGlite, the usual home of tool caches: it goes away with
 * node_modules and never mixes with user data. The name carries the PGlite version (initdb's output depends on
 * its build) and the caller's fingerprint of what else went in (the migrations).
 */
export function templatePath(fingerprint: string): string {
  const cacheDir = join(pglitePackage, '..', '..', '.cache', 'sandtrap');
  return join(cacheDir, `pglite-${pgliteVersion()}-${fingerprint}.tar`);
}

/** A POSIX tar's first header carries "ustar" at byte 257. */
function looksLikeTar(bytes: Uint8Array): boolean {
  return bytes.length >= 512 && Buffer.from(bytes.subarray(257, 262)).toString('latin1') === 'ustar';
}

/**
 * The template as PGlite's `loadDataDir` takes it (an uncompressed tar), or undefined when there is none. A file
 * that is not a tar is removed here: PGlite would fail on it outside any promise the caller could catch.
 */
export function readTemplate(path: string): Blob | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  if (looksLikeTar(bytes)) return new Blob([bytes]);
  discardTemplate(path);
  return undefined;
}

/** A template that failed to load is removed, so that the next fresh store builds a good one. */
export function discardTemplate(path: string): void {
  rmSync(path, { force: true });
}

/** Writes a whole file under a temporary name and renames it, so that a reader never sees half a template. */
function writeTemplate(path: string, tar: Uint8Array): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  // A random name: two containers sharing node_modules can both be pid 1.
  const partial = `${path}.${randomUUID()}.partial`;
  try {
    writeFileSync(partial, tar);
    renameSync(partial, path);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  // Templates of other PGlite versions or older migrations are never read again.
  for (const name of readdirSync(dir)) {
    if (name.startsWith('pglite-') && name.endsWith('.tar') && join(dir, name) !== path) {
      rmSync(join(dir, name), { force: true });
    }
  }
}

/**
 * The template, built first (by `build`, which returns a data directory as a tar) when this installation has none
 * yet. Building costs about what initdb alone would, so the first fresh store is hardly slower for it.
 */
export async function ensureTemplate(path: string, build: () => Promise<Uint8Array>): Promise<Blob> {
  const existing = readTemplate(path);
  if (existing !== undefined) return existing;
  const tar = await build();
  try {
    writeTemplate(path, tar);
  } catch {
    // A read-only installation still starts: this store loads the tar it just built, the next one builds again.
  }
  return new Blob([tar]);
}
