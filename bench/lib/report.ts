// Prints a benchmark table and writes its JSON to bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Row {
  workload: string;
  target: string;
  measured: string;
  met: boolean | null;
  [extra: string]: unknown;
}

export function report(name: string, rows: Row[]): void {
  const header = ['workload', 'target', 'measured', 'met'];
  const cells = rows.map((r) => [
    r.workload,
    r.target,
    r.measured,
    r.met === null ? '-' : r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(`\n${name}`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${name.replace(/\W+/g, '-').toLowerCase()}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(
    file,
    JSON.stringify({ name, at: new Date().toISOString(), node: process.version, rows }, null, 2),
  );
}
