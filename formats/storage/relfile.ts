// Relation files: a fork is split into 1 GiB segments (RELSEG_SIZE blocks): base, base.1, base.2 ...
// (src/backend/storage/smgr/md.c). Blocks are numbered relation-wide across segments.
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { FormatError } from "../schema/errors.js";

export type ForkName = "main" | "fsm" | "vm" | "init";
export const forkSuffix = (f: ForkName): string => (f === "main" ? "" : `_${f}`);

export interface Geometry {
  blockSize: number;
  /** blocks per segment file */
  segmentBlocks: number;
}
export const DEFAULT_GEOMETRY: Geometry = { blockSize: 8192, segmentBlocks: 131072 };

export interface SegmentInfo {
  path: string;
  segno: number;
  size: number;
  /** whole blocks in this segment */
  blocks: number;
  /** trailing bytes that do not make a whole block */
  partialBytes: number;
}

/** Split "…/16384.2" into its base path and segment number. */
export function parseSegmentPath(path: string): { base: string; segno: number } {
  const m = /^(.*?)(?:\.(\d+))?$/.exec(path)!;
  const name = basename(m[1]);
  if (m[2] !== undefined && /^\d+(_(fsm|vm|init))?$/.test(name)) return { base: m[1], segno: Number(m[2]) };
  return { base: path, segno: 0 };
}

/** The path of segment `segno` of the fork whose segment 0 is `base` ("…/16384", "…/16384.1"). */
export const segmentPath = (base: string, segno: number): string => (segno === 0 ? base : `${base}.${segno}`);

/** The segment files of a fork that exist, segment 0 first (none when the fork does not exist). */
export function existingSegments(base: string): string[] {
  const out: string[] = [];
  for (let s = 0; existsSync(segmentPath(base, s)); s++) out.push(segmentPath(base, s));
  return out;
}

/**
 * One fork of a relation, across its segment files. Reads whole blocks with positioned reads;
 * never reads the whole file. A partial trailing block is reported, not silently dropped.
 */
export class RelationFork {
  readonly segments: SegmentInfo[];
  private fds = new Map<number, number>();

  constructor(
    /** path of segment 0 (no .N suffix), fork suffix included */
    readonly basePath: string,
    readonly geometry: Geometry = DEFAULT_GEOMETRY,
    /** only this one segment (a single file was named, e.g. 16384.1) */
    onlySegment?: number,
  ) {
    this.segments = [];
    const bs = geometry.blockSize;
    for (let segno = onlySegment ?? 0; ; segno++) {
      const path = segmentPath(basePath, segno);
      if (!existsSync(path)) {
        if (segno === 0 && onlySegment === undefined) throw new FormatError("REL_FILE_MISSING", `relation file ${path} does not exist`, { file: path });
        if (onlySegment !== undefined) throw new FormatError("REL_FILE_MISSING", `relation file ${path} does not exist`, { file: path });
        break;
      }
      const fd = openSync(path, "r");
      const size = fstatSync(fd).size;
      this.fds.set(segno, fd);
      this.segments.push({ path, segno, size, blocks: Math.floor(size / bs), partialBytes: size % bs });
      if (onlySegment !== undefined) break;
      if (size < geometry.segmentBlocks * bs) break; // a short segment is the last one
    }
  }

  /** Open one file as given by the user: a segment file of any fork. */
  static openFile(path: string, geometry: Geometry = DEFAULT_GEOMETRY): RelationFork {
    const { base, segno } = parseSegmentPath(path);
    return new RelationFork(base, geometry, segno === 0 ? undefined : segno);
  }

  /** First relation-wide block number covered. */
  get firstBlock(): number {
    return this.segments.length ? this.segments[0].segno * this.geometry.segmentBlocks : 0;
  }

  /** Relation-wide block count (whole blocks; from firstBlock). */
  get nblocks(): number {
    const last = this.segments[this.segments.length - 1];
    if (!last) return 0;
    return last.segno * this.geometry.segmentBlocks + last.blocks;
  }

  /** A trailing partial block, if the last segment has one. */
  get partialTail(): { file: string; block: number; bytes: number } | undefined {
    const last = this.segments[this.segments.length - 1];
    if (!last || last.partialBytes === 0) return undefined;
    return { file: last.path, block: last.segno * this.geometry.segmentBlocks + last.blocks, bytes: last.partialBytes };
  }

  /** Which file and byte position hold relation-wide block `blkno`. */
  locate(blkno: number): { seg: SegmentInfo; position: number } {
    const segno = Math.floor(blkno / this.geometry.segmentBlocks);
    const seg = this.segments.find((s) => s.segno === segno);
    const inSeg = blkno - segno * this.geometry.segmentBlocks;
    if (!seg || inSeg >= seg.blocks) {
      throw new FormatError("REL_BLOCK_OUT_OF_RANGE", `block ${blkno} is beyond the end of the relation (${this.nblocks} blocks)`, { file: seg?.path ?? this.basePath, block: blkno });
    }
    return { seg, position: inSeg * this.geometry.blockSize };
  }

  /** Read block `blkno` into `out` (blockSize bytes); returns out. */
  readBlock(blkno: number, out: Uint8Array = new Uint8Array(this.geometry.blockSize)): Uint8Array {
    const { seg, position } = this.locate(blkno);
    const n = readSync(this.fds.get(seg.segno)!, out, 0, this.geometry.blockSize, position);
    if (n !== this.geometry.blockSize) throw new FormatError("REL_SHORT_READ", `read ${n} of ${this.geometry.blockSize} bytes of block ${blkno}`, { file: seg.path, block: blkno, offset: position });
    return out;
  }

  /**
   * Read up to `count` consecutive blocks starting at `blkno` into `out` (count × blockSize),
   * staying within one segment; returns how many blocks were read.
   */
  readBlocks(blkno: number, count: number, out: Uint8Array): number {
    const { seg, position } = this.locate(blkno);
    const bs = this.geometry.blockSize;
    const inSeg = position / bs;
    const n = Math.min(count, seg.blocks - inSeg, Math.floor(out.length / bs));
    const got = readSync(this.fds.get(seg.segno)!, out, 0, n * bs, position);
    if (got !== n * bs) throw new FormatError("REL_SHORT_READ", `read ${got} of ${n * bs} bytes at block ${blkno}`, { file: seg.path, block: blkno, offset: position });
    return n;
  }

  /** Path of the file holding block `blkno`, and the block's byte offset in it. */
  fileOf(blkno: number): { path: string; position: number } {
    const { seg, position } = this.locate(blkno);
    return { path: seg.path, position };
  }

  /** Raw bytes of the partial trailing block, if any. */
  readPartialTail(): Uint8Array | undefined {
    const t = this.partialTail;
    if (!t) return undefined;
    const last = this.segments[this.segments.length - 1];
    const out = new Uint8Array(t.bytes);
    readSync(this.fds.get(last.segno)!, out, 0, t.bytes, last.blocks * this.geometry.blockSize);
    return out;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/** Iterate blocks in large sequential batches (default 1 MiB), yielding (blkno, page view). */
export function* scanBlocks(fork: RelationFork, from = fork.firstBlock, to = fork.nblocks, batchBlocks = 128): Generator<[number, Uint8Array]> {
  const bs = fork.geometry.blockSize;
  const buf = new Uint8Array(batchBlocks * bs);
  let b = from;
  while (b < to) {
    const n = fork.readBlocks(b, Math.min(batchBlocks, to - b), buf);
    for (let i = 0; i < n; i++) yield [b + i, buf.subarray(i * bs, (i + 1) * bs)];
    b += n;
  }
}
