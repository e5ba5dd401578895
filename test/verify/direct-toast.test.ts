// Direct TOAST verification (new-formats.md §1.5) over files the test writes itself: the sample's
// TOASTed tables are converted to direct pointers (all three tiers, compressed and not), verify
// clean, then each kind of pointer and tree damage gives exactly its codes.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { tinySampleCopy } from "../fixtures/sample.js";
import { runVerify } from "../../verify/run.js";
import type { Finding } from "../../formats/schema/errors.js";
import { HEAP_NATTS_MASK, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HTH } from "../../formats/heap/tuple-header.js";
import { LP_NORMAL, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { pageView } from "../../formats/page/page.js";
import { Damager, attrOffset, lpWord } from "./damage.js";
import { convertToDirect, tidBytes, type DirectValue } from "./direct-fixture.js";

let root = "";
let pgdata = "";
let d: Damager;
const values: Record<string, DirectValue[]> = {};
const TABLES = ["toast_docs", "compressed_docs"];

before(async () => {
  const c = await tinySampleCopy();
  root = c.root;
  pgdata = c.pgdata;
  d = new Damager(pgdata);
  for (const t of TABLES) values[t] = convertToDirect(d, t);
  // the conversion is the baseline every case restores to
  (d as unknown as { saved: Map<string, Uint8Array> }).saved.clear();
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

async function verify(table: string): Promise<{ findings: Finding[]; toastValues: number }> {
  const run = await runVerify({ pgdata, database: "pgdisk_sample", relations: [table] }, { jobs: 1 });
  return { findings: run.reports.flatMap((r) => r.findings), toastValues: run.reports.reduce((s, r) => s + (r.stats.toastValues ?? 0), 0) };
}
const codes = (f: Finding[]): string[] => [...new Set(f.filter((x) => x.severity !== "info").map((x) => x.code))].sort();

function value(table: string, pred: (v: DirectValue) => boolean): DirectValue {
  const v = values[table].find(pred);
  if (!v) throw new Error(`no direct value in ${table} matches`);
  return v;
}
/** The pointer's offset in its parent page. */
function pointerAt(table: string, v: DirectValue): number {
  const path = d.path(table);
  const page = d.page(path, v.blk);
  const dv = pageView(page);
  const w = lpWord(dv, v.item);
  return attrOffset(d, table, page, { blk: v.blk, item: v.item, off: lpOff(w), len: lpLen(w) }, v.attnum).off;
}
/** Patch a chunk tuple of the TOAST relation: f gets the page, its view and the tuple offset. */
function patchChunk(table: string, tid: { block: number; item: number }, f: (page: Uint8Array, dv: DataView, t: number) => void): void {
  const tpath = d.path(d.toastOf(table));
  d.patch(tpath, tid.block, (page, dv) => f(page, dv, lpOff(lpWord(dv, tid.item))));
}
function patchPointer(table: string, v: DirectValue, f: (page: Uint8Array, dv: DataView, at: number) => void): void {
  const at = pointerAt(table, v);
  d.patch(d.path(table), v.blk, (page, dv) => f(page, dv, at));
}
/** Offsets inside a direct chunk tuple (§1.2 layout written by the fixture). */
const SEQ = 24;
const DATA = 28;
const dataLen = (dv: DataView, t: number): number => (dv.getUint32(t + DATA, true) >>> 2) - 4;
const tidsAt = (dv: DataView, t: number): number => (t + DATA + 4 + dataLen(dv, t) + 3) & ~3;

interface Case {
  name: string;
  table: string;
  expect: string[];
  inject: () => void;
  check?: (f: Finding[]) => void;
}
function runCase(c: Case): void {
  test(c.name, async () => {
    try {
      c.inject();
      const { findings } = await verify(c.table);
      assert.deepEqual(codes(findings), [...c.expect].sort(), JSON.stringify(findings.filter((x) => x.severity !== "info").slice(0, 3), null, 1));
      c.check?.(findings);
    } finally {
      d.restore();
    }
  });
}

test("the converted tables cover every tier and verify clean", async () => {
  const all = [...values.toast_docs, ...values.compressed_docs];
  assert.ok(all.some((v) => v.tier === "single"));
  assert.ok(all.some((v) => v.tier === "flat"));
  assert.ok(all.some((v) => v.tier === "tree" && v.nodes.some((n) => n.level === 2)), "a two-level tree");
  assert.ok(all.some((v) => v.tier === "tree" && v.compressed), "a compressed tree");
  for (const t of TABLES) {
    const { findings, toastValues } = await verify(t);
    assert.deepEqual(findings, [], `${t}: ${JSON.stringify(findings.slice(0, 3))}`);
    assert.equal(toastValues, values[t].length, `${t}: every direct value walked`);
  }
});

describe("pointer", () => {
  const T = "toast_docs";
  runCase({ name: "va_tid names no item (its chunks are then unreachable)", table: T, expect: ["DTOAST_ROOT_INVALID", "DTOAST_UNREACHABLE_LIVE"], inject: () => patchPointer(T, value(T, () => true), (_p, dv, at) => dv.setUint16(at + 18, 999, true)) });
  runCase({ name: "stored size 0", table: T, expect: ["DTOAST_POINTER_BAD_SIZE"], inject: () => patchPointer(T, value(T, () => true), (_p, dv, at) => dv.setUint32(at + 6, 0, true)) });
  runCase({ name: "method bits on an uncompressed value", table: T, expect: ["DTOAST_POINTER_BAD_METHOD"], inject: () => patchPointer(T, value(T, () => true), (_p, dv, at) => dv.setUint32(at + 6, (dv.getUint32(at + 6, true) | (1 << 30)) >>> 0, true)) });
  runCase({ name: "va_toastrelid of another relation", table: T, expect: ["TOAST_POINTER_BAD_RELID"], inject: () => patchPointer(T, value(T, () => true), (_p, dv, at) => dv.setUint32(at + 10, 1259, true)) });
  runCase({
    name: "flat value's pointer claims a single slice (tier mismatch)",
    table: T,
    expect: ["DTOAST_TIER_MISMATCH"],
    inject: () => patchPointer(T, value(T, (v) => v.tier === "flat"), (_p, dv, at) => dv.setUint32(at + 6, 1000, true)),
  });
  runCase({
    name: "compressed value's va_tcinfo disagrees with its pointer",
    table: "compressed_docs",
    expect: ["DTOAST_POINTER_BAD_TCINFO"],
    inject: () => patchPointer("compressed_docs", value("compressed_docs", (v) => v.compressed), (_p, dv, at) => dv.setInt32(at + 2, dv.getInt32(at + 2, true) + 1, true)),
  });
  runCase({
    name: "root is a plain chunk",
    table: T,
    expect: ["DTOAST_CHUNK_HAS_ID", "DTOAST_UNREACHABLE_LIVE"],
    inject: () => {
      const tpath = d.path(d.toastOf(T));
      const plain = d.item(tpath, (p, dv, x) => (dv.getUint16(x.off + HTH.t_infomask2, true) & HEAP_NATTS_MASK) === 3 && x.blk === 0);
      patchPointer(T, value(T, (v) => v.tier === "single"), (_p, dv, at) => {
        dv.setUint16(at + 14, 0, true);
        dv.setUint16(at + 16, plain.blk, true);
        dv.setUint16(at + 18, plain.item, true);
      });
    },
  });
});

describe("chunks and tree", () => {
  const T = "toast_docs";
  runCase({ name: "leaf slice resized", table: T, expect: ["DTOAST_SLICE_BAD_SIZE"], inject: () => patchChunk(T, value(T, (v) => v.tier === "flat").leaves[0], (_p, dv, t) => dv.setUint32(t + DATA, ((1996 - 8 + 4) << 2) >>> 0, true)) });
  runCase({ name: "leaf chunk_seq off by one", table: T, expect: ["DTOAST_CHUNK_BAD_SEQ"], inject: () => patchChunk(T, value(T, (v) => v.tier === "flat" && v.n > 3).leaves[1], (_p, dv, t) => dv.setInt32(t + SEQ, 2, true)) });
  runCase({ name: "chunk with 6 attributes (also more than the TOAST relation has)", table: T, expect: ["DTOAST_CHUNK_BAD_NATTS", "HEAP_NATTS_EXCEEDS_DESCRIPTOR"], inject: () => patchChunk(T, value(T, (v) => v.tier === "flat").leaves[0], (_p, dv, t) => dv.setUint16(t + HTH.t_infomask2, (dv.getUint16(t + HTH.t_infomask2, true) & ~HEAP_NATTS_MASK) | 6, true)) });
  runCase({
    name: "flat root child names no item",
    table: T,
    expect: ["DTOAST_CHILD_INVALID", "DTOAST_UNREACHABLE_LIVE"],
    inject: () => patchChunk(T, value(T, (v) => v.tier === "flat").root, (_p, dv, t) => dv.setUint16(tidsAt(dv, t) + 24 + 4, 999, true)),
  });
  runCase({
    name: "chunk_tids with the wrong element type",
    table: T,
    expect: ["DTOAST_ARRAY_MALFORMED"],
    inject: () => patchChunk(T, value(T, (v) => v.tier === "flat").root, (_p, dv, t) => dv.setUint32(tidsAt(dv, t) + 12, 26, true)),
  });
  runCase({
    name: "flat root lists one TID too few",
    table: T,
    expect: ["DTOAST_FLAT_ROOT_TID_COUNT"],
    inject: () => {
      const v = value(T, (x) => x.tier === "flat" && x.n > 3 && x.n < 99);
      patchPointer(T, v, (_p, dv, at) => {
        dv.setInt32(at + 2, dv.getInt32(at + 2, true) + 1996, true);
        dv.setUint32(at + 6, dv.getUint32(at + 6, true) + 1996, true);
      });
      patchChunk(T, v.root, (_p, dv, t) => dv.setInt32(t + SEQ, v.n, true));
    },
  });
  runCase({
    name: "TID visited twice within a value",
    table: T,
    expect: ["DTOAST_TID_REVISITED", "DTOAST_UNREACHABLE_LIVE"],
    inject: () => {
      const v = value(T, (x) => x.tier === "flat" && x.n > 3);
      patchChunk(T, v.root, (p, dv, t) => p.set(tidBytes(v.leaves[0]), tidsAt(dv, t) + 24 + 6));
    },
  });
  runCase({
    name: "a chunk shared by two values",
    table: T,
    expect: ["DTOAST_CHUNK_SHARED", "DTOAST_UNREACHABLE_LIVE"],
    inject: () => {
      const flats = values[T].filter((x) => x.tier === "flat" && x.n > 3);
      assert.ok(flats.length >= 2);
      patchChunk(T, flats[1].root, (p, dv, t) => p.set(tidBytes(flats[0].leaves[0]), tidsAt(dv, t) + 24));
    },
  });
  const tree = (): DirectValue => value(T, (x) => x.tier === "tree" && x.nodes.length > 2);
  runCase({
    name: "tree node offsets wrong",
    table: T,
    expect: ["DTOAST_OFFSETS_BAD"],
    inject: () => {
      const node = tree().nodes.find((n) => n.level === 1)!;
      patchChunk(T, node, (_p, dv, t) => {
        const tids = tidsAt(dv, t);
        const n = dv.getInt32(tids + 4 + 12, true);
        const offs = (tids + 24 + 6 * n + 7) & ~7;
        dv.setBigInt64(offs + 24 + 8, dv.getBigInt64(offs + 24 + 8, true) + 1n, true);
      });
    },
  });
  runCase({ name: "tree node at the wrong level", table: T, expect: ["DTOAST_NODE_BAD_LEVEL"], inject: () => patchChunk(T, tree().nodes.find((n) => n.level === 1)!, (_p, dv, t) => dv.setInt32(t + SEQ, -2, true)) });
  runCase({
    name: "tree slices sum to more than the stored size",
    table: T,
    expect: ["DTOAST_TOTAL_SIZE"],
    inject: () => {
      const v = value(T, (x) => x.tier === "tree" && x.n > 102 && treeSizeMultiple(x));
      patchPointer(T, v, (_p, dv, at) => {
        dv.setInt32(at + 2, dv.getInt32(at + 2, true) - 1996, true);
        dv.setUint32(at + 6, dv.getUint32(at + 6, true) - 1996, true);
      });
    },
  });
  runCase({
    name: "corrupt bytes in a compressed direct value",
    table: "compressed_docs",
    expect: ["TOAST_DECOMPRESS_FAILED"],
    inject: () => patchChunk("compressed_docs", value("compressed_docs", (v) => v.compressed).leaves[0], (p, _dv, t) => p.fill(0xff, t + DATA + 4 + 4, t + DATA + 4 + 16)),
  });
  runCase({
    name: "orphan live chunk",
    table: T,
    expect: ["DTOAST_UNREACHABLE_LIVE"],
    inject: () => addOrphan(T, false),
    check: (f) => assert.match(f.find((x) => x.code === "DTOAST_UNREACHABLE_LIVE")!.message, /^live direct TOAST chunk \(\d+,\d+\) is reached from no TOAST pointer$/),
  });
  runCase({ name: "orphan dead chunk is only noted", table: T, expect: [], inject: () => addOrphan(T, true), check: (f) => assert.ok(f.some((x) => x.code === "DTOAST_UNREACHABLE_DEAD" && x.severity === "info")) });
});

/** Does the tree value's stored size end on a slice boundary? (then one slice fewer still fits the tier) */
function treeSizeMultiple(v: DirectValue): boolean {
  const path = d.path("toast_docs");
  const dv = pageView(d.page(path, v.blk));
  const at = pointerAt("toast_docs", v);
  return (dv.getUint32(at + 6, true) & 0x3fffffff) % 1996 === 0;
}

/** Copy a direct leaf into free space of the TOAST relation's last page (dead: deleted by a committed transaction). */
function addOrphan(table: string, dead: boolean): void {
  const v = value(table, (x) => x.tier === "flat");
  const tpath = d.path(d.toastOf(table));
  const src = d.page(tpath, v.leaves[0].block);
  const w = lpWord(pageView(src), v.leaves[0].item);
  const tuple = src.slice(lpOff(w), lpOff(w) + lpLen(w));
  const tdv = pageView(tuple);
  if (dead) {
    tdv.setUint32(HTH.t_xmax, tdv.getUint32(HTH.t_xmin, true), true);
    tdv.setUint16(HTH.t_infomask, (tdv.getUint16(HTH.t_infomask, true) & ~HEAP_XMAX_INVALID) | HEAP_XMAX_COMMITTED, true);
  }
  // a new block of its own at the end of the TOAST relation
  const page = new Uint8Array(8192);
  const dv = pageView(page);
  const upper = 8192 - ((tuple.length + 7) & ~7);
  page.set(tuple, upper);
  dv.setUint32(24, makeLp(upper, LP_NORMAL, tuple.length), true);
  dv.setUint16(12, 28, true);
  dv.setUint16(14, upper, true);
  dv.setUint16(16, 8192, true);
  dv.setUint16(18, 0x2004, true);
  d.writeBlocks(tpath, d.nblocks(tpath), [page]);
}
