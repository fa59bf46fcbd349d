// Prints a benchmark table and writes its JSON to bench/results/; rows that measure CPU per item are compared
// with the same row of the newest earlier run that measured it (bench/results/, else bench/previous/).
import { percentile } from './sandtrap.ts';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Row {
  workload: string;
  target: string;
  measured: string;
  met: boolean | null;
  [extra: string]: unknown;
}

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
const previousDir = fileURLToPath(new URL('../previous/', import.meta.url));

interface Previous {
  at: string;
  rows: Row[];
}

/** Local runs read back at most: a checkout that benchmarks all day keeps hundreds. */
const LOCAL_RUNS = 50;

/**
 * The runs this one may be compared with, newest first: this benchmark's results in bench/results/ (runs on
 * this checkout), then bench/previous/<name>.json, the run committed with the last change to the hot paths.
 */
function earlierRuns(slug: string): Previous[] {
  const local = existsSync(resultsDir)
    ? readdirSync(resultsDir)
        .filter((f) => f.startsWith(`${slug}-`) && f.endsWith('.json'))
        .sort()
        .reverse()
        .slice(0, LOCAL_RUNS)
        .map((f) => `${resultsDir}${f}`)
    : [];
  return [...local, `${previousDir}${slug}.json`].flatMap((file) => {
    try {
      const run = JSON.parse(readFileSync(file, 'utf8')) as Previous;
      return Array.isArray(run.rows) ? [run] : [];
    } catch {
      return []; // missing or unreadable: not a run to compare with
    }
  });
}

/**
 * CPU per item against the same row of the newest earlier run that measured it (a run of a few workloads
 * must not leave a full run without a comparison): "-12% (was 617 µs)", "new", or "" (not measured).
 */
function cpuChange(row: Row, runs: Previous[]): { text: string; at?: string } {
  const now = row.cpuUs;
  if (typeof now !== 'number' || !Number.isFinite(now)) return { text: '' };
  for (const run of runs) {
    const before = run.rows.find((r) => r.workload === row.workload)?.cpuUs;
    if (typeof before !== 'number' || !Number.isFinite(before) || before <= 0) continue;
    const pct = ((now - before) / before) * 100;
    return { text: `${pct >= 0 ? '+' : ''}${pct.toFixed(0)}% (was ${before.toFixed(0)} µs)`, at: run.at };
  }
  return { text: 'new' };
}

export function report(name: string, rows: Row[]): void {
  const slug = name.replace(/\W+/g, '-').toLowerCase();
  const runs = earlierRuns(slug);
  const comparedWith = new Set<string>();
  for (const r of rows) {
    const change = cpuChange(r, runs);
    if (change.text !== '') r.cpuChange = change.text;
    if (change.at !== undefined) comparedWith.add(change.at);
  }
  const withCpu = rows.some((r) => r.cpuChange !== undefined);
  const header = ['workload', 'target', 'measured', 'met', ...(withCpu ? ['CPU/item vs previous'] : [])];
  const cells = rows.map((r) => [
    r.workload,
    r.target,
    r.measured,
    r.met === null ? '-' : r.met ? 'yes' : 'NO',
    ...(withCpu ? [typeof r.cpuChange === 'string' ? r.cpuChange : ''] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(`\n${name}`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  if (withCpu)
    console.log(
      comparedWith.size > 0
        ? `CPU compared with the newest earlier run of each row: ${[...comparedWith].sort().join(', ')}`
        : 'CPU: no previous run to compare with (bench/results/ or bench/previous/)',
    );
  mkdirSync(resultsDir, { recursive: true });
  const file = `${resultsDir}${slug}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
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
