// Differential harness for formats/datum: store values in a real PostgreSQL 15 table, read each
// attribute's raw on-disk bytes with pageinspect, decode them with datumToText (and the column's
// writer, columnWriter, which must write the same text), and compare with
// the server's own output function text (format('%s', v), which calls the type's output
// function; psql's `col::text` would differ for bpchar, "char" and inet, whose casts to text are
// not the output function).
import { PgServer } from "../../samples/pg-server.js";
import { columnWriter, datumToText, builtinTypeLookup, type TypeLookup } from "../../formats/datum/index.js";
import { textOf } from "../../formats/datum/text-out.js";
import { mulberry32 } from "../../samples/prng.js";

export interface Mismatch {
  row: string;
  literal: string;
  expected: string | null;
  got: string;
  bytes: string;
}

export interface CheckResult {
  /** non-NULL values compared */
  compared: number;
  mismatches: Mismatch[];
  /** the decoded payload of every compared value and the on-disk header kind, for coverage assertions */
  payloads: { payload: Uint8Array; header: "1b" | "4b" | "none" }[];
}

export interface CheckOptions {
  /** SQL expression over column `v` giving the expected text (default: format('%s', v)) */
  expected?: string;
  lookup?: TypeLookup;
}

let seq = 0;

/** Strip the varlena header from raw attribute bytes; refuses compressed or external values. */
export function varlenaPayload(b: Uint8Array): Uint8Array {
  const b0 = b[0]!;
  if (b0 === 1) throw new Error("value was TOASTed (external); keep test values small");
  if ((b0 & 1) === 1) {
    if (b0 >>> 1 !== b.length) throw new Error(`1-byte varlena header says ${b0 >>> 1} bytes, attribute has ${b.length}`);
    return b.subarray(1);
  }
  if ((b0 & 3) === 2) throw new Error("value was compressed inline; keep test values small");
  const len = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true) >>> 2;
  if (len !== b.length) throw new Error(`4-byte varlena header says ${len} bytes, attribute has ${b.length}`);
  return b.subarray(4);
}

const unhex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, "hex"));

export class DatumHarness {
  private constructor(readonly srv: PgServer) {}

  static async start(): Promise<DatumHarness> {
    const srv = await PgServer.create();
    srv.sql("CREATE EXTENSION pageinspect;");
    return new DatumHarness(srv);
  }

  stop(): void {
    this.srv.destroy();
  }

  /**
   * Create a one-column table of `type`, insert `literals` (SQL expressions, one row each), and
   * compare the decoded on-disk bytes of every non-NULL value with the server's text.
   */
  check(type: string, literals: string[], opts: CheckOptions = {}): CheckResult {
    const t = `dt_${++seq}`;
    const expected = opts.expected ?? "format('%s', v)";
    const lookup = opts.lookup ?? builtinTypeLookup;
    const values = literals.map((l, i) => `(${i}, (${l})::${type})`);
    const inserts: string[] = [];
    for (let i = 0; i < values.length; i += 500) inserts.push(`INSERT INTO ${t} VALUES ${values.slice(i, i + 500).join(",")};`);
    this.srv.sql(`CREATE TABLE ${t} (i int4, v ${type});\n${inserts.join("\n")}`);
    const [[typid, typmod, typlen]] = this.srv.rows(`SELECT a.atttypid, a.atttypmod, t.typlen FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = '${t}'::regclass AND a.attname = 'v'`) as string[][];
    const exp = new Map<string, string | null>();
    for (const [i, e] of this.srv.rows(`SELECT i, CASE WHEN v IS NULL THEN NULL ELSE encode(convert_to(${expected}, 'UTF8'), 'hex') END FROM ${t}`)) {
      exp.set(i!, e === null ? null : Buffer.from(e ?? "", "hex").toString("utf8"));
    }
    const raw = this.srv.rows(
      `SELECT encode(h.t_attrs[1], 'hex'), encode(h.t_attrs[2], 'hex'), b.blk || ',' || h.lp
         FROM generate_series(0, pg_relation_size('${t}') / 8192 - 1) b(blk),
              LATERAL heap_page_item_attrs(get_raw_page('${t}', b.blk::int), '${t}'::regclass) h
        WHERE h.t_attrs IS NOT NULL`,
    );
    if (raw.length !== literals.length) throw new Error(`${t}: read ${raw.length} tuples from the pages, inserted ${literals.length}`);
    const res: CheckResult = { compared: 0, mismatches: [], payloads: [] };
    for (const [iHex, vHex, row] of raw) {
      const i = String(new DataView(unhex(iHex!).buffer).getInt32(0, true));
      const want = exp.get(i);
      if (vHex === null) {
        if (want !== null) res.mismatches.push({ row: row!, literal: literals[Number(i)]!, expected: want ?? null, got: "<NULL on disk>", bytes: "" });
        continue;
      }
      const b = unhex(vHex!);
      const payload = Number(typlen) === -1 ? varlenaPayload(b) : Number(typlen) === -2 ? b.subarray(0, b.length - 1) : b;
      let got: string;
      try {
        got = datumToText(payload, Number(typid), Number(typmod), lookup);
      } catch (e) {
        got = `<threw ${(e as Error).message}>`;
      }
      // the column's writer (COPY, the text dump) writes the same text
      let written: string;
      try {
        written = textOf(columnWriter(Number(typid), Number(typmod), lookup), payload);
      } catch (e) {
        written = `<threw ${(e as Error).message}>`;
      }
      if (written !== got) got = `${got} (writer: ${written})`;
      res.compared++;
      res.payloads.push({ payload, header: Number(typlen) !== -1 ? "none" : (b[0]! & 1) === 1 ? "1b" : "4b" });
      if (got !== want) res.mismatches.push({ row: row!, literal: literals[Number(i)]!, expected: want ?? null, got, bytes: vHex! });
    }
    return res;
  }
}

/** A seeded PRNG so that "random" test values are the same on every run (samples/prng.ts). */
export const seededRandom = mulberry32;

/** A readable assertion message listing the first mismatches. */
export function describe(type: string, r: CheckResult): string {
  return `${type}: ${r.mismatches.length} of ${r.compared} differ:\n` + r.mismatches.slice(0, 15).map((m) => `  ${m.literal}\n    server ${JSON.stringify(m.expected)}\n    ours   ${JSON.stringify(m.got)}\n    bytes  ${m.bytes}`).join("\n");
}
