// The catalog facts the input functions of a database's own types need (formats/datum/input-types.ts):
// pg_type rows, the pg_enum row OID of each label by enum type, and the CHECK constraints of
// domains (pg_constraint rows with contypid set), each catalog read on first use.
import type { InputTypes } from "../datum/input-types.js";
import { PG_CONSTRAINT_OID, PG_ENUM_OID } from "./bootstrap.js";
import type { DatabaseCatalog } from "./cluster.js";

export function inputTypesFor(cat: DatabaseCatalog): InputTypes {
  let enums: Map<number, Map<string, number>> | undefined;
  let checks: Map<number, string[]> | undefined;
  return {
    type(oid) {
      const r = cat.types.get(oid);
      if (!r) return undefined;
      return { oid: r.oid, name: r.name, len: r.len, align: r.align, elem: r.elem, typtype: r.type, category: r.category, basetype: r.basetype, typmod: r.typmod, notnull: r.notnull };
    },
    enumLabelOid(typeOid, label) {
      if (!enums) {
        enums = new Map();
        for (const r of cat.catalogRows(PG_ENUM_OID, ["oid", "enumtypid", "enumlabel"])) {
          const t = r.enumtypid as number;
          if (!enums.has(t)) enums.set(t, new Map());
          enums.get(t)!.set(r.enumlabel as string, r.oid as number);
        }
      }
      return enums.get(typeOid)?.get(label);
    },
    domainChecks(typeOid) {
      if (!checks) {
        checks = new Map();
        for (const r of cat.catalogRows(PG_CONSTRAINT_OID, ["contypid", "contype", "conname"])) {
          const t = r.contypid as number;
          if (!t || r.contype !== "c") continue;
          if (!checks.has(t)) checks.set(t, []);
          checks.get(t)!.push(r.conname as string);
        }
      }
      return checks.get(typeOid) ?? [];
    },
  };
}
