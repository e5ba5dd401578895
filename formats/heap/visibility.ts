// Offline visibility: is a tuple version live as of the last clean shutdown? Hint bits first,
// then pg_xact. A stopped cluster has no running transactions, so "in progress" means the
// transaction never committed (it crashed or was still open at shutdown).
import { HEAP_XMAX_COMMITTED, HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_LOCK_ONLY, HEAP_LOCK_MASK, HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID } from "./tuple-header.js";
import type { XactStatusLookup } from "../storage/clog.js";

/** HEAP_XMAX_IS_LOCKED_ONLY */
export const xmaxIsLockedOnly = (infomask: number): boolean =>
  (infomask & HEAP_XMAX_LOCK_ONLY) !== 0 || (infomask & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK)) === HEAP_XMAX_EXCL_LOCK;

export type TupleState = "live" | "dead" | "insert_aborted" | "insert_in_progress";

export function xminCommitted(xmin: number, infomask: number, clog?: XactStatusLookup): boolean | undefined {
  if ((infomask & HEAP_XMIN_FROZEN) === HEAP_XMIN_FROZEN || (infomask & HEAP_XMIN_COMMITTED)) return true;
  if (infomask & HEAP_XMIN_INVALID) return false;
  if (xmin === 1 || xmin === 2) return true;
  if (!clog) return undefined;
  const s = clog.status(xmin);
  return s === "committed" ? true : s === "unknown" ? undefined : false;
}

/**
 * Classify a heap tuple version. Without a clog lookup, undecidable cases count as live.
 * A MultiXact xmax that is not lock-only is treated as a committed delete only with its hint bit.
 */
export function tupleState(xmin: number, xmax: number, infomask: number, clog?: XactStatusLookup): TupleState {
  const ins = xminCommitted(xmin, infomask, clog);
  if (ins === false) return clog?.status(xmin) === "in_progress" ? "insert_in_progress" : "insert_aborted";
  if (xmax === 0 || infomask & HEAP_XMAX_INVALID || xmaxIsLockedOnly(infomask)) return "live";
  if (infomask & HEAP_XMAX_COMMITTED) return "dead";
  if (infomask & HEAP_XMAX_IS_MULTI) return "live";
  if (!clog) return "live";
  return clog.status(xmax) === "committed" ? "dead" : "live";
}
