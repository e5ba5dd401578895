// What `pgdisk load` writes into, from the offline catalog: the table, how each of its attributes
// gets its value (an input column, a constant default, NULL), how each value is encoded from
// text, and the btree indexes to rebuild. Everything an offline writer cannot do as the server
// would (evaluate a CHECK, fire a trigger, apply a rule or a policy, compute a generated or
// identity value, route into a partition, maintain a non-btree index) is refused here, naming
// the object, before any input is read.
import { charFlag, type DatabaseCatalog, type IndexInfo, type RelationInfo } from "../../formats/catalog/cluster.js";
import { PG_ATTRIBUTE_OID, PG_CLASS_OID } from "../../formats/catalog/bootstrap.js";
import type { AttrDesc, TupleDesc } from "../../formats/heap/descriptor.js";
import { varlenaAlloc, varlenaStored } from "../../formats/heap/form.js";
import { resolveInput, type InputTypes } from "../../formats/datum/input-types.js";
import { bytesIntoFor, type BytesInto } from "../../formats/datum/input-bytes.js";
import { inputTypesFor, typeUnderDomains } from "../../formats/catalog/input-types.js";
import { FormatError } from "../../formats/schema/errors.js";
import { dateOrderSetting, sessionSetting } from "../server-conf.js";
import type { DateOrder } from "../../formats/datum/input-datetime.js";
import { defaultDatum, type ConstDefault } from "./default-const.js";
import { exprContextOf, indexExprs } from "../../formats/expr/index-exprs.js";
import type { ExprContext } from "../../formats/expr/evaluate.js";

/** How one attribute of a new row gets its stored datum. */
export type ColumnSource = { kind: "input"; field: number } | { kind: "constant"; stored: Uint8Array | null };

export interface TargetColumn {
  attr: AttrDesc;
  source: ColumnSource;
  /** text -> stored datum bytes (varlena header included); only for input columns */
  encode?: (text: string) => Uint8Array;
  /** the same from an ASCII byte span of the input written into a buffer, for the common form of a few types (null, or -1 from it: use encode) */
  encodeInto?: BytesInto | null;
  /** the error a NULL input gets though the column allows NULLs (a NOT NULL domain) */
  nullError?: string;
  /** the type's name, for messages */
  typeName: string;
}

export interface LoadTarget {
  rel: RelationInfo;
  /** schema-qualified */
  name: string;
  desc: TupleDesc;
  /** one per attribute, in attnum order (dropped ones get NULL) */
  columns: TargetColumn[];
  /** input field i goes to attribute inputAttrs[i] */
  inputAttrs: AttrDesc[];
  /** the table's fillfactor reloption (default 100) */
  fillfactor: number;
  /** btree indexes of the table, oid order */
  indexes: { rel: RelationInfo; info: IndexInfo }[];
}

/** tgtype bit: the trigger fires on INSERT (pg_trigger.h TRIGGER_TYPE_INSERT) */
const TRIGGER_TYPE_INSERT = 1 << 2;

const TEXTOID = 25;
const utf8 = new TextEncoder();

const refuse = (message: string): FormatError => new FormatError("LOAD_UNSUPPORTED", message);

/** pg_class and pg_attribute columns the catalog summary does not keep. */
function extraFlags(cat: DatabaseCatalog, rel: RelationInfo): { cls: Record<string, unknown>; attrs: Map<number, Record<string, unknown>> } {
  const c = cat.cluster.profile.catalogs;
  const cls = cat.cluster.mappedCatalog(cat.db, PG_CLASS_OID, c.pg_class, ["oid", "relchecks", "relhasrules", "relhastriggers", "relrowsecurity", "relispartition"]).find((r) => r.oid === rel.oid)!;
  const attrs = new Map(
    cat.cluster
      .mappedCatalog(cat.db, PG_ATTRIBUTE_OID, c.pg_attribute, ["attrelid", "attnum", "atthasdef", "attidentity"])
      .filter((r) => r.attrelid === rel.oid && (r.attnum as number) > 0)
      .map((r) => [r.attnum as number, r]),
  );
  return { cls, attrs };
}

/** The table's fillfactor reloption (heap: 10..100, default 100). */
export function heapFillfactor(options: string[] | null): number {
  for (const o of options ?? []) {
    const [k, v] = o.split("=", 2);
    if (k !== "fillfactor") continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 10 || n > 100) throw new FormatError("BAD_RELOPTION", `fillfactor=${v} is not an integer in 10..100`);
    return n;
  }
  return 100;
}

const MONEY_OID = 790;

/** Whether type `oid` is `part`, or a domain over it or an array of it (at any depth). */
function madeOf(cat: DatabaseCatalog, oid: number, part: number, depth = 0): boolean {
  if (oid === part) return true;
  const t = cat.type(oid);
  if (!t || depth > 16) return false;
  if (t.type === "d") return madeOf(cat, t.basetype, part, depth + 1);
  return t.category === "A" && !!t.elem && madeOf(cat, t.elem, part, depth + 1);
}

