// Loaded into a benchmark's sandtrap process (NODE_OPTIONS=--import, see loopMonitorEnv): the longest
// event-loop turn, as perf_hooks sees it (how late a 5 ms timer ran). On SIGUSR2 it writes the longest since
// the previous SIGUSR2 (or the start) to BENCH_LOOP_FILE and starts over, so a bench brackets a workload with two
// signals and reads the second answer.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const file = process.env.BENCH_LOOP_FILE;
if (file !== undefined && file !== '') {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  process.on('SIGUSR2', () => {
    writeFileSync(file, JSON.stringify({ maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6 }));
    delay.reset();
  });
}

/** The environment that loads this file into a sandtrap process and has it write to `file`. */
export function loopMonitorEnv(file: string): Record<string, string> {
  return { NODE_OPTIONS: `--import ${fileURLToPath(import.meta.url)}`, BENCH_LOOP_FILE: file };
}
