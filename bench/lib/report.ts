// Prints a benchmark table and writes its JSON to bench/results/.
import { percentile } from './sandtrap.ts';
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

/** The p50 row of a latency (judged against its target) and its p99 row, from samples sorted in ms. */
export function latencyRows(workload: string, sorted: number[], targetMs: number): Row[] {
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  return [
    {
      workload: `${workload}, p50`,
      target: `<= ${targetMs} ms`,
      measured: ms(p50),
      met: p50 <= targetMs,
      p99,
    },
    { workload: `${workload}, p99`, target: '-', measured: ms(p99), met: null },
  ];
}
