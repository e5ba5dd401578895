// The fuzz campaign: rounds of structure-aware mutations (mutate.ts) written into a private copy
// of a sample cluster, each round read by every reader entry point pgdisk has for relation
// files: the dump (its page model through the JSON, COPY and text renderers, and the text
// renderer's own record path; TOAST resolved), verify, browse's engine (page model, summary,
// hex layout), `inspect list`, value reading, and with `converters` `migrate toast` and
// `migrate btree` into an output copy (readers.ts). A reader may report findings or throw a FormatError (a
// precise error); anything else escaping it is a failure, and so is a round after which the
// process holds more memory than the stated bound. Rounds are independent and replayable:
// round r of seed s makes the same patches whatever ran before it.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { Rng } from "../prng.js";
import { applyPatch, mutatePage, type PageKind, type Patch } from "./mutate.js";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { setPageChecksum } from "../../formats/page/checksum.js";
import { FormatError } from "../../formats/schema/errors.js";
import { resolveByName } from "../../inspect/dump/target.js";
import { dumpRelation, emptySummary, type DumpEvent } from "../../inspect/dump/dump.js";
import { ByteOut } from "../../inspect/dump/byte-out.js";
import { TextByteRenderer } from "../../inspect/dump/render-text-bytes.js";
import { JsonRenderer } from "../../inspect/dump/render-json.js";
import { CopyRenderer } from "../../inspect/dump/render-copy.js";
import { BrowseSession } from "../../inspect/browse/session.js";
import { pageRegions } from "../../inspect/browse/hex-layout.js";
import { runVerify } from "../../verify/run.js";
import { converterEntry, converterSubject, listEntry, valueEntry, type ConverterEntry } from "./readers.js";
import { PG_AM_OID, PG_AMPROC_OID, PG_ATTRIBUTE_OID, PG_CLASS_OID, PG_COLLATION_OID, PG_DATABASE_OID, PG_ENUM_OID, PG_INDEX_OID, PG_NAMESPACE_OID, PG_OPCLASS_OID, PG_TYPE_OID } from "../../formats/catalog/bootstrap.js";

export type EntryPoint = "dump" | "dump-records" | "verify" | "browse" | "list" | "value" | ConverterEntry;
export const ENTRY_POINTS: readonly EntryPoint[] = ["dump", "dump-records", "verify", "browse", "list", "value"];
/** The converters, each run into an output copy of the cluster (a copy a run: only with `converters`). */
export const CONVERTER_ENTRY_POINTS: readonly EntryPoint[] = ["migrate-toast", "migrate-btree", "load"];

export interface FuzzTarget {
  /** name as the CLI takes it (schema-qualified where needed) */
  name: string;
  rel: RelationInfo;
  path: string;
  kind: PageKind;
  /** the table whose verification reads this relation (itself, or the owner of a TOAST relation) */
  verifyAs: string;
  /**
   * a system catalog pgdisk reads to build its offline catalog: every reader depends on it, so
   * a round on it also reads a user relation through the damaged catalog, and verifies the
   * whole database
   */
  catalog: boolean;
}

/** Patches of one block of the target's main fork; `checksum`: the page's checksum is set after them. */
export interface BlockPatches {
  block: number;
  patches: Patch[];
  checksum: boolean;
}

export interface RoundPlan {
  round: number;
  target: FuzzTarget;
  blocks: BlockPatches[];
  /** a round on a catalog: the user relation also read through it */
  through?: FuzzTarget;
}

export interface FuzzFailure {
  seed: number;
  round: number;
  relation: string;
  entry: EntryPoint | "memory" | "descriptors";
  error: string;
  blocks: BlockPatches[];
  /** the user relation read through a damaged catalog (rounds on catalogs) */
  through?: string;
}

