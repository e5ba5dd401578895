// BUILTIN_TYPES must agree with a PostgreSQL 15 catalog for every built-in (OID < 10000) base,
// pseudo, range and multirange type.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { BUILTIN_TYPES, builtinTypeLookup } from "../../formats/datum/index.js";

let srv: PgServer;
before(async () => {
  srv = await PgServer.create();
});
after(() => srv?.destroy());

test("BUILTIN_TYPES matches pg_type", () => {
  const rows = srv.rows("SELECT oid, typname, typlen, typbyval, typalign, typelem, typcategory, typtype FROM pg_type WHERE oid < 10000 AND typtype IN ('b','p','r','m') ORDER BY oid");
  assert.ok(rows.length > 150);
  for (const [oid, name, len, byval, align, elem, category, typtype] of rows as string[][]) {
    assert.deepEqual(builtinTypeLookup(Number(oid)), { oid: Number(oid), name, len: Number(len), byval: byval === "t", align, elem: Number(elem), category, typtype }, `type ${oid} ${name}`);
  }
  assert.equal(BUILTIN_TYPES.size, rows.length);
});

test("the types the brief names are all present", () => {
  for (const name of ["bool", "int2", "int4", "int8", "oid", "xid", "cid", "float4", "float8", "numeric", "text", "varchar", "bpchar", "name", "char", "bytea", "date", "time",
    "timetz", "timestamp", "timestamptz", "interval", "uuid", "json", "jsonb", "inet", "cidr", "tid", "pg_lsn", "regproc", "regclass", "regtype", "oidvector", "int2vector",
    "anyarray", "_text", "_int4", "_jsonb", "_numeric"]) {
    assert.ok([...BUILTIN_TYPES.values()].some((t) => t.name === name), name);
  }
});
