// verify_heapam for a stopped cluster: every page of a heap relation (tables, TOAST relations,
// catalogs), every line pointer and tuple. Per tuple, in amcheck's order: header, visibility
// and XID horizons (which decide whether the attributes can be trusted), the attribute walk
// with the catalog descriptor, TOAST pointers. Per page after the tuples: the update-chain
// checks (PG16+ amcheck), then the TOAST values of the page's unprunable tuples. Reads go
// through one DataView per page; tuples allocate nothing unless they are reported.
import type { Location, Severity } from "../../formats/schema/errors.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import { alignBytes } from "../../formats/heap/descriptor.js";
import { HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_MOVED_IN, HEAP_MOVED_OFF, HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, HEAP_UPDATED, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_HOT_UPDATED } from "../../formats/heap/tuple-header.js";
import { LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord } from "../../formats/page/page.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import { scanPages } from "../scan.js";
import type { FindingSink } from "../findings.js";
import { checkPage, type PageVerdict } from "../page-check.js";
import { checkDecompresses, checkPlainValue } from "../toast/plain-check.js";
import { checkDirectPointer, checkDirectValue, checkUnreachable, claimValue, DirectState, type DirectPointer } from "../toast/direct-check.js";
import type { ToastRelation } from "../toast/toast-rel.js";
import type { MultiXactReader } from "./multixact.js";
import { Bounds, Commit, fxidText, type XidContext } from "./xid.js";
import { ctidBlock, ctidOffset, isHotUpdated, T_BITS, T_FIELD3, T_HOFF, T_INFOMASK, T_INFOMASK2, T_XMAX, tupleXmin, xmaxLockedOnly, xminHintCommitted, xminHintInvalid } from "./tuple-walk.js";
import { viewOf } from "../page-view.js";
import type { CheckCode } from "../../formats/codes/checks.js";
import { DIRECT_POINTER_SIZE, readDirectPointerFields, readExternalPointerFields, TOAST_POINTER_SIZE, VARLENA_EXTSIZE_MASK } from "../../formats/varlena/toast-pointer.js";
import { VARHDRSZ, VARTAG_DIRECT, VARTAG_ONDISK } from "../../formats/varlena/varlena.js";
import { u32At } from "../../formats/schema/bytes.js";

export interface HeapTarget {
  fork: RelationFork;
  /** "db.schema.name", for messages */
  relName: string;
  relOid: number;
  /** catalog descriptor; null for a lone file (no attribute walk) */
  desc: TupleDesc | null;
  /** XID context; null for a lone file (no horizon or commit checks) */
  xids: XidContext | null;
  multixact: MultiXactReader | null;
  /** pg_class.reltoastrelid (0: none) */
  toastRelid: number;
  /** the TOAST relation, when TOAST values are checked */
  toast: ToastRelation | null;
  blockSize: number;
  checksums: boolean;
  checksumSeverity?: Severity;
  /** decompress compressed values (inline and external) */
  decompress: boolean;
  /** pages done, for progress (one function for the whole run: a closure per relation, inlined into the scan, deoptimised it when it died) */
  onPages?: (n: number) => void;
  /** every page as read, before any check: a TOAST relation's chunk map is built from them */
  feed?: PageFeed;
  /** ... and the heapallindexed probes of the table's indexes run on them */
  probe?: PageFeed;
}

/** Something fed the pages of a scan in order (an object with a method, not a closure per relation: see onPages). */
export interface PageFeed {
  page(blkno: number, page: Uint8Array): void;
}

export interface HeapStats {
  pages: number;
  tuples: number;
  toastValues: number;
}

interface ToastRef {
  kind: "plain" | "direct";
  where: Location;
  plain?: { valueId: number; rawsize: number; extsize: number; compressed: boolean };
  direct?: DirectPointer;
}

const MAX_ITEMS = 2048;

export class HeapVerifier {
  readonly stats: HeapStats = { pages: 0, tuples: 0, toastValues: 0 };
  private readonly lpValid = new Uint8Array(MAX_ITEMS + 1);
  private readonly successor = new Uint16Array(MAX_ITEMS + 1);
  private readonly predecessor = new Uint16Array(MAX_ITEMS + 1);
  private readonly xminOk = new Uint8Array(MAX_ITEMS + 1);
  private readonly xminStatus = new Uint8Array(MAX_ITEMS + 1);
  private toastRefs: ToastRef[] = [];
  private readonly direct = new DirectState();
  private sawDirect = false;
  // per tuple
  private page!: Uint8Array;
  private dv!: DataView;
  private blkno = 0;
  private file = "";
  private item = 0;
  private t = 0;
  private len = 0;
  private couldBePruned = true;

