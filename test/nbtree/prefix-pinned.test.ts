// The bytes of BTP_PREFIX pages, pinned: leaf tuples of a few key shapes (made here, no server:
// text columns in byte order, repeats that deduplicate into posting lists, NULLs that need the
// coded null bitmap) built by buildBtree as a prefix rebuild and recoded 1:1 from the plain build,
// with every policy. The digest of every page written (block order) must not change when the
// encoder or the page writer is made faster: the same policy writes the same bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { prng } from "./helpers.js";
import { buildBtree } from "../../formats/nbtree/build.js";
import { readPrefixLeafPage, recodeLeafPage } from "../../formats/nbtree/prefix-page.js";
import { PREFIX_POLICY_NAMES, prefixPolicyLead, type PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";
import { BTP_LEAF, BTP_PREFIX, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { INDEX_NULL_MASK, INDEX_VAR_MASK } from "../../formats/nbtree/index-tuple.js";
import { maxAlign, pageView } from "../../formats/page/page.js";
import type { AttrDesc } from "../../formats/heap/descriptor.js";
import type { KeySpec } from "../../formats/nbtree/pivot.js";

const TEXT_OID = 25;
const textAttr = (attnum: number): AttrDesc => ({ attnum, name: `c${attnum}`, typid: TEXT_OID, typmod: -1, len: -1, byval: false, align: "i", storage: "x", dropped: false });
const specOf = (natts: number): KeySpec => ({ desc: { attrs: Array.from({ length: natts }, (_, i) => textAttr(i + 1)) }, nkeyatts: natts, eq: Array(natts).fill("image") });
const enc = new TextEncoder();

/** An index tuple of short-varlena text columns (null: a NULL column) at heap TID (blk, off). */
function textTuple(cols: (string | null)[], blk: number, off: number): Uint8Array {
  const nulls = cols.some((c) => c === null);
  const parts = cols.map((c) => (c === null ? new Uint8Array(0) : enc.encode(c)));
  const dataOff = nulls ? 16 : 8;
  const size = maxAlign(dataOff + parts.reduce((s, p) => s + (p.length ? p.length + 1 : 0), 0));
  const t = new Uint8Array(size);
  const dv = new DataView(t.buffer);
  dv.setUint16(0, blk >>> 16, true);
  dv.setUint16(2, blk & 0xffff, true);
  dv.setUint16(4, off, true);
  dv.setUint16(6, size | INDEX_VAR_MASK | (nulls ? INDEX_NULL_MASK : 0), true);
  let pos = dataOff;
  cols.forEach((c, i) => {
    if (c === null) return; // the bitmap's bit stays clear: attribute i is NULL
    if (nulls) t[8] |= 1 << i;
    const p = parts[i]!;
    t[pos++] = ((p.length + 1) << 1) | 1; // 1-byte varlena header
    t.set(p, pos);
    pos += p.length;
  });
  return t;
}

const cmpBytes = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b);

/** Rows of a shape, sorted as the index orders them (byte order of each column, NULLs last; then heap TID). */
function shapeTuples(natts: number, row: (r: () => number, i: number) => (string | null)[], n: number, seed: number): Uint8Array[] {
  const r = prng(seed);
  const rows = Array.from({ length: n }, (_, i) => ({ cols: row(r, i), blk: Math.floor(i / 50), off: (i % 50) + 1 }));
  rows.sort((a, b) => {
    for (let c = 0; c < natts; c++) {
      const x = a.cols[c]!;
      const y = b.cols[c]!;
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const d = cmpBytes(enc.encode(x), enc.encode(y));
      if (d) return d;
    }
    return a.blk - b.blk || a.off - b.off;
  });
  return rows.map((x) => textTuple(x.cols, x.blk, x.off));
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const SHAPES: { name: string; natts: number; row: (r: () => number, i: number) => (string | null)[] }[] = [
  { name: "urls", natts: 1, row: (r, i) => [`https://${pick(r, ["www.example.org", "docs.example.com", "cdn.test.net", "a.b.c.example"])}/${pick(r, ["api", "static/img", "blog/2024"])}/${Math.floor(r() * 3000)}?id=${i % 7}`] },
  { name: "paths", natts: 1, row: (r) => [`/usr/share/${pick(r, ["doc", "man/man1", "locale/de/LC_MESSAGES", "zoneinfo/America"])}/${pick(r, ["lib", "python3-", "x"])}${Math.floor(r() * 800)}${pick(r, [".gz", "/copyright", ".mo", ""])}`] },
  { name: "four columns with NULLs", natts: 4, row: (r) => [`tenant_${Math.floor(r() * 40)}`, pick(r, ["eu-west", "us-east", "ap-south"]), r() < 0.1 ? null : pick(r, ["active", "closed", "pending"]), `name ${Math.floor(r() * 500)}`] },
];

const digest = (pages: Map<number, Uint8Array>): string => {
  const h = createHash("sha256");
  for (let b = 0; b < pages.size; b++) h.update(pages.get(b)!);
  return h.digest("hex").slice(0, 16);
};

function run(shape: (typeof SHAPES)[number], policy: PrefixPolicyName | null): { rebuild: string; recode: string; coded: number } {
  const tuples = shapeTuples(shape.natts, shape.row, 6000, shape.name.length);
  const opts = { spec: specOf(shape.natts), deduplicate: true, allequalimage: true };
  const pages = new Map<number, Uint8Array>();
  const res = buildBtree(tuples, { ...opts, prefix: policy ? { policy: prefixPolicyLead(policy) } : null }, (b, p) => {
    if (b !== 0 && readBTOpaque(pageView(p)).btpo_flags & BTP_PREFIX) assert.deepEqual(readPrefixLeafPage(p).findings, [], `${shape.name} ${policy}: rebuilt block ${b} passes §2.5`);
    pages.set(b, p.slice());
  });
  if (process.env.PGDISK_PRINT_PINNED) process.stdout.write(`${shape.name} ${policy}: ${res.leafCoded} coded, ${res.leafPlain} plain leaves, ${res.postingTuples} posting tuples\n`);
  if (!policy) return { rebuild: digest(pages), recode: "", coded: res.leafCoded };
  const plain = new Map<number, Uint8Array>();
  buildBtree(tuples, { ...opts, prefix: null }, (b, p) => void plain.set(b, p.slice()));
  const recoded = new Map<number, Uint8Array>();
  let coded = res.leafCoded;
  for (const [b, p] of plain) {
    const fl = b === 0 ? 0 : readBTOpaque(pageView(p)).btpo_flags;
    const rc: { page: Uint8Array; coded: boolean } = fl & BTP_LEAF ? recodeLeafPage(p, prefixPolicyLead(policy)) : { page: p, coded: false };
    if (rc.coded) {
      assert.deepEqual(readPrefixLeafPage(rc.page).findings, [], `${shape.name} ${policy}: recoded block ${b} passes §2.5`);
      coded++;
    }
    recoded.set(b, rc.page);
  }
  return { rebuild: digest(pages), recode: digest(recoded), coded };
}

// digests of the pages as the encoder wrote them when this test was added (commit "test: pin ...")
const PINNED: Record<string, Record<string, { rebuild: string; recode: string }>> = {
  urls: { lead: { rebuild: "0627e707712af96c", recode: "31e4c94265b2ffe0" }, v9: { rebuild: "24b236c9fe85fb7e", recode: "2db453edba3c7e74" }, greedy: { rebuild: "440c9ce656d3c74c", recode: "c7d875f9d891262d" } },
  paths: { lead: { rebuild: "c83bef3fa96edb73", recode: "2a5c01a5541bb6ae" }, v9: { rebuild: "d3c14ea655feada9", recode: "6a0d736b07fb735a" }, greedy: { rebuild: "e0a4beb3a1ff6708", recode: "815e1248540d8b8d" } },
  "four columns with NULLs": { lead: { rebuild: "d3df8547ca2574ce", recode: "059257b51cdb3226" }, v9: { rebuild: "fa90c536ad5976b3", recode: "c8e2a7eb69d20cda" }, greedy: { rebuild: "fa90c536ad5976b3", recode: "c8e2a7eb69d20cda" } },
};

for (const shape of SHAPES) {
  test(`coded pages of ${shape.name} keep their bytes, every policy`, () => {
    const got: Record<string, { rebuild: string; recode: string }> = {};
    for (const policy of PREFIX_POLICY_NAMES) {
      const r = run(shape, policy);
      assert.ok(r.coded > 0, `${shape.name} ${policy}: some pages are coded`);
      got[policy] = { rebuild: r.rebuild, recode: r.recode };
    }
    if (process.env.PGDISK_PRINT_PINNED) process.stdout.write(`PINNED ${JSON.stringify(shape.name)}: ${JSON.stringify(got)},\n`);
    assert.deepEqual(got, PINNED[shape.name]);
  });
}
