// Lint rules, including the layering rule: core imports no adapter or transport framework,
// and adapters never import each other.
import tseslint from 'typescript-eslint';

const adapters = ['rest', 'mcp', 'smtp', 'capture', 'cli', 'client'];
const transportFrameworks = [
  'fastify',
  '@fastify/*',
  'smtp-server',
  'nodemailer',
  '@modelcontextprotocol/*',
  'openapi-fetch',
  'undici',
];

/** Patterns forbidding imports of every adapter folder except `self`. */
function otherAdapters(self) {
  return adapters
    .filter((a) => a !== self)
    .map((a) => ({ adapter: a, group: [`**/${a}/*`, `**/${a}`], message: `${a} is another adapter` }));
}

/** Adapters that may import core, but not each other. The CLI is the composition root, so it may import all. */
const adapterRules = ['rest', 'mcp', 'smtp', 'capture', 'client'].map((self) => ({
  files: [`src/${self}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          // The stdio MCP mode is a client of a running server, so mcp may use src/client.
          ...otherAdapters(self)
            .filter((p) => !(self === 'mcp' && p.adapter === 'client'))
            .map(({ group, message }) => ({ group, message })),
          { group: ['**/cli/*'], message: 'the CLI is the composition root; nothing imports it' },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'openapi/schema.d.ts', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...adapters.map((a) => ({ group: [`**/${a}/*`, `**/${a}`], message: 'core imports no adapter' })),
            ...transportFrameworks.map((f) => ({
              // nodemailer's MIME builder and address parser send nothing: core builds provider-API mail with them.
              ...(f === 'nodemailer'
                ? { regex: '^nodemailer(?!/lib/(mail-composer|addressparser)$)' }
                : { group: [f] }),
              message: 'core imports no transport framework',
            })),
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'only src/core/config.ts reads the environment',
        },
      ],
    },
  },
  { files: ['src/core/config.ts'], rules: { 'no-restricted-syntax': 'off' } },
  // Tests read JSON bodies of many shapes; typing each one adds nothing the assertions do not check.
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  ...adapterRules,
  // The dashboard runs in the browser: it talks to the server only over HTTP, and takes the API's types
  // (type-only) from openapi/schema.d.ts, never code from the server.
  {
    files: ['src/web/**/*.ts', 'src/web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'the dashboard runs in the browser' },
            {
              group: ['**/core/*', '**/core', ...adapters.flatMap((a) => [`**/${a}/*`, `**/${a}`])],
              message: 'the dashboard reaches the server over HTTP only',
            },
          ],
        },
      ],
    },
  },
);
