// The heap corruptions of pg_amcheck's own TAP test (src/bin/pg_amcheck/t/004_verify_heapam.pl),
// rebuilt here: the same table and the same sequence of inserts, HOT updates, aborted and
// prepared transactions on one page, then one corruption per tuple. The oracle is the installed
// pg_amcheck on that very cluster: every problem it reports, pgdisk reports at the same block,
// offset and attribute with the same message. PostgreSQL 15's amcheck has no update-chain
// checks; for those tuples pgdisk must give what PostgreSQL 16's amcheck gives (the TAP test's
// expected messages).
import { before, after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { PgServer, PG_BIN } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { HTH, HEAP_HASNULL, HEAP_HOT_UPDATED, HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID, SizeofHeapTupleHeader } from "../../formats/heap/tuple-header.js";
import { ItemPointerData } from "../../formats/page/item-pointer.js";
import { VarattExternal } from "../../formats/varlena/toast-pointer.js";
import { makeLp, LP_REDIRECT, SizeOfItemIdData } from "../../formats/page/item-id.js";
import { SizeOfPageHeaderData } from "../../formats/page/page-header.js";
import type { Finding } from "../../formats/schema/errors.js";
import { asAmcheck } from "./tap-oracle.js";

let srv: PgServer;
/** pg_amcheck's reports: "block B, offset O[, attribute A]: message" */
let amcheck: string[] = [];
let findings: Finding[] = [];

/** The tuple's columns: a bigint, b text 'abcdefg' (1-byte header), c an external TOAST pointer. */
const A_OFF = 24;
const B_OFF = A_OFF + 8;
const C_OFF = B_OFF + 8;
const VALUEID = C_OFF + 2 + VarattExternal.offsets.va_valueid;
const POSID = HTH.t_ctid + ItemPointerData.offsets.ip_posid;

before(async () => {
  srv = await PgServer.create({ conf: ["max_prepared_transactions = 10"] });
  srv.sql("CREATE EXTENSION amcheck; CREATE EXTENSION pageinspect; VACUUM FREEZE;");
  srv.sql(`CREATE TABLE public.test (a bigint, b text, c text);
    ALTER TABLE public.test SET (autovacuum_enabled = false);
    ALTER TABLE public.test ALTER COLUMN c SET STORAGE EXTERNAL;
    CREATE INDEX test_idx ON public.test (a, b);`);
  // a frozen table before test, so that 0 < datfrozenxid < test's relfrozenxid
  srv.sql(`CREATE TABLE public.junk AS SELECT 'junk'::text AS junk_column; VACUUM FREEZE public.junk;`);
  const row = (c: string) => `(x'DEADF9F9DEADF9F9'::bigint, 'abcdefg', ${c})`;
  srv.sql(`INSERT INTO public.test SELECT x'DEADF9F9DEADF9F9'::bigint, 'abcdefg', repeat('w', 10000) FROM generate_series(1, 16); VACUUM FREEZE public.test;`);
  srv.sql(`INSERT INTO public.test VALUES ${row("'1'")}, ${row("'2'")}; UPDATE public.test SET c = 'a' WHERE c = '1'; UPDATE public.test SET c = 'a' WHERE c = '2';`);
  srv.sql(`INSERT INTO public.test SELECT x'DEADF9F9DEADF9F9'::bigint, 'abcdefg', g::text FROM generate_series(3, 6) g; UPDATE public.test SET c = 'a' WHERE c = '3'; UPDATE public.test SET c = 'a' WHERE c = '4';`);
  srv.sql(`BEGIN; UPDATE public.test SET c = 'a' WHERE c = '5'; ABORT; VACUUM FREEZE public.test;`);
  srv.sql(`UPDATE public.test SET c = 'a' WHERE c = '6'; VACUUM FREEZE public.test;`);
  srv.sql(`INSERT INTO public.test SELECT x'DEADF9F9DEADF9F9'::bigint, 'abcdefg', g::text FROM generate_series(7, 15) g;`);
  for (const c of [7, 10, 11, 12, 13, 14, 15]) srv.sql(`UPDATE public.test SET c = 'a' WHERE c = '${c}';`);
  srv.sql(`BEGIN; UPDATE public.test SET c = 'a' WHERE c = '9'; ABORT;`);
  srv.sql(`BEGIN; PREPARE TRANSACTION 'in_progress_tx';`);
  const inProgressXid = Number(srv.rows("SELECT transaction FROM pg_prepared_xacts")[0][0]);
  const relfrozenxid = Number(srv.rows("SELECT relfrozenxid FROM pg_class WHERE relname = 'test'")[0][0]);
  const datfrozenxid = Number(srv.rows("SELECT datfrozenxid FROM pg_database WHERE datname = 'postgres'")[0][0]);
  assert.ok(datfrozenxid > 3 && datfrozenxid < relfrozenxid, `datfrozenxid ${datfrozenxid}, relfrozenxid ${relfrozenxid}`);
  const lpOff = srv.rows("SELECT CASE WHEN lp_flags = 2 THEN -1 ELSE lp_off END FROM heap_page_items(get_raw_page('test', 'main', 0))").map((r) => Number(r[0]));
  assert.equal(lpOff.length, 44, "the page holds 44 line pointers, as the TAP test expects");
  const path = join(srv.pgdata, srv.rows("SELECT pg_relation_filepath('public.test')")[0][0]!);
  srv.stop();

  const file = new Uint8Array(readFileSync(path));
  const dv = new DataView(file.buffer);
  const u16 = (off: number, f: number): number => dv.getUint16(off + f, true);
  const set16 = (off: number, f: number, v: number): void => dv.setUint16(off + f, v & 0xffff, true);
  const set32 = (off: number, f: number, v: number): void => dv.setUint32(off + f, v >>> 0, true);
  const clear = (off: number, bits: number): void => set16(off, HTH.t_infomask, u16(off, HTH.t_infomask) & ~bits);
  const or = (off: number, f: number, bits: number): void => set16(off, f, u16(off, f) | bits);
  const tup = (offnum: number): number => lpOff[offnum - 1];
  const lpAt = (offnum: number): number => SizeOfPageHeaderData + (offnum - 1) * SizeOfItemIdData;
  // ABI check: the layout the corruptions assume
  for (const n of [1, 16]) assert.equal(file[tup(n) + B_OFF], 0x11, "b has a 1-byte varlena header");
  let predXmax = 0;
  let predPosid = 0;
  let abortedXid = 0;
  for (let n = 1; n <= 44; n++) {
    const t = tup(n);
    switch (n) {
      case 1: set32(t, HTH.t_xmin, relfrozenxid - 1); clear(t, HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID); break;
      case 2: set32(t, HTH.t_xmin, 3); clear(t, HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID); break;
      case 3: set32(t, HTH.t_xmin, 4026531839); clear(t, HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID); break;
      case 4: set32(t, HTH.t_xmax, 4026531839); clear(t, HEAP_XMAX_INVALID); break;
      case 5: file[t + HTH.t_hoff] += 128; break;
      case 6: file[t + HTH.t_hoff] += 3; break;
      case 7: file[t + HTH.t_hoff] -= 8; break;
      case 8: file[t + HTH.t_hoff] -= 3; break;
      case 9: or(t, HTH.t_infomask2, HEAP_NATTS_MASK); break;
      case 10: or(t, HTH.t_infomask, HEAP_HASNULL); or(t, HTH.t_infomask2, HEAP_NATTS_MASK); file[t + SizeofHeapTupleHeader] = 0xaa; break;
      case 11: or(t, HTH.t_infomask, HEAP_HASNULL); or(t, HTH.t_infomask2, HEAP_NATTS_MASK & 0x40); file[t + SizeofHeapTupleHeader] = 0xaa; file[t + HTH.t_hoff] = 32; break;
      // b's 1-byte header and first bytes read as a 4-byte header of a huge plain value
      case 12: file.set([0xfc, 0xff, 0xff, 0xff], t + B_OFF); break;
      case 13: set32(t, VALUEID, 0xffffffff); break;
      case 14: or(t, HTH.t_infomask, HEAP_XMAX_COMMITTED | HEAP_XMAX_IS_MULTI); set32(t, HTH.t_xmax, 4); break;
      case 15: or(t, HTH.t_infomask, HEAP_XMAX_COMMITTED | HEAP_XMAX_IS_MULTI); set32(t, HTH.t_xmax, 4000000000); break;
      case 16: set32(t, HTH.t_xmin, 123456); clear(t, HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID); break;
      case 18: dv.setUint32(lpAt(18), makeLp(17, LP_REDIRECT, 0), true); break;
      case 19: set16(t, HTH.t_infomask2, u16(t, HTH.t_infomask2) & ~HEAP_ONLY_TUPLE); break;
      case 22: dv.setUint32(lpAt(22), makeLp(25, LP_REDIRECT, 0), true); break;
      case 28: set16(t, HTH.t_infomask2, u16(t, HTH.t_infomask2) & ~HEAP_HOT_UPDATED); predXmax = dv.getUint32(t + HTH.t_xmax, true); predPosid = u16(t, POSID); break;
      case 29: set32(t, HTH.t_xmax, predXmax); set16(t, POSID, predPosid); break;
      case 30: abortedXid = dv.getUint32(t + HTH.t_xmax, true); break;
      case 31: set32(t, HTH.t_xmin, abortedXid); clear(t, HEAP_XMIN_COMMITTED); break;
      case 32: or(t, HTH.t_infomask2, HEAP_ONLY_TUPLE); break;
      case 34: set32(t, HTH.t_xmax, 0); break;
      case 35: set32(t, HTH.t_xmin, inProgressXid); clear(t, HEAP_XMIN_COMMITTED); break;
      case 36: set32(t, HTH.t_xmin, abortedXid); set32(t, HTH.t_xmax, inProgressXid); clear(t, HEAP_XMIN_COMMITTED); break;
      case 40: set16(t, HTH.t_infomask2, u16(t, HTH.t_infomask2) & ~HEAP_ONLY_TUPLE); break;
      case 43: set32(t, HTH.t_xmin, inProgressXid); clear(t, HEAP_XMIN_COMMITTED); break;
    }
  }
  writeFileSync(path, file);

  srv.start();
  const r = spawnSync("runuser", ["-u", "postgres", "--", join(PG_BIN, "pg_amcheck"), "--no-dependent-indexes", "-h", srv.socketDir, "-p", String(srv.port), "-U", "postgres", "postgres"], { encoding: "utf8" });
  assert.equal(r.status, 2, `pg_amcheck finds corruption: ${r.stderr}`);
  // "heap table "postgres.public.test", block 0, offset 1:\n    xmin ... "
  amcheck = [...r.stdout.matchAll(/^heap table "postgres\.public\.test", (block \d+, offset \d+(?:, attribute \d+)?):\n\s+(.+)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
  // the prepared transaction stays in progress, as it does while the TAP test runs pg_amcheck
  srv.stop();
  const run = await runVerify({ pgdata: srv.pgdata, database: "postgres", relations: ["public.test"] }, { jobs: 1 });
  findings = run.reports.flatMap((x) => x.findings);
});
after(() => srv?.stop());


test("TAP 004: every problem pg_amcheck reports, pgdisk reports with its location and words", () => {
  assert.ok(amcheck.length >= 16, `pg_amcheck reported ${amcheck.length} problems:\n${amcheck.join("\n")}`);
  const ours = new Set(findings.map(asAmcheck));
  const missed = amcheck.filter((a) => !ours.has(a));
  assert.deepEqual(missed, [], `pgdisk reported:\n${[...ours].join("\n")}`);
});

test("TAP 004: the update-chain cases PostgreSQL 16's amcheck reports, pgdisk reports", () => {
  const expected: [number, RegExp][] = [
    [17, /^redirected line pointer points to a non-heap-only tuple at offset \d+$/],
    [18, /^redirected line pointer points to another redirected line pointer at offset \d+$/],
    [22, /^redirect line pointer points to offset \d+, but offset \d+ also points there$/],
    [28, /^non-heap-only update produced a heap-only tuple at offset \d+$/],
    [29, /^tuple points to new version at offset \d+, but offset \d+ also points there$/],
    [31, /^tuple with aborted xmin \d+ was updated to produce a tuple at offset \d+ with committed xmin \d+$/],
    [32, /^tuple is root of chain but is marked as heap-only tuple$/],
    [32, /^tuple is heap only, but not the result of an update$/],
    [33, /^heap-only update produced a non-heap only tuple at offset \d+$/],
    [34, /^tuple has been HOT updated, but xmax is 0$/],
    [35, /^tuple with in-progress xmin \d+ was updated to produce a tuple at offset \d+ with committed xmin \d+$/],
    [36, /^tuple with aborted xmin \d+ was updated to produce a tuple at offset \d+ with in-progress xmin \d+$/],
  ];
  const missing = expected.filter(([off, re]) => !findings.some((f) => f.location.block === 0 && f.location.item === off && re.test(f.message)));
  assert.deepEqual(missing.map(([o, re]) => `offset ${o}: ${re.source}`), [], `pgdisk reported:\n${findings.map(asAmcheck).join("\n")}`);
});