  constructor(
    readonly target: HeapTarget,
    readonly sink: FindingSink,
  ) {}

  run(): HeapStats {
    const tg = this.target;
    this.scan();
    if (tg.toast && (this.sawDirect || tg.toast.directChunks().length > 0)) checkUnreachable(tg.toast, this.direct, this.sink);
    return this.stats;
  }

  /**
   * Every page (a function of its own: V8 optimises the long loop on the stack, and the code after
   * it in run(), not yet run, deoptimised run() once per table).
   */
  private scan(): void {
    const tg = this.target;
    for (const [blkno, page] of scanPages(tg.fork)) {
      this.stats.pages++;
      tg.onPages?.(1);
      tg.feed?.page(blkno, page);
      tg.probe?.page(blkno, page);
      const file = tg.fork.fileOf(blkno).path;
      const dv = viewOf(page);
      const v = checkPage(page, dv, blkno, file, this.sink, { am: "heap", blockSize: tg.blockSize, checksums: tg.checksums, checksumSeverity: tg.checksumSeverity, relName: tg.relName });
      if (!v.usable) continue;
      this.page = page;
      this.dv = dv;
      this.blkno = blkno;
      this.file = file;
      this.checkItems(v);
      this.chainPass(v.maxoff);
      this.flushToast();
    }
  }

  private loc(attnum?: number): Location {
    return { file: this.file, block: this.blkno, item: this.item, offset: this.t, ...(attnum !== undefined ? { attnum } : {}) };
  }

  private report(code: CheckCode, msg: string, attnum?: number, detail?: string): void {
    this.sink.add(code, msg, this.loc(attnum), detail);
  }

  private checkItems(v: PageVerdict): void {
    const dv = this.dv;
    const maxoff = Math.min(v.maxoff, MAX_ITEMS);
    this.predecessor.fill(0, 0, maxoff + 1);
    for (let i = 1; i <= maxoff; i++) {
      this.successor[i] = 0;
      this.lpValid[i] = 0;
      this.xminOk[i] = 0;
      const w = itemIdWord(dv, i);
      const flags = lpFlags(w);
      if (flags === LP_UNUSED || flags === LP_DEAD) continue;
      if (v.badItems.has(i)) continue; // the page checks reported its line pointer
      this.item = i;
      this.t = 0;
      if (flags === LP_REDIRECT) {
        const rd = lpOff(w);
        const rw = itemIdWord(dv, rd);
        const rf = lpFlags(rw);
        this.t = 24 + (i - 1) * 4;
        if (rf === LP_UNUSED) this.report("HEAP_REDIRECT_TO_UNUSED", `line pointer redirection to unused item at offset ${rd}`);
        else if (rf === LP_DEAD) this.report("HEAP_REDIRECT_TO_DEAD", `redirected line pointer points to a dead item at offset ${rd}`);
        else if (rf === LP_REDIRECT) this.report("HEAP_REDIRECT_TO_REDIRECT", `redirected line pointer points to another redirected line pointer at offset ${rd}`);
        else {
          this.lpValid[i] = 1;
          this.successor[i] = rd;
        }
        continue;
      }
      this.t = lpOff(w);
      this.len = lpLen(w);
      this.lpValid[i] = 1;
      this.stats.tuples++;
      this.checkTuple(i);
      const cb = ctidBlock(this.page, this.t);
      const co = ctidOffset(dv, this.t);
      if (cb === this.blkno && co !== i && co >= 1 && co <= maxoff) this.successor[i] = co;
    }
  }

  /** HeapTupleHeaderGetUpdateXid, or null when a MultiXact's members cannot be read. */
  private updateXid(infomask: number, xmax: number): number | null {
    if (!(infomask & HEAP_XMAX_IS_MULTI) || xmaxLockedOnly(infomask)) return xmax;
    const mx = this.target.multixact;
    if (!mx) return null;
    const r = mx.updateXid(xmax);
    if (!r.ok) {
      this.report("MULTIXACT_UNREADABLE", `members of multitransaction ID ${xmax} cannot be read: ${r.why}`);
      return null;
    }
    return r.xid;
  }

