// `pgdisk samples make --pg-version N`: the oldest and the newest supported server build a tiny
// sample (no COMPRESSION clauses on 13, no lz4 in the npm builds), and pgdisk reads it: the
// summary names the server, verify finds nothing, and the COPY dump of the compressed table has
// the rows the generator sent.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import type { SampleInfo } from "../../samples/build.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const pgdisk = (...args: string[]) => spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 28 });

for (const major of [13, 18]) {
  test(`samples make --pg-version ${major}: a sample pgdisk reads clean`, () => {
    const parent = mkdtempSync(join(tmpdir(), `pgdisk-sample-v${major}-`));
    dirs.push(parent);
    chmodSync(parent, 0o755);
    const out = join(parent, "s");
    const made = pgdisk("samples", "make", "--size", "tiny", "--pg-version", String(major), "--out", out);
    assert.equal(made.status, 0, made.stderr);
    assert.match(made.stdout, new RegExp(`PostgreSQL ${major}\\.\\d+`));
    const info = JSON.parse(readFileSync(join(out, "sample.json"), "utf8")) as SampleInfo;
    assert.match(info.serverVersion, new RegExp(`^${major}\\.`));
    const v = pgdisk("verify", "--pgdata", join(out, "data"));
    assert.equal(v.status, 0, v.stdout.slice(-3000) + v.stderr);
    const docs = info.tables.find((t) => t.name === "compressed_docs")!;
    const d = pgdisk("inspect", "dump", "--pgdata", join(out, "data"), "-d", "pgdisk_sample", "-t", "compressed_docs", "--format", "copy");
    assert.equal(d.status, 0, d.stderr);
    assert.equal(d.stdout.split("\n").filter(Boolean).length, docs.rows);
  });
}
