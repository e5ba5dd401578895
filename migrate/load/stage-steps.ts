// The staged files of a load and the plan steps that switch them in, for any relation the load
// appends to (the table, its TOAST relation): new pages written to a staging file (checksummed
// for their final block numbers) and appended segment by segment; the visibility map with the
// new pages all-visible and all-frozen and the free space map with their free space, written
// whole under staging names; a rebuilt index's files, and its free space map removed. Steps
// carry absolute paths here; the engine makes them relative to the data directory for the plan.
import { closeSync, existsSync, fchmodSync, fchownSync, fsyncSync, openSync, writeSync } from "node:fs";
import type { Geometry } from "../../formats/storage/relfile.js";
import { existingSegments, RelationFork, segmentPath } from "../../formats/storage/relfile.js";
import { RelationWriter } from "../../formats/storage/relwriter.js";
import { fsmAvailToCat, fsmCategoriesForHeapBlocks } from "../../formats/storage/fsm.js";
import { VISIBILITYMAP_ALL_FROZEN, VISIBILITYMAP_ALL_VISIBLE } from "../../formats/storage/vm.js";
import { buildFsm, vmWithBitsSet } from "../../formats/storage/map-write.js";
import { setPageChecksum } from "../../formats/page/checksum.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { ClusterOwner } from "../file-owner.js";
import { STAGE_SUFFIX, type SwitchStep } from "./plan.js";

/** Every page of a fork (segments concatenated), or none when it does not exist. */
export function readForkPages(path: string, geometry: Geometry): Uint8Array[] {
  if (!existsSync(path)) return [];
  const fork = new RelationFork(path, geometry);
  try {
    const out: Uint8Array[] = [];
    for (let b = 0; b < fork.nblocks; b++) out.push(fork.readBlock(b));
    return out;
  } finally {
    fork.close();
  }
}

/** A relation's block count before a load appends to it; refused when it ends in a partial block. */
export function appendBase(path: string, geometry: Geometry): { pages: number } {
  const fork = new RelationFork(path, geometry);
  try {
    const tail = fork.partialTail;
    if (tail) throw new FormatError("REL_PARTIAL_BLOCK", `${tail.file} ends in a partial block (${tail.bytes} bytes of block ${tail.block}); pgdisk appends only after whole blocks`, { file: tail.file, block: tail.block });
    return { pages: fork.nblocks };
  } finally {
    fork.close();
  }
}

/**
 * The append steps that put pages pagesBefore..pagesAfter-1 of a staging file at the end of a
 * relation, segment by segment. A relation without pages whose new pages fit in its first
 * segment gets the staging file itself as that segment (a link step: no copy of the pages).
 */
export function appendSteps(path: string, base: { pages: number }, pagesAfter: number, stagePath: string, geometry: Geometry): SwitchStep[] {
  if (base.pages === 0 && pagesAfter > 0 && pagesAfter <= geometry.segmentBlocks) return [{ kind: "link", target: segmentPath(path, 0), staged: stagePath }];
  const steps: SwitchStep[] = [];
  const bs = geometry.blockSize;
  for (let b = base.pages; b < pagesAfter; ) {
    const seg = Math.floor(b / geometry.segmentBlocks);
    const end = Math.min(pagesAfter, (seg + 1) * geometry.segmentBlocks);
    steps.push({ kind: "append", target: segmentPath(path, seg), source: stagePath, sourceOffset: (b - base.pages) * bs, length: (end - b) * bs });
    b = end;
  }
  return steps;
}

/**
 * The visibility map (new pages all-visible and all-frozen) and free space map (each new page's
 * free space) of a relation growing from pagesBefore to pagesBefore + freeSpace.length pages,
 * staged (unless dryRun) with their switch steps pushed to `steps`. Returns the pages of each.
 */
