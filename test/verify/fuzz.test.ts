// Seeded fuzzing: random byte flips in real heap, TOAST and B-tree pages (checksum recomputed or
// not) may only ever produce findings. An exception escaping a check (reported as
// REL_VERIFY_FAILED with a JavaScript error) or a hang fails the test.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { tinySampleCopy } from "../fixtures/sample.js";
import { runVerify } from "../../verify/run.js";
import { Damager } from "./damage.js";
import { mulberry32 } from "../../samples/prng.js";

let root = "";
let pgdata = "";
let d: Damager;

before(async () => {
  const c = await tinySampleCopy();
  root = c.root;
  pgdata = c.pgdata;
  d = new Damager(pgdata);
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const rng = mulberry32;

const TARGETS = ["web_links", "accounts", "compressed_docs", "web_links_pkey", "web_links_url_idx", "web_links_status_idx", "web_links_tenant_idx", "accounts_email_idx"];
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 120);

test(`${ROUNDS} random damages give findings, never a crash`, async () => {
  const r = rng(Number(process.env.FUZZ_SEED ?? 20261130));
  const crashes: string[] = [];
  let withFindings = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const name = TARGETS[Math.floor(r() * TARGETS.length)];
    const toast = name === "compressed_docs" && r() < 0.5;
    const rel = toast ? d.toastOf(name) : d.rel(name);
    const path = d.path(rel);
    const blk = Math.floor(r() * d.nblocks(path));
    const flips = 1 + Math.floor(r() * 8);
    // mostly the page's first 64 bytes and line pointers, else anywhere
    const spots = Array.from({ length: flips }, () => (r() < 0.5 ? Math.floor(r() * 200) : Math.floor(r() * 8192)));
    const bits = spots.map(() => 1 << Math.floor(r() * 8));
    const keepChecksum = r() < 0.3;
    try {
      d.patch(path, blk, (p) => spots.forEach((s, k) => (p[s] ^= bits[k])), keepChecksum);
      const run = await runVerify({ pgdata, database: "pgdisk_sample", relations: [name] }, { jobs: 1 });
      const f = run.reports.flatMap((x) => x.findings);
      if (f.some((x) => x.severity === "error")) withFindings++;
      for (const x of f) if (x.code === "REL_VERIFY_FAILED" && /Error|TypeError|RangeError|undefined/.test(x.message)) crashes.push(`${name} block ${blk} bytes ${spots.join(",")}: ${x.message.slice(0, 400)}`);
    } finally {
      d.restore();
    }
  }
  assert.deepEqual(crashes, []);
  assert.ok(withFindings > ROUNDS / 3, `damage found in ${withFindings} of ${ROUNDS} rounds`);
});