  private checkTuple(i: number): void {
    const dv = this.dv;
    const t = this.t;
    const infomask = dv.getUint16(t + T_INFOMASK, true);
    const infomask2 = dv.getUint16(t + T_INFOMASK2, true);
    const natts = infomask2 & HEAP_NATTS_MASK;
    const hoff = this.page[t + T_HOFF];
    // ---- check_tuple_header
    let ok = true;
    if (hoff > this.len) {
      this.report("HEAP_HOFF_BEYOND_TUPLE", `data begins at offset ${hoff} beyond the tuple length ${this.len}`);
      ok = false;
    }
    if (infomask & HEAP_XMAX_COMMITTED && infomask & HEAP_XMAX_IS_MULTI) this.report("HEAP_MULTIXACT_COMMITTED", "multixact should not be marked committed");
    // no hint bit pair means "frozen" for xmax (unlike xmin): both set contradict each other
    if (infomask & HEAP_XMAX_COMMITTED && infomask & HEAP_XMAX_INVALID) this.report("HEAP_XMAX_COMMITTED_AND_INVALID", "tuple marked as datum tuple in table");
    if (isHotUpdated(infomask, infomask2)) {
      const ux = this.quietUpdateXid(infomask, dv.getUint32(t + T_XMAX, true));
      if (ux === 0) this.report("HEAP_HOT_UPDATED_XMAX_ZERO", "tuple has been HOT updated, but xmax is 0");
    }
    if (infomask2 & HEAP_ONLY_TUPLE && !(infomask & HEAP_UPDATED)) this.report("HEAP_ONLY_NOT_UPDATED", "tuple is heap only, but not the result of an update");
    const hasnull = (infomask & HEAP_HASNULL) !== 0;
    const want = hasnull ? (23 + ((natts + 7) >> 3) + 7) & ~7 : 24;
    if (hoff !== want) {
      const atts = natts === 1 ? "1 attribute" : `${natts} attributes`;
      this.report("HEAP_BAD_T_HOFF", `tuple data should begin at byte ${want}, but actually begins at byte ${hoff} (${atts}, ${hasnull ? "has nulls" : "no nulls"})`);
      ok = false;
    }
    if (!ok) return;
    // ---- check_tuple_visibility
    if (!this.checkVisibility(i, infomask)) return;
    // ---- attributes
    const desc = this.target.desc;
    if (!desc) return;
    if (natts > desc.attrs.length) {
      this.report("HEAP_NATTS_EXCEEDS_DESCRIPTOR", `number of attributes ${natts} exceeds maximum expected for table ${desc.attrs.length}`);
      return;
    }
    this.checkAttributes(natts, hoff, hasnull, infomask, desc);
  }