export interface CampaignOptions {
  /** a private cluster copy: its files are rewritten and restored round by round */
  pgdata: string;
  database: string;
  seed: number;
  /** rounds firstRound .. firstRound + rounds - 1 (default 0): campaigns split between workers */
  firstRound?: number;
  rounds: number;
  /** at most this many blocks mutated per round */
  blocksPerRound: number;
  /** resident set size above which a round fails ("allocation beyond the bound") */
  rssLimitBytes: number;
  /** mutate only the system catalogs' pages */
  catalogsOnly?: boolean;
  /** run the converters too (CONVERTER_ENTRY_POINTS) */
  converters?: boolean;
  onRound?: (done: number, pages: number, failures: number) => void;
}

export interface CampaignResult {
  rounds: number;
  /** mutated pages read by every entry point */
  pages: number;
  failures: FuzzFailure[];
  /** FormatError codes thrown by entry points (precise errors, not failures), with counts */
  errors: Map<string, number>;
  /** finding codes reported, with counts */
  findings: Map<string, number>;
  /** converter runs by outcome: "migrate-toast done", "migrate-btree refused", ... */
  conversions: Map<string, number>;
  peakRss: number;
  /** milliseconds spent in each entry point */
  ms: Map<EntryPoint, number>;
}

/** The entry point whose reading failed, or null for a failure of the whole round (memory, descriptors): nothing to minimise. */
export const failedEntry = (f: FuzzFailure): EntryPoint | null => (f.entry === "memory" || f.entry === "descriptors" ? null : f.entry);

/** The system catalogs pgdisk reads to build its offline catalog (formats/catalog/cluster.ts). */
export const CATALOG_TARGETS: ReadonlySet<number> = new Set([PG_CLASS_OID, PG_ATTRIBUTE_OID, PG_TYPE_OID, PG_NAMESPACE_OID, PG_INDEX_OID, PG_AM_OID, PG_DATABASE_OID, PG_OPCLASS_OID, PG_COLLATION_OID, PG_ENUM_OID, PG_AMPROC_OID]);

/** Every user relation with storage that pgdisk reads page by page, and the catalogs it reads. */
export function fuzzTargets(pgdata: string, database: string): FuzzTarget[] {
  const cat = new Cluster(pgdata).database(database);
  const out: FuzzTarget[] = [];
  for (const rel of cat.classes.values()) {
    const catalog = CATALOG_TARGETS.has(rel.oid);
    if ((rel.oid < 16384 && !catalog) || rel.filenode === 0) continue;
    const kind: PageKind | null = rel.kind === "r" || rel.kind === "t" || rel.kind === "m" ? "heap" : rel.kind === "i" && rel.amName === "btree" ? "btree" : null;
    if (!kind) continue;
    const owner = rel.kind === "t" ? [...cat.classes.values()].find((c) => c.toastRelid === rel.oid) : undefined;
    const name = qualified(cat, rel);
    if (!existsSync(cat.path(rel)) || statSync(cat.path(rel)).size < 8192) continue;
    out.push({ name, rel, path: cat.path(rel), kind, verifyAs: owner ? qualified(cat, owner) : name, catalog });
  }
  return out.sort((a, b) => a.rel.oid - b.rel.oid);
}

function qualified(cat: DatabaseCatalog, rel: RelationInfo): string {
  const ns = cat.namespaces.get(rel.namespace) ?? "";
  return ns === "public" || ns === "" ? rel.name : `${ns}.${rel.name}`;
}

