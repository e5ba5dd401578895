// Convert one btree index file in place (in the output copy) between plain and BTP_PREFIX leaves
// (new-formats.md §2.6): `recode` rewrites each leaf page alone, 1:1; `rebuild` streams the leaf
// tuples in key order (LP_DEAD dropped) and lays the index out as CREATE INDEX would, coded or
// plain. Files are replaced through RelationWriter (temporary name, then rename); a rebuild
// removes the index's FSM fork. Every BTP_PREFIX page written is decoded again before it is kept.
import { FormatError } from "../../formats/schema/errors.js";
import { existingSegments, RelationFork, scanBlocks, type Geometry } from "../../formats/storage/relfile.js";
import { RelationWriter } from "../../formats/storage/relwriter.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../../formats/page/page.js";
import { lpOff } from "../../formats/page/item-id.js";
import { BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF, BTP_META, BTP_PREFIX, pFirstDataKey, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { BTREE_VERSION } from "../../formats/nbtree/meta.js";
import { readBtreeMeta, leafTuples } from "../../formats/nbtree/reader.js";
import { buildBtree, type LeafPageStat } from "../../formats/nbtree/build.js";
import { decodeToPlainPage, readPrefixLeafPage, recodeLeafPage } from "../../formats/nbtree/prefix-page.js";
import { prefixPolicyLead, type PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";
import { computeTM } from "../../formats/nbtree/prefix.js";
import { INDEX_SIZE_MASK, tInfoRaw } from "../../formats/nbtree/index-tuple.js";
import { OrderedPageSink } from "./page-sink.js";
import type { BtreeIndexInfo } from "./index-info.js";
import type { ClusterOwner } from "../file-owner.js";
import { forkBytes } from "../plan.js";
import { StagedBuilder, type StagedSwitch } from "../staged.js";

export type TargetFormat = "prefix" | "plain";
export type ConvertMode = "recode" | "rebuild";

export interface ConvertOptions {
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
  geometry: Geometry;
  checksums: boolean;
  /** owner and mode of every file written */
  owner: ClusterOwner;
  /** fsync the files written before they are switched (default true; false: --no-sync) */
  fsync?: boolean;
  /** progress lines (stderr in the CLI) */
  progress?: (message: string) => void;
}

/** Buckets of per-page savings (1 - C/T): "plain" (left uncoded), then 0-10%, 10-20%, ... 90-100%. */
export const SAVINGS_BUCKETS = ["plain", "0-10%", "10-20%", "20-30%", "30-40%", "40-50%", "50-60%", "60-70%", "70-80%", "80-90%", "90-100%"] as const;

export interface IndexConversion {
  index: string;
  oid: number;
  table: string;
  mode: ConvertMode;
  to: TargetFormat;
  policy: PrefixPolicyName | null;
  pagesBefore: number;
  pagesAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  leafPagesBefore: number;
  leafPages: number;
  leafCoded: number;
  leafPlain: number;
  /** groups over all coded pages */
  groups: number;
  /** bytes the coded leaf pages' items (with line pointers, directory counted) take less than uncoded */
  bytesShared: number;
  /** leaf pages per SAVINGS_BUCKETS entry */
  savingsHistogram: number[];
  heapTids: number;
  fsmRemoved: boolean;
  /** high keys that kept more than PostgreSQL might (a key type compared only by image); REINDEX may differ there */
  uncertainPivots: number;
  uncertainColumns: string[];
  notes: string[];
  seconds: number;
}


const bucketOf = (T: number, C: number, coded: boolean): number => {
  if (!coded || T <= 0) return 0;
  const saving = Math.max(0, 1 - C / T);
  return 1 + Math.min(9, Math.floor(saving * 10));
};

/** Check a BTP_PREFIX page we are about to keep: it decodes, and every §2.5 invariant holds. */
export function selfCheck(page: Uint8Array, blk: number, index: string): number {
  const r = readPrefixLeafPage(page, { btmVersion: BTREE_VERSION });
  if (r.findings.length) {
    const f = r.findings[0]!;
    throw new FormatError("PREFIX_SELF_CHECK_FAILED", `${index}: coded block ${blk} fails ${f.code}: ${f.message} (pgdisk bug; nothing was written)`, { block: blk });
  }
  return r.directory.groups.length;
}

/** One index's conversion, staged (migrate/staged.ts): the new file under its temporary name, the switch renames it in and removes the FSM of a rebuild. */
export interface StagedIndex {
  result: IndexConversion;
  staged: StagedSwitch;
}

/** Convert one index file (segment 0 at `path`), staged. */
export function convertIndex(info: BtreeIndexInfo, path: string, o: ConvertOptions): StagedIndex {
  const t0 = performance.now();
  const fork = new RelationFork(path, o.geometry);
  const meta = (() => {
    try {
      return readBtreeMeta(fork);
    } catch (e) {
      fork.close();
      throw e instanceof FormatError ? e.at({ file: path }) : e;
    }
  })();
  const r: IndexConversion = {
    index: info.name,
    oid: info.rel.oid,
    table: info.tableName,
    mode: o.mode,
    to: o.to,
    policy: o.to === "prefix" ? o.policy : null,
    pagesBefore: fork.nblocks,
    pagesAfter: 0,
    bytesBefore: forkBytes(path),
    bytesAfter: 0,
    leafPagesBefore: 0,
    leafPages: 0,
    leafCoded: 0,
    leafPlain: 0,
    groups: 0,
    bytesShared: 0,
    savingsHistogram: SAVINGS_BUCKETS.map(() => 0),
    heapTids: 0,
    fsmRemoved: false,
    uncertainPivots: 0,
    uncertainColumns: info.uncertainColumns,
    notes: [],
    seconds: 0,
  };
  if (meta.btm_version < BTREE_VERSION) {
    fork.close();
    throw new FormatError("BT_VERSION_TOO_OLD", `${info.name} is a btree version ${meta.btm_version} index (from before PostgreSQL 12); REINDEX it on the server first`, { file: path, block: 0 });
  }
  const allequalimage = info.index.natts === info.index.nkeyatts && info.spec.eq.every((k) => k === "image");
  if (allequalimage !== meta.btm_allequalimage) r.notes.push(`btm_allequalimage is ${meta.btm_allequalimage} in the input but the opclasses say ${allequalimage}; the rebuild writes ${allequalimage}`);
  const lead = prefixPolicyLead(o.policy);
  const staged = new StagedBuilder();
  const tick = progressTicker(o.progress, info.name);
  try {
    if (o.mode === "rebuild") rebuild();
    else recode();
  } finally {
    fork.close();
  }
  r.seconds = (performance.now() - t0) / 1000;
  return { result: r, staged: staged.done() };

  function countLeafPage(s: Pick<LeafPageStat, "coded" | "plainBytes" | "codedBytes">, groups: number): void {
    r.leafPages++;
    if (s.coded) {
      r.leafCoded++;
      r.groups += groups;
      r.bytesShared += s.plainBytes - s.codedBytes;
    } else r.leafPlain++;
    r.savingsHistogram[bucketOf(s.plainBytes, s.codedBytes, s.coded)]!++;
  }

  function rebuild(): void {
    const sink = new OrderedPageSink(path, o.geometry, o.checksums, o.owner, undefined, o.fsync ?? true);
    let leafSeen = 0;
    const tuples = (function* () {
      for (const lt of leafTuples(fork, { expandPostings: true, onPage: () => void leafSeen++ })) yield lt.tuple;
    })();
    const checked = (blk: number, page: Uint8Array): void => {
      if (o.to === "prefix") {
        const fl = readBTOpaque(pageView(page)).btpo_flags;
        if (fl & BTP_PREFIX) selfCheck(page, blk, info.name);
      }
      sink.put(blk, page);
    };
    try {
      const res = buildBtree(
        tuples,
        {
          blcksz: o.geometry.blockSize,
          spec: info.spec,
          leafFillfactor: info.fillfactor,
          deduplicate: allequalimage && !info.index.unique && info.deduplicateItems,
          allequalimage,
          prefix: o.to === "prefix" ? { policy: lead } : null,
        },
        checked,
        (s) => {
          countLeafPage(s, s.groups);
          tick(r.leafPages, leafSeen, "leaf pages written");
        },
      );
      r.leafPagesBefore = leafSeen;
      r.heapTids = res.heapTids;
      r.uncertainPivots = res.uncertainPivots;
      fork.close();
      const st = sink.stage();
      r.pagesAfter = st.n;
      r.bytesAfter = staged.add(st);
    } catch (e) {
      sink.dispose();
      throw e instanceof FormatError ? e.at({ file: e.location.file ?? path }) : e;
    }
    const fsm = existingSegments(`${path}_fsm`);
    for (const f of fsm) staged.remove(f);
    r.fsmRemoved = fsm.length > 0;
    if (r.uncertainPivots) r.notes.push(`${r.uncertainPivots} high keys were kept longer than PostgreSQL might keep them: column(s) ${info.uncertainColumns.join(", ")} compare by image only; the index is valid but may differ from REINDEX there`);
  }

  function recode(): void {
    if (o.to === "prefix" && meta.btm_version !== BTREE_VERSION) throw new FormatError("PREFIX_BAD_VERSION", `BTP_PREFIX needs btm_version 4`, { file: path });
    const w = new RelationWriter(path, { geometry: o.geometry, checksums: o.checksums, owner: o.owner, fsync: o.fsync });
    try {
      for (const [blk, page] of scanBlocks(fork)) {
        const dv = pageView(page);
        const fl = pageIsNew(dv) ? 0 : readBTOpaque(dv).btpo_flags;
        const liveLeaf = blk !== 0 && !pageIsNew(dv) && fl & BTP_LEAF && !(fl & (BTP_DELETED | BTP_HALF_DEAD | BTP_META));
        if (!liveLeaf) {
          w.appendVerbatim(page);
          continue;
        }
        r.leafPagesBefore++;
        if (o.to === "prefix") {
          if (fl & BTP_PREFIX) {
            const p = readPrefixLeafPage(page, { btmVersion: meta.btm_version });
            countLeafPage({ coded: true, plainBytes: p.T, codedBytes: p.C }, p.directory.groups.length);
            w.appendVerbatim(page);
          } else {
            const rc = recodeLeafPage(page, lead);
            const groups = rc.coded ? selfCheck(rc.page, blk, info.name) : 0;
            const T = rc.T || computeTM(plainSizes(page)).T;
            countLeafPage({ coded: rc.coded, plainBytes: T, codedBytes: rc.coded ? rc.C : T }, groups);
            w.append(rc.page);
          }
        } else if (fl & BTP_PREFIX) {
          let plain: Uint8Array | null;
          try {
            plain = decodeToPlainPage(page);
          } catch (e) {
            throw e instanceof FormatError ? e.at({ file: path, block: blk }) : e;
          }
          if (!plain) throw new FormatError("PREFIX_RECODE_DOES_NOT_FIT", `${info.name}: the decoded items of block ${blk} do not fit one page; convert with --mode rebuild`, { file: path, block: blk });
          countLeafPage({ coded: false, plainBytes: 0, codedBytes: 0 }, 0);
          w.append(plain);
        } else {
          countLeafPage({ coded: false, plainBytes: 0, codedBytes: 0 }, 0);
          w.appendVerbatim(page);
        }
        tick(r.leafPagesBefore, fork.nblocks, "pages recoded");
      }
      const st = w.stage();
      r.pagesAfter = w.nblocks;
      r.bytesAfter = staged.add(st);
    } catch (e) {
      w.abort();
      throw e;
    }
  }
}

/** Item sizes of a plain leaf page's data items (for T on pages left plain). */
function plainSizes(page: Uint8Array): number[] {
  const dv = pageView(page);
  const out: number[] = [];
  for (let i = pFirstDataKey(readBTOpaque(dv)); i <= maxOffsetNumber(dv); i++) {
    const off = lpOff(itemIdWord(dv, i));
    out.push(tInfoRaw(page.subarray(off, off + 8)) & INDEX_SIZE_MASK);
  }
  return out;
}

/** Progress at most every 2 seconds. */
function progressTicker(progress: ((m: string) => void) | undefined, name: string): (done: number, total: number, what: string) => void {
  let last = performance.now();
  return (done, total, what) => {
    if (!progress) return;
    const now = performance.now();
    if (now - last < 2000) return;
    last = now;
    progress(`${name}: ${done}${total ? ` of ~${total}` : ""} ${what}`);
  };
}
