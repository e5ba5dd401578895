// No checksum laundering: every page a converter reads from a relation it converts, and from the
// catalogs that give it names and tuple descriptors, is checked first, with verify's page checks
// (checksum when the cluster has them, header, line pointers), before anything is written. Damage stops the run (exit 2) with file, block and code: a
// converter that went on would give the damaged bytes a fresh, valid checksum.
import { existsSync } from "node:fs";
import { FormatError } from "../formats/schema/errors.js";
import type { DatabaseCatalog } from "../formats/catalog/cluster.js";
import { PG_AM_OID, PG_ATTRIBUTE_OID, PG_CLASS_OID, PG_COLLATION_OID, PG_DATABASE_OID, PG_ENUM_OID, PG_INDEX_OID, PG_NAMESPACE_OID, PG_OPCLASS_OID, PG_TYPE_OID } from "../formats/catalog/bootstrap.js";
import { RelationFork, scanBlocks, type Geometry } from "../formats/storage/relfile.js";
import { pageView } from "../formats/page/page.js";
import { checkPage, type PageAm } from "../verify/page-check.js";
import { FindingSink } from "../verify/findings.js";

export interface InputRelationFile {
  /** segment 0 of the main fork */
  path: string;
  am: PageAm;
  /** qualified name, for amcheck-worded messages */
  relName: string;
}

/** The catalogs pgdisk reads a database's relations and descriptors from (formats/catalog/cluster.ts). */
const CATALOGS = [PG_DATABASE_OID, PG_CLASS_OID, PG_ATTRIBUTE_OID, PG_TYPE_OID, PG_NAMESPACE_OID, PG_AM_OID, PG_INDEX_OID, PG_OPCLASS_OID, PG_COLLATION_OID, PG_ENUM_OID];

/** The heap files of those catalogs in a database. */
export function catalogFiles(cat: DatabaseCatalog): InputRelationFile[] {
  return CATALOGS.flatMap((oid) => {
    const rel = cat.classes.get(oid);
    return rel && rel.filenode !== 0 ? [{ path: cat.path(rel), am: "heap" as const, relName: `${rel.namespaceName}.${rel.name}` }] : [];
  });
}

/** Check every page of the files; throws the first error-severity finding as a FormatError. Returns the pages checked. */
export function assertInputPagesIntact(files: readonly InputRelationFile[], geometry: Geometry, checksums: boolean): number {
  let pages = 0;
  for (const f of files) {
    if (!existsSync(f.path)) continue; // a missing fork is the converter's own error to report
    const fork = new RelationFork(f.path, geometry);
    try {
      for (const [blk, page] of scanBlocks(fork)) {
        const sink = new FindingSink(1);
        checkPage(page, pageView(page), blk, fork.locate(blk).seg.path, sink, { am: f.am, blockSize: geometry.blockSize, checksums, relName: f.relName });
        const bad = sink.list.find((x) => x.severity === "error");
        if (bad) throw new FormatError(bad.code, `${f.relName}: ${bad.message}; nothing was converted (restore the page from a backup, or run pgdisk verify to see all damage)`, bad.location, bad.detail);
        pages++;
      }
    } finally {
      fork.close();
    }
  }
  return pages;
}
