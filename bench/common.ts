// Shared pieces of the benchmarks: a sample cluster to measure on, and wall-clock timing of
// whole commands (each tool run the way a user runs it).
import { spawnSync } from "node:child_process";
import { existsSync, openSync, closeSync } from "node:fs";
import { buildSample } from "../samples/build.js";
import type { SizeName } from "../samples/sizes.js";

/** A sample cluster at dir (built when absent). */
export async function benchSample(size: SizeName, dir = `/tmp/pgdisk-bench-${size}`): Promise<string> {
  if (!existsSync(`${dir}/data/PG_VERSION`)) {
    process.stderr.write(`building the ${size} sample in ${dir} ...\n`);
    await buildSample({ size, out: dir, onProgress: (m) => process.stderr.write(`  ${m}\n`) });
  }
  return `${dir}/data`;
}

/** Run a command with stdout to /dev/null; returns seconds of wall time. Throws on failure. */
export function timeCommand(cmd: string, args: string[], okStatus: number[] = [0]): number {
  const out = openSync("/dev/null", "w");
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ["ignore", out, "pipe"], maxBuffer: 1 << 26 });
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  closeSync(out);
  if (!okStatus.includes(r.status ?? -1)) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return s;
}

export function argValue(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : dflt;
}

/** The statements' seconds in psql output with \timing on (each "Time: N ms" line, summed). */
export const psqlTimingSeconds = (out: string): number => [...out.matchAll(/Time: ([\d.]+) ms/g)].reduce((s, m) => s + Number(m[1]), 0) / 1000;

/** Seconds a server spends on `sql` (psql's \timing of each statement, summed). */
export function sqlSeconds(srv: { sql(sql: string, db?: string): string }, sql: string, db: string): number {
  return psqlTimingSeconds(srv.sql(`\\timing on\n${sql}`, db));
}

/** utime + stime of a process in seconds, from its /proc/PID/stat line (fields 14 and 15, clock ticks of 1/100 s). */
export function cpuOfStat(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}
