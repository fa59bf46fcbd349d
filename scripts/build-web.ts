// Builds the dashboard (src/web) into dist/web: hashed, minified JS and CSS with .gz and .br beside each,
// index.html and manifest.json. Runs at install (postinstall) so `npm ci` alone yields a servable dashboard.
import type * as Esbuild from 'esbuild';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist', 'web');
// Built beside the live directory and swapped in at the end, so a running server never sees half a build.
const stageDir = join(root, 'dist', `web-${process.pid}`);

interface FileSizes {
  bytes: number;
  gzip: number;
  br: number;
}

async function main(): Promise<void> {
  const started = performance.now();
  const esbuild = await loadEsbuild();
  if (!esbuild) return;
  await rm(stageDir, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: [join(root, 'src/web/main.tsx')],
    bundle: true,
    outdir: join(stageDir, 'assets'),
    entryNames: 'app-[hash]',
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    target: 'es2022',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });

  const outputs = Object.keys(result.metafile.outputs).map((file) => join(root, file));
  const js = outputs.find((file) => file.endsWith('.js'));
  const css = outputs.find((file) => file.endsWith('.css'));
  if (!js || !css)
    throw new Error(
      `esbuild produced ${outputs.map((f) => basename(f)).join(', ')}, not one .js and one .css`,
    );

  const files: Record<string, FileSizes> = {};
  for (const file of [js, css]) {
    const content = await readFile(file);
    const gz = gzipSync(content, { level: 9 });
    const br = brotliCompressSync(content, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
    });
    await writeFile(`${file}.gz`, gz);
    await writeFile(`${file}.br`, br);
    files[relative(stageDir, file)] = { bytes: content.length, gzip: gz.length, br: br.length };
  }

  const jsPath = relative(stageDir, js);
  const cssPath = relative(stageDir, css);
  await writeFile(join(stageDir, 'index.html'), indexHtml(jsPath, cssPath));
  await writeFile(
    join(stageDir, 'manifest.json'),
    `${JSON.stringify({ js: jsPath, css: cssPath, files }, null, 2)}\n`,
  );

  await mkdir(dirname(outDir), { recursive: true });
  const old = `${outDir}-old-${process.pid}`;
  await rename(outDir, old).catch(() => undefined);
  await rename(stageDir, outDir);
  await rm(old, { recursive: true, force: true });

  const gzipTotal = files[jsPath]!.gzip + files[cssPath]!.gzip;
  process.stdout.write(
    `sandtrap: dashboard built in ${Math.round(performance.now() - started)} ms ` +
      `(${jsPath} ${kb(files[jsPath]!.gzip)} + ${cssPath} ${kb(files[cssPath]!.gzip)} gzip = ${kb(gzipTotal)})\n`,
  );
}

// esbuild is a dev dependency: an install without dev dependencies (npm ci --omit=dev) cannot build, and says so
// instead of failing the install; the server then answers the dashboard with a 503 naming the fix.
async function loadEsbuild(): Promise<typeof Esbuild | undefined> {
  try {
    return await import('esbuild');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    process.stderr.write(
      'sandtrap: esbuild is not installed (dev dependencies omitted), so the dashboard is not built\n',
    );
    return undefined;
  }
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

// Absolute asset paths, because the same page answers every deep link (/s/{id}/messages/{id}).
function indexHtml(jsPath: string, cssPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>sandtrap</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/${cssPath}">
<script type="module" src="/${jsPath}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The sandtrap dashboard needs JavaScript. The REST API at /api/v1 (documented at /api-docs) works without it.</noscript>
</body>
</html>
`;
}

try {
  await main();
} catch (err) {
  await rm(stageDir, { recursive: true, force: true });
  process.stderr.write(
    `sandtrap: could not build the dashboard: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exitCode = 1;
}
