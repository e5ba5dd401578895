// The input function of any type a database defines, from the built-in ones: enums (enum_in:
// the label's pg_enum row OID), domains (domain_in: the base type's input with the domain's
// typmod, NOT NULL of the domain and of the domains under it), and arrays of any of them
// (array_in), and composite types (record_in: each attribute through its own input). What it needs from the catalog comes through InputTypes, so formats/datum does
// not depend on the catalog reader. A domain's CHECK constraints are evaluated when the offline
// evaluator can evaluate them (formats/expr, compiled by the InputTypes provider), checked in
// name order as the server checks them; a domain with one it cannot evaluate is refused.
import { arrayInput } from "./input-array.js";
import { multirangeInput, rangeInput, valueCompare, type RangeSubtype } from "./input-range.js";
import type { DatumCmp } from "../order/bytes.js";
import { varlena4B } from "../varlena/varlena.js";
import { arrayDelimiter } from "./arrays.js";
import type { InputFunction } from "./input.js";
import { INPUT_FUNCTIONS } from "./input-catalog.js";
import { FormatError } from "../schema/errors.js";
import type { TypeInfo } from "./types.js";
import type { TupleDesc } from "../heap/descriptor.js";
import { recordInput, type RecordAttrInput } from "./input-record.js";
import { CONTRIB_INPUT } from "./input-contrib.js";

/** The pg_type columns the input functions need. */
export interface InputTypeInfo extends Pick<TypeInfo, "oid" | "name" | "len" | "align" | "elem"> {
  /** typtype: b base, d domain, e enum, ... */
  typtype: string;
  /** typcategory ("A": arrays) */
  category: string;
  /** a domain's typbasetype and typtypmod */
  basetype: number;
  typmod: number;
  /** a domain's typnotnull */
  notnull: boolean;
  /** a composite type's typrelid (0 for other types) */
  relid: number;
  /** the name of the input function of a base type an extension defines (typinput's proname): how contrib types are recognised */
  inputFunction?: string;
}

/** The catalog as the input functions see it. */
export interface InputTypes {
  type(oid: number): InputTypeInfo | undefined;
  /** the OID of the pg_enum row of `label` in enum type `typeOid` */
  enumLabelOid(typeOid: number, label: string): number | undefined;
  /** a domain's CHECK constraints (its own, not its base domain's) */
  domainChecks(typeOid: number): DomainCheck[];
  /** the attribute descriptor of a composite type's relation (typrelid) */
  descriptor(relid: number): TupleDesc | undefined;
  /** the row-type version a server build that versions row types keeps (pg_attver), if any */
  rowTypeVersion(relid: number): bigint | undefined;
  /** pg_range of a range type, or of the range type of a multirange type */
  range(typeOid: number): RangeFacts | undefined;
}

/** What range_in needs of a range type beyond its subtype's input. */
export interface RangeFacts {
  rangeOid: number;
  subtype: number;
  /** rngcanonical (0: none, a continuous range) */
  canonical: number;
  /** the subtype's order under the range's opclass and collation over two stored datums (varlena header on), or why there is none */
  compare: DatumCmp | { unorderable: string };
}

/** A domain CHECK constraint: its test of a base-type datum (null: SQL NULL), or why it cannot be evaluated offline. */
export type DomainCheck = { name: string } & ({ passes: (value: Uint8Array | null) => boolean } | { unevaluable: string });

/** How values of a type are read: the input function and the error a NULL gets. */
export interface ResolvedInput {
  input: InputFunction;
  /** a NOT NULL domain: the server's error for a NULL */
  nullError?: string;
  /** a domain's CHECK constraints, at every level, on a value already in stored form (a default's): the server's error, or undefined when it passes */
  check?: (value: Uint8Array) => string | undefined;
}

/** The server's error for a value a domain's CHECK rejects. */
const violates = (domain: string, check: string): string => `value for domain ${domain} violates check constraint "${check}"`;

/** A domain's base input followed by its CHECK constraints; a NULL is checked too (unless NOT NULL below refuses it first). */
function withChecks(base: ResolvedInput, domain: string, checks: (DomainCheck & { passes: (v: Uint8Array | null) => boolean })[]): ResolvedInput {
  const own = (v: Uint8Array): string | undefined => {
    const fails = checks.find((c) => !c.passes(v));
    return fails && violates(domain, fails.name);
  };
  // the base input has checked the inner domains' constraints already
  const input: InputFunction = (text, ctx) => {
    const v = base.input(text, ctx);
    const why = own(v);
    if (why !== undefined) throw new FormatError("DATUM_BAD_INPUT", why);
    return v;
  };
  const check = (v: Uint8Array): string | undefined => base.check?.(v) ?? own(v);
  const failsNull = checks.find((c) => !c.passes(null));
  return { input, nullError: base.nullError ?? (failsNull ? violates(domain, failsNull.name) : undefined), check };
}