/** The patches of round `round` of `seed`, made from the original pages. */
export function planRound(seed: number, round: number, targets: FuzzTarget[], original: (t: FuzzTarget) => Uint8Array, blocksPerRound: number, catalog: DatabaseCatalog, catalogsOnly = false): RoundPlan {
  const rng = new Rng(seed, `pgdisk-fuzz/round/${round}`);
  const target = pickWeighted(rng, catalogsOnly ? targets.filter((t) => t.catalog) : targets, (t) => Math.sqrt(original(t).length / 8192));
  const file = original(target);
  const nblocks = file.length / 8192;
  const desc = target.kind === "heap" ? catalog.descriptor(target.rel.oid) : undefined;
  // many blocks a round: the readers' fixed cost per relation is shared by more mutated pages
  const count = Math.min(nblocks, rng.int(Math.ceil(blocksPerRound / 2), blocksPerRound));
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(rng.int(0, nblocks - 1));
  const blocks: BlockPatches[] = [];
  for (const block of [...chosen].sort((a, b) => a - b)) {
    const page = file.slice(block * 8192, (block + 1) * 8192);
    blocks.push({ block, patches: mutatePage(page, rng, { kind: target.kind, desc }), checksum: rng.chance(0.75) });
  }
  // a damaged catalog is read on the way to every relation: read one of them through it
  const users = targets.filter((t) => !t.catalog);
  const through = target.catalog && users.length ? rng.pick(users) : undefined;
  return { round, target, blocks, through };
}

/** Larger relations more often (by `weight`), so that rounds reach their many pages. */
function pickWeighted<T>(rng: Rng, items: readonly T[], weight: (t: T) => number): T {
  const w = items.map(weight);
  let r = rng.float() * w.reduce((a, b) => a + b, 0);
  for (let i = 0; i < items.length; i++) if ((r -= w[i]) < 0) return items[i];
  return items[items.length - 1];
}

/** The target's file with the patches applied (checksums set where the plan says). */
export function patchedFile(original: Uint8Array, blocks: BlockPatches[]): Uint8Array {
  const out = original.slice();
  for (const b of blocks) {
    const page = out.subarray(b.block * 8192, (b.block + 1) * 8192);
    for (const p of b.patches) applyPatch(page, p);
    if (b.checksum) setPageChecksum(page, b.block);
  }
  return out;
}

/** Blocks of a relation read through a damaged catalog: its first few. */
const THROUGH_BLOCKS = 4;

/**
 * The message of a failure, or null when the entry point ended as it may: findings or a
 * FormatError. On a catalog target, `through` (a user relation) is read too, through the
 * damaged catalog, and verify checks the whole database.
 */
export async function runEntry(entry: EntryPoint, o: { pgdata: string; database: string }, target: FuzzTarget, blocks: number[], tally: Tally, through?: FuzzTarget): Promise<string | null> {
  const first = await runEntryOn(entry, o, target, blocks, tally);
  if (first || !through || entry === "verify") return first;
  const n = Math.min(THROUGH_BLOCKS, Math.floor(statSync(through.path).size / 8192));
  return runEntryOn(entry, o, through, Array.from({ length: n }, (_, i) => i), tally);
}

/** What the entry points reported: finding codes, FormatError codes, and converter runs ("migrate-toast done", "migrate-btree refused"). */
type Tally = { errors: Map<string, number>; findings: Map<string, number>; conversions?: Map<string, number> };

async function runEntryOn(entry: EntryPoint, o: { pgdata: string; database: string }, target: FuzzTarget, blocks: number[], tally: Tally): Promise<string | null> {
  try {
    if (entry === "verify") {
      const run = await runVerify({ pgdata: o.pgdata, database: o.database, relations: target.catalog ? undefined : [target.verifyAs] }, { jobs: 1 });
      for (const r of run.reports) {
        for (const f of r.findings) {
          bump(tally.findings, f.code);
          // a check that threw something other than a FormatError is reported with its stack
          if (f.code === "REL_VERIFY_FAILED" && /\n\s+at /.test(f.message)) return f.message;
        }
      }
    } else if (entry === "browse") {
      const session = new BrowseSession({ pgdata: o.pgdata, database: o.database });
      try {
        const ref = session.findRelation(session.startDb!, target.name);
        const h = session.relation(ref);
        for (const b of blocks) {
          const page = session.page(ref, b);
          for (const f of page.findings) bump(tally.findings, f.code);
          session.summary(ref, b);
          pageRegions(session.readPage(ref, b), page, { desc: h.ctx.desc, indexDesc: h.ctx.indexDesc });
        }
      } finally {
        session.close();
      }
    } else if (entry === "list") {
      listEntry(o);
    } else if (entry === "value") {
      valueEntry(o, target, blocks, (e) => bump(tally.errors, e.code));
    } else if (entry === "migrate-toast" || entry === "migrate-btree" || entry === "load") {
      const subject = target.catalog ? null : converterSubject(entry, o, target);
      if (!subject) return null;
      let refused = false;
      const failure = await converterEntry(entry, o, subject, (e) => {
        refused = true;
        bump(tally.errors, e.code);
      });
      if (tally.conversions) bump(tally.conversions, `${entry} ${refused ? "refused" : (await verifyErrorsIn(o, target)) ? "converted a relation verify finds damaged" : "done"}`);
      return failure;
    } else {
      dumpBlocks(entry, o, target, blocks, tally);
    }
    return null;
  } catch (e) {
    if (e instanceof FormatError) {
      bump(tally.errors, e.code);
      return null;
    }
    return e instanceof Error ? (e.stack ?? e.message) : String(e);
  }
}

