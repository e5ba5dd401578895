// The long fuzz run: `npx tsx bench/fuzz/run.ts [--pages N] [--seed S] [--workers W] [--blocks B] [--catalogs]`
// (--catalogs: mutate only the system catalogs' pages; --converters: run migrate toast and
// migrate btree on each round too, each into an output copy of the cluster).
// Child processes each run a share of the rounds (samples/fuzz/campaign.ts) on their own copy of
// the tiny sample; a child silent for --hang-seconds is a hang (the round it was on is named) and
// is killed; a child is limited to --heap-mb of JavaScript heap, and a round ending above
// --rss-mb resident is a failure. Prints one line per minute and a summary; exits 1 on any failure.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fork } from "node:child_process";
import { argValue, benchSample } from "../common.js";
import { fuzzTargets, failedEntry, minimise, runCampaign, type FuzzFailure } from "../../samples/fuzz/campaign.js";

interface Job {
  pgdata: string;
  seed: number;
  firstRound: number;
  rounds: number;
  blocks: number;
  rssLimitBytes: number;
  catalogsOnly: boolean;
  converters: boolean;
}
type Msg = { type: "round"; round: number; pages: number; failures: number } | { type: "done"; pages: number; rounds: number; failures: FuzzFailure[]; findings: [string, number][]; errors: [string, number][]; conversions: [string, number][]; peakRss: number; ms: [string, number][] };

const DB = "pgdisk_sample";
const send = (m: Msg): void => void process.send!(m);

async function workerMain(job: Job): Promise<void> {
  const res = await runCampaign({
    pgdata: job.pgdata,
    database: DB,
    seed: job.seed,
    firstRound: job.firstRound,
    rounds: job.rounds,
    blocksPerRound: job.blocks,
    rssLimitBytes: job.rssLimitBytes,
    catalogsOnly: job.catalogsOnly,
    converters: job.converters,
    onRound: (done, pages, failures) => send({ type: "round", round: job.firstRound + done - 1, pages, failures } satisfies Msg),
  });
  const failures: FuzzFailure[] = [];
  for (const f of res.failures) {
    const entry = failedEntry(f);
    if (!entry) {
      failures.push(f);
      continue;
    }
    const targets = fuzzTargets(job.pgdata, DB);
    const target = targets.find((t) => t.name === f.relation)!;
    const m = await minimise({ pgdata: job.pgdata, database: DB }, target, entry, f.blocks, targets.find((t) => t.name === f.through));
    failures.push(m ? { ...f, blocks: m.blocks, error: m.error } : f);
  }
  send({ type: "done", pages: res.pages, rounds: res.rounds, failures, findings: [...res.findings], errors: [...res.errors], conversions: [...res.conversions], peakRss: res.peakRss, ms: [...res.ms] } satisfies Msg);
}

