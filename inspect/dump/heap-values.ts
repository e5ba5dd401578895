// Attribute values of one heap tuple, as PostgreSQL's text output, through the catalog's
// descriptor; TOAST pointers shown, and resolved when a TOAST reader is given.
import { FormatError, findingFrom, type Finding, type Location } from "../../formats/schema/errors.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { AttrSlot, TupleLayout } from "../../formats/heap/deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { datumToText, builtinTypeLookup } from "../../formats/datum/index.js";
import { readArray } from "../../formats/datum/arrays.js";
import { datumPreview } from "../../formats/datum/preview.js";
import type { TypeLookup } from "../../formats/datum/types.js";
import type { ToastReader } from "../../formats/toast/reader.js";
import type { DumpValue } from "./model.js";

export interface ValueContext {
  types: TypeLookup;
  /** resolves a type to what decodes it (domains to their base type) */
  decodeAs?: (oid: number) => number;
  toast?: ToastReader;
  detoast: boolean;
  /** text mode: values need only their first characters (long ones are decoded in part) */
  previewChars?: number;
}

const METHOD = ["pglz", "lz4"] as const;

/**
 * `live` says whether the tuple is visible: a dead tuple's TOAST chunks may legitimately be gone
 * (VACUUM removes them first), so failing to detoast one is information, not an error.
 */
export function heapValues(tuple: Uint8Array, layout: TupleLayout, desc: TupleDesc, ctx: ValueContext, loc: Location, findings: Finding[], live = true): DumpValue[] {
  const out: DumpValue[] = [];
  for (let k = 0; k < desc.attrs.length; k++) out.push(heapValue(tuple, layout, desc, k, ctx, loc, findings, live));
  return out;
}

/** The value of attribute `k` (0-based) of the tuple: heapValues' element k. */
export function heapValue(tuple: Uint8Array, layout: TupleLayout, desc: TupleDesc, k: number, ctx: ValueContext, loc: Location, findings: Finding[], live = true): DumpValue {
  const a = desc.attrs[k]!;
  const slot = layout.attrs[k]!;
  const typeName = a.dropped ? "(dropped)" : displayTypeName(ctx.types, a.typid);
  const v: DumpValue = { attnum: a.attnum, name: a.name, type: typeName, isnull: slot.isnull };
  if (a.dropped) v.dropped = true;
  if (slot.missing) v.missing = true;
  if (slot.isnull || a.dropped) return v;
  const typid = ctx.decodeAs ? ctx.decodeAs(a.typid) : a.typid;
  try {
    if (slot.missing) {
      // attmissingval is a one-element array of the column's type.
      v.value = missingValueText(a.missing!, typid, a.typmod, ctx.types);
      return v;
    }
    v.storedSize = slot.len;
    const d = datumBytes(tuple, slot);
    if (d.kind === "external") {
      const p = d.pointer;
      v.storage = "external";
      v.toast = {
        tag: p.tag === 18 ? "ondisk" : "direct",
        rawsize: p.va_rawsize,
        extsize: p.extsize,
        compressed: p.compressed,
        ...(p.compressed ? { method: METHOD[p.method] ?? undefined } : {}),
        ...(p.tag === 18 ? { valueid: p.va_valueid } : { root: `(${p.root.block},${p.root.offset})` }),
        toastrelid: p.va_toastrelid,
      };
      if (ctx.detoast && ctx.toast) {
        const raw = ctx.toast.fetch(p);
        valueText(v, raw, typid, a.typmod, ctx);
        v.toast.detoasted = true;
      }
      return v;
    }
    v.storage = storageOf(slot);
    if (d.compressed) v.compression = METHOD[d.compressed.method];
    valueText(v, d.bytes, typid, a.typmod, ctx);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    const gone = !live && e.code.startsWith("TOAST_");
    findings.push(findingFrom(e, gone ? "info" : "error", { ...loc, attnum: a.attnum }));
  }
  return v;
}

/** How an inline datum is stored, as DumpValue.storage names it. */
export function storageOf(slot: AttrSlot): string {
  return slot.varlena ? (slot.varlena.kind === "1b" ? "short" : slot.varlena.kind === "4b" ? "plain" : "compressed") : slot.cstring ? "cstring" : "fixed";
}

function valueText(v: DumpValue, bytes: Uint8Array, typid: number, typmod: number, ctx: ValueContext): void {
  if (ctx.previewChars === undefined) {
    v.value = datumToText(bytes, typid, typmod, ctx.types);
    return;
  }
  const p = datumPreview(bytes, typid, typmod, ctx.types, ctx.previewChars);
  v.value = p.text;
  if (p.truncated) {
    v.truncated = true;
    if (p.fullLength !== undefined) v.fullLength = p.fullLength;
  }
}

/** Text of attmissingval's single element (attmissingval is a one-element array of the column's type). */
export function missingValueText(arrayPayload: Uint8Array, typid: number, typmod: number, types: TypeLookup): string {
  const el = readArray(arrayPayload, (oid) => types(oid) ?? builtinTypeLookup(oid)).elements[0];
  if (!el) throw new FormatError("MISSINGVAL_EMPTY", "attmissingval holds no value", {});
  return datumToText(el, typid, typmod, types);
}

/** int4[] rather than _int4, as format_type shows array types. */
export function displayTypeName(types: TypeLookup, oid: number): string {
  const t = types(oid);
  if (!t) return String(oid);
  return t.category === "A" && t.name.startsWith("_") ? `${t.name.slice(1)}[]` : t.name;
}
