// bool, integers, OID-like and reg* types against a real server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

function rand(n: number, f: () => string): string[] {
  return Array.from({ length: n }, f);
}
const random = seededRandom(20);
const randInt = (bits: number): bigint => {
  let x = 0n;
  for (let i = 0; i < bits; i += 16) x = (x << 16n) | BigInt(Math.floor(random() * 65536));
  return BigInt.asIntN(bits, x);
};

const cases: [string, string[]][] = [
  ["bool", ["true", "false", "NULL"]],
  ["int2", ["0", "1", "-1", "32767", "-32768", "NULL", ...rand(200, () => String(randInt(16)))]],
  ["int4", ["0", "1", "-1", "2147483647", "-2147483648", "NULL", ...rand(300, () => String(randInt(32)))]],
  ["int8", ["0", "-1", "9223372036854775807", "-9223372036854775808", "4294967296", ...rand(300, () => String(randInt(64)))]],
  ["oid", ["0", "1", "4294967295", "2147483648", ...rand(100, () => String(BigInt.asUintN(32, randInt(32))))]],
  ["xid", ["'0'", "'3'", "'4294967295'", ...rand(50, () => `'${BigInt.asUintN(32, randInt(32))}'`)]],
  ["cid", ["'0'", "'4294967295'", ...rand(50, () => `'${BigInt.asUintN(32, randInt(32))}'`)]],
  ["xid8", ["'0'", "'18446744073709551615'", ...rand(50, () => `'${BigInt.asUintN(64, randInt(64))}'`)]],
];

for (const [type, values] of cases) {
  test(`${type} matches the server`, () => {
    const r = h.check(type, values);
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.filter((v) => v !== "NULL").length);
  });
}

// reg* types print names on the server; through a type lookup without a catalog (names are in
// test/inspect/dump-type-output.test.ts) they print the OID ("-" for 0, but "0" for regoper
// and regoperator, as the server does), so compare with v::oid.
const regs: [string, string[]][] = [
  ["regproc", ["'now'", "'int4in'", "'-'"]],
  ["regprocedure", ["'abs(int4)'", "'-'"]],
  ["regoper", ["'||/'", "'0'"]],
  ["regoperator", ["'+(int4,int4)'", "'0'"]],
  ["regclass", ["'pg_class'", "'pg_type'", "'-'", "'12345'"]],
  ["regtype", ["'int4'", "'text[]'", "'-'"]],
  ["regconfig", ["'english'", "'-'"]],
  ["regdictionary", ["'simple'", "'-'"]],
  ["regnamespace", ["'pg_catalog'", "'-'"]],
  ["regrole", ["'postgres'", "'-'"]],
  ["regcollation", ["'\"C\"'", "'-'"]],
];
for (const [type, values] of regs) {
  test(`${type} prints the OID (or - for 0)`, () => {
    const zero = type === "regoper" || type === "regoperator" ? "0" : "-";
    const r = h.check(type, values, { expected: `CASE WHEN v::oid = 0 THEN '${zero}' ELSE v::oid::text END` });
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.length);
    // and the server's own text for InvalidOid is "-" as well
    const z = h.check(type, ["'0'"]);
    assert.equal(z.mismatches.length, 0, describe(type, z));
  });
}