export function stageMaps(relPath: (fork: "vm" | "fsm") => string, pagesBefore: number, freeSpace: readonly number[], o: { geometry: Geometry; checksums: boolean; owner: ClusterOwner; dryRun?: boolean }, steps: SwitchStep[]): { vmPages: number; fsmPages: number } {
  const bs = o.geometry.blockSize;
  const pagesAfter = pagesBefore + freeSpace.length;
  const vmPath = relPath("vm");
  const vm = vmWithBitsSet(readForkPages(vmPath, o.geometry), pagesBefore, pagesAfter, VISIBILITYMAP_ALL_VISIBLE | VISIBILITYMAP_ALL_FROZEN, bs);
  const fsmPath = relPath("fsm");
  const cats = new Uint8Array(pagesAfter);
  const oldFsm = readForkPages(fsmPath, o.geometry);
  if (oldFsm.length) cats.set(fsmCategoriesForHeapBlocks(oldFsm, pagesBefore));
  freeSpace.forEach((f, i) => (cats[pagesBefore + i] = fsmAvailToCat(f)));
  const fsm = buildFsm(cats, bs);
  if (!o.dryRun) {
    for (const [path, pages] of [[vmPath, vm], [fsmPath, fsm]] as const) {
      const w = new RelationWriter(path, { geometry: o.geometry, checksums: o.checksums, owner: o.owner, tempSuffix: STAGE_SUFFIX });
      try {
        for (const p of pages) w.append(p);
        steps.push(...replaceSteps(w.stage()));
      } catch (e) {
        w.abort();
        throw e;
      }
    }
  }
  return { vmPages: vm.length, fsmPages: fsm.length };
}

/** The steps that link in files staged under staging names and remove the segments past their end. */
export function replaceSteps(staged: { files: { temp: string; final: string }[]; stale: string[] }): SwitchStep[] {
  return [...staged.files.map((f): SwitchStep => ({ kind: "link", target: f.final, staged: f.temp })), ...staged.stale.map((f): SwitchStep => ({ kind: "remove", target: f }))];
}

/** A rebuilt index's switch: its staged files, and its free space map removed (REINDEX starts a new file without one). */
export function indexSteps(staged: { files: { temp: string; final: string }[]; stale: string[] }, fsmPath: string): SwitchStep[] {
  return [...replaceSteps(staged), ...existingSegments(fsmPath).map((f): SwitchStep => ({ kind: "remove", target: f }))];
}

/** New pages of a relation written to a staging file in large batches, each checksummed for its final block number. */
export class PageStager {
  private readonly batch: Uint8Array;
  private fill = 0;
  private fd = -1;
  /** pages staged */
  pages = 0;

  constructor(
    readonly path: string,
    private readonly o: { blockSize: number; firstBlock: number; checksums: boolean; owner?: ClusterOwner; dryRun?: boolean; batchBytes?: number },
  ) {
    this.batch = new Uint8Array(Math.max(o.blockSize, Math.floor((o.batchBytes ?? 8 << 20) / o.blockSize) * o.blockSize));
    if (o.dryRun) return;
    this.fd = openSync(path, "w", o.owner?.fileMode ?? 0o600);
    if (o.owner) {
      fchownSync(this.fd, o.owner.uid, o.owner.gid);
      fchmodSync(this.fd, o.owner.fileMode);
    }
  }

  /** Stage the next page (copied). */
  put(page: Uint8Array): void {
    if (this.fd >= 0) {
      const slot = this.batch.subarray(this.fill, this.fill + this.o.blockSize);
      slot.set(page);
      if (this.o.checksums) setPageChecksum(slot, this.o.firstBlock + this.pages);
      this.fill += this.o.blockSize;
      if (this.fill === this.batch.length) this.flush();
    }
    this.pages++;
  }

  private flush(): void {
    for (let done = 0; done < this.fill; ) done += writeSync(this.fd, this.batch, done, this.fill - done);
    this.fill = 0;
  }

  /** Flush and fsync; returns the pages staged. */
  finish(): number {
    if (this.fd >= 0) {
      this.flush();
      fsyncSync(this.fd);
      this.close();
    }
    return this.pages;
  }

  /** Close without finishing (the plan's discard removes the file). */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
