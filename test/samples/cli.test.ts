// `samples make` / `samples list-sizes` through the real entry point (samples/main.ts).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SIZE_NAMES } from "../../samples/sizes.js";
import { PgServer } from "../../samples/pg-server.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const parent = mkdtempSync(join(tmpdir(), "pgdisk-samples-cli-"));
chmodSync(parent, 0o755);
after(() => rmSync(parent, { recursive: true, force: true }));

function run(args: string[]) {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(repo, "samples", "main.ts"), ...args], { cwd: repo, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("list-sizes names every size", () => {
  const r = run(["list-sizes"]);
  assert.equal(r.status, 0, r.stderr);
  for (const s of SIZE_NAMES) assert.match(r.stdout, new RegExp(`^${s} `, "m"));
  const j = run(["list-sizes", "--json"]);
  assert.deepEqual(JSON.parse(j.stdout).map((p: { name: string }) => p.name), [...SIZE_NAMES]);
});

test("make refuses a non-empty directory, and --force replaces its contents", () => {
  const out = join(parent, "out");
  mkdirSync(out);
  writeFileSync(join(out, "keep-me.txt"), "precious");
  const refused = run(["make", "--size", "tiny", "--seed", "5", "--out", out]);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /exists and is not empty/);
  assert.match(refused.stderr, /--force/);
  assert.deepEqual(readdirSync(out), ["keep-me.txt"]);

  const made = run(["make", "--size", "tiny", "--seed", "5", "--out", out, "--no-checksums", "--force"]);
  assert.equal(made.status, 0, made.stderr);
  assert.ok(!existsSync(join(out, "keep-me.txt")));
  assert.match(made.stdout, /size tiny, seed 5, data checksums off/);
  assert.match(made.stdout, /pgdisk_sample\.public\.toast_docs: \d+ rows/);
  assert.match(made.stderr, /stopping the server/, "progress on stderr");
  assert.doesNotMatch(made.stdout, /\[\s*\d+\.\d s\]/, "no progress on stdout");
  const info = JSON.parse(readFileSync(join(out, "sample.json"), "utf8"));
  assert.equal(info.seed, 5);
  assert.equal(info.pgdata, join(out, "data"));
  const srv = PgServer.attach(out);
  assert.match(srv.tool("pg_controldata", [info.pgdata]), /Data page checksum version:\s+0\n/);
  assert.match(srv.tool("pg_controldata", [info.pgdata]), /Database cluster state:\s+shut down\n/);
});

test("make rejects a bad seed and a bad size", () => {
  const out = join(parent, "never");
  assert.notEqual(run(["make", "--seed", "-3", "--out", out]).status, 0);
  const size = run(["make", "--size", "huge", "--out", out]);
  assert.notEqual(size.status, 0);
  assert.match(size.stderr, /tiny, small, large|"tiny", "small", "large"/);
  assert.ok(!existsSync(out));
});
