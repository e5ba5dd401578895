// The reg* output functions (src/backend/utils/adt/regproc.c): the name of the catalog object
// an OID names, as the server prints it under the default search_path: quoted as
// quote_identifier does, schema-qualified when the name alone would not find the object
// (regproc and regoper: when it would not find only this one). InvalidOid prints "-" ("0" for
// regoper and regoperator); an OID the catalog does not hold, or any OID when no catalog is at
// hand, prints as its number.
import type { DecodeContext, Decoder, DecoderTable } from "./decoder.js";
import { formatType } from "./format-type.js";
import { quoteIdentifier, quoteQualified } from "./identifiers.js";
import type { NamedObject, ObjectKind, OutputCatalog } from "./output-catalog.js";
import { expectLength, view } from "./util.js";
import { isOnlyCandidate, isVisible } from "./visibility.js";

type NameOf = (cat: OutputCatalog, oid: number) => string | undefined;

function regType(type: string, nameOf: NameOf, zero = "-"): Decoder {
  return (d: Uint8Array, ctx: DecodeContext) => {
    expectLength(d, 4, type);
    const oid = view(d).getUint32(0, true);
    if (oid === 0) return zero;
    return (ctx.catalog && nameOf(ctx.catalog, oid)) ?? String(oid);
  };
}

const schemaOf = (cat: OutputCatalog, o: NamedObject): string => cat.namespaceName(o.namespace) ?? String(o.namespace);

/** regclassout, regconfigout, regdictionaryout, regcollationout: qualified unless visible. */
const visibleName =
  (kind: ObjectKind): NameOf =>
  (cat, oid) => {
    const o = cat.object(kind, oid);
    return o && quoteQualified(isVisible(cat, kind, o) ? undefined : schemaOf(cat, o), o.name);
  };

const regproc: NameOf = (cat, oid) => {
  const o = cat.object("proc", oid);
  return o && quoteQualified(isOnlyCandidate(cat, "proc", o) ? undefined : schemaOf(cat, o), o.name);
};

const argTypes = (cat: OutputCatalog, args: readonly number[]): string => args.map((t) => formatType(cat, t) ?? "???").join(",");

const regprocedure: NameOf = (cat, oid) => {
  const o = cat.object("proc", oid);
  return o && `${quoteQualified(isVisible(cat, "proc", o) ? undefined : schemaOf(cat, o), o.name)}(${argTypes(cat, o.args ?? [])})`;
};

/** Operator names are never quoted; only their schema is. */
const regoper: NameOf = (cat, oid) => {
  const o = cat.object("operator", oid);
  return o && (isOnlyCandidate(cat, "operator", o) ? o.name : `${quoteIdentifier(schemaOf(cat, o))}.${o.name}`);
};

const regoperator: NameOf = (cat, oid) => {
  const o = cat.object("operator", oid);
  if (!o) return undefined;
  const [left, right] = (o.args ?? [0, 0]).map((t) => (t === 0 ? "NONE" : (formatType(cat, t) ?? "???")));
  return `${isVisible(cat, "operator", o) ? "" : quoteIdentifier(schemaOf(cat, o)) + "."}${o.name}(${left},${right})`;
};

const regtype: NameOf = (cat, oid) => formatType(cat, oid);

const regrole: NameOf = (cat, oid) => {
  const n = cat.roleName(oid);
  return n === undefined ? undefined : quoteIdentifier(n);
};

const regnamespace: NameOf = (cat, oid) => {
  const n = cat.namespaceName(oid);
  return n === undefined ? undefined : quoteIdentifier(n);
};

export const REG_DECODERS: DecoderTable = {
  24: regType("regproc", regproc),
  2202: regType("regprocedure", regprocedure),
  2203: regType("regoper", regoper, "0"),
  2204: regType("regoperator", regoperator, "0"),
  2205: regType("regclass", visibleName("class")),
  2206: regType("regtype", regtype),
  3734: regType("regconfig", visibleName("tsconfig")),
  3769: regType("regdictionary", visibleName("tsdict")),
  4089: regType("regnamespace", regnamespace),
  4096: regType("regrole", regrole),
  4191: regType("regcollation", visibleName("collation")),
};
