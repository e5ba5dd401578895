// The catalog facts the input functions of a database's own types need (formats/datum/input-types.ts):
// pg_type rows, the pg_enum row OID of each label by enum type, and the CHECK constraints of
// domains (pg_constraint rows with contypid set), each catalog read on first use. A CHECK is
// compiled by the offline evaluator with VALUE (CoerceToDomainValue) read as the datum under
// test; what the evaluator cannot do is reported, not guessed.
import type { DomainCheck, InputTypes, RangeFacts } from "../datum/input-types.js";
import { orderComparator } from "../order/catalog.js";
import { orderCatalogOf } from "./index-keys.js";
import { compileExpr, decodeExprValue, ROW_TYPES, type ExprContext } from "../expr/evaluate.js";
import { FormatError } from "../schema/errors.js";
import { PG_ATTRIBUTE_OID, PG_CONSTRAINT_OID, PG_ENUM_OID, PG_RANGE_OID } from "./bootstrap.js";
import type { DatabaseCatalog } from "./cluster.js";
import { extensionInputFunction } from "./types.js";
import { isNode, parseNodeTree, type NodeValue } from "./node-tree.js";

/** The check expression with every VALUE turned into a reference to attribute 1 of type `base`. */
function valueAsColumn(n: NodeValue, base: number): NodeValue {
  if (Array.isArray(n)) return n.map((x) => valueAsColumn(x, base));
  if (!isNode(n)) return n;
  if (n.type === "COERCETODOMAINVALUE") return { type: "VAR", fields: { varno: "1", varattno: "1", vartype: String(base), varlevelsup: "0" } };
  return { type: n.type, fields: Object.fromEntries(Object.entries(n.fields).map(([k, v]) => [k, valueAsColumn(v, base)])) };
}

/** The type under a domain and the domains below it (getBaseType); a type that is not a domain is itself. */
export function typeUnderDomains(cat: DatabaseCatalog, oid: number): number {
  for (let i = 0; i < 16 && cat.type(oid)?.type === "d"; i++) oid = cat.type(oid)!.basetype;
  return oid;
}

/** A domain CHECK as a test of a base-type datum (`base`: the type under every domain), or why it cannot be evaluated offline. */
export function compileDomainCheck(name: string, conbin: string, base: number, ctx: ExprContext): DomainCheck {
  if (!ROW_TYPES.has(base)) return { name, unevaluable: `the evaluator does not read values of type ${base}` };
  try {
    const fn = compileExpr(valueAsColumn(parseNodeTree(conbin), base), ctx);
    // CHECK passes unless the expression is false (NULL passes)
    return { name, passes: (v) => fn(() => (v === null ? null : decodeExprValue(v, 0, v.length, base))) !== false };
  } catch (e) {
    if (e instanceof FormatError) return { name, unevaluable: e.message };
    throw e;
  }
}

export function inputTypesFor(cat: DatabaseCatalog, exprCtx: ExprContext): InputTypes {
  let enums: Map<number, Map<string, number>> | undefined;
  let checks: Map<number, DomainCheck[]> | undefined;
  let ranges: Map<number, RangeFacts> | undefined;
  let versions: Map<number, bigint> | undefined;
  return {
    type(oid) {
      const r = cat.type(oid);
      if (!r) return undefined;
      // an extension's base type is known by its input function's name, as the decoders know it (types.ts)
      const inputFunction = extensionInputFunction(cat, r);
      return { oid: r.oid, name: r.name, len: r.len, align: r.align, elem: r.elem, typtype: r.type, category: r.category, basetype: r.basetype, typmod: r.typmod, notnull: r.notnull, relid: r.relid, inputFunction };
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
    range(typeOid) {
      if (!ranges) {
        ranges = new Map();
        const order = orderCatalogOf(cat);
        for (const r of cat.catalogRows(PG_RANGE_OID, ["rngtypid", "rngsubtype", "rngmultitypid", "rngcanonical"])) {
          const rangeOid = r.rngtypid as number;
          const o = order.range(rangeOid)!;
          const cmp = o.orderProc === undefined ? null : orderComparator(o.orderProc, o.bytewise, o.subtype, order);
          const compare = cmp ?? { unorderable: o.orderProc === undefined ? "an opclass without support function 1" : o.bytewise ? `btree support function ${o.orderProc}` : "a collation other than C" };
          const facts = { rangeOid, subtype: r.rngsubtype as number, canonical: Number(r.rngcanonical ?? 0), compare };
          ranges.set(rangeOid, facts);
          if (r.rngmultitypid) ranges.set(r.rngmultitypid as number, facts);
        }
      }
      return ranges.get(typeOid);
    },
    descriptor(relid) {
      const d = cat.descriptor(relid);
      return d.attrs.length ? d : undefined;
    },
    rowTypeVersion(relid) {
      if (!versions) {
        // a server build that versions row types keeps "pg_attver=N" in attoptions; the newest counts
        versions = new Map();
        for (const r of cat.catalogRows(PG_ATTRIBUTE_OID, ["attrelid", "attoptions"])) {
          for (const o of (r.attoptions as string[] | null) ?? []) {
            const m = /^pg_attver=(\d+)$/.exec(o);
            if (!m) continue;
            const v = BigInt(m[1]!);
            const rel = r.attrelid as number;
            if ((versions.get(rel) ?? -1n) < v) versions.set(rel, v);
          }
        }
      }
      return versions.get(relid);
    },
    domainChecks(typeOid) {
      if (!checks) {
        checks = new Map();
        for (const r of cat.catalogRows(PG_CONSTRAINT_OID, ["contypid", "contype", "conname", "conbin"])) {
          const t = r.contypid as number;
          if (!t || r.contype !== "c") continue;
          // VALUE is of the type under the domain (and under the domains below it)
          if (!checks.has(t)) checks.set(t, []);
          checks.get(t)!.push(compileDomainCheck(r.conname as string, r.conbin as string, typeUnderDomains(cat, t), exprCtx));
        }
      }
      return checks.get(typeOid) ?? [];
    },
  };
}
