// `pgdisk … | head`: when stdout's reader goes away the command stops quietly (no stack trace)
// with 141, the status a C tool killed by SIGPIPE reports, never 0 (the output is incomplete).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { tinySample } from "../fixtures/sample.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");

async function closeAfterFirstChunk(args: string[]): Promise<{ status: number | null; stderr: string; first: string }> {
  const child = spawn(BIN, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const first = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString())));
  child.stdout.destroy(); // the reader goes away, as `head` does
  const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { status, stderr, first };
}

for (const jobs of ["1", "2"]) {
  test(`dump into a closed pipe exits 141 quietly (-j ${jobs})`, async () => {
    const info = await tinySample();
    const r = await closeAfterFirstChunk(["inspect", "dump", "--pgdata", info.pgdata, "-d", "pgdisk_sample", "--system", "--no-color", "-j", jobs]);
    assert.match(r.first, /^Relation /);
    assert.equal(r.status, 141, r.stderr);
    assert.equal(r.stderr, "");
  });
}
