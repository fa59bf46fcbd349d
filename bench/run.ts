// `npm run bench [-- --pg]`: every benchmark in turn; each prints its table and writes bench/results/*.json.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches = [
  'waits.ts',
  'events.ts',
  'ingest.ts',
  'list.ts',
  'search.ts',
  'dashboardScroll.ts',
  'linearTime.ts',
  'hostileCapture.ts',
  'stalls.ts',
  'webhooks.ts',
  'mockState.ts',
  'smtpFaults.ts',
];
const args = process.argv.slice(2);
let failed = 0;
for (const bench of benches) {
  const file = fileURLToPath(new URL(bench, import.meta.url));
  const res = spawnSync(process.execPath, [file, ...args], { stdio: 'inherit' });
  if (res.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
