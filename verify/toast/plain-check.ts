// verify_heapam's TOAST chunk checks for one plain (VARTAG_ONDISK) pointer, in its order:
// the chunks the TOAST index would return for the value, each checked against the running
// expected chunk_seq, then the end of the sequence. Beyond amcheck: a compressed value must
// decompress to exactly va_rawsize - 4 bytes.
import type { Location } from "../../formats/schema/errors.js";
import { FormatError } from "../../formats/schema/errors.js";
import { decompressedSizeTcinfo } from "../../formats/compression/index.js";
import type { FindingSink } from "../findings.js";
import { CHUNK_DATA_NULL, CHUNK_OK, chunkDataFields, tidOf, type ToastRelation } from "./toast-rel.js";
import type { CheckCode } from "../../formats/codes/index.js";

export interface PlainPointer {
  valueId: number;
  rawsize: number;
  extsize: number;
  compressed: boolean;
}

export interface PlainCheckResult {
  /** the stored bytes S when every chunk check passed (empty unless assembled), else null */
  stored: Uint8Array | null;
}

/**
 * Check one plain TOAST value; findings are located at the parent attribute `where`. The value's
 * bytes are assembled only when asked (`wantStored`) or needed to try decompressing it.
 */
export function checkPlainValue(p: PlainPointer, rel: ToastRelation, where: Location, sink: FindingSink | null, decompress: boolean, wantStored = true): PlainCheckResult {
  const v = p.valueId;
  const report = (code: CheckCode, msg: string, key?: number): void => {
    if (!sink) throw new FormatError(code, msg, where);
    const t = key === undefined ? undefined : tidOf(key);
    sink.add(code, msg, where, t ? `TOAST relation ${rel.label}, chunk tuple (${t.block},${t.item}).` : `TOAST relation ${rel.label}.`);
  };
  const chunks = rel.plainChunks(v);
  if (!chunks) {
    report("TOAST_VALUE_MISSING", `toast value ${v} not found in toast table`);
    return { stored: null };
  }
  const max = rel.maxChunk;
  const last = Math.floor((p.extsize - 1) / max);
  let expected = 0;
  let ok = true;
  // the bytes are read again only when they are used; otherwise the chunk fields the TOAST
  // relation's scan recorded are checked (same checks, same order, same words)
  const assemble = wantStored || (decompress && p.compressed);
  // bytes only decompressed here go into one reused buffer: a fresh one per value is external
  // memory, and hundreds of MB of it made V8 start garbage collections (external memory pressure)
  const stored = wantStored ? new Uint8Array(p.extsize) : assemble ? scratchOf(p.extsize) : EMPTY;
  const t = chunks.table;
  for (let k = chunks.from; k < chunks.to; k++) {
    const cseq = t.seqAt(k);
    const ckey = t.keyAt(k);
    let fields = t.fieldsAt(k);
    let header = t.headerAt(k);
    let dataLen = t.dataLenAt(k);
    let data: Uint8Array | null = null;
    if (assemble) {
      const { block, item } = tidOf(ckey);
      const at = rel.tupleAt(block, item);
      if ("why" in at) {
        report("TOAST_CHUNK_BAD_VARLENA", `toast value ${v} chunk ${cseq ?? "?"} cannot be read: ${at.why}`, ckey);
        ok = false;
        continue;
      }
      const m = chunkDataFields(at.page, at.off, at.len);
      fields = m.fields;
      header = m.header;
      data = m.data;
      dataLen = data ? data.length : 0;
    }
    if (cseq === null) {
      report("TOAST_CHUNK_NULL_SEQ", `toast value ${v} has toast chunk with null sequence number`, ckey);
      ok = false;
      continue;
    }
    const seq = cseq;
    if (seq !== expected) {
      report("TOAST_CHUNK_UNEXPECTED_SEQ", `toast value ${v} index scan returned chunk ${seq} when expecting chunk ${expected}`, ckey);
      ok = false;
    }
    expected = seq + 1;
    if (fields !== CHUNK_OK) {
      if (fields === CHUNK_DATA_NULL) report("TOAST_CHUNK_NULL_DATA", `toast value ${v} chunk ${seq} has null data`, ckey);
      else report("TOAST_CHUNK_BAD_VARLENA", `toast value ${v} chunk ${seq} has invalid varlena header ${header.toString(16)}`, ckey);
      ok = false;
      continue;
    }
    if (seq > last) {
      report("TOAST_CHUNK_EXTRA", `toast value ${v} chunk ${seq} follows last expected chunk ${last}`, ckey);
      ok = false;
      continue;
    }
    const want = seq < last ? max : p.extsize - last * max;
    if (dataLen !== want) {
      report("TOAST_CHUNK_BAD_SIZE", `toast value ${v} chunk ${seq} has size ${dataLen}, but expected size ${want}`, ckey);
      ok = false;
      continue;
    }
    if (ok && data) stored.set(data, seq * max);
  }
  if (expected <= last) {
    report("TOAST_VALUE_TRUNCATED", `toast value ${v} was expected to end at chunk ${last}, but ended while expecting chunk ${expected}`);
    ok = false;
  }
  if (!ok) return { stored: null };
  if (assemble && decompress && p.compressed) checkDecompresses(stored, p.rawsize - 4, `toast value ${v}`, where, sink);
  return { stored: wantStored ? stored : EMPTY };
}

const EMPTY = new Uint8Array(0);
let scratch = new Uint8Array(64 * 1024);

/** The first n bytes of the reused assembly buffer (its contents are overwritten by the next value). */
function scratchOf(n: number): Uint8Array {
  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, 2 * scratch.length));
  return scratch.subarray(0, n);
}

/**
 * A compressed payload (va_tcinfo + stream) must decompress to exactly `rawSize` bytes; true when
 * it does. Only the verdict is needed, so the stream is validated without writing its output.
 */
export function checkDecompresses(payload: Uint8Array, rawSize: number, what: string, where: Location, sink: FindingSink | null): boolean {
  let n: number;
  try {
    n = decompressedSizeTcinfo(payload);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    const msg = `${what} does not decompress: ${e.message}`;
    if (!sink) throw new FormatError("TOAST_DECOMPRESS_FAILED", msg, where, e.code);
    sink.add("TOAST_DECOMPRESS_FAILED", msg, where, `${e.code} at payload offset ${e.location.offset ?? "?"}${e.detail ? `; ${e.detail}` : ""}`);
    return false;
  }
  if (n !== rawSize) {
    const msg = `${what} decompresses to ${n} bytes, but its header says ${rawSize}`;
    if (!sink) throw new FormatError("TOAST_RAWSIZE_MISMATCH", msg, where);
    sink.add("TOAST_RAWSIZE_MISMATCH", msg, where);
    return false;
  }
  return true;
}
