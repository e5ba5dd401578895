// BTP_PREFIX (new-formats.md §2.2-2.6): items from real PostgreSQL 15 leaf pages and adversarial
// keys are grouped, coded and decoded back byte for byte; whole leaf pages are recoded and read
// back; every malformed case gives its code.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { mkTuple, prng, readRelation } from "./helpers.js";
import {
  BTPrefixCodedItemHeader,
  BTPrefixDirectoryHeader,
  BTPrefixGroupEntry,
  computeTM,
  decodeCodedItem,
  decodeDirectory,
  directoryLength,
  encodeCodedItem,
  encodeDirectory,
  firstDataKey,
  prefixDirectoryOffset,
  splitFitOk,
  tupleKey,
  btMaxItemSize,
  prefixUsable,
  type PrefixDirectory,
  type PrefixGroup,
} from "../../formats/nbtree/prefix.js";
import { planGroups, type LeadPolicy } from "../../formats/nbtree/prefix-policy.js";
import { decodeToPlainPage, plainLeafItems, readPrefixLeafPage, recodeLeafPage, layoutLeafPage } from "../../formats/nbtree/prefix-page.js";
import { BTP_LEAF, BTP_PREFIX, BTP_DELETED, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { isPosting, INDEX_NULL_MASK } from "../../formats/nbtree/index-tuple.js";
import { btPageItems, btPageItemText } from "../../formats/nbtree/page-items.js";
import { LP_DEAD, LP_NORMAL } from "../../formats/page/item-id.js";
import { pageView, maxAlign } from "../../formats/page/page.js";
import { FormatError } from "../../formats/schema/errors.js";

let srv: PgServer;
/** leaf pages (live, non-meta) of every fixture index */
const LEAVES: { index: string; block: number; page: Uint8Array }[] = [];

before(async () => {
  srv = await PgServer.create();
  srv.sql(`
    create extension pageinspect;
    create table t (id int4, big int8, txt text, a int4, b text, d int4, s text, w text);
    insert into t select i, i::int8 * 1000003, 'https://example.com/customers/account/identifier/' || lpad((i * 37 % 20000)::text, 7, '0'),
      case when i % 7 = 0 then null else i % 1000 end, case when i % 5 = 0 then null else 'val-' || (i % 333) end, i % 50,
      substr(md5(i::text), 1, 1 + i % 30), case when i % 3 = 0 then null else repeat('z', i % 200) end
      from generate_series(1, 20000) i;
    create index p_int4 on t (id);
    create index p_int8 on t (big desc);
    create index p_text on t (txt);
    create index p_multi on t (a desc nulls last, b);
    create index p_incl on t (a) include (txt);
    create index p_dup on t (d);
    create index p_short on t (s);
    create index p_w on t (w);
    create table wide (b bytea);
    insert into wide select decode(string_agg(md5(i::text || '-' || j), ''), 'hex') from generate_series(1, 60) i, generate_series(1, 168) j group by i;
    create index p_wide on wide (b);
    delete from t where id % 4 = 0 and id < 6000;
    set enable_seqscan = off; set enable_bitmapscan = off; set enable_indexonlyscan = off;
    select count(*) from t where id < 6000;
    checkpoint;
  `);
  for (const index of ["p_int4", "p_int8", "p_text", "p_multi", "p_incl", "p_dup", "p_short", "p_w", "p_wide"]) {
    readRelation(srv, index).forEach((page, block) => {
      if (block === 0) return;
      const o = readBTOpaque(pageView(page));
      if (o.btpo_flags & BTP_LEAF && !(o.btpo_flags & BTP_DELETED)) LEAVES.push({ index, block, page });
    });
  }
});
after(() => srv?.destroy());

const code = (c: string) => (e: unknown) => e instanceof FormatError && e.code === c;

/** Group, code, and decode the tuples back; returns the coded byte total. */
function roundTrip(tuples: Uint8Array[], policy: LeadPolicy): { codedBytes: number; plainBytes: number; groups: number } {
  const plan = planGroups(tuples, policy);
  const { T, M } = computeTM(tuples.map((t) => (t[6]! | (t[7]! << 8)) & 0x1fff));
  const dir = plan.groups.length ? encodeDirectory(plan.groups, T, M) : null;
  const d = dir ? decodeDirectory(dir) : null;
  if (d) {
    assert.equal(d.T, T);
    assert.equal(d.M, M);
    assert.equal(d.groups.length, plan.groups.length);
    d.groups.forEach((g, i) => {
      assert.deepEqual(g.anchor, plan.groups[i]!.anchor);
      assert.equal(g.lead, plan.groups[i]!.lead);
    });
    assert.deepEqual(encodeDirectory(d.groups, d.T, d.M), dir);
  }
  let codedBytes = dir ? maxAlign(dir.length) + 4 : 0;
  let plainBytes = 0;
  tuples.forEach((t, i) => {
    plainBytes += maxAlign(t.length) + 4;
    const g = plan.groupOf[i]!;
    if (g < 0) {
      assert.ok(isPosting(t));
      codedBytes += maxAlign(t.length) + 4;
      return;
    }
    const c = encodeCodedItem(t, g, plan.groups[g]!.anchor, plan.groups[g]!.lead);
    assert.ok(c.length <= t.length + 8, "a coded item is at most 8 bytes longer");
    assert.equal(c.length % 8, 0);
    const h = BTPrefixCodedItemHeader.decode(c);
    assert.equal(h.t_info & 0x2000, 0);
    assert.equal(h.t_info & 0xc000, t[7]! << 8 & 0xc000);
    assert.deepEqual(BTPrefixCodedItemHeader.encode(h), c.subarray(0, 14));
    assert.deepEqual(decodeCodedItem(c, d!), t.subarray(0, (t[6]! | (t[7]! << 8)) & 0x1fff));
    codedBytes += c.length + 4;
  });
  return { codedBytes, plainBytes, groups: plan.groups.length };
}

test("real leaf items: group, code and decode back byte for byte under each lead policy", (t) => {
  let items = 0;
  const totals: Record<string, { coded: number; plain: number; groups: number }> = {};
  for (const { index, page } of LEAVES) {
    const dv = pageView(page);
    const first = prefixDirectoryOffset(readBTOpaque(dv));
    const data = plainLeafItems(page).slice(first - 1).map((x) => x.tuple);
    items += data.length;
    for (const policy of [0, 1, "auto", "optimal"] as const) {
      const r = roundTrip(data, policy);
      const k = `${index}/${policy}`;
      totals[k] ??= { coded: 0, plain: 0, groups: 0 };
      totals[k]!.coded += r.codedBytes;
      totals[k]!.plain += r.plainBytes;
      totals[k]!.groups += r.groups;
    }
  }
  t.diagnostic(`${items} items on ${LEAVES.length} leaf pages, x4 policies`);
  for (const [k, v] of Object.entries(totals)) t.diagnostic(`${k}: ${v.plain} -> ${v.coded} bytes (${((100 * v.coded) / v.plain).toFixed(1)}%), ${v.groups} groups`);
  assert.ok(items > 10000);
});

test("whole leaf pages: recode, read back, decode to plain; items, header and opaque preserved", (t) => {
  const byPolicy: Record<string, { pages: number; coded: number; C: number; T: number }> = {};
  for (const policy of [0, 1, "auto", "optimal"] as const) {
    const s = { pages: 0, coded: 0, C: 0, T: 0 };
    for (const { index, block, page } of LEAVES) {
      s.pages++;
      const r = recodeLeafPage(page, policy);
      if (!r.coded) {
        assert.deepEqual(r.page, page, `${index}/${block}: a page that stays plain is unchanged`);
        continue;
      }
      s.coded++;
      s.C += r.C;
      s.T += r.T;
      const o = readBTOpaque(pageView(r.page));
      assert.ok(o.btpo_flags & BTP_PREFIX);
      assert.equal(firstDataKey(o), prefixDirectoryOffset(o) + 1);
      const rp = readPrefixLeafPage(r.page, { btmVersion: 4 });
      assert.deepEqual(rp.findings, [], `${index}/${block}`);
      assert.ok(rp.savesEnough && 16 * rp.C <= 15 * rp.T);
      const H = rp.highKey ? maxAlign(rp.highKey.length) + 4 : 0;
      assert.ok(splitFitOk(rp.T, H, rp.M) && rp.T + H <= prefixUsable() && 2 * rp.M + 8 <= prefixUsable());
      const orig = plainLeafItems(page);
      const first = prefixDirectoryOffset(o);
      assert.deepEqual(rp.items.map((x) => [x.lpFlags, x.tuple]), orig.slice(first - 1).map((x) => [x.lpFlags, x.tuple]), `${index}/${block}`);
      const plain = decodeToPlainPage(r.page)!;
      assert.ok(plain);
      assert.deepEqual(plainLeafItems(plain), orig);
      // header except pd_upper, and the special space, are the original's
      assert.deepEqual(plain.subarray(0, 14), page.subarray(0, 14));
      assert.deepEqual(plain.subarray(16, 24), page.subarray(16, 24));
      assert.deepEqual(plain.subarray(8176), page.subarray(8176));
      // and pageinspect's view of the plain page is unchanged
      assert.deepEqual(btPageItems(plain)!.map(btPageItemText), btPageItems(page)!.map(btPageItemText));
    }
    byPolicy[String(policy)] = s;
  }
  for (const [p, s] of Object.entries(byPolicy)) t.diagnostic(`lead ${p}: ${s.coded}/${s.pages} pages coded; C/T on coded pages = ${(s.C / s.T).toFixed(3)}`);
  assert.ok(byPolicy.auto!.coded > 50);
});

test("adversarial keys: empty, all-equal, all-zero, no shared byte, maximal size, null bitmaps", () => {
  const rnd = prng(7);
  const bytesOf = (n: number, f: (i: number) => number) => Uint8Array.from({ length: n }, (_, i) => f(i));
  const maxK = btMaxItemSize() - 8; // 2696: the largest non-pivot tuple is 2704 bytes
  assert.equal(btMaxItemSize(), 2704);
  const sets: Record<string, Uint8Array[]> = {
    empty: [mkTuple(new Uint8Array(0)), mkTuple(new Uint8Array(0), { nullBits: 0 }), mkTuple(new Uint8Array(0))],
    allEqual: Array.from({ length: 50 }, (_, i) => mkTuple(bytesOf(40, (j) => 65 + (j % 7)), { tid: [i, 1] })),
    allZero: Array.from({ length: 10 }, () => mkTuple(new Uint8Array(24))),
    noShared: Array.from({ length: 200 }, (_, i) => mkTuple(bytesOf(1 + (i % 30), (j) => (j === 0 ? i : (i * 31 + j) & 0xff)))),
    maximal: Array.from({ length: 3 }, (_, i) => mkTuple(bytesOf(maxK, (j) => (j < 2000 ? 7 : Math.floor(rnd() * 256)) ^ (j === 2690 ? i : 0)))),
    maximalNulls: [mkTuple(bytesOf(maxK - 8, () => 9), { nullBits: 0b101 }), mkTuple(bytesOf(maxK - 8, (j) => (j > 100 ? 1 : 9)), { nullBits: 0b111 })],
    trailingZeros: Array.from({ length: 20 }, (_, i) => mkTuple(bytesOf(16, (j) => (j < 4 ? 1 + (i >> 2) : j < 6 ? i : 0)))),
    shortVarlena: Array.from({ length: 60 }, (_, i) => {
      const s = `prefix-${"x".repeat(i % 9)}-${i}`;
      return mkTuple(Uint8Array.from([((s.length + 1) << 1) | 1, ...Buffer.from(s)]), { var: true });
    }),
  };
  for (const [name, tuples] of Object.entries(sets)) {
    for (const policy of [0, 1, "auto", "optimal"] as const) {
      try {
        roundTrip(tuples, policy);
      } catch (e) {
        assert.fail(`${name}/${policy}: ${(e as Error).message}`);
      }
    }
  }
  // all-zero keys code to an empty residual; maximal keys stay within 8 bytes of their size
  const z = encodeCodedItem(sets.allZero![0]!, 0, new Uint8Array(0), 0);
  assert.equal(z.length, 16);
  const m = encodeCodedItem(sets.maximal![0]!, 0, new Uint8Array(0), 0);
  assert.ok(m.length <= 2712);
  // lead 1 shares past differing 1-byte varlena headers, lead 0 cannot
  const a = sets.shortVarlena![0]!;
  const b = sets.shortVarlena![1]!;
  assert.equal(BTPrefixCodedItemHeader.decode(encodeCodedItem(b, 0, tupleKey(a), 0)).nshared, 0);
  assert.ok(BTPrefixCodedItemHeader.decode(encodeCodedItem(b, 0, tupleKey(a), 1)).nshared >= 7);
});

test("property: random keys, anchors and leads round-trip (seeded)", () => {
  const rnd = prng(20240611);
  const int = (n: number) => Math.floor(rnd() * n);
  let n = 0;
  for (let round = 0; round < 4000; round++) {
    const alphabet = 1 + int(4);
    const klen = int(5) === 0 ? int(2697) : int(64);
    const nulls = int(3) === 0;
    const K = Uint8Array.from({ length: Math.min(klen, nulls ? 2688 : 2696) }, () => (int(4) === 0 ? 0 : int(alphabet)));
    const t = mkTuple(K, { nullBits: nulls ? int(256) : undefined, var: int(2) === 0, tid: [int(1 << 20), 1 + int(300)] });
    // anchor: a mutation of K (same prefix up to a random point), or random bytes
    const cut = int(K.length + 1);
    const anchor = int(4) === 0 ? Uint8Array.from({ length: int(80) }, () => int(alphabet)) : Uint8Array.from([...K.subarray(0, cut), ...Array.from({ length: int(10) }, () => int(alphabet))]);
    const lead = Math.min(anchor.length, int(3) === 0 ? int(Math.min(255, anchor.length + 1)) : int(2));
    const group = int(5);
    const groups: PrefixGroup[] = Array.from({ length: 5 }, (_, i) => (i === group ? { anchor, lead } : { anchor: new Uint8Array(int(3)), lead: 0 }));
    const dir = decodeDirectory(encodeDirectory(groups, 1000, 100));
    const c = encodeCodedItem(t, group, anchor, lead);
    assert.deepEqual(decodeCodedItem(c, dir), t, `round ${round}`);
    assert.ok(c.length <= t.length + 8);
    n++;
  }
  assert.equal(n, 4000);
});

test("malformed directories give their codes", () => {
  const groups: PrefixGroup[] = [{ anchor: Uint8Array.from([1, 2, 3, 4, 5]), lead: 1 }, { anchor: Uint8Array.from([9]), lead: 0 }];
  const good = encodeDirectory(groups, 500, 40);
  assert.equal(good.length, directoryLength(groups));
  assert.equal(good.length, maxAlign(20 + 8 + 6));
  const H = BTPrefixDirectoryHeader.offsets;
  const mut = (f: (b: Uint8Array, dv: DataView) => void, len = good.length) => {
    const b = new Uint8Array(len);
    b.set(good.subarray(0, Math.min(len, good.length)));
    f(b, new DataView(b.buffer));
    return b;
  };
  const cases: [string, Uint8Array][] = [
    ["PREFIX_DIR_BAD_MAGIC", mut((_, dv) => dv.setUint16(H.magic, 0x5059, true))],
    ["PREFIX_DIR_BAD_VERSION", mut((_, dv) => dv.setUint16(H.version, 2, true))],
    ["PREFIX_DIR_BAD_TID", mut((b) => (b[0] = 0))],
    ["PREFIX_DIR_FLAG_BITS", mut((_, dv) => dv.setUint16(H.t_info, good.length | 0x4000, true))],
    ["PREFIX_DIR_LENGTH_MISMATCH", mut(() => {}, good.length + 8)],
    ["PREFIX_DIR_BAD_LENGTH", mut((_, dv) => dv.setUint16(H.t_info, good.length + 8, true), good.length + 8)],
    ["PREFIX_DIR_NO_GROUPS", mut((_, dv) => dv.setUint16(H.ngroups, 0, true))],
    ["PREFIX_DIR_GROUPS_OUT_OF_RANGE", mut((_, dv) => dv.setUint16(H.ngroups, 9, true))],
    ["PREFIX_DIR_ANCHORS_OUT_OF_RANGE", mut((_, dv) => dv.setUint16(20 + BTPrefixGroupEntry.offsets.anchor_len, 200, true))],
    ["PREFIX_DIR_LEAD_GT_ANCHOR", mut((b) => (b[24 + BTPrefixGroupEntry.offsets.lead] = 2))],
    ["PREFIX_DIR_GROUP_FLAGS", mut((b) => (b[20 + BTPrefixGroupEntry.offsets.flags] = 1))],
    ["PREFIX_DIR_PADDING_NONZERO", mut((b) => (b[b.length - 1] = 1))],
    ["PREFIX_DIR_TRUNCATED", good.subarray(0, 12)],
  ];
  for (const [c, b] of cases) assert.throws(() => decodeDirectory(b), code(c), c);
  assert.throws(() => encodeDirectory([{ anchor: new Uint8Array(8200), lead: 0 }], 1, 1), code("PREFIX_DIR_TOO_LONG"));
  assert.throws(() => encodeDirectory([], 1, 1), code("PREFIX_DIR_NO_GROUPS"));
  assert.throws(() => encodeDirectory([{ anchor: new Uint8Array(2), lead: 3 }], 1, 1), code("PREFIX_DIR_LEAD_GT_ANCHOR"));
  // t_info can say up to 8191 bytes; anything past 8184 is too long
  const long = new Uint8Array(8188);
  long.set(encodeDirectory([{ anchor: new Uint8Array(8160), lead: 0 }], 1, 1));
  new DataView(long.buffer).setUint16(H.t_info, 8188, true);
  assert.throws(() => decodeDirectory(long), code("PREFIX_DIR_TOO_LONG"));
  assert.equal(encodeDirectory([{ anchor: new Uint8Array(8160), lead: 0 }], 1, 1).length, 8184);
});

test("malformed coded items give their codes", () => {
  const anchor = Uint8Array.from([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160]);
  const dir: PrefixDirectory = { length: 0, T: 0, M: 0, groups: [{ anchor, lead: 8 }, { anchor, lead: 0 }] };
  const orig = mkTuple(Uint8Array.from([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 111, 1, 2, 3, 4, 5]), { var: true });
  const good = encodeCodedItem(orig, 0, anchor, 8);
  assert.deepEqual(decodeCodedItem(good, dir), orig);
  const H = BTPrefixCodedItemHeader.offsets;
  const mut = (f: (b: Uint8Array, dv: DataView) => void, base = good) => {
    const b = base.slice();
    f(b, new DataView(b.buffer));
    return b;
  };
  // a hand-made item: 16 bytes, nshared 1 with lead 8, so its residual (2 bytes) is shorter than lead
  const hand = (len: number, info: number, group: number, nshared: number, origInfo: number, residual: number[]) => {
    const b = new Uint8Array(len);
    const dv = new DataView(b.buffer);
    dv.setUint16(H.t_info, info, true);
    dv.setUint16(H.group, group, true);
    dv.setUint16(H.nshared, nshared, true);
    dv.setUint16(H.orig_t_info, origInfo, true);
    b.set(residual, 14);
    return b;
  };
  const cases: [string, Uint8Array][] = [
    ["PREFIX_ITEM_GROUP_RANGE", mut((_, dv) => dv.setUint16(H.group, 2, true))],
    ["PREFIX_ITEM_SHARED_RANGE", mut((_, dv) => dv.setUint16(H.nshared, 9, true))],
    ["PREFIX_ITEM_RESIDUAL_SHORT", hand(16, 16, 0, 1, 24, [1, 2])],
    ["PREFIX_ITEM_TRUNCATED_NONZERO", hand(24, 24, 1, 0, 16, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])],
    ["PREFIX_ITEM_ALT_TID_NOT_POSTING", mut((_, dv) => dv.setUint16(H.t_info, good.length | 0x2000 | 0x4000, true))],
    ["PREFIX_ITEM_IS_POSTING", mut((_, dv) => (dv.setUint16(H.t_info, good.length | 0x2000, true), dv.setUint16(4, 0x2002, true)))],
    ["PREFIX_ITEM_LENGTH_MISMATCH", mut((_, dv) => dv.setUint16(H.t_info, (good.length + 8) | 0x4000, true))],
    ["PREFIX_ITEM_LENGTH_UNALIGNED", hand(20, 20, 1, 0, 16, [])],
    ["PREFIX_ITEM_FLAGS_MISMATCH", mut((_, dv) => dv.setUint16(H.t_info, good.length, true))],
    ["PREFIX_ORIG_ALT_TID", mut((_, dv) => dv.setUint16(H.orig_t_info, 24 | 0x2000 | 0x4000, true))],
    ["PREFIX_ORIG_SIZE_UNALIGNED", mut((_, dv) => dv.setUint16(H.orig_t_info, 28 | 0x4000, true))],
    ["PREFIX_ORIG_SIZE_TOO_SMALL", hand(16, 16 | INDEX_NULL_MASK, 1, 0, 8 | INDEX_NULL_MASK, [])],
    ["PREFIX_ORIG_TOO_LARGE", mut((_, dv) => dv.setUint16(H.orig_t_info, 2712 | 0x4000, true))],
    ["PREFIX_ITEM_TRUNCATED", good.subarray(0, 6)],
  ];
  for (const [c, b] of cases) assert.throws(() => decodeCodedItem(b, dir), code(c), c);
  // encoder refusals
  const posting = orig.slice();
  new DataView(posting.buffer).setUint16(6, orig.length | 0x2000, true);
  assert.throws(() => encodeCodedItem(posting, 0, anchor, 0), code("PREFIX_ENCODE_ALT_TID"));
  const badPad = mkTuple(new Uint8Array(8), { nullBits: 1 });
  badPad[13] = 1;
  assert.throws(() => encodeCodedItem(badPad, 0, anchor, 0), code("PREFIX_ENCODE_NONZERO_PAD"));
});

