// The TOAST stage of `pgdisk load`: a row over TOAST_TUPLE_THRESHOLD gets the server's decisions
// (formats/toast/tuple-toast.ts: attstorage, attcompression else the cluster's
// default_toast_compression, toast_tuple_target), and every value moved out of line is written
// to new pages of the table's TOAST relation (staged, appended by the plan like the heap's):
//  - plain (the server's layout): stock chunks of TOAST_MAX_CHUNK_SIZE under a new value OID,
//    counted up from pg_control's nextOid (never below FirstNormalObjectId, wrapping as
//    GetNewObjectId does, skipping every chunk_id the TOAST relation holds, as GetNewOidWithIndex
//    skips those its index holds); pg_control's nextOid is moved past the last one (a clean
//    start takes it from there) and the TOAST index is rebuilt over old and new chunks, as
//    REINDEX lays it out;
//  - direct: Direct TOAST values (new-formats.md §1.3), no OID, no index entry, and the cluster
//    fenced: pg_control keeps the name pg_control.pgdisk after the switch (the journal's fence).
// Chunks are frozen like the rows (xmin FrozenTransactionId, HEAP_XMIN_FROZEN); the new TOAST
// pages are all-visible, with their VM bits and FSM entries.
import { sessionSetting } from "../server-conf.js";
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import { PG_ATTRIBUTE_OID } from "../../formats/catalog/bootstrap.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { pageFreeSpace, pageView } from "../../formats/page/page.js";
import { PD_ALL_VISIBLE } from "../../formats/page/page-header.js";
import { HEAP_XMAX_INVALID, HEAP_XMIN_FROZEN } from "../../formats/heap/tuple-header.js";
import { TOAST_LZ4_COMPRESSION_ID, TOAST_PGLZ_COMPRESSION_ID, type CompressionMethod } from "../../formats/compression/index.js";
import { FormatError } from "../../formats/schema/errors.js";
import { toastMaxChunkSize } from "../../formats/toast/chunk-desc.js";
import type { ChunkVisibility } from "../../formats/toast/chunk-form.js";
import { PlainChunkMap } from "../../formats/toast/chunk-map.js";
import { ToastHeapWriter } from "../../formats/toast/heap-writer.js";
import { encodeDirectPointer, encodePlainPointer } from "../../formats/toast/reform.js";
import { sliceLength, sliceCount, type DirectTier } from "../../formats/toast/tiers.js";
import { toastTuple, toastTupleTarget, type ExternalValue } from "../../formats/toast/tuple-toast.js";
import { writeDirectValue, writePlainValue } from "../../formats/toast/value-writer.js";
import { FIRST_NORMAL_OBJECT_ID } from "../select.js";
import type { ClusterOwner } from "../file-owner.js";
import { FROZEN_TRANSACTION_ID } from "./heap-append.js";
import { IndexLoader, type IndexLoadResult } from "./index-load.js";
import type { LoadTarget } from "./target.js";
import type { SwitchStep } from "./plan.js";
import { appendBase, appendSteps, indexSteps, PageStager, stageMaps } from "./stage-steps.js";

export type ToastFlavour = "plain" | "direct";

export interface ToastLoadReport {
  flavour: ToastFlavour;
  /** the TOAST relation (schema-qualified), null when the table has none */
  relation: string | null;
  /** toast_tuple_target (TOAST_TUPLE_TARGET unless the reloption says otherwise) */
  target: number;
  /** the cluster's default_toast_compression */
  defaultCompression: "pglz" | "lz4";
  /** rows over TOAST_TUPLE_THRESHOLD */
  rowsToasted: number;
  values: {
    /** compressed, kept inline */
    inlineCompressed: number;
    /** stock chunks under a value OID */
    externalPlain: number;
    /** Direct TOAST values by tier */
    direct: Record<DirectTier, number>;
    /** of the out-of-line values, those compressed first */
    externalCompressed: number;
  };
  chunks: number;
  pages: { before: number; added: number };
  /** value OIDs (plain): pg_control's nextOid before and after, the first and last used */
  oids: { nextOidBefore: number; first: number; last: number; nextOidAfter: number } | null;
  index: Omit<IndexLoadResult, "staged"> | null;
  maps: { vmPages: number; fsmPages: number };
  /** the fence put up for Direct TOAST values (pg_control renamed), or why none was needed */
  fence: string | null;
}