/** The input of a type, or why pgdisk cannot read it (a sentence naming the type). */
export function resolveInput(oid: number, types: InputTypes, depth = 0): ResolvedInput | { refused: string } {
  const builtin = INPUT_FUNCTIONS.get(oid);
  if (builtin) return { input: builtin };
  const t = types.type(oid);
  if (!t || depth > 16) return { refused: `type ${t?.name ?? oid}` };
  if (t.typtype === "b" && t.inputFunction) {
    const contrib = CONTRIB_INPUT.get(t.inputFunction);
    if (contrib) return { input: contrib };
  }
  if (t.typtype === "e") {
    const input: InputFunction = (text) => {
      const row = types.enumLabelOid(oid, text);
      if (row === undefined) throw new FormatError("DATUM_BAD_INPUT", `invalid input value for enum ${t.name}: "${text}"`);
      const out = new Uint8Array(4);
      new DataView(out.buffer).setUint32(0, row, true);
      return out;
    };
    return { input };
  }
  if (t.typtype === "d") {
    const checks = [...types.domainChecks(oid)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const cannot = checks.find((c) => "unevaluable" in c);
    if (cannot && "unevaluable" in cannot) return { refused: `domain ${t.name} has CHECK constraint "${cannot.name}", which cannot be evaluated offline (${cannot.unevaluable})` };
    let base = resolveInput(t.basetype, types, depth + 1);
    if ("refused" in base) return base;
    if (checks.length) base = withChecks(base, t.name, checks as (DomainCheck & { passes: (v: Uint8Array | null) => boolean })[]);
    // the base type's input gets the domain's typmod, not the column's; over another domain
    // (whose own typmod is -1) the inner domain's applies
    const baseIsDomain = types.type(t.basetype)?.typtype === "d";
    const typmod = t.typmod;
    const input: InputFunction = baseIsDomain ? base.input : (text, ctx) => base.input(text, { ...ctx, typmod });
    return { input, nullError: t.notnull ? `domain ${t.name} does not allow null values` : base.nullError, check: base.check };
  }
  if (t.typtype === "r" || t.typtype === "m") {
    const r = types.range(oid);
    if (!r) return { refused: `type ${t.name}` };
    if (r.canonical) return { refused: `range type ${types.type(r.rangeOid)?.name ?? r.rangeOid} has a canonical function (pg_proc ${r.canonical}), which pgdisk cannot run offline` };
    if ("unorderable" in r.compare) return { refused: `range type ${types.type(r.rangeOid)?.name ?? r.rangeOid} orders its subtype by ${r.compare.unorderable}, which pgdisk cannot compute offline` };
    const sub = types.type(r.subtype);
    const subInput = sub && sub.len !== -2 ? resolveInput(r.subtype, types, depth + 1) : { refused: `type ${sub?.name ?? r.subtype}` };
    if ("refused" in subInput) return subInput;
    const cmp = r.compare;
    // range_in's values are payloads; the comparators take stored datums (a varlena with its 4-byte header)
    const compare = sub!.len === -1 ? (a: Uint8Array, b: Uint8Array): number => { const [x, y] = [varlena4B(a), varlena4B(b)]; return cmp(x, 0, x.length, y, 0, y.length); } : valueCompare(cmp);
    const st: RangeSubtype = { oid: r.subtype, len: sub!.len, align: sub!.align, input: subInput.input, compare };
    return { input: t.typtype === "r" ? rangeInput(oid, st) : multirangeInput(oid, st) };
  }
  if (t.category === "A" && t.elem && t.len === -1) {
    const e = types.type(t.elem);
    if (!e || e.len === -2) return { refused: `type ${t.name}` };
    const elem = resolveInput(t.elem, types, depth + 1);
    if ("refused" in elem) return elem;
    const input = arrayInput({ oid: t.elem, len: e.len, align: e.align, input: elem.input, nullError: elem.nullError }, arrayDelimiter(t.elem));
    return { input };
  }
  if (t.typtype === "c" && t.relid) {
    const desc = types.descriptor(t.relid);
    if (!desc) return { refused: `type ${t.name}` };
    const attrs: (RecordAttrInput | null)[] = [];
    for (const a of desc.attrs) {
      if (a.dropped) {
        attrs.push(null);
        continue;
      }
      if (a.len === -2) return { refused: `type ${types.type(a.typid)?.name ?? a.typid}` };
      const r = resolveInput(a.typid, types, depth + 1);
      if ("refused" in r) return r;
      attrs.push(r);
    }
    const version = types.rowTypeVersion(t.relid);
    if (version !== undefined && version > 0xffffffffn) return { refused: `composite type ${t.name} of row-type version ${version}, past what pgdisk has seen a server store` };
    return { input: recordInput(oid, desc, attrs, version === undefined ? undefined : Number(version)) };
  }
  return { refused: `type ${t.name}` };
}
