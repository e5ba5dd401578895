// Types without a decoder (enums, composites and domains when the lookup has no catalog,
// ranges whose subtype is unknown, extension types) print as
// `<typname>:\x<hex of the datum>`, and `#<oid>:\x...` when the lookup does not know the OID.
// The bytes are checked against the raw attribute bytes the server stores.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, varlenaPayload } from "./harness.js";
import { datumToText, builtinTypeLookup, type TypeInfo, type TypeLookup } from "../../formats/datum/index.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
  h.srv.sql(`CREATE TYPE mood AS ENUM ('sad', 'happy');
             CREATE TYPE pair AS (a int4, b text);
             CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
             CREATE TYPE trange AS RANGE (subtype = text);
             CREATE TABLE u (m mood, p pair, d posint, tr trange, ms mood[]);
             INSERT INTO u VALUES ('happy', ROW(1, 'x'), 7, '[a,b)', '{sad,NULL,happy}');`);
});
after(() => h?.stop());

/** pg_type of every type the server knows, as a TypeLookup. */
function catalogLookup(): TypeLookup {
  const m = new Map<number, TypeInfo>();
  for (const [oid, name, len, byval, align, elem, category, typtype] of h.srv.rows("SELECT oid, typname, typlen, typbyval, typalign, typelem, typcategory, typtype FROM pg_type") as string[][]) {
    m.set(Number(oid), { oid: Number(oid), name: name!, len: Number(len), byval: byval === "t", align: align as TypeInfo["align"], elem: Number(elem), category, typtype });
  }
  return (oid) => m.get(oid);
}

function rawAttrs(): { typid: number; name: string; len: number; bytes: Uint8Array }[] {
  const [[attrs]] = h.srv.rows("SELECT array_to_string(array_agg(encode(x, 'hex')), ',') FROM heap_page_item_attrs(get_raw_page('u', 0), 'u'::regclass) h, unnest(h.t_attrs) x") as string[][];
  const cols = h.srv.rows("SELECT a.atttypid, t.typname, t.typlen FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE attrelid = 'u'::regclass AND attnum > 0 ORDER BY attnum");
  return attrs!.split(",").map((hx, i) => {
    const b = new Uint8Array(Buffer.from(hx, "hex"));
    const len = Number(cols[i]![2]);
    return { typid: Number(cols[i]![0]), name: cols[i]![1]!, len, bytes: len === -1 ? varlenaPayload(b) : b };
  });
}

test("undecodable types print <typname>:\\x<hex>", () => {
  const lookup = catalogLookup();
  const attrs = rawAttrs();
  for (const a of attrs.slice(0, 4)) {
    const hex = Buffer.from(a.bytes).toString("hex");
    assert.equal(datumToText(a.bytes, a.typid, -1, lookup), `${a.name}:\\x${hex}`);
    // unknown to the lookup altogether
    assert.equal(datumToText(a.bytes, a.typid, -1, builtinTypeLookup), a.typid < 10000 ? `${a.name}:\\x${hex}` : `#${a.typid}:\\x${hex}`);
  }
  // the enum value is the pg_enum row's OID
  const [[enumOid]] = h.srv.rows("SELECT oid FROM pg_enum WHERE enumlabel = 'happy'") as string[][];
  assert.equal(new DataView(attrs[0]!.bytes.buffer, attrs[0]!.bytes.byteOffset).getUint32(0, true), Number(enumOid));
});

test("arrays of undecodable element types quote each element's fallback text", () => {
  const lookup = catalogLookup();
  const ms = rawAttrs()[4]!;
  const oids = h.srv.rows("SELECT oid FROM pg_enum ORDER BY enumsortorder").map((r) => Number(r[0]));
  const el = (oid: number): string => `"mood:\\\\x${Buffer.from(new Uint32Array([oid]).buffer).toString("hex")}"`;
  assert.equal(datumToText(ms.bytes, ms.typid, -1, lookup), `{${el(oids[0]!)},NULL,${el(oids[1]!)}}`);
  // element type unknown to the lookup: the whole array falls back
  assert.match(datumToText(ms.bytes, ms.typid, -1, builtinTypeLookup), /^#\d+:\\x[0-9a-f]+$/);
});
