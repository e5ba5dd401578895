// Synthetic TOAST relations for the reader/writer tests: values of chosen slice counts, stored
// compressed (real pglz/lz4 payloads) or not, written as Direct TOAST or stock chunks (with a
// TOAST index built like CREATE INDEX) into temp files, and the pointers that name them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RelationFork } from "../../formats/storage/relfile.js";
import { RelationWriter } from "../../formats/storage/relwriter.js";
import { compressDatum, type CompressionMethod } from "../../formats/compression/index.js";
import { readToastPointer, type ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { ToastHeapWriter } from "../../formats/toast/heap-writer.js";
import { writeDirectValue, writePlainValue } from "../../formats/toast/value-writer.js";
import { encodeDirectPointer, encodePlainPointer } from "../../formats/toast/reform.js";
import { buildToastIndex, compareIndexEntries, type IndexEntryIn } from "../../formats/toast/index-build.js";
import type { ChunkVisibility } from "../../formats/toast/chunk-form.js";
import { ToastReader } from "../../formats/toast/reader.js";
import { rng } from "../compression/corpus.js";

export const MC = 1996;
export const TOAST_RELID = 77777;
export const GEOMETRY = { blockSize: 8192, segmentBlocks: 131072 };
export const VIS: ChunkVisibility = { xmin: 1000, xmax: 0, field3: 0, xactBits: 0x0900, keysUpdated: 0 };

/** Bytes that compress to roughly half: per 64 bytes, 32 random then a repeated phrase. */
export function halfCompressible(len: number, seed: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(len);
  const phrase = new TextEncoder().encode("the quick brown fox jumps over t");
  for (let i = 0; i < len; i++) out[i] = i % 64 < 32 ? Math.floor(r() * 256) : phrase[i % 32];
  return out;
}

export function randomBytes(len: number, seed: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = Math.floor(r() * 256);
  return out;
}

export interface Value {
  label: string;
  raw: Uint8Array;
  /** stored bytes: raw, or va_tcinfo + compressed stream */
  stored: Uint8Array;
  method: CompressionMethod | null;
}

const slicesOf = (n: number): number => Math.floor((n - 1) / MC) + 1;

/** An uncompressed value of exactly n slices (the last one `last` bytes). */
export function plainValue(n: number, seed: number, last = MC): Value {
  const raw = randomBytes((n - 1) * MC + last, seed);
  return { label: `raw-${n}`, raw, stored: raw, method: null };
}

/** A compressed value whose payload has exactly n slices (raw length found from the compression ratio). */
export function compressedValue(n: number, method: CompressionMethod, seed: number): Value {
  const payload = (len: number): Uint8Array => compressDatum(halfCompressible(len, seed), method)!;
  const probe = 1 << 16;
  let ratio = payload(probe).length / probe;
  let len = Math.max(64, Math.round(((n - 0.5) * MC) / ratio));
  for (let tries = 0; tries < 40; tries++) {
    const got = slicesOf(payload(len).length);
    if (got === n) {
      const raw = halfCompressible(len, seed);
      return { label: `${method === 0 ? "pglz" : "lz4"}-${n}`, raw, stored: compressDatum(raw, method)!, method };
    }
    ratio = payload(len).length / len;
    len = Math.max(64, len + Math.round(((n - got) * MC) / ratio / (tries > 10 ? 4 : 1)));
  }
  throw new Error(`could not make a ${n}-slice ${method === 0 ? "pglz" : "lz4"} payload`);
}

function* slices(s: Uint8Array): Generator<Uint8Array> {
  for (let i = 0; i < s.length; i += MC) yield s.subarray(i, Math.min(i + MC, s.length));
}

const fields = (v: Value) => ({ va_rawsize: v.raw.length + 4, va_extinfo: (v.stored.length | ((v.method ?? 0) << 30)) >>> 0, va_toastrelid: TOAST_RELID });

export interface SyntheticToast {
  dir: string;
  heapPath: string;
  indexPath: string | null;
  pointers: ToastPointer[];
  reader(withIndex?: boolean): ToastReader;
  cleanup(): void;
}

/** Write `values` into a fresh TOAST heap (direct or stock with an index); pointers in the same order. */
export function writeSynthetic(values: Value[], flavour: "direct" | "plain", firstOid = 20000): SyntheticToast {
  const dir = mkdtempSync(join(tmpdir(), "pgdisk-toast-syn-"));
  const heapPath = join(dir, "toast");
  const w = new RelationWriter(heapPath, { geometry: GEOMETRY, checksums: false, fsync: false });
  const hw = new ToastHeapWriter(8192, (p) => w.append(p));
  const pointers: ToastPointer[] = [];
  const entries: IndexEntryIn[] = [];
  values.forEach((v, i) => {
    if (flavour === "direct") {
      const r = writeDirectValue(hw, v.stored.length, slices(v.stored), VIS, MC);
      pointers.push(readToastPointer(encodeDirectPointer(fields(v), r.root), 0));
    } else {
      const oid = firstOid + i;
      writePlainValue(hw, oid, v.stored.length, slices(v.stored), VIS, MC, (seq, tid) => entries.push({ chunkId: oid, seq, tid }));
      pointers.push(readToastPointer(encodePlainPointer(fields(v), oid), 0));
    }
  });
  hw.finish();
  w.commit();
  let indexPath: string | null = null;
  if (flavour === "plain") {
    indexPath = join(dir, "toast_index");
    const pages = new Map<number, Uint8Array>();
    const built = buildToastIndex(entries.sort(compareIndexEntries), { blockSize: 8192, allequalimage: true }, (b, p) => pages.set(b, p.slice()));
    const iw = new RelationWriter(indexPath, { geometry: GEOMETRY, checksums: false, fsync: false });
    for (let b = 0; b < built.nblocks; b++) iw.append(pages.get(b)!);
    iw.commit();
  }
  return {
    dir,
    heapPath,
    indexPath,
    pointers,
    reader: (withIndex = true) => new ToastReader({ heap: new RelationFork(heapPath, GEOMETRY), index: withIndex && indexPath ? new RelationFork(indexPath, GEOMETRY) : null, toastRelid: TOAST_RELID }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