test("malformed prefix pages: flags, directory, group order, T and M", () => {
  const src = LEAVES.find((l) => l.index === "p_text" && recodeLeafPage(l.page, 0).coded)!;
  const { page } = recodeLeafPage(src.page, 0);
  const dv = pageView(page);
  const flagsAt = 8176 + 12;
  const withFlags = (f: number) => {
    const p = page.slice();
    new DataView(p.buffer).setUint16(flagsAt, f, true);
    return p;
  };
  const flags = dv.getUint16(flagsAt, true);
  assert.throws(() => readPrefixLeafPage(withFlags(flags & ~BTP_LEAF)), code("PREFIX_PAGE_NOT_LEAF"));
  assert.throws(() => readPrefixLeafPage(withFlags(flags | BTP_DELETED)), code("PREFIX_PAGE_BAD_FLAGS"));
  assert.throws(() => readPrefixLeafPage(page, { btmVersion: 3 }), code("PREFIX_PAGE_BAD_VERSION"));
  const r = readPrefixLeafPage(page);
  // directory LP_DEAD
  const lpAt = 24 + (r.directoryOffset - 1) * 4;
  const deadDir = page.slice();
  const w = new DataView(deadDir.buffer).getUint32(lpAt, true);
  new DataView(deadDir.buffer).setUint32(lpAt, (w & ~(3 << 15)) | (LP_DEAD << 15), true);
  assert.throws(() => readPrefixLeafPage(deadDir), code("PREFIX_DIR_NOT_NORMAL"));
  // wrong T in the directory: a finding, decoding still works
  const items = [...(r.highKey ? [{ lpFlags: LP_NORMAL, tuple: r.highKey }] : [])];
  const dirBytes = encodeDirectory(r.directory.groups, r.T + 8, r.M);
  const coded = plainLeafItems(page).slice(r.directoryOffset);
  const badT = layoutLeafPage(page, [...items, { lpFlags: LP_NORMAL, tuple: dirBytes }, ...coded], flags)!;
  assert.deepEqual(readPrefixLeafPage(badT).findings.map((f) => f.code), ["PREFIX_DIR_T_MISMATCH"]);
  // group order: swap two coded items of different groups
  if (r.directory.groups.length > 1) {
    const i = coded.findIndex((c, k) => k > 0 && BTPrefixCodedItemHeader.decode(c.tuple).group !== BTPrefixCodedItemHeader.decode(coded[k - 1]!.tuple).group);
    const sw = coded.slice();
    [sw[i - 1], sw[i]] = [sw[i]!, sw[i - 1]!];
    const p = layoutLeafPage(page, [...items, { lpFlags: LP_NORMAL, tuple: encodeDirectory(r.directory.groups, r.T, r.M) }, ...sw], flags)!;
    assert.ok(readPrefixLeafPage(p).findings.some((f) => f.code === "PREFIX_GROUP_ORDER"));
  }
  // a page of posting tuples only is never coded
  const dupLeaf = LEAVES.find((l) => l.index === "p_dup" && plainLeafItems(l.page).slice(1).every((x) => isPosting(x.tuple)));
  if (dupLeaf) assert.equal(recodeLeafPage(dupLeaf.page).coded, false);
  // item-level error inside a page carries the item number
  const broken = page.slice();
  const firstCoded = r.items.find((x) => x.coded)!;
  const off = new DataView(broken.buffer).getUint32(24 + (firstCoded.offset - 1) * 4, true) & 0x7fff;
  new DataView(broken.buffer).setUint16(off + 8, 60000, true); // group
  assert.throws(() => readPrefixLeafPage(broken), (e: unknown) => e instanceof FormatError && e.code === "PREFIX_ITEM_GROUP_RANGE" && e.location.item === firstCoded.offset);
});
