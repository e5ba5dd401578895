// Transaction ID horizons of a stopped cluster and verify_heapam's bounds logic: 32-bit XIDs
// are widened to full XIDs relative to pg_control's nextXid (epoch:xid), then compared with
// nextXid, oldestXid and the relation's relfrozenxid; MultiXactIds are compared modulo 2^32
// with oldestMulti, nextMulti and relminmxid. Commit status comes from pg_xact. A stopped
// cluster runs no transactions: an XID pg_xact records neither as committed nor aborted never
// finished and counts as aborted, as on a restarted server, unless it is a prepared transaction.
import type { ControlSummary } from "../../formats/catalog/control.js";
import type { XactStatusLookup } from "../../formats/storage/clog.js";

export const FirstNormalTransactionId = 3;
const TWO32 = 4294967296;

export enum Bounds {
  Invalid = 0,
  InFuture = 1,
  PrecedesClusterMin = 2,
  PrecedesRelMin = 3,
  Ok = 4,
}
export enum Commit {
  Committed = 0,
  InProgress = 1,
  Aborted = 2,
}

export interface Horizons {
  /** full nextXid as a number (epoch * 2^32 + xid; exact below 2^53) */
  nextFxid: number;
  nextEpoch: number;
  nextXid: number;
  oldestXid: number;
  oldestFxid: number;
  nextMulti: number;
  oldestMulti: number;
  /** prepared transactions (pg_twophase): the only XIDs truly in progress in a stopped cluster */
  prepared: ReadonlySet<number>;
}

export function horizonsFrom(control: ControlSummary, prepared: ReadonlySet<number> = new Set()): Horizons {
  const cp = control.control.fields.checkPointCopy;
  const full = cp.nextXid;
  const nextEpoch = Number(full >> 32n);
  const nextXid = Number(full & 0xffffffffn);
  const h: Horizons = { nextFxid: nextEpoch * TWO32 + nextXid, nextEpoch, nextXid, oldestXid: cp.oldestXid, oldestFxid: 0, nextMulti: cp.nextMulti, oldestMulti: cp.oldestMulti, prepared };
  h.oldestFxid = fullXid(h, cp.oldestXid);
  return h;
}

/** FullTransactionIdFromXidAndCtx: the full XID of `xid` relative to nextXid. */
export function fullXid(h: Horizons, xid: number): number {
  if (xid < FirstNormalTransactionId) return xid;
  // 32-bit modulo difference next - xid, as a signed int32
  const diff = (h.nextXid - xid) | 0;
  if (diff > 0 && h.nextFxid - FirstNormalTransactionId < diff) return FirstNormalTransactionId;
  return h.nextFxid - diff;
}

/** "epoch:xid" of a full XID, as verify_heapam prints it. */
export const fxidText = (f: number): string => `${Math.floor(f / TWO32)}:${f % TWO32}`;

/** MultiXactIdPrecedes: modulo-2^32 comparison (a precedes b). */
export const multiPrecedes = (a: number, b: number): boolean => ((a - b) | 0) < 0;

/** Per-relation XID context: the cluster horizons plus relfrozenxid/relminmxid and pg_xact. */
export class XidContext {
  readonly relfrozenFxid: number;
  /** status of the last XID looked up (a page is usually full of the same few XIDs) */
  private cachedXid = -1;
  private cachedStatus: Commit = Commit.Committed;
  /** the status found by the last xidBounds call that returned Ok */
  status: Commit = Commit.Committed;

  constructor(
    readonly h: Horizons,
    readonly relfrozenxid: number,
    readonly relminmxid: number,
    readonly clog: XactStatusLookup | undefined,
  ) {
    this.relfrozenFxid = fullXid(h, relfrozenxid);
  }

  /** get_xid_status: bounds of `xid`; when Ok, `this.status` holds its commit status. */
  xidBounds(xid: number): Bounds {
    if (xid === 0) return Bounds.Invalid;
    if (xid === 1 || xid === 2) {
      this.status = Commit.Committed;
      return Bounds.Ok;
    }
    const f = fullXid(this.h, xid);
    if (f >= this.h.nextFxid) return Bounds.InFuture;
    if (f < this.h.oldestFxid) return Bounds.PrecedesClusterMin;
    if (f < this.relfrozenFxid) return Bounds.PrecedesRelMin;
    if (xid === this.cachedXid) {
      this.status = this.cachedStatus;
      return Bounds.Ok;
    }
    let st = Commit.Committed;
    if (this.clog) {
      const s = this.clog.status(xid);
      // "unknown": pg_xact no longer holds it (older than the clog horizon): committed, as amcheck
      // assumes. Neither committed nor aborted: the server treats it as aborted after a restart
      // (TransactionIdIsInProgress is false, TransactionIdDidCommit is false), unless it is prepared.
      if (s === "committed" || s === "unknown") st = Commit.Committed;
      else if (this.h.prepared.has(xid)) st = Commit.InProgress;
      else st = Commit.Aborted;
    }
    this.cachedXid = xid;
    this.cachedStatus = st;
    this.status = st;
    return Bounds.Ok;
  }

  /** check_mxid_in_range */
  mxidBounds(mxid: number): Bounds {
    if (mxid === 0) return Bounds.Invalid;
    if (multiPrecedes(mxid, this.relminmxid)) return Bounds.PrecedesRelMin;
    if (multiPrecedes(mxid, this.h.oldestMulti)) return Bounds.PrecedesClusterMin;
    if (!multiPrecedes(mxid, this.h.nextMulti)) return Bounds.InFuture;
    return Bounds.Ok;
  }
}