/** Does verify report an error in the target's own file? (the converters check pages, not tuples) */
async function verifyErrorsIn(o: { pgdata: string; database: string }, target: FuzzTarget): Promise<boolean> {
  const run = await runVerify({ pgdata: o.pgdata, database: o.database, relations: [target.verifyAs] }, { jobs: 1 });
  return run.reports.some((r) => r.findings.some((f) => f.severity === "error" && f.location.file?.startsWith(target.path)));
}

/**
 * The dump of the mutated blocks (each run of consecutive ones in one call), rendered and
 * dropped: page events through the JSON, COPY and text renderers at once ("dump"), or the
 * reused records of text dumps through the text renderer ("dump-records").
 */
function dumpBlocks(entry: "dump" | "dump-records", o: { pgdata: string; database: string }, target: FuzzTarget, blocks: number[], tally: { findings: Map<string, number> }): void {
  const r = resolveByName(o.pgdata, o.database, target.name);
  const out = new ByteOut(() => {});
  const text = (s: string): void => out.text(s);
  const records = entry === "dump-records";
  const renderers: { event(e: DumpEvent): void }[] = [new TextByteRenderer(out, false, { values: true, hex: true })];
  if (!records) renderers.push(new JsonRenderer(text, (b) => out.bytes(b)));
  const summary = emptySummary();
  for (const [from, to] of runsOf(blocks)) {
    const it = dumpRelation(r, { detoast: true, values: true, hex: true, blocks: { from, to } }, summary, { records, textValues: records });
    for (let e = it.next(); !e.done; e = it.next()) {
      if (e.value.type === "finding") bump(tally.findings, e.value.finding.code);
      for (const x of renderers) x.event(e.value);
    }
    // COPY writes its rows during a scan of its own
    if (!records) {
      const copy = new CopyRenderer(out);
      for (const e of dumpRelation(r, { detoast: true, blocks: { from, to }, copyTo: copy.writer }, emptySummary(), { records: true })) copy.event(e);
    }
  }
  for (const x of renderers) x.event({ type: "end", summary });
  out.flush();
}

/** Sorted block numbers as [from, to) runs. */
function runsOf(blocks: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const b of [...blocks].sort((x, y) => x - y)) {
    const last = out.at(-1);
    if (last && last[1] === b) last[1] = b + 1;
    else out.push([b, b + 1]);
  }
  return out;
}

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

/** Descriptors the runtime may open on its own between rounds (worker pipes, lazily loaded modules). */
const DESCRIPTOR_SLACK = 16;

/** Open file descriptors of this process (Linux /proc); 0 where that cannot be read. */
export function openDescriptors(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return 0;
  }
}