/** text -> stored datum for an attribute, or a refusal naming the column and its type. */
function encoderFor(cat: DatabaseCatalog, types: InputTypes, a: AttrDesc, table: string, dateOrder: DateOrder): { encode: (text: string) => Uint8Array; encodeInto: BytesInto | null; typeName: string; nullError?: string } {
  const t = cat.type(a.typid);
  const typeName = t?.name ?? String(a.typid);
  if (a.len === -2) throw refuse(`column "${a.name}" of ${table} is a cstring column (type ${typeName}); pgdisk does not encode those`);
  const money = madeOf(cat, a.typid, MONEY_OID);
  const monetary = money ? sessionSetting(cat, "lc_monetary") : undefined;
  if (money && monetary !== undefined && !/^(C|POSIX)(\..*)?$/i.test(monetary)) {
    throw refuse(`column "${a.name}" of ${table} has type ${typeName}, made of money, and the database's lc_monetary is ${monetary}: pgdisk reads money as cash_in does under lc_monetary C only; load with COPY`);
  }
  const resolved = resolveInput(a.typid, types);
  if ("refused" in resolved) {
    const what = t?.type === "d" ? "a domain" : t?.type === "e" ? "an enum" : t?.category === "A" ? "an array type" : "a type";
    // the type itself, or what it is made of (an element type, a domain's base or its CHECK)
    const why = resolved.refused.startsWith("type ") ? `${resolved.refused === `type ${typeName}` ? what : `made of ${resolved.refused}, a type`} pgdisk cannot encode from text yet` : `and ${resolved.refused}`;
    throw refuse(`column "${a.name}" of ${table} has type ${typeName}, ${why}; name the columns to load with --columns and leave it to its default, or load with COPY`);
  }
  const { input, nullError } = resolved;
  const ctx = { typmod: a.typmod, timeZoneOffsetSeconds: 0, dateOrder };
  if (a.typid === TEXTOID) {
    // textin is the UTF-8 bytes: encoded straight behind the header (one array per value, not two)
    return {
      encode: (text) => {
        const v = varlenaAlloc(a, Buffer.byteLength(text, "utf8"));
        utf8.encodeInto(text, v.out.subarray(v.at));
        return v.out;
      },
      encodeInto: bytesIntoFor(a),
      typeName,
    };
  }
  const encode = a.len === -1 ? (text: string) => varlenaStored(a, input(text, ctx)) : (text: string) => input(text, ctx);
  return { encode, encodeInto: bytesIntoFor(a), typeName, nullError };
}

/**
 * What a column left out of the input gets, as the server's build_column_default decides: its own
 * default (pg_attrdef), else its domain's (pg_type.typdefaultbin: only the column's own type's,
 * which a domain over another inherited when it was made), else NULL; and for a domain column,
 * every level's NOT NULL and CHECK applied to that value (the server's CoerceToDomain). A default
 * that is not a constant, or a constraint the value fails, is refused before anything is read.
 */
function omittedValue(cat: DatabaseCatalog, types: InputTypes, exprCtx: ExprContext, a: AttrDesc, table: string, adbin: string | undefined): Uint8Array | null {
  const t = cat.type(a.typid);
  const domain = t?.type === "d" ? t : undefined;
  const expr = adbin ?? domain?.defaultBin;
  let d: ConstDefault = { constant: true, stored: null, value: null };
  if (expr !== undefined) {
    d = defaultDatum(expr, a, typeUnderDomains(cat, a.typid), exprCtx);
    if (!d.constant) {
      throw refuse(
        adbin !== undefined
          ? `column "${a.name}" of ${table} has a default that is not a constant (${d.node}); give the column with --columns`
          : `column "${a.name}" of ${table} is not given and the default of its domain ${domain!.name} is not a constant (${d.node}); give the column with --columns`,
      );
    }
  }
  if (!domain) return d.stored;
  const r = resolveInput(a.typid, types);
  if (d.value === null) {
    if (!("refused" in r) && r.nullError) throw refuse(`column "${a.name}" of ${table} is not given, and NULL fails: ${r.nullError}; give the column with --columns`);
    return null;
  }
  if ("refused" in r) throw refuse(`column "${a.name}" of ${table} is not given, and its default cannot be checked against domain ${domain.name}: ${r.refused}; give the column with --columns`);
  const why = r.check?.(d.value);
  if (why !== undefined) throw refuse(`column "${a.name}" of ${table} is not given, and its default fails: ${why}; give the column with --columns`);
  return d.stored;
}

