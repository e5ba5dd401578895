// record_in (src/backend/utils/adt/rowtypes.c) for a named composite type, the inverse of
// record.ts: "(v1,v2,...)" with white space allowed around the parentheses, an empty field is
// NULL, double quotes group (a doubled quote inside is one), a backslash takes the next character
// as it is; each attribute through its own input with its typmod; the datum is the tuple
// heap_form_tuple forms (src/backend/access/common/heaptuple.c) with the type's OID and typmod -1
// in the header, its ctid invalid, returned without its first 4 bytes (the varlena header).
// A server build that versions row types (a "pg_attver=N" attoption on the type's attributes,
// checked when the datum is read: "row type of datum tuple was altered after the datum's
// creation") stamps the datum instead: typmod slot = the version, ctid (0, 0xfffc) and infomask
// bits 0x0c00; seen on such a PostgreSQL 15 build for versions below 2^32, the only ones written.
import { FormatError } from "../schema/errors.js";
import type { TupleDesc } from "../heap/descriptor.js";
import { formHeapTuple, varlenaStored } from "../heap/form.js";
import { InvalidBlockNumber } from "../page/item-pointer.js";
import type { InputFunction } from "./input.js";
import { isSpace } from "./util.js";

/** One attribute of a composite type as record_in reads it (null for a dropped one). */
export interface RecordAttrInput {
  input: InputFunction;
  /** a NOT NULL domain's (or CHECK's) error for a NULL */
  nullError?: string;
}


/** The datum header marks of a versioned row type (see above). */
const VERSIONED_CTID_OFFSET = 0xfffc;
const VERSIONED_INFOMASK = 0x0c00;

/** `version`: the row type's pg_attver, when the server versions row types (below 2^32). */
export function recordInput(typeOid: number, desc: TupleDesc, attrs: readonly (RecordAttrInput | null)[], version?: number): InputFunction {
  const header =
    version === undefined
      ? { xmin: 0, xmax: -1, field3: typeOid, ctid: { block: InvalidBlockNumber, offset: 0 }, xactBits: 0 }
      : { xmin: 0, xmax: version, field3: typeOid, ctid: { block: 0, offset: VERSIONED_CTID_OFFSET }, xactBits: VERSIONED_INFOMASK };
  return (text, ctx) => {
    const malformed = (detail: string): FormatError => new FormatError("DATUM_BAD_INPUT", `malformed record literal: "${text}"`, {}, detail);
    let i = 0;
    while (isSpace(text[i])) i++;
    if (text[i++] !== "(") throw malformed("Missing left parenthesis.");
    const datums: (Uint8Array | null)[] = [];
    let needComma = false;
    for (let k = 0; k < desc.attrs.length; k++) {
      const a = desc.attrs[k]!;
      const attr = attrs[k];
      if (a.dropped || !attr) {
        datums.push(null);
        continue;
      }
      if (needComma) {
        if (text[i] === ",") i++;
        else throw malformed("Too few columns.");
      }
      needComma = true;
      if (text[i] === "," || text[i] === ")") {
        if (attr.nullError) throw new FormatError("DATUM_BAD_INPUT", attr.nullError);
        datums.push(null);
        continue;
      }
      let field = "";
      let inQuote = false;
      while (inQuote || !(text[i] === "," || text[i] === ")")) {
        const ch = text[i++];
        if (ch === undefined) throw malformed("Unexpected end of input.");
        if (ch === "\\") {
          if (i >= text.length) throw malformed("Unexpected end of input.");
          field += text[i++];
        } else if (ch === '"') {
          if (!inQuote) inQuote = true;
          else if (text[i] === '"') field += text[i++];
          else inQuote = false;
        } else field += ch;
      }
      const v = attr.input(field, { ...ctx, typmod: a.typmod });
      datums.push(a.len === -1 ? varlenaStored(a, v) : v);
    }
    if (text[i++] !== ")") throw malformed("Too many columns.");
    while (isSpace(text[i])) i++;
    if (i < text.length) throw malformed("Junk after right parenthesis.");
    // t_xmin is the length word (the varlena header, written by the caller), t_xmax the typmod, t_field3 the type
    const tuple = formHeapTuple(desc, datums, header);
    return tuple.subarray(4);
  };
}
