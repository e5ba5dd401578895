// The structure checker of a relation whose access method verify/am/ knows (hash, BRIN,
// GiST, SP-GiST, sequences), or undefined: verify/relation.ts hands it every page its page checks read.
import { existsSync } from "node:fs";
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import { PG_SEQUENCE_OID } from "../../formats/catalog/bootstrap.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import type { FindingSink } from "../findings.js";
import type { AmChecker, AmCheckInput } from "./checker.js";
import { HashChecker } from "./hash.js";
import { BrinChecker } from "./brin.js";
import { GistChecker } from "./gist.js";
import { SpgistChecker } from "./spgist.js";
import { SequenceChecker, type SequenceBounds } from "./sequence.js";

export type { AmChecker } from "./checker.js";

export function amCheckerFor(cat: DatabaseCatalog, rel: RelationInfo, fork: RelationFork, sink: FindingSink): AmChecker | undefined {
  const input = (): AmCheckInput => ({ fork, sink, relName: rel.name, heapBlocks: heapBlocksOf(cat, rel, fork) });
  if (rel.kind === "S") return new SequenceChecker({ fork, sink, relName: rel.name, heapBlocks: undefined }, sequenceBounds(cat, rel.oid));
  if (rel.kind !== "i") return undefined;
  if (rel.amName === "hash") return new HashChecker(input());
  if (rel.amName === "brin") return new BrinChecker(input());
  if (rel.amName === "gist") return new GistChecker(input());
  if (rel.amName === "spgist") return new SpgistChecker(input(), cat.cluster.profile);
  return undefined;
}

/** The block count of an index's table, when its pg_index row and file can be read. */
function heapBlocksOf(cat: DatabaseCatalog, rel: RelationInfo, fork: RelationFork): number | undefined {
  const table = cat.indexes().get(rel.oid)?.tableOid;
  const t = table === undefined ? undefined : cat.classes.get(table);
  if (!t) return undefined;
  const path = cat.path(t);
  if (!existsSync(path)) return undefined;
  const f = new RelationFork(path, fork.geometry);
  try {
    return f.nblocks;
  } finally {
    f.close();
  }
}

/** seqmin and seqmax of the sequence's pg_sequence row, when it can be read. */
function sequenceBounds(cat: DatabaseCatalog, oid: number): SequenceBounds | undefined {
  try {
    const row = cat.catalogRows(PG_SEQUENCE_OID, ["seqrelid", "seqmin", "seqmax"]).find((r) => r.seqrelid === oid);
    if (!row || !(row.seqmin instanceof Uint8Array) || !(row.seqmax instanceof Uint8Array)) return undefined;
    return { min: int8Of(row.seqmin), max: int8Of(row.seqmax) };
  } catch {
    return undefined;
  }
}

/** An int8 column as the catalog reader returns it (its 8 little-endian bytes). */
const int8Of = (b: Uint8Array): bigint => new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0, true);