/** Resolve the table and everything about it the load needs; refuse what it cannot do. */
export function resolveTarget(cat: DatabaseCatalog, tableName: string, columnNames?: string[]): LoadTarget {
  const rel = cat.findRelation(tableName);
  const name = `${rel.namespaceName}.${rel.name}`;
  const table = `table "${name}"`;
  const exprCtx = exprContextOf(cat);
  if (rel.kind === "p") throw refuse(`${table} is partitioned; load into its partitions`);
  if (rel.kind !== "r") throw refuse(`"${name}" is not a table (relkind ${rel.kind})`);
  if (rel.persistence !== "p") throw refuse(`${table} is ${rel.persistence === "u" ? "unlogged" : "temporary"}; pgdisk loads only permanent tables`);
  if (rel.amName !== "heap") throw refuse(`${table} uses table access method ${rel.amName}; pgdisk writes heap tables only`);
  const { cls, attrs: flags } = extraFlags(cat, rel);
  if (cls.relispartition) throw refuse(`${table} is a partition (its partition constraint cannot be checked offline); load with COPY`);
  if ((cls.relchecks as number) > 0) throw refuse(`${table} has ${cls.relchecks} CHECK constraint(s), which cannot be evaluated offline`);
  if (cls.relhastriggers) {
    // only triggers that fire on INSERT matter (a referenced table's foreign key triggers fire on UPDATE and DELETE)
    const fires = cat.triggersOf(rel.oid).find((t) => t.type & TRIGGER_TYPE_INSERT && t.enabled !== "D");
    if (fires) {
      const other = cat.classes.get(fires.constraintRelid);
      throw refuse(
        fires.internal && other
          ? `${table} has a foreign key referencing "${other.namespaceName}.${other.name}" (trigger "${fires.name}"), which cannot be checked offline`
          : `${table} has trigger "${fires.name}" firing on INSERT, which cannot run offline`,
      );
    }
  }
  if (cls.relhasrules) throw refuse(`${table} has rules, which cannot be applied offline`);
  if (cls.relrowsecurity) throw refuse(`${table} has row-level security enabled, whose policies cannot be evaluated offline`);

  const indexes: { rel: RelationInfo; info: IndexInfo }[] = [];
  for (const info of cat.indexesOf(rel.oid)) {
    const irel = cat.classes.get(info.indexOid)!;
    const iname = `index "${irel.namespaceName}.${irel.name}"`;
    if (irel.amName !== "btree") throw refuse(`${iname} on ${table} is a ${irel.amName} index; pgdisk rebuilds btree indexes only`);
    try {
      indexExprs(info.exprs, info.pred, false, exprCtx);
    } catch (e) {
      if (e instanceof FormatError) throw refuse(`${iname} on ${table} is ${info.exprs ? "an expression" : "a partial"} index that cannot be evaluated offline: ${e.message}`);
      throw e;
    }
    if (!info.valid) throw refuse(`${iname} on ${table} is invalid (indisvalid false); drop or REINDEX it first`);
    indexes.push({ rel: irel, info });
  }
  const desc = cat.descriptor(rel.oid);
  const live = desc.attrs.filter((a) => !a.dropped);
  for (const a of live) if (a.generated) throw refuse(`column "${a.name}" of ${table} is a generated column, which cannot be computed offline`);
  let inputAttrs: AttrDesc[];
  if (columnNames?.length) {
    inputAttrs = columnNames.map((n) => {
      const a = live.find((x) => x.name === n);
      if (!a) throw new FormatError("USAGE", `column "${n}" of ${table} does not exist`);
      return a;
    });
    const dup = inputAttrs.find((a, i) => inputAttrs.indexOf(a) !== i);
    if (dup) throw new FormatError("USAGE", `column "${dup.name}" specified more than once`);
  } else inputAttrs = live;

  const defaults = cat.attrDefaults(rel.oid);
  const types = inputTypesFor(cat, exprCtx);
  const dateOrder = dateOrderSetting(cat);
  const columns: TargetColumn[] = desc.attrs.map((a) => {
    const field = inputAttrs.indexOf(a);
    const typeName = cat.type(a.typid)?.name ?? String(a.typid);
    if (field >= 0) return { attr: a, source: { kind: "input", field }, ...encoderFor(cat, types, a, table, dateOrder) };
    if (a.dropped) return { attr: a, source: { kind: "constant", stored: null }, typeName };
    const f = flags.get(a.attnum);
    if (charFlag(f?.attidentity)) throw refuse(`column "${a.name}" of ${table} is an identity column, whose next value cannot be drawn offline; give it with --columns`);
    const adbin = f?.atthasdef ? defaults.get(a.attnum) : undefined;
    if (f?.atthasdef && adbin === undefined) throw new FormatError("CATALOG_MISSING", `column "${a.name}" of ${table} has atthasdef but no pg_attrdef row`);
    return { attr: a, source: { kind: "constant", stored: omittedValue(cat, types, exprCtx, a, table, adbin) }, typeName };
  });

  return { rel, name, desc, columns, inputAttrs, fillfactor: heapFillfactor(rel.options), indexes };
}
