// Builds the embedded store's migrated template at install time (npm's postinstall), so that the first start
// after `npm ci` is as quick as any other. Never fails the install: without a template the store builds it later.
import { prepareTemplate } from '../src/core/store/pgliteStart.ts';

try {
  const started = performance.now();
  const file = await prepareTemplate();
  process.stdout.write(
    `sandtrap: embedded store template ready (${file}, ${Math.round(performance.now() - started)} ms)\n`,
  );
} catch (err) {
  process.stderr.write(
    `sandtrap: could not build the embedded store template (${String(err)}); it is built on first start instead\n`,
  );
}