/** Chunks of a frozen load: visible to every snapshot, no pg_xact lookup. */
const FROZEN_CHUNK: ChunkVisibility = { xmin: FROZEN_TRANSACTION_ID, xmax: 0, field3: 0, xactBits: HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID, keysUpdated: 0 };

/** The stored datums of chunk_id (oid) and chunk_seq (int4): 4 bytes, little-endian. */
function int4Datum(v: number, signed: boolean): Uint8Array {
  const d = new Uint8Array(4);
  if (signed) new DataView(d.buffer).setInt32(0, v, true);
  else new DataView(d.buffer).setUint32(0, v >>> 0, true);
  return d;
}

/** default_toast_compression as a session of the database starts with it (pglz unless it says lz4). */
function defaultCompression(cat: DatabaseCatalog): CompressionMethod {
  return sessionSetting(cat, "default_toast_compression")?.toLowerCase() === "lz4" ? TOAST_LZ4_COMPRESSION_ID : TOAST_PGLZ_COMPRESSION_ID;
}

/** Per attribute, the method toast_compress_datum uses: attcompression ('p' pglz, 'l' lz4), else the default (PostgreSQL 13 has pglz only). */
function attributeMethods(cat: DatabaseCatalog, rel: RelationInfo, natts: number, fallback: CompressionMethod): CompressionMethod[] {
  const out: CompressionMethod[] = new Array(natts).fill(fallback);
  const desc = cat.cluster.profile.catalogs.pg_attribute;
  if (!desc.attrs.some((a) => a.name === "attcompression")) return out.fill(TOAST_PGLZ_COMPRESSION_ID);
  for (const r of cat.cluster.mappedCatalog(cat.db, PG_ATTRIBUTE_OID, desc, ["attrelid", "attnum", "attcompression"])) {
    const attnum = r.attnum as number;
    if (r.attrelid !== rel.oid || attnum <= 0 || attnum > natts) continue;
    if (r.attcompression === "l") out[attnum - 1] = TOAST_LZ4_COMPRESSION_ID;
    else if (r.attcompression === "p") out[attnum - 1] = TOAST_PGLZ_COMPRESSION_ID;
  }
  return out;
}

/** Value OIDs as GetNewObjectId hands them out from `next`, skipping those in use. */
class ValueOids {
  first = -1;
  last = -1;
  constructor(
    public next: number,
    private readonly used: Set<number>,
  ) {}
  alloc(): number {
    for (let tries = 0; tries <= 0xffffffff; tries++) {
      if (this.next < FIRST_NORMAL_OBJECT_ID) this.next = FIRST_NORMAL_OBJECT_ID;
      const oid = this.next;
      this.next = (this.next + 1) >>> 0;
      if (this.used.has(oid)) continue;
      this.used.add(oid);
      if (this.first < 0) this.first = oid;
      this.last = oid;
      return oid;
    }
    throw new FormatError("TOAST_OID_EXHAUSTED", "no free OID is left for a toast value");
  }
}

export interface ToastLoadOptions {
  flavour: ToastFlavour;
  pgdata: string;
  checksums: boolean;
  owner: ClusterOwner;
  /** pg_control's checkPointCopy.nextOid */
  nextOid: number;
  dryRun?: boolean;
  /** records a staging file at once, so that an error before the switch removes it */
  stage: (path: string) => void;
}

export class ToastLoader {
  private readonly desc;
  private readonly toast: RelationInfo | null;
  private readonly mc: number;
  private readonly target: number;
  /** per attribute, read from pg_attribute at the first row over the threshold */
  private methods: CompressionMethod[] | null = null;
  private readonly defaultMethod: CompressionMethod;
  private base: { pages: number } | null = null;
  private stager: PageStager | null = null;
  private writer: ToastHeapWriter | null = null;
  private readonly freeSpace: number[] = [];
  private oids: ValueOids | null = null;
  private readonly index: IndexLoader | null = null;
  private stagePath: string | null = null;
  private line = 0;
  private readonly values = { inlineCompressed: 0, externalPlain: 0, direct: { single: 0, flat: 0, tree: 0 } as Record<DirectTier, number>, externalCompressed: 0 };
  private chunks = 0;
  private rowsToasted = 0;

