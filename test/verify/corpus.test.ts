// The corruption corpus: damage injected into copies of real sample files, one kind at a time
// (checksums recomputed so only the intended problem exists), each verified and required to
// produce exactly its codes: no miss, no unrelated alarm. Where one damage necessarily breaks
// two invariants (as amcheck would report both), the case names both. Heap-only cases that
// change which heap tuples an index must hold run without heapallindexed and say so.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, statSync } from "node:fs";
import { tinySampleCopy } from "../fixtures/sample.js";
import { runVerify } from "../../verify/run.js";
import type { VerifyOptions } from "../../verify/relation.js";
import type { Finding } from "../../formats/schema/errors.js";
import { HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_UPDATED, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID, HTH } from "../../formats/heap/tuple-header.js";
import { LP_DEAD, LP_NORMAL, LP_REDIRECT, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { recodeLeafPage } from "../../formats/nbtree/prefix-page.js";
import { BTREE_MAGIC } from "../../formats/nbtree/meta.js";
import { BLCKSZ, Damager, attrOffset, leafPages, lpWord, setLpWord, type Item } from "./damage.js";

let root = "";
let pgdata = "";
let d: Damager;

before(async () => {
  const c = await tinySampleCopy();
  root = c.root;
  pgdata = c.pgdata;
  d = new Damager(pgdata);
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Case {
  name: string;
  /** relations verified (a table brings its TOAST relation and indexes) */
  scope: string[];
  inject: () => void;
  /** the exact set of non-info codes expected (oneOf: any non-empty subset of these) */
  expect: string[];
  oneOf?: boolean;
  opts?: Partial<VerifyOptions>;
  /** extra assertions on the findings */
  check?: (f: Finding[]) => void;
}

async function verify(scope: string[], opts: Partial<VerifyOptions> = {}): Promise<Finding[]> {
  const run = await runVerify({ pgdata, database: "pgdisk_sample", relations: scope }, { jobs: 1, ...opts });
  return run.reports.flatMap((r) => r.findings);
}

const codesOf = (f: Finding[]): string[] => [...new Set(f.filter((x) => x.severity !== "info").map((x) => x.code))].sort();

function runCase(c: Case): void {
  test(c.name, async () => {
    try {
      c.inject();
      const f = await verify(c.scope, c.opts);
      const got = codesOf(f);
      if (c.oneOf) {
        assert.ok(got.length > 0 && got.every((g) => c.expect.includes(g)), `expected some of ${c.expect.join(", ")}, got ${got.join(", ")}: ${JSON.stringify(f.slice(0, 3))}`);
      } else assert.deepEqual(got, [...c.expect].sort(), JSON.stringify(f.filter((x) => x.severity !== "info").slice(0, 4), null, 1));
      c.check?.(f);
    } finally {
      d.restore();
    }
  });
}

const NO_HAI: Partial<VerifyOptions> = { heapallindexed: false };

// ---------------------------------------------------------------- finders
const live = (dv: DataView, it: Item): boolean => (dv.getUint16(it.off + HTH.t_infomask, true) & (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED)) === (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED) && !(dv.getUint16(it.off + HTH.t_infomask2, true) & HEAP_ONLY_TUPLE);
const noNulls = (dv: DataView, it: Item): boolean => (dv.getUint16(it.off + HTH.t_infomask, true) & HEAP_HASNULL) === 0;
function liveTuple(table: string, blk = 1, extra: (page: Uint8Array, dv: DataView, it: Item) => boolean = () => true): Item {
  return d.item(d.path(table), (p, dv, it) => it.blk === blk && live(dv, it) && extra(p, dv, it));
}
function tupleWithPointer(table: string, attnum: number, pred: (rawsize: number, extsize: number) => boolean = () => true): { it: Item; at: number } {
  const path = d.path(table);
  let at = -1;
  const it = d.item(path, (p, dv, x) => {
    if (!live(dv, x)) return false;
    try {
      const a = attrOffset(d, table, p, x, attnum);
      if (p[a.off] !== 0x01 || p[a.off + 1] !== 18) return false;
      if (!pred(dv.getInt32(a.off + 2, true), dv.getUint32(a.off + 6, true) & 0x3fffffff)) return false;
      at = a.off;
      return true;
    } catch {
      return false;
    }
  });
  return { it, at };
}
/** The chunk tuple (chunk_id, chunk_seq) in a TOAST relation. */
function chunk(table: string, valueId: number, seq: number): Item {
  return d.item(d.path(d.toastOf(table)), (p, dv, x) => ((p[x.off + 23] & 1) === 1 || (dv.getUint16(x.off + HTH.t_infomask, true) & HEAP_HASNULL) === 0) && dv.getUint32(x.off + 24, true) === valueId && dv.getInt32(x.off + 28, true) === seq);
}
function pointer(table: string, attnum: number, pred?: (rawsize: number, extsize: number) => boolean): { it: Item; at: number; valueId: number; extsize: number; rawsize: number } {
  const { it, at } = tupleWithPointer(table, attnum, pred);
  const dv = pageView(d.page(d.path(table), it.blk));
  return { it, at, valueId: dv.getUint32(at + 10, true), extsize: dv.getUint32(at + 6, true) & 0x3fffffff, rawsize: dv.getInt32(at + 2, true) };
}
function inlineCompressed(table: string, attnum: number): { it: Item; at: number; len: number } {
  const path = d.path(table);
  let at = -1;
  let len = 0;
  const it = d.item(path, (p, _dv, x) => {
    try {
      const a = attrOffset(d, table, p, x, attnum);
      if ((p[a.off] & 3) !== 2) return false;
      at = a.off;
      len = a.len;
      return true;
    } catch {
      return false;
    }
  });
  return { it, at, len };
}
/** A HOT-updated tuple on `blk` whose ctid successor on the page is a live heap-only tuple. */
function hotPair(table: string): { blk: number; pred: Item; succ: number } {
  const path = d.path(table);
  for (let blk = 0; blk < d.nblocks(path); blk++) {
    const page = d.page(path, blk);
    const dv = pageView(page);
    for (let i = 1; i <= maxOffsetNumber(dv); i++) {
      const w = lpWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL) continue;
      const t = lpOff(w);
      const im = dv.getUint16(t + HTH.t_infomask, true);
      const im2 = dv.getUint16(t + HTH.t_infomask2, true);
      if (!(im2 & HEAP_HOT_UPDATED) || im & HEAP_XMAX_INVALID || !(im & HEAP_XMAX_COMMITTED)) continue;
      const succ = dv.getUint16(t + HTH.t_ctid + 4, true);
      const sw = lpWord(dv, succ);
      if (lpFlags(sw) !== LP_NORMAL) continue;
      const st = lpOff(sw);
      const sim = dv.getUint16(st + HTH.t_infomask, true);
      if (dv.getUint16(st + HTH.t_infomask2, true) & HEAP_ONLY_TUPLE && sim & HEAP_XMAX_INVALID && sim & HEAP_XMIN_COMMITTED) return { blk, pred: { blk, item: i, off: t, len: lpLen(w) }, succ };
    }
  }
  throw new Error("no HOT pair");
}
function firstOf(table: string, blk: number, flag: number): number {
  const dv = pageView(d.page(d.path(table), blk));
  for (let i = 1; i <= maxOffsetNumber(dv); i++) if (lpFlags(lpWord(dv, i)) === flag) return i;
  throw new Error(`no line pointer with flags ${flag}`);
}
/** Append a line pointer to a heap page (pd_lower grows by 4). Returns its item number. */
function appendLp(dv: DataView, word: number): number {
  const lower = dv.getUint16(12, true);
  dv.setUint32(lower, word >>> 0, true);
  dv.setUint16(12, lower + 4, true);
  return (lower - 24) / 4 + 1;
}
const setU16 = (path: string, blk: number, at: number, v: number, keepChecksum = false): void => d.patch(path, blk, (_p, dv) => dv.setUint16(at, v, true), keepChecksum);
const setU32 = (path: string, blk: number, at: number, v: number): void => d.patch(path, blk, (_p, dv) => dv.setUint32(at, v >>> 0, true));
const im = (path: string, it: Item, f: (v: number) => number): void => d.patch(path, it.blk, (_p, dv) => dv.setUint16(it.off + HTH.t_infomask, f(dv.getUint16(it.off + HTH.t_infomask, true)), true));
const im2 = (path: string, it: Item, f: (v: number) => number): void => d.patch(path, it.blk, (_p, dv) => dv.setUint16(it.off + HTH.t_infomask2, f(dv.getUint16(it.off + HTH.t_infomask2, true)), true));

const nextXid = (): number => Number(d.cluster.control.control.fields.checkPointCopy.nextXid & 0xffffffffn);
const oldestXid = (): number => d.cluster.control.control.fields.checkPointCopy.oldestXid;

// ---------------------------------------------------------------- the corpus
const WL = "web_links";
const P = (): string => d.path(WL);

describe("page headers and checksums", () => {
  runCase({ name: "pd_lower beyond pd_upper", scope: [WL], expect: ["PAGE_LOWER_GT_UPPER"], inject: () => d.patch(P(), 1, (_p, dv) => dv.setUint16(12, dv.getUint16(14, true) + 8, true)), check: (f) => assert.equal(f.find((x) => x.code === "PAGE_LOWER_GT_UPPER")!.location.block, 1) });
  runCase({ name: "pd_upper beyond pd_special", scope: [WL], expect: ["PAGE_UPPER_GT_SPECIAL"], inject: () => setU16(P(), 1, 14, 8200) });
  runCase({ name: "pd_special not MAXALIGNed", scope: [WL], expect: ["PAGE_SPECIAL_NOT_ALIGNED"], inject: () => setU16(P(), 1, 16, 8190) });
  runCase({ name: "pd_flags with unknown bits", scope: [WL], expect: ["PAGE_BAD_FLAGS"], inject: () => d.patch(P(), 1, (_p, dv) => dv.setUint16(10, dv.getUint16(10, true) | 0x0100, true)) });
  runCase({ name: "page layout version 5", scope: [WL], expect: ["PAGE_BAD_LAYOUT_VERSION"], inject: () => setU16(P(), 1, 18, 0x2005) });
  runCase({ name: "an all-zero heap page is accepted (as PageIsVerified does)", scope: [WL], expect: [], inject: () => d.patch(P(), 2, (p) => p.fill(0), true) });
  runCase({ name: "pd_upper 0 on a page with data", scope: [WL], expect: ["PAGE_NEW_NOT_ZERO"], inject: () => setU16(P(), 1, 14, 0) });
  runCase({ name: "heap page with a special space", scope: [WL], expect: ["PAGE_SPECIAL_SIZE"], inject: () => setU16(P(), d.nblocks(P()) - 1, 16, 8176) });
  runCase({
    name: "checksum flip on a heap page (relation-wide block number)",
    scope: [WL],
    expect: ["PAGE_CHECKSUM_MISMATCH"],
    inject: () => d.patch(P(), 2, (_p, dv) => dv.setUint16(8, dv.getUint16(8, true) ^ 0x0101, true), true),
    check: (f) => assert.equal(f[0].location.block, 2),
  });
  runCase({ name: "checksum flip on an index page", scope: [WL], expect: ["PAGE_CHECKSUM_MISMATCH"], inject: () => d.patch(d.path("web_links_pkey"), 2, (_p, dv) => dv.setUint16(8, dv.getUint16(8, true) ^ 1, true), true) });
  runCase({ name: "checksum flip on a free space map page", scope: [WL], expect: ["PAGE_CHECKSUM_MISMATCH"], inject: () => d.patch(d.path(WL, "fsm"), 0, (_p, dv) => dv.setUint16(8, dv.getUint16(8, true) ^ 4, true), true), check: (f) => assert.match(f[0].location.file!, /_fsm$/) });
  runCase({ name: "truncated relation file (partial last block)", scope: [WL], expect: ["REL_PARTIAL_BLOCK"], inject: () => d.truncate(P(), statSync(P()).size - 100) });
});

describe("line pointers", () => {
  runCase({ name: "item beyond the page", scope: [WL], expect: ["LP_OUTSIDE_ITEM_AREA"], inject: () => d.patch(P(), 1, (_p, dv) => setLpWord(dv, 3, makeLp(8184, LP_NORMAL, 100))) });
  runCase({
    name: "item not MAXALIGNed",
    scope: [WL],
    expect: ["LP_NOT_ALIGNED"],
    inject: () => {
      // an item whose padding leaves room for a 4-byte shift without touching its neighbour
      const dv = pageView(d.page(P(), 1));
      const spans: [number, number, number][] = [];
      for (let i = 1; i <= maxOffsetNumber(dv); i++) if (lpFlags(lpWord(dv, i)) === LP_NORMAL) spans.push([lpOff(lpWord(dv, i)), lpLen(lpWord(dv, i)), i]);
      spans.sort((a, b) => a[0] - b[0]);
      const k = spans.findIndex(([off, len], j) => off + len + 4 <= (spans[j + 1]?.[0] ?? BLCKSZ));
      assert.ok(k >= 0, "an item with 4 bytes of padding");
      const [off, len, item] = spans[k];
      d.patch(P(), 1, (_p, v) => setLpWord(v, item, makeLp(off + 4, LP_NORMAL, len)));
    },
  });
  runCase({ name: "item shorter than a tuple header", scope: [WL], expect: ["LP_TOO_SHORT"], inject: () => d.patch(P(), 1, (_p, dv) => setLpWord(dv, 4, makeLp(lpOff(lpWord(dv, 4)), LP_NORMAL, 16))) });
  // verify_heapam's order of line pointer checks (004_verify_heapam.pl's cases): alignment first, then the length
  runCase({
    name: "LP_NORMAL at offset 15 with no length: not maximally aligned",
    scope: [WL],
    expect: ["LP_NOT_ALIGNED"],
    inject: () => d.patch(P(), 1, (_p, dv) => setLpWord(dv, 3, makeLp(15, LP_NORMAL, 0))),
    check: (f) => assert.ok(f.some((x) => x.message === "line pointer to page offset 15 is not maximally aligned" && x.location.block === 1 && x.location.item === 3), JSON.stringify(f)),
  });
  runCase({
    name: "item of 15 bytes outside the item area: shorter than a tuple header",
    scope: [WL],
    expect: ["LP_TOO_SHORT"],
    inject: () => d.patch(P(), 1, (_p, dv) => setLpWord(dv, 4, makeLp(32, LP_NORMAL, 15))),
    check: (f) => assert.ok(f.some((x) => x.message === "line pointer length 15 is less than the minimum tuple header size 24" && x.location.item === 4), JSON.stringify(f)),
  });
  runCase({ name: "two items overlap", scope: [WL], expect: ["LP_OVERLAP"], inject: () => d.patch(P(), 1, (_p, dv) => setLpWord(dv, 5, makeLp(lpOff(lpWord(dv, 6)), LP_NORMAL, lpLen(lpWord(dv, 5))))) });
  runCase({ name: "redirect beyond maxoff", scope: ["accounts"], expect: ["LP_REDIRECT_OUT_OF_RANGE"], inject: () => d.patch(d.path("accounts"), 0, (_p, dv) => appendLp(dv, makeLp(maxOffsetNumber(dv) + 10, LP_REDIRECT, 0))) });
  runCase({ name: "redirect with a length", scope: ["accounts"], expect: ["LP_REDIRECT_HAS_LENGTH"], inject: () => { const it = liveTuple("accounts", 0); d.patch(d.path("accounts"), 0, (_p, dv) => appendLp(dv, makeLp(it.item, LP_REDIRECT, 8))); } });
  runCase({
    name: "redirect to an unused line pointer",
    scope: ["accounts"],
    expect: ["HEAP_REDIRECT_TO_UNUSED"],
    inject: () =>
      d.patch(d.path("accounts"), 0, (_p, dv) => {
        const unused = appendLp(dv, 0);
        appendLp(dv, makeLp(unused, LP_REDIRECT, 0));
      }),
    check: (f) => assert.match(f[0].message, /^line pointer redirection to unused item at offset \d+$/),
  });
  runCase({ name: "redirect to a dead line pointer", scope: ["accounts"], expect: ["HEAP_REDIRECT_TO_DEAD"], inject: () => d.patch(d.path("accounts"), 0, (_p, dv) => appendLp(dv, makeLp(firstOf("accounts", 0, LP_DEAD), LP_REDIRECT, 0))) });
  runCase({ name: "redirect to a redirect", scope: ["accounts"], expect: ["HEAP_REDIRECT_TO_REDIRECT"], inject: () => d.patch(d.path("accounts"), 0, (_p, dv) => appendLp(dv, makeLp(firstOf("accounts", 0, LP_REDIRECT), LP_REDIRECT, 0))) });
});

describe("heap tuple headers and infomask", () => {
  runCase({
    name: "t_hoff beyond the tuple (amcheck reports both)",
    scope: ["accounts"],
    expect: ["HEAP_HOFF_BEYOND_TUPLE", "HEAP_BAD_T_HOFF"],
    inject: () => {
      const it = liveTuple("accounts", 1, (_p, _dv, x) => x.len < 248);
      d.patch(d.path("accounts"), 1, (p) => void (p[it.off + HTH.t_hoff] = 248));
    },
  });
  runCase({
    name: "t_hoff off by 8",
    scope: [WL],
    expect: ["HEAP_BAD_T_HOFF"],
    inject: () => {
      const it = liveTuple(WL, 1, (_p, dv, x) => noNulls(dv, x));
      d.patch(P(), 1, (p) => void (p[it.off + HTH.t_hoff] = 32));
    },
    check: (f) => assert.match(f[0].message, /^tuple data should begin at byte 24, but actually begins at byte 32 \(\d+ attributes, no nulls\)$/),
  });
  runCase({
    name: "multixact marked committed (aborted insert)",
    scope: ["accounts"],
    expect: ["HEAP_MULTIXACT_COMMITTED"],
    inject: () => {
      const it = d.item(d.path("accounts"), (_p, dv, x) => (dv.getUint16(x.off + HTH.t_infomask, true) & (HEAP_XMIN_INVALID | HEAP_XMIN_COMMITTED)) === HEAP_XMIN_INVALID);
      // HEAP_XMAX_INVALID cleared: with it, the tuple would also be HEAP_XMAX_COMMITTED_AND_INVALID
      im(d.path("accounts"), it, (v) => (v & ~HEAP_XMAX_INVALID) | HEAP_XMAX_COMMITTED | HEAP_XMAX_IS_MULTI);
    },
  });
  runCase({
    name: "xmax marked both committed and invalid",
    scope: [WL],
    expect: ["HEAP_XMAX_COMMITTED_AND_INVALID"],
    inject: () => im(P(), liveTuple(WL), (v) => v | HEAP_XMAX_COMMITTED),
    check: (f) => assert.ok(f.some((x) => x.message === "tuple marked as datum tuple in table"), JSON.stringify(f.slice(0, 2))),
  });
  runCase({ name: "MultiXact xmax 0", scope: [WL], expect: ["HEAP_MXID_INVALID"], inject: () => im(P(), liveTuple(WL), (v) => v | HEAP_XMAX_IS_MULTI) });
  runCase({
    name: "MultiXactId beyond nextMulti",
    scope: [WL],
    expect: ["HEAP_MXID_IN_FUTURE"],
    inject: () => {
      const it = liveTuple(WL);
      d.patch(P(), 1, (_p, dv) => {
        dv.setUint32(it.off + HTH.t_xmax, 5, true);
        dv.setUint16(it.off + HTH.t_infomask, (dv.getUint16(it.off + HTH.t_infomask, true) & ~HEAP_XMAX_INVALID) | HEAP_XMAX_IS_MULTI, true);
      });
    },
  });
  runCase({
    name: "more attributes than the table",
    scope: [WL],
    expect: ["HEAP_NATTS_EXCEEDS_DESCRIPTOR"],
    inject: () => {
      const it = liveTuple(WL, 1, (_p, dv, x) => noNulls(dv, x));
      im2(P(), it, (v) => v + 1);
    },
  });
  runCase({
    name: "tuple cut short (attribute ends beyond)",
    scope: [WL],
    expect: ["HEAP_ATTR_ENDS_BEYOND"],
    inject: () => {
      const it = liveTuple(WL, 1, (_p, _dv, x) => x.len > 64);
      d.patch(P(), 1, (_p, dv) => setLpWord(dv, it.item, makeLp(it.off, LP_NORMAL, it.len - 16)));
    },
    check: (f) => assert.ok(f.find((x) => x.code === "HEAP_ATTR_ENDS_BEYOND")!.location.attnum! >= 1),
  });
});

describe("transaction IDs", () => {
  const setXmin = (v: () => number) => (): void => {
    const it = liveTuple(WL);
    setU32(P(), it.blk, it.off + HTH.t_xmin, v());
  };
  const setXmax = (v: () => number) => (): void => {
    const it = liveTuple(WL);
    d.patch(P(), it.blk, (_p, dv) => {
      dv.setUint32(it.off + HTH.t_xmax, v(), true);
      dv.setUint16(it.off + HTH.t_infomask, dv.getUint16(it.off + HTH.t_infomask, true) & ~HEAP_XMAX_INVALID, true);
    });
  };
  runCase({ name: "xmin beyond nextXid", scope: [WL], expect: ["HEAP_XMIN_IN_FUTURE"], inject: setXmin(() => nextXid() + 1000), check: (f) => assert.match(f[0].message, /^xmin \d+ equals or exceeds next valid transaction ID 0:\d+$/) });
  runCase({ name: "xmin before oldestXid", scope: [WL], expect: ["HEAP_XMIN_BEFORE_CLUSTER_MIN"], inject: setXmin(() => 3) });
  runCase({
    name: "xmin before relfrozenxid",
    scope: [WL],
    expect: ["HEAP_XMIN_BEFORE_RELFROZENXID"],
    inject: setXmin(() => {
      assert.ok(d.rel(WL).frozenXid > oldestXid(), "relfrozenxid above oldestXid in the sample");
      return oldestXid();
    }),
  });
  runCase({ name: "xmax beyond nextXid", scope: [WL], expect: ["HEAP_XMAX_IN_FUTURE"], inject: setXmax(() => nextXid() + 5) });
  runCase({ name: "xmax before oldestXid", scope: [WL], expect: ["HEAP_XMAX_BEFORE_CLUSTER_MIN"], inject: setXmax(() => 3) });
  runCase({ name: "xmax before relfrozenxid", scope: [WL], expect: ["HEAP_XMAX_BEFORE_RELFROZENXID"], inject: setXmax(() => oldestXid()) });
});

describe("HOT chains", () => {
  const A = "accounts";
  runCase({
    name: "HOT update whose successor is not heap-only",
    scope: [A],
    expect: ["HEAP_HOT_UPDATE_MADE_NON_HOT"],
    opts: NO_HAI,
    inject: () => {
      const h = hotPair(A);
      d.patch(d.path(A), h.blk, (_p, dv) => {
        const t = lpOff(lpWord(dv, h.succ));
        dv.setUint16(t + HTH.t_infomask2, dv.getUint16(t + HTH.t_infomask2, true) & ~HEAP_ONLY_TUPLE, true);
      });
    },
  });
  runCase({
    name: "heap-only successor of a tuple not marked HOT-updated (and heapallindexed loses its root)",
    scope: [A],
    expect: ["HEAP_NON_HOT_UPDATE_MADE_HOT", "BT_HOT_ROOT_MISSING"],
    inject: () => {
      const h = hotPair(A);
      im2(d.path(A), h.pred, (v) => v & ~HEAP_HOT_UPDATED);
    },
  });
  runCase({
    name: "a standalone tuple marked heap-only",
    scope: [A],
    expect: ["HEAP_CHAIN_ROOT_IS_HEAP_ONLY"],
    opts: NO_HAI,
    inject: () => {
      const it = liveTuple(A, 2);
      d.patch(d.path(A), 2, (_p, dv) => {
        dv.setUint16(it.off + HTH.t_infomask2, dv.getUint16(it.off + HTH.t_infomask2, true) | HEAP_ONLY_TUPLE, true);
        dv.setUint16(it.off + HTH.t_infomask, dv.getUint16(it.off + HTH.t_infomask, true) | HEAP_UPDATED, true);
      });
    },
  });
  runCase({
    name: "heap-only tuple not marked as an update's result",
    scope: [A],
    expect: ["HEAP_ONLY_NOT_UPDATED"],
    inject: () => {
      const h = hotPair(A);
      d.patch(d.path(A), h.blk, (_p, dv) => {
        const t = lpOff(lpWord(dv, h.succ));
        dv.setUint16(t + HTH.t_infomask, dv.getUint16(t + HTH.t_infomask, true) & ~HEAP_UPDATED, true);
      });
    },
  });
  runCase({
    name: "two redirects to the same heap-only tuple",
    scope: [A],
    expect: ["HEAP_REDIRECT_CHAINS_INTERSECT"],
    opts: NO_HAI,
    inject: () => d.patch(d.path(A), 0, (_p, dv) => appendLp(dv, makeLp(lpOff(lpWord(dv, firstOf(A, 0, LP_REDIRECT))), LP_REDIRECT, 0))),
  });
  runCase({
    name: "redirect to a tuple that is not heap-only",
    scope: [A],
    expect: ["HEAP_REDIRECT_TO_NON_HOT"],
    opts: NO_HAI,
    inject: () => {
      const it = liveTuple(A, 0);
      d.patch(d.path(A), 0, (_p, dv) => appendLp(dv, makeLp(it.item, LP_REDIRECT, 0)));
    },
  });
});

describe("plain TOAST", () => {
  const T = "toast_docs";
  const C = "compressed_docs";
  const BODY = 4;
  const multi = (raw: number, ext: number): boolean => ext > 4 * 1996 && ext === raw - 4;
  runCase({ name: "pointer with an unknown vartag", scope: [T], expect: ["HEAP_TOAST_BAD_TAG"], inject: () => { const p = pointer(T, BODY); d.patch(d.path(T), p.it.blk, (pg) => void (pg[p.at + 1] = 20)); } });
  runCase({ name: "pointer without HEAP_HASEXTERNAL", scope: [T], expect: ["HEAP_EXTERNAL_WITHOUT_FLAG"], inject: () => { const p = pointer(T, BODY); im(d.path(T), p.it, (v) => v & ~HEAP_HASEXTERNAL); } });
  runCase({ name: "va_rawsize over the limit", scope: [T], expect: ["TOAST_RAWSIZE_TOO_LARGE"], inject: () => { const p = pointer(T, BODY); setU32(d.path(T), p.it.blk, p.at + 2, 0x40000000); } });
  runCase({ name: "stored size above the raw size", scope: [T], expect: ["TOAST_EXTSIZE_EXCEEDS_RAWSIZE"], inject: () => { const p = pointer(T, BODY, multi); setU32(d.path(T), p.it.blk, p.at + 2, p.extsize + 4 - 100); } });
  runCase({ name: "pointer naming another TOAST relation", scope: [T], expect: ["TOAST_POINTER_BAD_RELID"], inject: () => { const p = pointer(T, BODY); setU32(d.path(T), p.it.blk, p.at + 14, 1); } });
  runCase({ name: "value missing from the TOAST table", scope: [T], expect: ["TOAST_VALUE_MISSING"], inject: () => { const p = pointer(T, BODY); setU32(d.path(T), p.it.blk, p.at + 10, p.valueId + 7_000_000); }, check: (f) => assert.match(f[0].message, /^toast value \d+ not found in toast table$/) });
  runCase({
    name: "missing middle chunk",
    scope: [T],
    expect: ["TOAST_CHUNK_UNEXPECTED_SEQ"],
    inject: () => {
      const p = pointer(T, BODY, multi);
      const c = chunk(T, p.valueId, 1);
      d.patch(d.path(d.toastOf(T)), c.blk, (_pg, dv) => setLpWord(dv, c.item, 0));
    },
    check: (f) => assert.match(f[0].message, /^toast value \d+ index scan returned chunk 2 when expecting chunk 1$/),
  });
  runCase({
    name: "missing last chunk",
    scope: [T],
    expect: ["TOAST_VALUE_TRUNCATED"],
    inject: () => {
      const p = pointer(T, BODY, multi);
      const c = chunk(T, p.valueId, Math.floor((p.extsize - 1) / 1996));
      d.patch(d.path(d.toastOf(T)), c.blk, (_pg, dv) => setLpWord(dv, c.item, 0));
    },
  });
  runCase({
    name: "duplicated chunk",
    scope: [T],
    expect: ["TOAST_CHUNK_UNEXPECTED_SEQ"],
    opts: NO_HAI, // the copy has no TOAST index entry
    inject: () => {
      const p = pointer(T, BODY, multi);
      const c = chunk(T, p.valueId, 1);
      const tpath = d.path(d.toastOf(T));
      const last = d.nblocks(tpath) - 1;
      const src = d.page(tpath, c.blk).slice(c.off, c.off + c.len);
      d.patch(tpath, last, (pg, dv) => {
        const upper = dv.getUint16(14, true) - ((c.len + 7) & ~7);
        assert.ok(upper >= dv.getUint16(12, true) + 4, "room for the copy");
        pg.set(src, upper);
        dv.setUint16(14, upper, true);
        appendLp(dv, makeLp(upper, LP_NORMAL, c.len));
      });
    },
  });
  runCase({
    name: "chunk resized",
    scope: [T],
    expect: ["TOAST_CHUNK_BAD_SIZE"],
    inject: () => {
      const p = pointer(T, BODY, multi);
      const c = chunk(T, p.valueId, 1);
      d.patch(d.path(d.toastOf(T)), c.blk, (_pg, dv) => dv.setUint32(c.off + 32, ((1996 - 8 + 4) << 2) >>> 0, true));
    },
    check: (f) => assert.match(f[0].message, /chunk 1 has size 1988, but expected size 1996$/),
  });
  runCase({
    name: "chunk renumbered past the end",
    scope: [T],
    expect: ["TOAST_CHUNK_UNEXPECTED_SEQ", "TOAST_CHUNK_EXTRA"],
    opts: NO_HAI,
    inject: () => {
      const p = pointer(T, BODY, multi);
      const last = Math.floor((p.extsize - 1) / 1996);
      const c = chunk(T, p.valueId, last);
      d.patch(d.path(d.toastOf(T)), c.blk, (_pg, dv) => dv.setInt32(c.off + 28, last + 1, true));
    },
  });
  runCase({
    name: "chunk with NULL data",
    scope: [T],
    expect: ["TOAST_CHUNK_NULL_DATA"],
    inject: () => {
      const p = pointer(T, BODY, multi);
      const c = chunk(T, p.valueId, 1);
      d.patch(d.path(d.toastOf(T)), c.blk, (pg, dv) => {
        dv.setUint16(c.off + HTH.t_infomask, dv.getUint16(c.off + HTH.t_infomask, true) | HEAP_HASNULL, true);
        pg[c.off + 23] = 0x03;
      });
    },
  });
  runCase({
    name: "chunk data with a compressed varlena header",
    scope: [T],
    expect: ["TOAST_CHUNK_BAD_VARLENA"],
    inject: () => {
      const p = pointer(T, BODY, multi);
      const c = chunk(T, p.valueId, 1);
      d.patch(d.path(d.toastOf(T)), c.blk, (pg) => void (pg[c.off + 32] |= 0x02));
    },
  });
  runCase({
    name: "reordered chunks of a compressed value",
    scope: [C],
    expect: ["TOAST_DECOMPRESS_FAILED", "TOAST_RAWSIZE_MISMATCH"],
    oneOf: true,
    opts: NO_HAI,
    inject: () => {
      const p = pointer(C, 5, (raw, ext) => ext < raw - 4 && ext > 3 * 1996);
      const a = chunk(C, p.valueId, 1);
      const b = chunk(C, p.valueId, 2);
      const tpath = d.path(d.toastOf(C));
      d.patch(tpath, a.blk, (_pg, dv) => dv.setInt32(a.off + 28, 2, true));
      d.patch(tpath, b.blk, (_pg, dv) => dv.setInt32(b.off + 28, 1, true));
    },
  });
  runCase({
    name: "corrupt pglz bytes in a TOASTed value",
    scope: [C],
    expect: ["TOAST_DECOMPRESS_FAILED"],
    inject: () => {
      const p = pointer(C, 5, (raw, ext) => ext < raw - 4);
      const c = chunk(C, p.valueId, 0);
      d.patch(d.path(d.toastOf(C)), c.blk, (pg) => pg.fill(0xff, c.off + 36 + 4, c.off + 36 + 12));
    },
    check: (f) => assert.equal(f[0].location.attnum, 5),
  });
  runCase({
    name: "corrupt pglz bytes inline",
    scope: [C],
    expect: ["TOAST_DECOMPRESS_FAILED"],
    inject: () => {
      const v = inlineCompressed(C, 5);
      d.patch(d.path(C), v.it.blk, (pg) => pg.fill(0xff, v.at + 8, v.at + 16));
    },
  });
  runCase({
    name: "corrupt lz4 bytes inline",
    scope: [C],
    expect: ["TOAST_DECOMPRESS_FAILED"],
    inject: () => {
      const v = inlineCompressed(C, 6);
      d.patch(d.path(C), v.it.blk, (pg) => pg.fill(0xff, v.at + 8, v.at + 24));
    },
    check: (f) => assert.equal(f[0].location.attnum, 6),
  });
  runCase({ name: "raw size of a compressed value off by one", scope: [C], expect: ["TOAST_RAWSIZE_MISMATCH"], inject: () => { const p = pointer(C, 6, (raw, ext) => ext < raw - 4); setU32(d.path(C), p.it.blk, p.at + 2, p.rawsize + 1); } });
  runCase({ name: "invalid compression method of a TOASTed value", scope: [C], expect: ["TOAST_BAD_COMPRESSION_METHOD"], inject: () => { const p = pointer(C, 5, (raw, ext) => ext < raw - 4); setU32(d.path(C), p.it.blk, p.at + 6, (p.extsize | (2 << 30)) >>> 0); } });
});

describe("B-tree", () => {
  const PK = "web_links_pkey";
  const K = (): string => d.path(PK);
  const setKey = (blk: number, item: number, v: number): void =>
    d.patch(K(), blk, (_p, dv) => {
      const off = lpOff(lpWord(dv, item));
      dv.setBigInt64(off + 8, BigInt(v), true);
    });
  const rootBlk = (): number => pageView(d.page(K(), 0)).getUint32(24 + 8, true);
  runCase({ name: "swapped keys (item order)", scope: [WL], expect: ["BT_ITEM_ORDER"], inject: () => d.patch(K(), leafPages(d, PK)[0], (_p, dv) => { const a = lpWord(dv, 5); setLpWord(dv, 5, lpWord(dv, 6)); setLpWord(dv, 6, a); }), check: (f) => assert.match(f[0].detail!, /^Lower index tid=\(1,5\) \(points to heap tid=\(\d+,\d+\)\) higher index tid=\(1,6\)/) });
  runCase({ name: "swapped keys found by no search from the root (--rootdescend)", scope: [WL], expect: ["BT_ITEM_ORDER", "BT_ROOTDESCEND_NOT_FOUND"], opts: { rootdescend: true }, inject: () => d.patch(K(), leafPages(d, PK)[0], (_p, dv) => { const a = lpWord(dv, 5); setLpWord(dv, 5, lpWord(dv, 6)); setLpWord(dv, 6, a); }) });
  runCase({
    name: "bad high key (items above it)",
    scope: [WL],
    expect: ["BT_HIGHKEY_VIOLATED"],
    inject: () => {
      const leaf = leafPages(d, PK)[0];
      setKey(leaf, 1, 100);
      setKey(rootBlk(), 2, 100);
    },
  });
  runCase({ name: "child high key differs from the parent's separator", scope: [WL], expect: ["BT_PARENT_HIGHKEY_MISMATCH"], inject: () => setKey(leafPages(d, PK)[0], 1, Number(pageView(d.page(K(), leafPages(d, PK)[0])).getBigInt64(lpOff(lpWord(pageView(d.page(K(), leafPages(d, PK)[0])), 1)) + 8, true)) + 1) });
  runCase({
    name: "separator above the child's items (down-link lower bound)",
    scope: [WL],
    expect: ["BT_DOWNLINK_LOWER_BOUND"],
    inject: () => {
      const leaves = leafPages(d, PK);
      const second = pageView(d.page(K(), leaves[1]));
      const v = Number(second.getBigInt64(lpOff(lpWord(second, 3)) + 8, true)) + 2; // above a few of the child's first items
      setKey(leaves[0], 1, v);
      setKey(rootBlk(), 2, v);
    },
  });
  runCase({
    name: "last item above the right sibling's first (cross page)",
    scope: [WL],
    expect: ["BT_CROSS_PAGE_ORDER", "BT_DOWNLINK_LOWER_BOUND"],
    opts: NO_HAI,
    inject: () => {
      const leaves = leafPages(d, PK);
      const first = pageView(d.page(K(), leaves[1]));
      const v = Number(first.getBigInt64(lpOff(lpWord(first, 2)) + 8, true)) - 10;
      setKey(leaves[1], 2, v);
    },
  });
  let loopAt = -1;
  runCase({
    name: "right link back to the left neighbour (a two-page loop)",
    scope: [WL],
    // the level walk meets block 2 again; the loop also hides the pages after it from their parent
    expect: ["BT_CIRCULAR_LINK", "BT_LEAF_LACKS_DOWNLINK", "BT_PARENT_HIGHKEY_MISMATCH"],
    opts: NO_HAI,
    inject: () => {
      const leaves = leafPages(d, PK);
      loopAt = leaves[1];
      setU32(K(), leaves[2], BLCKSZ - 12, leaves[1]);
    },
    // (leafPages would follow the loop: the block is kept from before the damage)
    check: (f) => assert.ok(f.some((x) => x.message === `circular link chain found in block ${loopAt} of index "web_links_pkey"`)),
  });
  runCase({ name: "broken left link", scope: [WL], expect: ["BT_SIBLING_MISMATCH"], inject: () => { const leaves = leafPages(d, PK); setU32(K(), leaves[1], BLCKSZ - 16, leaves[3]); }, check: (f) => assert.match(f[0].message, /^left link\/right link pair in index "web_links_pkey" not in agreement$/) });
  runCase({
    name: "posting list out of order",
    scope: [WL],
    expect: ["BT_POSTING_MISPLACED_TID"],
    inject: () => {
      const ix = d.path("web_links_status_idx");
      const it = d.item(ix, (p, dv, x) => x.blk !== 0 && (dv.getUint16(x.off + 6, true) & 0x2000) !== 0 && (dv.getUint16(x.off + 4, true) & 0x2000) !== 0);
      d.patch(ix, it.blk, (pg, dv) => {
        const po = it.off + dv.getUint16(it.off + 2, true);
        const a = pg.slice(po, po + 6);
        pg.copyWithin(po, po + 6, po + 12);
        pg.set(a, po + 6);
      });
    },
  });
  runCase({ name: "index tuple size differs from lp_len", scope: [WL], expect: ["BT_TUPLE_SIZE_LP_LEN"], inject: () => d.patch(K(), leafPages(d, PK)[0], (_p, dv) => setLpWord(dv, 10, makeLp(lpOff(lpWord(dv, 10)), LP_NORMAL, 8))) });
  runCase({ name: "leaf tuple flagged as a pivot (attribute count)", scope: [WL], expect: ["BT_TUPLE_NATTS"], opts: NO_HAI, inject: () => d.patch(K(), leafPages(d, PK)[0], (_p, dv) => { const off = lpOff(lpWord(dv, 10)); dv.setUint16(off + 6, dv.getUint16(off + 6, true) | 0x2000, true); }) });
  runCase({ name: "unused line pointer in an index", scope: [WL], expect: ["BT_LP_INVALID_STORAGE"], opts: NO_HAI, inject: () => d.patch(K(), leafPages(d, PK)[0], (_p, dv) => setLpWord(dv, 10, lpWord(dv, 10) & ~(3 << 15))) });
  runCase({ name: "index item past the tuple space", scope: [WL], expect: ["LP_OUTSIDE_ITEM_AREA"], opts: NO_HAI, inject: () => d.patch(K(), leafPages(d, PK)[0], (_p, dv) => setLpWord(dv, 10, makeLp(8176, LP_NORMAL, 16))), check: (f) => assert.match(f[0].message, /^line pointer points past end of tuple space in index "web_links_pkey"$/) });
  runCase({ name: "root without BTP_ROOT", scope: [WL], expect: ["BT_NOT_TRUE_ROOT"], inject: () => d.patch(K(), rootBlk(), (_p, dv) => dv.setUint16(BLCKSZ - 4, dv.getUint16(BLCKSZ - 4, true) & ~2, true)) });
  runCase({ name: "internal page with BTP_HAS_GARBAGE", scope: [WL], expect: ["BT_INTERNAL_HAS_GARBAGE"], inject: () => d.patch(K(), rootBlk(), (_p, dv) => dv.setUint16(BLCKSZ - 4, dv.getUint16(BLCKSZ - 4, true) | 0x40, true)) });
  runCase({ name: "BTP_HAS_FULLXID on a live page", scope: [WL], expect: ["BT_FULLXID_NOT_DELETED"], inject: () => d.patch(K(), leafPages(d, PK)[1], (_p, dv) => dv.setUint16(BLCKSZ - 4, dv.getUint16(BLCKSZ - 4, true) | 0x100, true)) });
  runCase({ name: "leaf page with a non-zero level", scope: [WL], expect: ["BT_LEAF_LEVEL_NONZERO"], inject: () => setU32(K(), leafPages(d, PK)[1], BLCKSZ - 8, 1) });
  runCase({ name: "internal page at level 0", scope: [WL], expect: ["BT_INTERNAL_LEVEL_ZERO"], inject: () => setU32(K(), rootBlk(), BLCKSZ - 8, 0) });
  runCase({ name: "metapage magic", scope: [WL], expect: ["BT_META_CORRUPT"], inject: () => setU32(K(), 0, 24, BTREE_MAGIC ^ 0xff) });
  runCase({ name: "metapage version", scope: [WL], expect: ["BT_META_VERSION"], inject: () => setU32(K(), 0, 28, 9) });
  runCase({
    name: "zeroed leaf page reached by the walk",
    scope: [WL],
    expect: ["BT_ZERO_PAGE"],
    opts: NO_HAI,
    inject: () => {
      const blk = leafPages(d, PK)[1];
      d.patch(K(), blk, (pg) => pg.fill(0), true);
    },
  });
  runCase({
    name: "heap key changed behind the index's back (heapallindexed)",
    scope: [WL],
    expect: ["BT_HEAP_TUPLE_NOT_INDEXED"],
    inject: () => {
      const it = liveTuple(WL, 2);
      d.patch(P(), 2, (_p, dv) => dv.setBigInt64(it.off + 24, dv.getBigInt64(it.off + 24, true) + 100000n, true));
    },
    check: (f) => {
      const x = f.find((y) => /^heap tuple \(2,\d+\) from table "web_links" lacks matching index tuple within index "web_links_pkey"$/.test(y.message));
      assert.ok(x);
      // under the index's heading and located in the index; the heap tuple's place in the detail
      assert.deepEqual(x.location, { file: K() });
      assert.match(x.detail!, new RegExp(`Heap tuple: block 2, offset \\d+ of ${P()}\\.$`));
    },
  });
});

describe("BTP_PREFIX leaves", () => {
  const URL_IDX = "web_links_url_idx";
  let coded: number[] = [];
  const recodeAll = (): void => {
    const path = d.path(URL_IDX);
    coded = [];
    for (const blk of leafPages(d, URL_IDX)) {
      const r = recodeLeafPage(d.page(path, blk));
      if (r.coded) {
        d.writeBlocks(path, blk, [r.page]);
        coded.push(blk);
      }
    }
    assert.ok(coded.length > 10, `most url leaves recode (got ${coded.length})`);
  };
  const dirOf = (dv: DataView): number => lpOff(lpWord(dv, dv.getUint32(BLCKSZ - 12, true) === 0 ? 1 : 2));
  runCase({ name: "recoded leaves verify clean", scope: [WL], expect: [], inject: recodeAll });
  runCase({ name: "prefix directory magic", scope: [WL], expect: ["PREFIX_DIR_BAD_MAGIC"], opts: NO_HAI, inject: () => { recodeAll(); d.patch(d.path(URL_IDX), coded[0], (_p, dv) => dv.setUint16(dirOf(dv) + 8, 0x1234, true)); } });
  runCase({ name: "prefix directory T", scope: [WL], expect: ["PREFIX_DIR_T_MISMATCH"], inject: () => { recodeAll(); d.patch(d.path(URL_IDX), coded[1], (_p, dv) => dv.setUint32(dirOf(dv) + 16, dv.getUint32(dirOf(dv) + 16, true) + 8, true)); } });
  runCase({
    name: "coded item naming a group beyond the directory",
    scope: [WL],
    expect: ["PREFIX_ITEM_GROUP_RANGE"],
    opts: NO_HAI,
    inject: () => {
      recodeAll();
      d.patch(d.path(URL_IDX), coded[2], (_p, dv) => {
        const first = dv.getUint32(BLCKSZ - 12, true) === 0 ? 2 : 3;
        dv.setUint16(lpOff(lpWord(dv, first)) + 8, 999, true);
      });
    },
  });
});
