// `pgdisk samples ...`: commander wiring for the sample-cluster builder. Progress goes to stderr,
// the summary to stdout.
import { Command, InvalidArgumentError, Option } from "commander";
import chalk from "chalk";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, parse, resolve } from "node:path";
import { buildSample, DEFAULT_SEED, type SampleInfo } from "./build.js";
import { SIZES, SIZE_NAMES, type SizeName } from "./sizes.js";
import { PROFILES } from "../formats/version/index.js";

export interface SamplesIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: SamplesIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

function parseSeed(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new InvalidArgumentError("expected a non-negative integer");
  return n;
}

function parseMajor(v: string): number {
  const n = Number(v);
  const majors = PROFILES.map((p) => p.major);
  if (!majors.includes(n)) throw new InvalidArgumentError(`expected one of ${majors.join(", ")}`);
  return n;
}

/** Why `dir` may not be emptied by --force, or null when it may. */
function forceRefusal(dir: string): string | null {
  if (dir === parse(dir).root || dir === homedir() || dir === process.cwd()) return `refusing to empty ${dir}`;
  if (existsSync(join(dir, "data", "postmaster.pid"))) return `a server is running on ${join(dir, "data")} (postmaster.pid exists); stop it first`;
  return null;
}

export function formatSummary(info: SampleInfo): string {
  const lines = [
    info.description,
    `layout: ${info.root}/data (PGDATA), ${info.root}/sock (socket dir), ${info.root}/server.log, ${info.root}/sample.json`,
    `built in ${(info.buildMs / 1000).toFixed(1)} s`,
  ];
  return lines.join("\n") + "\n";
}

export function makeSamplesCommand(io: SamplesIo = defaultIo): Command {
  const samples = new Command("samples").description("build deterministic sample PostgreSQL clusters");

  samples
    .command("make")
    .description("build a sample cluster into DIR/data and shut it down cleanly")
    .addOption(new Option("--size <size>", "size profile").choices(SIZE_NAMES as string[]).default("tiny"))
    .option("--seed <n>", "random seed (same seed and size give the same rows)", parseSeed, DEFAULT_SEED)
    .requiredOption("--out <dir>", "output directory (absent or empty); the cluster goes to DIR/data")
    .option("--no-checksums", "initdb without data checksums")
    .option("--pg-version <major>", "server of this PostgreSQL major version from npm (13 to 18); default Debian's PostgreSQL 15, which has lz4", parseMajor)
    .option("--force", "empty DIR first if it is not empty")
    .option("--json", "print the SampleInfo as JSON instead of text")
    .action(async function (this: Command, o: { size: SizeName; seed: number; out: string; checksums: boolean; pgVersion?: number; force?: boolean; json?: boolean }) {
      const out = resolve(o.out);
      if (existsSync(out) && readdirSync(out).length > 0) {
        if (!o.force) this.error(`error: output directory ${out} exists and is not empty (use --force to replace its contents)`, { code: "samples.outNotEmpty" });
        const refusal = forceRefusal(out);
        if (refusal) this.error(`error: ${refusal}`, { code: "samples.forceRefused" });
        for (const e of readdirSync(out)) rmSync(join(out, e), { recursive: true, force: true });
      }
      const t0 = Date.now();
      const progress = (msg: string) => io.err(chalk.dim(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`) + "\n");
      let info: SampleInfo;
      try {
        info = await buildSample({ size: o.size, seed: o.seed, out, checksums: o.checksums, version: o.pgVersion, onProgress: progress });
      } catch (e) {
        this.error(`error: building the sample failed (partial output left in ${out}): ${(e as Error).message}`, { code: "samples.buildFailed" });
      }
      io.out(o.json ? JSON.stringify(info, null, 2) + "\n" : formatSummary(info));
    });

  samples
    .command("list-sizes")
    .description("list the size profiles")
    .option("--json", "print the profiles as JSON")
    .action((o: { json?: boolean }) => {
      if (o.json) {
        io.out(JSON.stringify(SIZE_NAMES.map((n) => SIZES[n]), null, 2) + "\n");
        return;
      }
      for (const n of SIZE_NAMES) {
        const p = SIZES[n];
        io.out(`${n.padEnd(6)} ${p.approxDisk.padEnd(9)} ${p.purpose}\n`);
        io.out(
          `       toast_docs +${p.toast.single + p.toast.multi + p.toast.over100 + p.toast.over1000} random values, ` +
            `embeddings ${p.embeddings}, web_links ${p.links}, places ${p.places}, accounts ${p.accounts}, ` +
            `evolving ${p.evolving}, all_types ${p.types}\n`,
        );
      }
    });

  return samples;
}