  constructor(
    private readonly cat: DatabaseCatalog,
    private readonly t: LoadTarget,
    private readonly o: ToastLoadOptions,
  ) {
    const geometry = cat.cluster.geometry;
    const bs = geometry.blockSize;
    this.desc = t.desc;
    this.mc = toastMaxChunkSize(bs);
    try {
      this.target = toastTupleTarget(t.rel.options, bs);
    } catch (e) {
      throw new FormatError("BAD_RELOPTION", `table ${t.name}: ${(e as Error).message}`);
    }
    this.defaultMethod = defaultCompression(cat);
    const toast = t.rel.toastRelid ? cat.classes.get(t.rel.toastRelid) : undefined;
    this.toast = toast && toast.filenode !== 0 ? toast : null;
    if (!this.toast) return;
    if (o.flavour === "plain") {
      const ixInfo = cat.toastIndexOf(this.toast.oid);
      const ixRel = ixInfo ? cat.classes.get(ixInfo.indexOid) : undefined;
      if (!ixInfo || !ixRel || ixRel.filenode === 0) throw new FormatError("TOAST_INDEX_MISSING", `TOAST relation ${this.qualified} of ${t.name} has no index to rebuild`, {});
      this.index = new IndexLoader(cat, ixRel, ixInfo, cat.descriptor(this.toast.oid).attrs, geometry);
    }
  }

  /** The TOAST relation's new pages, started when the first value goes out of line (a relation ending in a partial block is refused then). */
  private pageWriter(): ToastHeapWriter {
    if (!this.writer) {
      const geometry = this.cat.cluster.geometry;
      const toastPath = this.cat.path(this.toast!);
      const base = appendBase(toastPath, geometry);
      this.stagePath = `${toastPath}.pgdisk-load`;
      this.o.stage(this.stagePath);
      const stager = new PageStager(this.stagePath, { blockSize: geometry.blockSize, firstBlock: base.pages, checksums: this.o.checksums, owner: this.o.owner, dryRun: this.o.dryRun });
      this.base = base;
      this.stager = stager;
      this.writer = new ToastHeapWriter(
        geometry.blockSize,
        (page) => {
          this.freeSpace.push(pageFreeSpace(pageView(page)));
          stager.put(page);
        },
        base.pages,
        PD_ALL_VISIBLE,
      );
    }
    return this.writer;
  }

  /** The value OID allocator, made when the first value goes out of line (one scan of the TOAST relation: every chunk_id it holds, live, dead or aborted, as its index may hold them all). */
  private valueOids(): ValueOids {
    if (!this.oids) {
      const fork = new RelationFork(this.cat.path(this.toast!), this.cat.cluster.geometry);
      try {
        const map = PlainChunkMap.build(fork);
        this.oids = new ValueOids(this.o.nextOid, new Set([...map.valueIds(), ...map.stats.otherIds]));
      } finally {
        fork.close();
      }
    }
    return this.oids;
  }

  private get qualified(): string {
    return this.toast ? `${this.toast.namespaceName}.${this.toast.name}` : "";
  }

  /** The stored datums of a row over TOAST_TUPLE_THRESHOLD as the server stores them, out-of-line values written. */
  toastRow(datums: readonly (Uint8Array | null)[], line: number): { datums: (Uint8Array | null)[]; size: number } {
    this.line = line;
    this.rowsToasted++;
    const r = toastTuple(datums, {
      desc: this.desc,
      target: this.target,
      blockSize: this.cat.cluster.geometry.blockSize,
      methods: (this.methods ??= attributeMethods(this.cat, this.t.rel, this.desc.attrs.length, this.defaultMethod)),
      toastRelid: this.toast?.oid ?? 0,
      externalize: (v) => this.externalize(v),
    });
    this.values.inlineCompressed += r.inlineCompressed;
    return r;
  }

