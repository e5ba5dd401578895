// A psql session kept open (amcheck's TAP tests' background_psql): statements run in order; run()
// waits for the statement's own marker, send() does not wait (a statement that blocks, such as
// CREATE INDEX CONCURRENTLY waiting for a transaction), and close() waits until psql has run
// everything sent and exited.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { PG_BIN, type PgServer } from "../../samples/pg-server.js";

/** Only a server that stopped answering reaches this. */
const CEILING_MS = 120_000;

export class PsqlSession {
  private readonly p: ChildProcessWithoutNullStreams;
  private buf = "";
  private n = 0;
  private readonly exited: Promise<number | null>;

  constructor(s: PgServer, db = "postgres") {
    const args = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", s.socketDir, "-p", String(s.port), "-U", "postgres", "-d", db];
    this.p = process.getuid?.() === 0 ? spawn("runuser", ["-u", "postgres", "--", join(PG_BIN, "psql"), ...args]) : spawn(join(PG_BIN, "psql"), args);
    this.p.stdout.on("data", (b) => (this.buf += b.toString()));
    this.p.stderr.on("data", (b) => (this.buf += b.toString()));
    this.exited = new Promise((resolve) => this.p.on("exit", (code) => resolve(code)));
  }

  /** Run statements and wait until they are done; their output. */
  run(sql: string): Promise<string> {
    const mark = `__done_${++this.n}__`;
    this.p.stdin.write(`${sql}\n\\echo ${mark}\n`);
    return new Promise((resolve, reject) => {
      const t0 = Date.now();
      const poll = (): void => {
        const i = this.buf.indexOf(mark);
        if (i >= 0) {
          const out = this.buf.slice(0, i);
          this.buf = this.buf.slice(i + mark.length);
          resolve(out);
        } else if (Date.now() - t0 > CEILING_MS) reject(new Error(`no answer: ${sql}\n${this.buf}`));
        else setTimeout(poll, 20);
      };
      poll();
    });
  }

  /** Send statements without waiting for them. */
  send(sql: string): void {
    this.p.stdin.write(`${sql}\n`);
  }

  /** End the session after what was sent has run; psql's exit status (3: a statement failed). */
  close(): Promise<number | null> {
    this.p.stdin.end("\\q\n");
    return this.exited;
  }

  /** What the session printed that run() has not returned. */
  get output(): string {
    return this.buf;
  }
}
