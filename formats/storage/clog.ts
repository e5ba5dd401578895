// Commit status from pg_xact (SLRU, src/backend/access/transam/clog.c): 2 bits per transaction,
// 4 per byte, BLCKSZ*4 per page, 32 pages per segment file named %04X (the digits come from the
// version profile: 4 in PostgreSQL 13 to 18).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type XactStatus = "in_progress" | "committed" | "aborted" | "sub_committed" | "unknown";
const STATUS: XactStatus[] = ["in_progress", "committed", "aborted", "sub_committed"];
const SLRU_PAGES_PER_SEGMENT = 32;

export interface XactStatusLookup {
  status(xid: number): XactStatus;
}

export class ClogReader implements XactStatusLookup {
  private segments = new Map<number, Uint8Array | null>();
  private readonly xactsPerSegment: number;

  constructor(
    readonly dir: string,
    readonly blockSize = 8192,
    readonly segmentNameDigits = 4,
  ) {
    this.xactsPerSegment = blockSize * 4 * SLRU_PAGES_PER_SEGMENT;
  }

  status(xid: number): XactStatus {
    if (xid === 1 || xid === 2) return "committed"; // BootstrapTransactionId, FrozenTransactionId
    if (xid === 0) return "aborted"; // InvalidTransactionId never committed
    const segno = Math.floor(xid / this.xactsPerSegment);
    let seg = this.segments.get(segno);
    if (seg === undefined) {
      const path = join(this.dir, segno.toString(16).toUpperCase().padStart(this.segmentNameDigits, "0"));
      seg = existsSync(path) ? new Uint8Array(readFileSync(path)) : null;
      this.segments.set(segno, seg);
    }
    if (!seg) return "unknown";
    const within = xid % this.xactsPerSegment;
    const byte = within >>> 2;
    if (byte >= seg.length) return "unknown";
    return STATUS[(seg[byte] >>> ((within & 3) * 2)) & 3];
  }
}