  private *slices(S: Uint8Array): Generator<Uint8Array> {
    const n = sliceCount(S.length, this.mc);
    for (let k = 0; k < n; k++) yield S.subarray(k * this.mc, k * this.mc + sliceLength(k, S.length, this.mc));
  }

  private externalize(v: ExternalValue): Uint8Array {
    const w = this.pageWriter();
    if (v.compressed) this.values.externalCompressed++;
    if (this.o.flavour === "direct") {
      const r = writeDirectValue(w, v.stored.length, this.slices(v.stored), FROZEN_CHUNK, this.mc);
      this.values.direct[r.tier]++;
      this.chunks += r.chunks;
      return encodeDirectPointer(v.pointer, r.root);
    }
    const oid = this.valueOids().alloc();
    const id = int4Datum(oid, false);
    const line = this.line;
    this.chunks += writePlainValue(w, oid, v.stored.length, this.slices(v.stored), FROZEN_CHUNK, this.mc, (seq, tid) => this.index!.addRow([id, int4Datum(seq, true), null], tid, line));
    this.values.externalPlain++;
    return encodePlainPointer(v.pointer, oid);
  }

  /**
   * Stage the TOAST relation's new pages, maps and index. Returns their switch steps (pg_control's
   * nextOid advanced past the new value OIDs among them) and, for Direct TOAST values, why the
   * cluster must stay fenced.
   */
  finish(): { steps: SwitchStep[]; fence: string | null; report: ToastLoadReport } {
    const cat = this.cat;
    const geometry = cat.cluster.geometry;
    const steps: SwitchStep[] = [];
    let index: IndexLoadResult | null = null;
    let maps = { vmPages: 0, fsmPages: 0 };
    let pagesAdded = 0;
    let fence: string | null = null;
    let oids: ToastLoadReport["oids"] = null;
    if (this.toast && this.writer && this.stager && this.base) {
      this.writer.finish();
      pagesAdded = this.stager.finish();
      const toastPath = cat.path(this.toast);
      if (pagesAdded > 0) {
        steps.push(...appendSteps(toastPath, this.base, this.base.pages + pagesAdded, this.stagePath!, geometry));
        maps = stageMaps((f) => cat.path(this.toast!, f), this.base.pages, this.freeSpace, { geometry, checksums: this.o.checksums, owner: this.o.owner, dryRun: this.o.dryRun }, steps);
      }
      if (this.oids && this.oids.first >= 0) {
        const ix = this.index!;
        const ixRel = ix.rel;
        const heap = new RelationFork(toastPath, geometry);
        try {
          index = ix.build({ path: cat.path(ixRel), checksums: this.o.checksums, owner: this.o.owner, heap: (b) => heap.readBlock(b), clog: cat.cluster.clog, dryRun: this.o.dryRun });
        } finally {
          heap.close();
        }
        steps.push(...indexSteps(index.staged, cat.path(ixRel, "fsm")));
        oids = { nextOidBefore: this.o.nextOid, first: this.oids.first, last: this.oids.last, nextOidAfter: this.oids.next };
        // pg_control's nextOid past the last value OID (the journal rewrites it, CRC and all)
        steps.push({ kind: "update-control", nextOid: this.oids.next });
      }
      if (this.o.flavour === "direct" && this.chunks > 0) {
        fence = `pg_control keeps the name pg_control.pgdisk: the table holds Direct TOAST values, which a stock server must not read`;
      }
    }
    const { staged: _staged, ...indexReport } = index ?? { staged: null };
    return {
      steps,
      fence,
      report: {
        flavour: this.o.flavour,
        relation: this.toast ? this.qualified : null,
        target: this.target,
        defaultCompression: this.defaultMethod === TOAST_LZ4_COMPRESSION_ID ? "lz4" : "pglz",
        rowsToasted: this.rowsToasted,
        values: this.values,
        chunks: this.chunks,
        pages: { before: this.base?.pages ?? 0, added: pagesAdded },
        oids,
        index: index ? (indexReport as Omit<IndexLoadResult, "staged">) : null,
        maps,
        fence,
      },
    };
  }

  /** Close the staging file after an error (the plan's discard removes it). */
  close(): void {
    this.stager?.close();
  }
}
