// Deciding, page by page of a parent table, what becomes of each TOAST pointer (new-formats.md
// §1.6): tuples in line pointer order, pointers in attribute order. Going to direct, a stock
// pointer is converted only if its value's chunks are complete and the page still fits with the
// tuple re-formed (the pointer grows by 2 bytes, later attributes re-align); otherwise it stays
// plain, with the reason. Going to plain, every direct pointer becomes a stock one (tuples shrink).
import { FormatError } from "../../formats/schema/errors.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import { deformHeapTuple, type TupleLayout } from "../../formats/heap/deform.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { tupleState } from "../../formats/heap/visibility.js";
import type { XactStatusLookup } from "../../formats/storage/clog.js";
import { LP_DEAD, LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxAlign, maxOffsetNumber, pageIsNew, pageView, pdLower, pdSpecial } from "../../formats/page/page.js";
import { readToastPointer, type ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { VARTAG_DIRECT } from "../../formats/varlena/varlena.js";
import { encodeDirectPointer, reformTuple } from "../../formats/toast/reform.js";

export type TargetFlavour = "direct" | "plain";
/** Why a stock pointer stays plain in a conversion to direct (or why it has no chunks). */
export type KeepReason = "does-not-fit" | "chunks-missing";

export interface PointerDecision {
  lp: number;
  /** 0-based attribute index */
  att: number;
  pointer: ToastPointer;
  /** "p<va_valueid>" or "d<root block*65536+item>" */
  sourceKey: string;
  target: TargetFlavour;
  /** a stock pointer that stays stock when going to direct, or a value with no complete chunks */
  reason?: KeepReason;
  parentLive: boolean;
  /** the value's stored size in slices */
  slices: number;
}

export interface PagePlan {
  block: number;
  decisions: PointerDecision[];
  /** tuples holding pointers: bytes and layout, by line pointer number */
  tuples: Map<number, { tuple: Uint8Array; layout: TupleLayout }>;
}

export interface PlanContext {
  to: TargetFlavour;
  desc: TupleDesc;
  clog?: XactStatusLookup;
  maxChunk: number;
  file: string;
  /** null when a stock value's chunks are complete, else why not */
  plainIncomplete(valueId: number, extsize: number): string | null;
}

export const sourceKeyOf = (p: ToastPointer): string => (p.tag === VARTAG_DIRECT ? `d${p.root.block * 65536 + p.root.offset}` : `p${p.va_valueid}`);

const DUMMY_ROOT = { block: 0, offset: 0 };

/** Sum of MAXALIGN(lp_len) over the page's stored items. */
function storedBytes(dv: DataView, n: number): number {
  let sum = 0;
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const f = lpFlags(w);
    if ((f === LP_NORMAL || f === LP_DEAD) && lpLen(w) > 0) sum += maxAlign(lpLen(w));
  }
  return sum;
}

/** The decisions for one parent page (deterministic: the same page gives the same plan). */
export function planPage(page: Uint8Array, block: number, c: PlanContext): PagePlan {
  const plan: PagePlan = { block, decisions: [], tuples: new Map() };
  const dv = pageView(page);
  if (pageIsNew(dv)) return plan;
  const n = maxOffsetNumber(dv);
  const room = pdSpecial(dv) - pdLower(dv);
  let total = storedBytes(dv, n);
  for (let lp = 1; lp <= n; lp++) {
    const w = itemIdWord(dv, lp);
    if (lpFlags(w) !== LP_NORMAL) continue;
    const off = lpOff(w);
    const len = lpLen(w);
    if (off + len > page.length || len < 24) throw new FormatError("HEAP_BAD_LINE_POINTER", `line pointer ${lp} (lp_off ${off}, lp_len ${len}) lies outside the page`, { file: c.file, block, item: lp });
    const tuple = page.subarray(off, off + len);
    // every tuple is walked, HEAP_HASEXTERNAL or not: a pointer missed here would lose its chunks
    let layout: TupleLayout;
    try {
      layout = deformHeapTuple(tuple, c.desc);
    } catch (e) {
      throw e instanceof FormatError ? e.at({ file: c.file, block, item: lp }) : e;
    }
    const live = tupleState(dv.getUint32(off + HTH.t_xmin, true), dv.getUint32(off + HTH.t_xmax, true), dv.getUint16(off + HTH.t_infomask, true), c.clog) === "live";
    const grown = new Map<number, Uint8Array>();
    let curLen = len;
    let any = false;
    for (let k = 0; k < layout.attrs.length; k++) {
      const s = layout.attrs[k];
      if (s.isnull || s.missing || s.varlena?.kind !== "1b_e") continue;
      let p: ToastPointer;
      try {
        p = readToastPointer(tuple, s.off);
      } catch (e) {
        throw e instanceof FormatError ? e.at({ file: c.file, block, item: lp, attnum: k + 1 }) : e;
      }
      any = true;
      const extsize = p.va_extinfo & 0x3fffffff;
      const slices = extsize > 0 ? Math.floor((extsize - 1) / c.maxChunk) + 1 : 0;
      const d: PointerDecision = { lp, att: k, pointer: p, sourceKey: sourceKeyOf(p), target: c.to, parentLive: live, slices };
      if (p.tag !== VARTAG_DIRECT) {
        const why = c.plainIncomplete(p.va_valueid, extsize);
        if (why !== null) {
          if (live) throw new FormatError("TOAST_VALUE_INCOMPLETE", `a live tuple names toast value ${p.va_valueid}, which cannot be read: ${why}`, { file: c.file, block, item: lp, attnum: k + 1 });
          d.target = "plain";
          d.reason = "chunks-missing";
        } else if (c.to === "direct") {
          const cand = new Map(grown).set(k, encodeDirectPointer(p, DUMMY_ROOT));
          const newLen = reformTuple(tuple, layout, c.desc, cand).length;
          const newTotal = total - maxAlign(curLen) + maxAlign(newLen);
          if (newTotal <= room) {
            grown.set(k, cand.get(k)!);
            total = newTotal;
            curLen = newLen;
          } else {
            d.target = "plain";
            d.reason = "does-not-fit";
          }
        }
      }
      plan.decisions.push(d);
    }
    if (any) plan.tuples.set(lp, { tuple, layout });
  }
  return plan;
}
