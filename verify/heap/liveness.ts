// Is a tuple version live in a stopped cluster, i.e. visible to a fresh MVCC snapshot: inserted
// by a committed transaction (hint bits, else pg_xact) and not deleted or updated by one
// (a MultiXact xmax counts through its update member). Used by heapallindexed and by the
// unreachable-Direct-TOAST-chunk check.
import { HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI } from "../../formats/heap/tuple-header.js";
import type { MultiXactReader } from "./multixact.js";
import { T_INFOMASK, T_XMAX, tupleXmin, xmaxLockedOnly, xminHintCommitted, xminHintInvalid } from "./tuple-walk.js";
import { Bounds, Commit, type XidContext } from "./xid.js";

export function live(dv: DataView, t: number, x: XidContext, mx: MultiXactReader | null): boolean {
  const infomask = dv.getUint16(t + T_INFOMASK, true);
  if (!xminHintCommitted(infomask)) {
    if (xminHintInvalid(infomask)) return false;
    if (x.xidBounds(tupleXmin(dv, t)) !== Bounds.Ok || x.status !== Commit.Committed) return false;
  }
  if (infomask & HEAP_XMAX_INVALID || xmaxLockedOnly(infomask)) return true;
  let xmax = dv.getUint32(t + T_XMAX, true);
  if (infomask & HEAP_XMAX_IS_MULTI) {
    const r = mx?.updateXid(xmax);
    if (!r || !r.ok) return true;
    xmax = r.xid;
    if (xmax === 0) return true;
  } else if (infomask & HEAP_XMAX_COMMITTED) return false;
  if (x.xidBounds(xmax) !== Bounds.Ok) return true;
  return x.status !== Commit.Committed;
}
