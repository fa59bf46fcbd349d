// Private APIs of dependencies stay fenced: every one sandtrap uses is listed here with the one module allowed
// to use it, and its package is pinned exactly, so an upgrade is a deliberate step that the module's contract
// test checks. A listed name anywhere else in src, a retired one anywhere, a deep import of a path the package
// does not export, or an underscore member nobody listed fails this test.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

interface Fence {
  /** The package whose private API it is; undefined for Node's own. */
  pkg: string | undefined;
  /** The only file under src that may name them. */
  module: string;
  names: string[];
  /** The test that fails, naming the version, when an upgrade changes them (a package's, not Node's). */
  contract?: string;
}

const FENCES: Fence[] = [
  {
    pkg: '@electric-sql/pglite',
    module: 'src/core/store/pgliteInternals.ts',
    names: ['_checkReady', '_runExclusiveQuery', '_runExclusiveTransaction'],
    contract: 'test/store/pgliteInternals.test.ts',
  },
  {
    pkg: '@electric-sql/pglite',
    module: 'src/core/store/durableNodeFs.ts',
    names: ['NODEFS', 'tryFSOperation', 'stream_ops'],
    contract: 'test/store/pgliteInternals.test.ts',
  },
  {
    // Public in PGlite's types; what is relied on is that every call into postgres goes through it.
    pkg: '@electric-sql/pglite',
    module: 'src/core/store/pgliteGuard.ts',
    names: ['execProtocolRawSync'],
    contract: 'test/store/pgliteInternals.test.ts',
  },
  {
    pkg: '@zone-eu/mailsplit',
    module: 'src/core/mail/mailsplitInternals.ts',
    names: ['_boundary'],
    contract: 'test/core/mailsplitInternals.test.ts',
  },
  // Node's own socket field (no package to pin): whether a response already went out on the socket.
  { pkg: undefined, module: 'src/rest/clientError.ts', names: ['_httpMessage'] },
];

/** Private names replaced by a public way: none may come back. */
const RETIRED: Record<string, string> = {
  createToolError: '@modelcontextprotocol/server: refusals reach the tool callback (src/mcp/sdkToolInput.ts)',
  'store/RedisStore': '@fastify/rate-limit: every limit is core/rateLimits.ts',
  'store/LocalStore': '@fastify/rate-limit: every limit is core/rateLimits.ts',
};

/** Underscore members that are no dependency's private API. */
const PUBLIC_UNDERSCORE = new Set([
  // MCP's own protocol field (request params `_meta`).
  '_meta',
  // HAR 1.2 custom fields must start with an underscore (src/cli/backup: sandtrap's own, not a dependency's).
  '_sandtrap',
  '_sandtrapBodyFile',
  '_sandtrapNoRecordedReply',
]);

const sources = globSync('src/**/*.{ts,tsx}').sort();
const text = new Map(sources.map((file) => [file, readFileSync(file, 'utf8')]));
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
};

const wordRe = (name: string) => new RegExp(`(^|[^\\w$])${name.replace(/[/.]/g, '\\$&')}([^\\w$]|$)`);
const filesNaming = (name: string) => sources.filter((file) => wordRe(name).test(text.get(file) ?? ''));

function installedVersion(pkg: string): string {
  return (JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, 'utf8')) as { version: string })
    .version;
}

/** Bare module specifiers of static imports and exports, dynamic imports and requires. */
function specifiers(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const found = patterns.flatMap((re) => [...source.matchAll(re)].map((m) => m[1] ?? ''));
  return found.filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !s.startsWith('/'));
}

/** Whether `pkg`'s package.json exports `./sub` (exactly or through a `*` pattern). */
function exportsSubpath(pkg: string, sub: string): boolean {
  const exports = (
    JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, 'utf8')) as { exports?: unknown }
  ).exports;
  if (exports === null || typeof exports !== 'object') return false;
  const want = `./${sub}`;
  return Object.keys(exports).some((key) => {
    if (key === want) return true;
    const star = key.indexOf('*');
    return star >= 0 && want.startsWith(key.slice(0, star)) && want.endsWith(key.slice(star + 1));
  });
}

describe('private dependency APIs', () => {
  it('are named only in their fenced module', () => {
    for (const fence of FENCES) {
      for (const name of fence.names) {
        const stray = filesNaming(name).filter((file) => file !== fence.module);
        assert.deepEqual(
          stray,
          [],
          `${name} (${fence.pkg ?? 'node'}) is private: use it only through ${fence.module}`,
        );
        assert.ok(
          filesNaming(name).includes(fence.module),
          `${fence.module} no longer uses ${name}: drop it from FENCES in this test`,
        );
      }
      if (fence.contract !== undefined) {
        assert.equal(
          globSync(fence.contract).length,
          1,
          `${fence.module}'s contract test ${fence.contract} is gone`,
        );
      }
    }
  });

  it('that were replaced by a public way do not come back', () => {
    for (const [name, why] of Object.entries(RETIRED)) {
      assert.deepEqual(filesNaming(name), [], `${name} is private to ${why}`);
    }
  });

  it('belong to packages pinned exactly to the installed version', () => {
    for (const pkg of new Set(FENCES.map((f) => f.pkg))) {
      if (pkg === undefined) continue;
      const range = manifest.dependencies[pkg];
      const installed = installedVersion(pkg);
      assert.equal(
        range,
        installed,
        `${pkg} is used through private APIs: pin it exactly (npm install --save-exact ${pkg}@${installed}), ` +
          `not ${JSON.stringify(range)}`,
      );
    }
  });

  it('are never reached by importing a path the package does not export', () => {
    const deep: string[] = [];
    for (const file of sources) {
      for (const spec of specifiers(text.get(file) ?? '')) {
        const parts = spec.split('/');
        const nameParts = spec.startsWith('@') ? 2 : 1;
        if (parts.length <= nameParts) continue;
        const pkg = parts.slice(0, nameParts).join('/');
        const sub = parts.slice(nameParts).join('/');
        if (!exportsSubpath(pkg, sub)) deep.push(`${file}: ${spec}`);
      }
    }
    assert.deepEqual(deep, [], 'deep imports of paths their package does not export (private files)');
  });

  it('include no underscore member that is not listed above', () => {
    const fenced = new Set(FENCES.flatMap((f) => f.names));
    const unlisted: string[] = [];
    for (const file of sources) {
      for (const m of (text.get(file) ?? '').matchAll(/[\w$)\]?]\??\.(_[A-Za-z]\w*)/g)) {
        const name = m[1] ?? '';
        if (!fenced.has(name) && !PUBLIC_UNDERSCORE.has(name)) unlisted.push(`${file}: ${name}`);
      }
    }
    assert.deepEqual(
      unlisted,
      [],
      'underscore members are private by convention: fence them (FENCES) or name them public here',
    );
  });
});