  /** Returns whether the attributes may be checked; sets couldBePruned and the xmin status arrays. */
  private checkVisibility(i: number, infomask: number): boolean {
    const x = this.target.xids;
    this.couldBePruned = true;
    if (!x) {
      this.couldBePruned = false;
      return true;
    }
    const dv = this.dv;
    const t = this.t;
    const xmin = tupleXmin(dv, t);
    const h = x.h;
    switch (x.xidBounds(xmin)) {
      case Bounds.Invalid:
        return false;
      case Bounds.Ok:
        this.xminOk[i] = 1;
        this.xminStatus[i] = x.status;
        break;
      case Bounds.InFuture:
        this.report("HEAP_XMIN_IN_FUTURE", `xmin ${xmin} equals or exceeds next valid transaction ID ${h.nextEpoch}:${h.nextXid}`);
        return false;
      case Bounds.PrecedesClusterMin:
        this.report("HEAP_XMIN_BEFORE_CLUSTER_MIN", `xmin ${xmin} precedes oldest valid transaction ID ${fxidText(h.oldestFxid)}`);
        return false;
      case Bounds.PrecedesRelMin:
        this.report("HEAP_XMIN_BEFORE_RELFROZENXID", `xmin ${xmin} precedes relation freeze threshold ${fxidText(x.relfrozenFxid)}`);
        return false;
    }
    const xminStatus = x.status;
    if (!xminHintCommitted(infomask)) {
      if (xminHintInvalid(infomask)) return false;
      if (infomask & (HEAP_MOVED_OFF | HEAP_MOVED_IN)) {
        const off = (infomask & HEAP_MOVED_OFF) !== 0;
        const dir = off ? "moved off" : "moved in";
        const xvac = dv.getUint32(t + T_FIELD3, true);
        switch (x.xidBounds(xvac)) {
          case Bounds.Invalid:
            this.report("HEAP_XVAC_INVALID", `old-style VACUUM FULL transaction ID for ${dir} tuple is invalid`);
            return false;
          case Bounds.InFuture:
            this.report("HEAP_XVAC_IN_FUTURE", `old-style VACUUM FULL transaction ID ${xvac} for ${dir} tuple equals or exceeds next valid transaction ID ${h.nextEpoch}:${h.nextXid}`);
            return false;
          case Bounds.PrecedesRelMin:
            this.report("HEAP_XVAC_BEFORE_RELFROZENXID", `old-style VACUUM FULL transaction ID ${xvac} for ${dir} tuple precedes relation freeze threshold ${fxidText(x.relfrozenFxid)}`);
            return false;
          case Bounds.PrecedesClusterMin:
            this.report("HEAP_XVAC_BEFORE_CLUSTER_MIN", `old-style VACUUM FULL transaction ID ${xvac} for ${dir} tuple precedes oldest valid transaction ID ${fxidText(h.oldestFxid)}`);
            return false;
          case Bounds.Ok:
            break;
        }
        if (x.status === Commit.InProgress) {
          this.report("HEAP_XVAC_IN_PROGRESS", `old-style VACUUM FULL transaction ID ${xvac} for ${dir} tuple appears to be in progress`);
          return false;
        }
        // moved off and committed, or moved in and aborted: dead, checkable, prunable
        if ((off && x.status === Commit.Committed) || (!off && x.status === Commit.Aborted)) return true;
      } else if (xminStatus !== Commit.Committed) return false;
    }
    const xmax = dv.getUint32(t + T_XMAX, true);
    if (infomask & HEAP_XMAX_IS_MULTI) {
      switch (x.mxidBounds(xmax)) {
        case Bounds.Invalid:
          this.report("HEAP_MXID_INVALID", "multitransaction ID is invalid");
          return true;
        case Bounds.PrecedesRelMin:
          this.report("HEAP_MXID_BEFORE_RELMINMXID", `multitransaction ID ${xmax} precedes relation minimum multitransaction ID threshold ${x.relminmxid}`);
          return true;
        case Bounds.PrecedesClusterMin:
          this.report("HEAP_MXID_BEFORE_CLUSTER_MIN", `multitransaction ID ${xmax} precedes oldest valid multitransaction ID threshold ${h.oldestMulti}`);
          return true;
        case Bounds.InFuture:
          this.report("HEAP_MXID_IN_FUTURE", `multitransaction ID ${xmax} equals or exceeds next valid multitransaction ID ${h.nextMulti}`);
          return true;
        case Bounds.Ok:
          break;
      }
    }
    if (infomask & HEAP_XMAX_INVALID || xmaxLockedOnly(infomask)) {
      this.couldBePruned = false;
      return true;
    }
    if (infomask & HEAP_XMAX_IS_MULTI) {
      const ux = this.updateXid(infomask, xmax);
      if (ux === null) return true;
      switch (x.xidBounds(ux)) {
        case Bounds.Invalid:
          this.report("HEAP_UPDATE_XID_INVALID", "update xid is invalid");
          return true;
        case Bounds.InFuture:
          this.report("HEAP_UPDATE_XID_IN_FUTURE", `update xid ${ux} equals or exceeds next valid transaction ID ${h.nextEpoch}:${h.nextXid}`);
          return true;
        case Bounds.PrecedesRelMin:
          this.report("HEAP_UPDATE_XID_BEFORE_RELFROZENXID", `update xid ${ux} precedes relation freeze threshold ${fxidText(x.relfrozenFxid)}`);
          return true;
        case Bounds.PrecedesClusterMin:
          this.report("HEAP_UPDATE_XID_BEFORE_CLUSTER_MIN", `update xid ${ux} precedes oldest valid transaction ID ${fxidText(h.oldestFxid)}`);
          return true;
        case Bounds.Ok:
          break;
      }
      // committed: prunable (no snapshot holds it back offline); in progress or aborted: live
      this.couldBePruned = x.status === Commit.Committed;
      return true;
    }
    switch (x.xidBounds(xmax)) {
      case Bounds.Invalid:
        this.couldBePruned = false;
        return true;
      case Bounds.InFuture:
        this.report("HEAP_XMAX_IN_FUTURE", `xmax ${xmax} equals or exceeds next valid transaction ID ${h.nextEpoch}:${h.nextXid}`);
        return false;
      case Bounds.PrecedesRelMin:
        this.report("HEAP_XMAX_BEFORE_RELFROZENXID", `xmax ${xmax} precedes relation freeze threshold ${fxidText(x.relfrozenFxid)}`);
        return false;
      case Bounds.PrecedesClusterMin:
        this.report("HEAP_XMAX_BEFORE_CLUSTER_MIN", `xmax ${xmax} precedes oldest valid transaction ID ${fxidText(h.oldestFxid)}`);
        return false;
      case Bounds.Ok:
        break;
    }
    this.couldBePruned = x.status === Commit.Committed;
    return true;
  }

