// The dump engine: walks the blocks of resolved relations and yields plain events
// (relation, page, file-level finding, summary) for the renderers.
import type { Finding } from "../../formats/schema/errors.js";
import { FormatError, findingFrom } from "../../formats/schema/errors.js";
import { scanBlocks } from "../../formats/storage/relfile.js";
import { dumpPage } from "./page-dump.js";
import { dumpContext, openFork, type ResolvedRelation } from "./target.js";
import type { DumpPage, DumpSummary, DumpTarget } from "./model.js";

export interface BlockRange {
  from: number;
  /** exclusive; undefined = to the end */
  to?: number;
}

export interface DumpOptions {
  blocks?: BlockRange;
  detoast: boolean;
  /** force checksum verification on/off (default: the cluster's setting; off for lone files) */
  checksums?: boolean;
  /** decode attribute values and index keys (default true) */
  values?: boolean;
}

export type DumpEvent =
  | { type: "relation"; target: DumpTarget }
  | { type: "page"; page: DumpPage }
  | { type: "finding"; finding: Finding }
  | { type: "end"; summary: DumpSummary };

export function emptySummary(): DumpSummary {
  return { pages: 0, newPages: 0, items: 0, findings: 0, errors: 0, warnings: 0 };
}

function count(s: DumpSummary, f: Finding): void {
  s.findings++;
  if (f.severity === "error") s.errors++;
  else if (f.severity === "warning") s.warnings++;
}

/** Dump one relation fork. Usage errors (a block range beyond the end) throw FormatError. */
export function* dumpRelation(r: ResolvedRelation, opts: DumpOptions, summary: DumpSummary = emptySummary()): Generator<DumpEvent, DumpSummary> {
  const fork = openFork(r);
  try {
    const first = fork.firstBlock;
    const end = fork.nblocks;
    const from = opts.blocks?.from ?? first;
    const to = Math.min(opts.blocks?.to ?? end, end);
    if (opts.blocks && (from < first || from >= end) && !(end === first && from === first)) {
      throw new FormatError("BLOCK_RANGE_OUT_OF_RELATION", `block ${from} is outside ${fork.basePath} (blocks ${first}..${end - 1})`, { file: fork.basePath, block: from });
    }
    const target: DumpTarget = {
      file: fork.segments[0]?.path ?? r.path,
      pgdata: r.cluster?.pgdata,
      database: r.catalog?.db.name,
      relation: r.rel ? `${r.rel.namespaceName}.${r.rel.name}` : undefined,
      relkind: r.rel?.kind,
      am: r.rel ? (r.rel.kind === "i" ? r.rel.amName : r.rel.kind === "S" ? "sequence" : "heap") : undefined,
      fork: r.fork,
      blocks: [from, to],
      nblocks: end,
    };
    yield { type: "relation", target };
    const ctxBase = dumpContext(r, { detoast: opts.detoast, checksums: opts.checksums, fileLabel: target.file!, values: opts.values });
    for (const [blkno, page] of scanBlocks(fork, from, to)) {
      const { path, position } = fork.fileOf(blkno);
      const p = dumpPage(page, blkno, position, { ...ctxBase, file: path });
      summary.pages++;
      if (p.isNew) summary.newPages++;
      summary.items += p.items.length;
      p.findings.forEach((f) => count(summary, f));
      yield { type: "page", page: p };
    }
    const tail = fork.partialTail;
    if (tail && (opts.blocks?.to === undefined || opts.blocks.to > tail.block)) {
      const f: Finding = {
        code: "REL_PARTIAL_BLOCK",
        severity: "error",
        message: `file ends with a partial block: ${tail.bytes} bytes where a ${r.geometry.blockSize}-byte block should be (truncated file, or wrong block size)`,
        location: { file: tail.file, block: tail.block, offset: (tail.block % r.geometry.segmentBlocks) * r.geometry.blockSize },
      };
      count(summary, f);
      yield { type: "finding", finding: f };
    }
    return summary;
  } catch (e) {
    if (e instanceof FormatError && e.code.startsWith("REL_SHORT")) {
      const f = findingFrom(e);
      count(summary, f);
      yield { type: "finding", finding: f };
      return summary;
    }
    throw e;
  } finally {
    fork.close();
  }
}
