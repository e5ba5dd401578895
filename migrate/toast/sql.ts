// The SQL a patched server would run for a conversion (new-formats.md §1.6): catalogs are not
// changed offline, so the table's toast_flavour, the two Direct TOAST columns (STORAGE PLAIN) and
// the index predicate are left for the server that understands them.
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import type { TargetFlavour } from "./plan.js";
import { qualifiedIdent as q } from "../sql-ident.js";

export function migrateSql(to: TargetFlavour, database: string, rels: readonly RelationInfo[], cat: DatabaseCatalog): string {
  const out = [
    `-- pgdisk migrate toast: to ${to}, database ${database}`,
    "-- Catalogs are not changed offline; run this on the patched server that reads Direct TOAST.",
    "-- It writes no data: the files already have the new layout.",
    "",
  ];
  for (const r of rels) {
    const toast = cat.classes.get(r.toastRelid);
    const ix = toast ? cat.toastIndexOf(toast.oid) : undefined;
    const ixRel = ix ? cat.classes.get(ix.indexOid) : undefined;
    out.push(`-- ${q(r)}${toast ? ` (TOAST relation ${q(toast)})` : ""}`);
    if (to === "direct") {
      out.push(`ALTER TABLE ${q(r)} SET (toast_flavour = 'direct');`);
      if (toast) {
        out.push(`ALTER TABLE ${q(toast)} ADD COLUMN IF NOT EXISTS chunk_tids tid[], ADD COLUMN IF NOT EXISTS chunk_tid_offsets int8[];`);
        out.push(`ALTER TABLE ${q(toast)} ALTER COLUMN chunk_tids SET STORAGE PLAIN, ALTER COLUMN chunk_tid_offsets SET STORAGE PLAIN;`);
        if (ixRel) out.push(`-- ${q(ixRel)} now holds the stock chunks only: its predicate becomes WHERE chunk_id IS NOT NULL`);
      }
    } else {
      out.push(`ALTER TABLE ${q(r)} RESET (toast_flavour);`);
      if (ixRel) out.push(`-- ${q(ixRel)} holds every chunk again (no predicate)`);
    }
    out.push("");
  }
  return out.join("\n");
}