async function main(): Promise<void> {
  const pages = Number(argValue("--pages", "1000000"));
  const seed = Number(argValue("--seed", "20261201"));
  const workers = Number(argValue("--workers", "2"));
  const blocks = Number(argValue("--blocks", "64"));
  const hangMs = Number(argValue("--hang-seconds", "300")) * 1000;
  const heapMb = Number(argValue("--heap-mb", "2048"));
  const rssLimitBytes = Number(argValue("--rss-mb", "3072")) * 2 ** 20;
  const catalogsOnly = process.argv.includes("--catalogs");
  const converters = process.argv.includes("--converters");
  const sample = await benchSample("tiny", argValue("--sample", "/tmp/pgdisk-bench-tiny"));
  // a round mutates between blocks/2 and `blocks` blocks (at most the relation's): about blocks / 4 on the tiny sample
  const rounds = Math.ceil(pages / Math.max(1, blocks / 4));
  const per = Math.ceil(rounds / workers);
  const t0 = Date.now();
  let pagesDone = 0;
  const done: Extract<Msg, { type: "done" }>[] = [];
  const hangs: string[] = [];
  const copies: string[] = [];
  const tick = setInterval(() => process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(0)} s: ${pagesDone} pages\n`), 60_000);
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      let firstRound = w * per;
      const end = Math.min(rounds, (w + 1) * per);
      while (firstRound < end) {
        const root = mkdtempSync(join(tmpdir(), "pgdisk-fuzz-"));
        copies.push(root);
        cpSync(sample, join(root, "data"), { recursive: true });
        const job: Job = { pgdata: join(root, "data"), seed, firstRound, rounds: end - firstRound, blocks, rssLimitBytes, catalogsOnly, converters };
        const worker = fork(new URL(import.meta.url).pathname, ["--worker", JSON.stringify(job)], { execArgv: [...process.execArgv, `--max-old-space-size=${heapMb}`] });
        let last = firstRound - 1;
        let counted = 0;
        await new Promise<void>((resolve) => {
          let timer = setTimeout(onHang, hangMs);
          function onHang(): void {
            hangs.push(`worker ${w}: no progress for ${hangMs / 1000} s after round ${last} (seed ${seed}): round ${last + 1} hangs`);
            worker.kill("SIGKILL");
          }
          worker.on("message", (m: Msg) => {
            clearTimeout(timer);
            timer = setTimeout(onHang, hangMs);
            if (m.type === "round") {
              last = m.round;
              pagesDone += m.pages - counted;
              counted = m.pages;
            } else {
              clearTimeout(timer);
              done.push(m);
            }
          });
          worker.on("error", (e) => hangs.push(`worker ${w}: died after round ${last}: ${e.message}`));
          worker.on("exit", (code, signal) => {
            clearTimeout(timer);
            if (code !== 0 && signal !== "SIGKILL") hangs.push(`worker ${w}: exited (${signal ?? code}) after round ${last}`);
            resolve();
          });
        });
        rmSync(root, { recursive: true, force: true });
        // a hang or a death: go on after the round it happened in
        firstRound = last + 2;
      }
    }),
  );
  clearInterval(tick);
  const failures = done.flatMap((d) => d.failures);
  const total = done.reduce((s, d) => s + d.pages, 0);
  const findings = new Map<string, number>();
  for (const d of done) for (const [k, v] of d.findings) findings.set(k, (findings.get(k) ?? 0) + v);
  const errors = new Map<string, number>();
  for (const d of done) for (const [k, v] of d.errors) errors.set(k, (errors.get(k) ?? 0) + v);
  console.log(`pgdisk fuzz: seed ${seed}, ${done.reduce((s, d) => s + d.rounds, 0)} rounds, ${total} mutated pages, each read by dump (page model: text, JSON, COPY; records: text), verify, browse, list and value${converters ? ", migrate toast and migrate btree" : ""}; ${((Date.now() - t0) / 1000).toFixed(0)} s with ${workers} workers`);
  console.log(`peak resident set per worker process: ${(Math.max(...done.map((d) => d.peakRss)) / 2 ** 20).toFixed(0)} MiB (bound ${rssLimitBytes / 2 ** 20} MiB; heap limit ${heapMb} MiB)`);
  console.log(`finding codes reported: ${findings.size} (${[...findings].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k} ${v}`).join(", ")}, ...)`);
  console.log(`FormatErrors thrown (precise errors, allowed): ${[...errors].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`);
  const conversions = new Map<string, number>();
  for (const d of done) for (const [k, v] of d.conversions) conversions.set(k, (conversions.get(k) ?? 0) + v);
  if (converters) console.log(`converter runs: ${[...conversions].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`);
  const ms = new Map<string, number>();
  for (const d of done) for (const [k, v] of d.ms) ms.set(k, (ms.get(k) ?? 0) + v);
  console.log(`time per entry point (all workers): ${[...ms].map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(", ")}`);
  console.log(`failures: ${failures.length + hangs.length}`);
  for (const h of hangs) console.log(`  ${h}`);
  for (const f of failures) console.log(`  ${f.entry} on ${f.relation}${f.through ? ` (through ${f.through})` : ""}, seed ${f.seed} round ${f.round}: ${JSON.stringify(f.blocks)}\n    ${f.error.split("\n").slice(0, 6).join("\n    ")}`);
  for (const c of copies) rmSync(c, { recursive: true, force: true });
  process.exitCode = failures.length + hangs.length > 0 ? 1 : 0;
}

const at = process.argv.indexOf("--worker");
if (at < 0) await main();
else await workerMain(JSON.parse(process.argv[at + 1]) as Job);