  /** check_tuple_attribute for attributes 0..natts-1 (attnum reported 1-based). */
  private checkAttributes(natts: number, hoff: number, hasnull: boolean, infomask: number, desc: TupleDesc): void {
    const page = this.page;
    const t = this.t;
    const len = this.len;
    const tp = t + hoff;
    let off = 0;
    for (let a = 0; a < natts; a++) {
      const att = desc.attrs[a];
      const attnum = a + 1;
      const attlenU = att.len >>> 0; // amcheck prints attlen with %u
      if (hoff + off > len) {
        this.report("HEAP_ATTR_STARTS_BEYOND", `attribute with length ${attlenU} starts at offset ${hoff + off} beyond total tuple length ${len}`, attnum);
        return;
      }
      if (hasnull && (page[t + T_BITS + (a >> 3)] & (1 << (a & 7))) === 0) continue;
      const al = alignBytes(att.align);
      if (att.len !== -1) {
        off = (off + al - 1) & ~(al - 1);
        if (att.len > 0) off += att.len;
        else {
          // cstring: strlen + 1, read within the page as the server would
          let e = tp + off;
          while (e < page.length && page[e] !== 0) e++;
          off = e + 1 - tp;
        }
        if (hoff + off > len) {
          this.report("HEAP_ATTR_ENDS_BEYOND", `attribute with length ${attlenU} ends at offset ${hoff + off} beyond total tuple length ${len}`, attnum);
          return;
        }
        continue;
      }
      if (tp + off < page.length && page[tp + off] === 0) off = (off + al - 1) & ~(al - 1);
      const p = tp + off;
      if (p >= page.length || (page[p] === 0x01 && p + 1 >= page.length)) {
        this.report("HEAP_ATTR_ENDS_BEYOND", `attribute with length ${attlenU} ends at offset ${hoff + off + 1} beyond total tuple length ${len}`, attnum);
        return;
      }
      const b0 = page[p];
      let size: number;
      if (b0 === 0x01) {
        const tag = page[p + 1];
        if (tag !== VARTAG_ONDISK && tag !== VARTAG_DIRECT) {
          this.report("HEAP_TOAST_BAD_TAG", `toasted attribute has unexpected TOAST tag ${tag}`, attnum);
          return;
        }
        size = tag === VARTAG_ONDISK ? TOAST_POINTER_SIZE : DIRECT_POINTER_SIZE;
      } else if (b0 & 1) size = b0 >>> 1;
      else {
        if (p + 4 > page.length) {
          this.report("HEAP_ATTR_ENDS_BEYOND", `attribute with length ${attlenU} ends at offset ${hoff + off + 4} beyond total tuple length ${len}`, attnum);
          return;
        }
        size = this.dv.getUint32(p, true) >>> 2;
        const min = (b0 & 3) === 2 ? 8 : 4;
        if (size < min) {
          this.report("HEAP_VARLENA_BAD_HEADER", `attribute has a ${(b0 & 3) === 2 ? "compressed " : ""}varlena header giving length ${size}, less than the header itself`, attnum);
          return;
        }
      }
      off += size;
      if (hoff + off > len) {
        this.report("HEAP_ATTR_ENDS_BEYOND", `attribute with length ${attlenU} ends at offset ${hoff + off} beyond total tuple length ${len}`, attnum);
        return;
      }
      if (b0 === 0x01) this.checkToastPointer(p, infomask, attnum);
      else if ((b0 & 3) === 2 && this.target.decompress) this.checkInlineCompressed(p, size, attnum);
    }
  }

