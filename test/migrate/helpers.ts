// Small real clusters for the migrate safety tests: a table, its TOAST relation and indexes in a
// tablespace (pg_tblspc/<oid> a symlink), pg_wal a symlink as initdb -X makes it, data checksums
// on; a digest of every input file (links followed); and the CLI run with an environment.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { ROOT, rowDigests } from "../toast/cluster-helpers.js";
import { copyRoot } from "../../samples/cluster-kit.js";

export const DB = "app";

const pgIds = (): { uid: number; gid: number } => ({
  uid: Number(execFileSync("id", ["-u", "postgres"]).toString()),
  gid: Number(execFileSync("id", ["-g", "postgres"]).toString()),
});

/** A directory the postgres user can use, removed by the caller. */
export function pgDir(tag: string): string {
  const d = mkdtempSync(join(tmpdir(), `pgdisk-msafe-${tag}-`));
  chmodSync(d, 0o755);
  const { uid, gid } = pgIds();
  chownSync(d, uid, gid);
  return d;
}

export interface LinkedCluster {
  srv: PgServer;
  /** the tablespace's directory (outside the data directory) */
  tablespaceDir: string;
  /** where pg_wal's link points */
  walDir: string;
}

/**
 * A stopped cluster whose table docs (TOAST relation and indexes too) lives in a tablespace and
 * whose pg_wal is a link; plus a table in the default tablespace.
 */
export async function linkedCluster(): Promise<LinkedCluster> {
  const srv = await PgServer.create({ checksums: true });
  const tablespaceDir = join(srv.root, "ts");
  const walDir = join(srv.root, "wal");
  mkdirSync(tablespaceDir);
  const { uid, gid } = pgIds();
  chownSync(tablespaceDir, uid, gid);
  srv.sql(`create database ${DB}`);
  srv.sql(
    `create tablespace ts location '${tablespaceDir}';
     create table docs (id int, tag text, url text, body text, constraint docs_pkey primary key (id) using index tablespace ts) tablespace ts;
     alter table docs alter column body set storage external;
     insert into docs select g, 'tag-' || (g % 20), 'https://example.com/archive/2026/' || lpad(g::text, 8, '0'), repeat(md5(g::text), 100 + g % 50) from generate_series(1, 300) g;
     create index docs_tag on docs (tag) tablespace ts;
     create index docs_url on docs (url) tablespace ts;
     create table notes (id int primary key, body text);
     alter table notes alter column body set storage external;
     insert into notes select g, repeat(md5((g * 7)::text), 80 + g) from generate_series(1, 60) g;
     vacuum; checkpoint;`,
    DB,
  );
  srv.stop();
  // what initdb -X makes: pg_wal a link to a directory elsewhere
  renameSync(join(srv.pgdata, "pg_wal"), walDir);
  symlinkSync(walDir, join(srv.pgdata, "pg_wal"));
  execFileSync("chown", ["-h", "postgres:postgres", join(srv.pgdata, "pg_wal")]);
  return { srv, tablespaceDir, walDir };
}

/** md5 of every file under the directories (links to directories followed), by path. */
export function fileDigests(...dirs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (lstatSync(p).isSymbolicLink()) out.set(`${p} ->`, "link");
      if (st.isDirectory()) walk(p);
      else out.set(p, `${createHash("md5").update(readFileSync(p)).digest("hex")} ${st.uid}:${st.gid} ${(st.mode & 0o777).toString(8)}`);
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** A private copy of a stopped server's root; returns its data directory; the root is added to `roots` (removed by the caller). */
export function dataCopy(root: string, tag: string, roots: string[]): string {
  const copied = copyRoot(root, tag);
  roots.push(copied);
  return join(copied, "data");
}

/** fileDigests of one data directory, by path relative to it. */
export function dataDigests(pgdata: string): Map<string, string> {
  return new Map([...fileDigests(pgdata)].map(([k, v]) => [k.slice(pgdata.length), v]));
}

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `pgdisk migrate ARGS` as a child process (through cli/migrate.ts), with extra environment, optionally as another OS user. */
export function migrateCli(args: string[], env: Record<string, string> = {}, user?: string): CliResult {
  const argv = [process.execPath, "--import", "tsx", join(ROOT, "test", "toast", "migrate-cli.ts"), ...args];
  const [cmd, ...rest] = user ? ["runuser", "-u", user, "--", ...argv] : argv;
  const r = spawnSync(cmd!, rest, { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Every path under dir (links not followed) with its owner and mode, for the ownership checks. */
export function ownersUnder(dir: string): { path: string; uid: number; gid: number; mode: number; kind: "dir" | "file" | "link" }[] {
  const out: { path: string; uid: number; gid: number; mode: number; kind: "dir" | "file" | "link" }[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      const kind = st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
      out.push({ path: p, uid: st.uid, gid: st.gid, mode: st.mode & 0o777, kind });
      if (kind === "dir") walk(p);
    }
  };
  walk(dir);
  return out;
}

export function removeDirs(...dirs: (string | undefined)[]): void {
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true });
}

export { pgIds };

/** A stock server refuses to start on the cluster (fenced by a journal), naming pgdisk's PG_VERSION fence; pgdisk's stale lock removed first, as an admin would. */
export function assertServerRefuses(pgdata: string, what = "a half-converted cluster"): void {
  rmSync(join(pgdata, "postmaster.pid"), { force: true });
  const root = join(pgdata, "..");
  const s = PgServer.attach(root, { asIs: true });
  const log = join(root, "start.log");
  const start = s.toolResult("pg_ctl", ["-D", pgdata, "-o", `-p ${s.port} -k ${s.socketDir}`, "-l", log, "-w", "-t", "30", "start"]);
  if (start.status === 0) s.toolResult("pg_ctl", ["-D", pgdata, "-m", "immediate", "-w", "stop"]);
  assert.notEqual(start.status, 0, `the server must not start on ${what}`);
  // PG_VERSION is fenced whenever pg_control has a pgdisk name, and the server reads it first
  assert.match((existsSync(log) ? readFileSync(log, "utf8") : "") + start.stderr, /version 0-pgdisk-fenced:\d+:pgdisk-migrate--toast=plain--btree=plain/);
}

/** PostgreSQL starts on the stopped cluster at root (owners and modes as they are), returns `rows` of db, and pg_amcheck --heapallindexed --parent-check finds nothing. */
export function assertServerAgrees(root: string, rows: ReturnType<typeof rowDigests>, db = DB): void {
  const s = PgServer.attach(root, { asIs: true });
  s.start();
  try {
    assert.deepEqual(rowDigests(s, db), rows);
    const am = s.toolResult("pg_amcheck", [...s.connArgs(db), "--install-missing", "--heapallindexed", "--parent-check"]);
    assert.equal(am.status, 0, am.stdout + am.stderr);
  } finally {
    s.stop();
  }
}