/** Runs the rounds; the cluster's files are back to their original bytes when it returns. */
export async function runCampaign(o: CampaignOptions): Promise<CampaignResult> {
  const catalog = new Cluster(o.pgdata).database(o.database);
  const targets = fuzzTargets(o.pgdata, o.database);
  const originals = new Map<string, Uint8Array>();
  const original = (t: FuzzTarget): Uint8Array => {
    let b = originals.get(t.path);
    if (!b) originals.set(t.path, (b = new Uint8Array(readFileSync(t.path))));
    return b;
  };
  const fdsAtStart = openDescriptors();
  const result: CampaignResult = { rounds: 0, pages: 0, failures: [], errors: new Map(), findings: new Map(), conversions: new Map(), peakRss: 0, ms: new Map() };
  const first = o.firstRound ?? 0;
  for (let round = first; round < first + o.rounds; round++) {
    const plan = planRound(o.seed, round, targets, original, o.blocksPerRound, catalog, o.catalogsOnly);
    const blocks = plan.blocks.map((b) => b.block);
    writeFileSync(plan.target.path, patchedFile(original(plan.target), plan.blocks));
    try {
      for (const entry of o.converters ? [...ENTRY_POINTS, ...CONVERTER_ENTRY_POINTS] : ENTRY_POINTS) {
        const t0 = performance.now();
        const error = await runEntry(entry, o, plan.target, blocks, result, plan.through);
        result.ms.set(entry, (result.ms.get(entry) ?? 0) + performance.now() - t0);
        if (error) result.failures.push({ seed: o.seed, round, relation: plan.target.name, entry, error, blocks: plan.blocks, through: plan.through?.name });
      }
    } finally {
      writeFileSync(plan.target.path, original(plan.target));
    }
    const rss = process.memoryUsage().rss;
    result.peakRss = Math.max(result.peakRss, rss);
    if (rss > o.rssLimitBytes) result.failures.push({ seed: o.seed, round, relation: plan.target.name, entry: "memory", error: `resident set ${rss} bytes after the round, bound ${o.rssLimitBytes}`, blocks: plan.blocks, through: plan.through?.name });
    // every reader closes what it opens: a round leaves no more files open than it found
    const fds = openDescriptors();
    if (fds > fdsAtStart + DESCRIPTOR_SLACK) result.failures.push({ seed: o.seed, round, relation: plan.target.name, entry: "descriptors", error: `${fds} file descriptors open after the round, ${fdsAtStart} at the start`, blocks: plan.blocks, through: plan.through?.name });
    result.rounds++;
    result.pages += plan.blocks.length;
    o.onRound?.(result.rounds, result.pages, result.failures.length);
  }
  return result;
}

/**
 * The smallest set of patches (one removed at a time, while the failure stays) that still makes
 * `entry` fail on the original file: what a regression test replays.
 */
export async function minimise(o: { pgdata: string; database: string }, target: FuzzTarget, entry: EntryPoint, blocks: BlockPatches[], through?: FuzzTarget): Promise<{ blocks: BlockPatches[]; error: string } | null> {
  const original = new Uint8Array(readFileSync(target.path));
  const tally = { errors: new Map<string, number>(), findings: new Map<string, number>() };
  const fails = async (bs: BlockPatches[]): Promise<string | null> => {
    writeFileSync(target.path, patchedFile(original, bs));
    try {
      return await runEntry(entry, o, target, bs.map((b) => b.block), tally, through);
    } finally {
      writeFileSync(target.path, original);
    }
  };
  let current = blocks.map((b) => ({ ...b, patches: [...b.patches] }));
  let error = await fails(current);
  if (!error) return null;
  for (let i = 0; i < current.length; ) {
    const without = current.filter((_, k) => k !== i);
    const e = without.length ? await fails(without) : null;
    if (e) [current, error] = [without, e];
    else i++;
  }
  for (const b of current) {
    for (let k = 0; k < b.patches.length && b.patches.length > 1; ) {
      const patches = b.patches.filter((_, j) => j !== k);
      const e = await fails(current.map((x) => (x === b ? { ...x, patches } : x)));
      if (e) [b.patches, error] = [patches, e];
      else k++;
    }
  }
  return { blocks: current, error };
}