  private checkInlineCompressed(p: number, size: number, attnum: number): void {
    const payload = this.page.subarray(p + 4, p + size);
    const tc = u32At(this.page, p + VARHDRSZ);
    const method = tc >>> 30;
    if (method > 1) {
      this.report("TOAST_BAD_COMPRESSION_METHOD", `inline compressed value has invalid compression method id ${method}`, attnum);
      return;
    }
    checkDecompresses(payload, tc & 0x3fffffff, "inline compressed value", this.loc(attnum), this.sink);
  }

  private checkToastPointer(p: number, infomask: number, attnum: number): void {
    const tag = this.page[p + 1];
    const where = this.loc(attnum);
    if (tag === VARTAG_DIRECT) {
      const ptr: DirectPointer = readDirectPointerFields(this.page, p);
      this.sawDirect = true;
      let ok = checkDirectPointer(ptr, this.target.toastRelid || ptr.toastrelid, where, this.sink);
      if (!this.flagsAllowExternal(infomask, `direct toast value at (${ptr.rootBlock},${ptr.rootItem})`, attnum)) ok = false;
      if (this.target.toast && !this.couldBePruned) {
        if (ok) this.toastRefs.push({ kind: "direct", where, direct: ptr });
        else claimValue(this.target.toast, this.direct, ptr);
      }
      return;
    }
    const { rawsize, extinfo, valueId, toastrelid } = readExternalPointerFields(this.page, p);
    const extsize = extinfo & VARLENA_EXTSIZE_MASK;
    let ok = true;
    if (rawsize > 0x3fffffff) {
      this.report("TOAST_RAWSIZE_TOO_LARGE", `toast value ${valueId} rawsize ${rawsize} exceeds limit ${0x3fffffff}`, attnum);
      ok = false;
    }
    const compressed = extsize < rawsize - 4;
    if (compressed && extinfo >>> 30 > 1) {
      this.report("TOAST_BAD_COMPRESSION_METHOD", `toast value ${valueId} has invalid compression method id ${extinfo >>> 30}`, attnum);
      ok = false;
    }
    if (!this.flagsAllowExternal(infomask, `toast value ${valueId}`, attnum)) return;
    if (extsize > rawsize - 4) {
      this.report("TOAST_EXTSIZE_EXCEEDS_RAWSIZE", `toast value ${valueId} has stored size ${extsize}, more than its raw size ${rawsize - 4}`, attnum);
      ok = false;
    }
    if (this.target.toastRelid && toastrelid !== this.target.toastRelid) {
      this.report("TOAST_POINTER_BAD_RELID", `toast value ${valueId} names TOAST relation ${toastrelid}, the table's is ${this.target.toastRelid}`, attnum);
      ok = false;
    }
    if (ok && this.target.toast && !this.couldBePruned) this.toastRefs.push({ kind: "plain", where, plain: { valueId, rawsize, extsize, compressed } });
  }

  private flagsAllowExternal(infomask: number, what: string, attnum: number): boolean {
    if (!(infomask & HEAP_HASEXTERNAL)) {
      this.report("HEAP_EXTERNAL_WITHOUT_FLAG", `${what} is external but tuple header flag HEAP_HASEXTERNAL not set`, attnum);
      return false;
    }
    if (!this.target.toastRelid) {
      this.report("HEAP_EXTERNAL_NO_TOAST_REL", `${what} is external but relation has no toast relation`, attnum);
      return false;
    }
    return true;
  }

  private flushToast(): void {
    const rel = this.target.toast;
    if (!rel || this.toastRefs.length === 0) return;
    for (const r of this.toastRefs) {
      this.stats.toastValues++;
      try {
        if (r.kind === "plain") checkPlainValue(r.plain!, rel, r.where, this.sink, this.target.decompress, false);
        else checkDirectValue(r.direct!, rel, r.where, this.sink, this.direct, this.target.decompress);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        this.sink.fromError(e, r.where, "REL_VERIFY_FAILED");
      }
    }
    this.toastRefs = [];
  }

