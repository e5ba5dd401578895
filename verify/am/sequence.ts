// A sequence's one page (src/backend/commands/sequence.c read_seq_tuple): SEQ_MAGIC in the
// special space, one LP_NORMAL heap tuple holding FormData_pg_sequence_data, and last_value within
// the pg_sequence row's [seqmin, seqmax] when that row can be read.
import { itemIdWord, maxOffsetNumber, pdSpecial } from "../../formats/page/page.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { HeapTupleHeaderData } from "../../formats/heap/tuple-header.js";
import { SEQ_MAGIC, SequenceData, SequenceMagic } from "../../formats/am/sequence.js";
import type { PageVerdict } from "../page-check.js";
import { blockLoc, type AmCheckInput, type AmChecker } from "./checker.js";

export interface SequenceBounds {
  min: bigint;
  max: bigint;
}

export class SequenceChecker implements AmChecker {
  readonly name = "sequence";
  constructor(
    private readonly in_: AmCheckInput,
    private readonly bounds: SequenceBounds | undefined,
  ) {}

  private add(code: "SEQ_MAGIC" | "SEQ_SHAPE" | "SEQ_VALUE_RANGE", blk: number, msg: string, item?: number): void {
    this.in_.sink.add(code, msg, blockLoc(this.in_.fork, blk, item));
  }

  page(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void {
    const name = this.in_.relName;
    if (blk > 0) {
      if (blk === 1) this.add("SEQ_SHAPE", blk, `sequence "${name}" has ${this.in_.fork.nblocks} blocks, not one`);
      return;
    }
    if (v.isNew || !v.usable) return this.add("SEQ_SHAPE", 0, `sequence "${name}" block 0 is ${v.isNew ? "a new page" : "unreadable"}`);
    const sp = pdSpecial(dv);
    if (sp + SequenceMagic.size !== page.length) return this.add("SEQ_MAGIC", 0, `bad magic number in sequence "${name}": its special space is ${page.length - sp} bytes, not ${SequenceMagic.size}`);
    const magic = SequenceMagic.get.magic(page, sp);
    if (magic !== SEQ_MAGIC) return this.add("SEQ_MAGIC", 0, `bad magic number in sequence "${name}": ${magic.toString(16).toUpperCase().padStart(8, "0")}`);
    const maxoff = maxOffsetNumber(dv);
    if (maxoff !== 1) return this.add("SEQ_SHAPE", 0, `sequence "${name}" block 0 has ${maxoff} line pointers, not one`);
    const w = itemIdWord(dv, 1);
    const off = lpOff(w);
    const len = lpLen(w);
    if (lpFlags(w) !== LP_NORMAL || off + len > sp || len < HeapTupleHeaderData.size) return this.add("SEQ_SHAPE", 0, `sequence "${name}" item 1 is not a normal heap tuple inside the page (lp_off ${off}, lp_len ${len})`, 1);
    const hoff = HeapTupleHeaderData.get.t_hoff(page, off);
    if (hoff + SequenceData.size > len) return this.add("SEQ_SHAPE", 0, `sequence "${name}" item 1 has ${len - hoff} data bytes, fewer than FormData_pg_sequence_data's ${SequenceData.size}`, 1);
    const last = SequenceData.get.last_value(page, off + hoff);
    const b = this.bounds;
    if (b && (last < b.min || last > b.max)) this.add("SEQ_VALUE_RANGE", 0, `sequence "${name}" has last_value ${last}, outside its pg_sequence range [${b.min}, ${b.max}]`, 1);
  }

  finish(): void {}
}
