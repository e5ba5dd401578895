// The update XID of a MultiXactId, read from pg_multixact (src/backend/access/transam/multixact.c,
// PostgreSQL 13 to 18: 32-bit member offsets): offsets/ holds one uint32 member offset per MultiXactId (BLCKSZ/4 per page);
// members/ holds groups of four members, each group 4 flag bytes then 4 XIDs (20 bytes, 409
// groups per 8 KiB page). A member's status > MultiXactStatusForUpdate (3) marks the updater.
// Both are SLRUs of 32 pages per segment file named %04X.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { u32At } from "../../formats/schema/bytes.js";

const SLRU_PAGES_PER_SEGMENT = 32;
const MEMBERS_PER_GROUP = 4;
const GROUP_SIZE = 4 + 4 * MEMBERS_PER_GROUP;
const FirstMultiXactId = 1;
const MultiXactStatusForUpdate = 3;

export type UpdateXid = { ok: true; xid: number } | { ok: false; why: string };

export class MultiXactReader {
  private readonly segs = new Map<string, Uint8Array | null>();
  private readonly offsetsPerPage: number;
  private readonly groupsPerPage: number;

  constructor(
    readonly pgdata: string,
    readonly blockSize: number,
    readonly nextMulti: number,
    readonly nextOffset: number,
    /** SLRU directory and segment name width (the version profile's; the same in 13 to 18) */
    readonly slru: { multixactDir: string; segmentNameDigits: number },
  ) {
    this.offsetsPerPage = blockSize / 4;
    this.groupsPerPage = Math.floor(blockSize / GROUP_SIZE);
  }

  private segment(kind: "offsets" | "members", pageno: number): { seg: Uint8Array; at: number } | null {
    const segno = Math.floor(pageno / SLRU_PAGES_PER_SEGMENT);
    const key = `${kind}/${segno}`;
    let seg = this.segs.get(key);
    if (seg === undefined) {
      const path = join(this.pgdata, this.slru.multixactDir, kind, segno.toString(16).toUpperCase().padStart(this.slru.segmentNameDigits, "0"));
      seg = existsSync(path) ? new Uint8Array(readFileSync(path)) : null;
      this.segs.set(key, seg);
    }
    if (!seg) return null;
    const at = (pageno % SLRU_PAGES_PER_SEGMENT) * this.blockSize;
    return at + this.blockSize <= seg.length ? { seg, at } : null;
  }

  private offsetOf(multi: number): number | null {
    const page = Math.floor(multi / this.offsetsPerPage);
    const s = this.segment("offsets", page);
    if (!s) return null;
    const p = s.at + (multi % this.offsetsPerPage) * 4;
    return u32At(s.seg, p);
  }

  /** MultiXactIdGetUpdateXid: the member with an update status, 0 when there is none. */
  updateXid(multi: number): UpdateXid {
    const start = this.offsetOf(multi);
    if (start === null || start === 0) return { ok: false, why: `no offset recorded for MultiXactId ${multi}` };
    let next = (multi + 1) >>> 0;
    if (next < FirstMultiXactId) next = FirstMultiXactId;
    let end: number | null;
    if (next === this.nextMulti) end = this.nextOffset;
    else end = this.offsetOf(next);
    if (end === null || end === 0) return { ok: false, why: `no offset recorded for MultiXactId ${next}` };
    const n = (end - start) >>> 0;
    if (n === 0 || n > 65536) return { ok: false, why: `MultiXactId ${multi} has ${n} members` };
    const perPage = this.groupsPerPage * MEMBERS_PER_GROUP;
    let update = 0;
    for (let i = 0; i < n; i++) {
      const off = (start + i) >>> 0;
      if (off === 0) continue; // offset 0 is skipped on wraparound
      const page = Math.floor(off / perPage);
      const s = this.segment("members", page);
      if (!s) return { ok: false, why: `member page ${page} of MultiXactId ${multi} is missing` };
      const group = Math.floor(off / MEMBERS_PER_GROUP) % this.groupsPerPage;
      const within = off % MEMBERS_PER_GROUP;
      const g = s.at + group * GROUP_SIZE;
      const status = s.seg[g + within];
      const x = g + 4 + within * 4;
      const xid = u32At(s.seg, x);
      if (status > MultiXactStatusForUpdate) update = xid;
    }
    return { ok: true, xid: update };
  }
}