  /** The update-chain checks of PG16+ verify_heapam, over one page. */
  private chainPass(maxoffRaw: number): void {
    const dv = this.dv;
    const maxoff = Math.min(maxoffRaw, MAX_ITEMS);
    const pred = this.predecessor;
    for (let i = 1; i <= maxoff; i++) {
      const next = this.successor[i];
      if (next === 0 || !this.lpValid[next]) continue;
      this.item = i;
      const cw = itemIdWord(dv, i);
      const nw = itemIdWord(dv, next);
      this.t = lpFlags(cw) === LP_REDIRECT ? 24 + (i - 1) * 4 : lpOff(cw);
      if (lpFlags(cw) === LP_REDIRECT) {
        if (lpFlags(nw) !== LP_NORMAL) continue;
        const nt = lpOff(nw);
        if (!(dv.getUint16(nt + T_INFOMASK2, true) & HEAP_ONLY_TUPLE)) this.report("HEAP_REDIRECT_TO_NON_HOT", `redirected line pointer points to a non-heap-only tuple at offset ${next}`);
        if (pred[next] !== 0) {
          this.report("HEAP_REDIRECT_CHAINS_INTERSECT", `redirect line pointer points to offset ${next}, but offset ${pred[next]} also points there`);
          continue;
        }
        pred[next] = i;
        continue;
      }
      if (lpFlags(nw) === LP_REDIRECT) continue;
      const ct = lpOff(cw);
      const nt = lpOff(nw);
      const cinfomask = dv.getUint16(ct + T_INFOMASK, true);
      const cxmax = this.quietUpdateXid(cinfomask, dv.getUint32(ct + T_XMAX, true));
      const nxmin = tupleXmin(dv, nt);
      if (!cxmax || cxmax !== nxmin) continue;
      if (pred[next] !== 0) {
        this.report("HEAP_UPDATE_CHAINS_INTERSECT", `tuple points to new version at offset ${next}, but offset ${pred[next]} also points there`);
        continue;
      }
      pred[next] = i;
      const chot = (dv.getUint16(ct + T_INFOMASK2, true) & HEAP_HOT_UPDATED) !== 0;
      const nonly = (dv.getUint16(nt + T_INFOMASK2, true) & HEAP_ONLY_TUPLE) !== 0;
      if (!chot && nonly) this.report("HEAP_NON_HOT_UPDATE_MADE_HOT", `non-heap-only update produced a heap-only tuple at offset ${next}`);
      if (chot && !nonly) this.report("HEAP_HOT_UPDATE_MADE_NON_HOT", `heap-only update produced a non-heap only tuple at offset ${next}`);
      const cxmin = tupleXmin(dv, ct);
      if (this.xminOk[i] && this.xminOk[next]) {
        const cs = this.xminStatus[i];
        const ns = this.xminStatus[next];
        if (cs === Commit.InProgress && ns === Commit.Committed) this.report("HEAP_IN_PROGRESS_XMIN_UPDATED_TO_COMMITTED", `tuple with in-progress xmin ${cxmin} was updated to produce a tuple at offset ${i} with committed xmin ${nxmin}`);
        if (cs === Commit.Aborted && ns === Commit.InProgress) this.report("HEAP_ABORTED_XMIN_UPDATED_TO_IN_PROGRESS", `tuple with aborted xmin ${cxmin} was updated to produce a tuple at offset ${i} with in-progress xmin ${nxmin}`);
        else if (cs === Commit.Aborted && ns === Commit.Committed) this.report("HEAP_ABORTED_XMIN_UPDATED_TO_COMMITTED", `tuple with aborted xmin ${cxmin} was updated to produce a tuple at offset ${i} with committed xmin ${nxmin}`);
      }
    }
    for (let i = 1; i <= maxoff; i++) {
      if (!this.xminOk[i] || pred[i] !== 0) continue;
      const s = this.xminStatus[i];
      if (s !== Commit.Committed && s !== Commit.InProgress) continue;
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL) continue;
      if (dv.getUint16(lpOff(w) + T_INFOMASK2, true) & HEAP_ONLY_TUPLE) {
        this.item = i;
        this.t = lpOff(w);
        this.report("HEAP_CHAIN_ROOT_IS_HEAP_ONLY", "tuple is root of chain but is marked as heap-only tuple");
      }
    }
  }

  /** Update XID without reporting unreadable MultiXacts (null: unknown). */
  private quietUpdateXid(infomask: number, xmax: number): number | null {
    if (!(infomask & HEAP_XMAX_IS_MULTI) || xmaxLockedOnly(infomask)) return xmax;
    const r = this.target.multixact?.updateXid(xmax);
    return r && r.ok ? r.xid : null;
  }
}
