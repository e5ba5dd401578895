// range_in for the built-in discrete ranges int4range, int8range and daterange (rangetypes.c
// range_parse, range_serialize, and the canonical functions int4range_canonical,
// int8range_canonical, daterange_canonical): the inverse of ranges.ts. Text: "empty" (any case)
// or [ or ( , a lower bound, a comma, an upper bound, ] or ), white space around; an omitted
// bound is infinite (and never inclusive); a bound may be double-quoted, with \ escaping one
// character and "" a quote inside quotes. Canonical form: [lower, upper), so an exclusive lower
// bound and an inclusive upper bound move up by one (not over ±infinity dates); a range whose
// bounds then meet is empty. Payload: rangetypid, the finite bounds (4- or 8-byte aligned from
// the 4-byte-header start, which they are already), the flags byte.
import { FormatError } from "../schema/errors.js";
import type { InputFunction } from "./input.js";
import { dateIn, integer } from "./input.js";
import { RANGE_FLAGS } from "./ranges.js";

interface Discrete {
  oid: number;
  name: string;
  size: 4 | 8;
  input: InputFunction;
  /** the canonical functions leave ±infinity dates alone */
  finite: (v: bigint) => boolean;
  min: bigint;
  max: bigint;
  /** the subtype's out-of-range error */
  overflow: string;
}

const DATE_END = 2147483647n;
const DATE_BEGIN = -2147483648n;

const DISCRETE: Discrete[] = [
  { oid: 3904, name: "int4range", size: 4, input: integer("integer", 4), finite: () => true, min: -(2n ** 31n), max: 2n ** 31n - 1n, overflow: "integer out of range" },
  { oid: 3926, name: "int8range", size: 8, input: integer("bigint", 8), finite: () => true, min: -(2n ** 63n), max: 2n ** 63n - 1n, overflow: "bigint out of range" },
  { oid: 3912, name: "daterange", size: 4, input: dateIn, finite: (v) => v !== DATE_END && v !== DATE_BEGIN, min: DATE_BEGIN, max: DATE_END, overflow: "date out of range" },
];

const SPACE = /[ \t\n\v\f\r]/;
/** The server's message (its DETAIL, which says where, is left out as SQLERRM leaves it out). */
const malformed = (text: string, _detail: string): FormatError => new FormatError("DATUM_BAD_INPUT", `malformed range literal: "${text}"`);

interface Bound {
  text: string | null;
  inclusive: boolean;
}

/** range_parse: the bounds' texts (null: infinite) and inclusivity, or null for "empty". */
function parseRange(text: string): { lower: Bound; upper: Bound } | null {
  let i = 0;
  const n = text.length;
  while (i < n && SPACE.test(text[i]!)) i++;
  if (text.slice(i, i + 5).toLowerCase() === "empty") {
    let j = i + 5;
    while (j < n && SPACE.test(text[j]!)) j++;
    if (j === n) return null;
    throw malformed(text, "Junk after \"empty\" key word.");
  }
  const open = text[i];
  if (open !== "[" && open !== "(") throw malformed(text, "Missing left parenthesis or bracket.");
  i++;
  const bound = (): string | null => {
    if (text[i] === "," || text[i] === ")" || text[i] === "]") return null;
    let out = "";
    let quoted = false;
    while (i < n) {
      const c = text[i]!;
      if (!quoted && (c === "," || c === ")" || c === "]")) break;
      if (c === "\\") {
        i++;
        if (i >= n) throw malformed(text, "Unexpected end of input.");
        out += text[i++];
      } else if (c === '"') {
        if (!quoted) quoted = true;
        else if (text[i + 1] === '"') {
          out += '"';
          i++;
        } else quoted = false;
        i++;
      } else {
        out += c;
        i++;
      }
    }
    if (quoted) throw malformed(text, "Unexpected end of input.");
    return out;
  };
  const lower = bound();
  if (text[i] !== ",") throw malformed(text, "Missing comma after lower bound.");
  i++;
  const upper = bound();
  const close = text[i];
  if (close !== "]" && close !== ")") throw malformed(text, "Too many commas.");
  i++;
  while (i < n && SPACE.test(text[i]!)) i++;
  if (i !== n) throw malformed(text, "Junk after right parenthesis or bracket.");
  return { lower: { text: lower, inclusive: open === "[" }, upper: { text: upper, inclusive: close === "]" } };
}

function rangeInput(d: Discrete): InputFunction {
  const read = (s: string): bigint => {
    const b = d.input(s, { typmod: -1 });
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return d.size === 4 ? BigInt(dv.getInt32(0, true)) : dv.getBigInt64(0, true);
  };
  const out = (flags: number, lower: bigint | null, upper: bigint | null): Uint8Array => {
    const vals = [lower, upper].filter((v): v is bigint => v !== null);
    const b = new Uint8Array(4 + d.size * vals.length + 1);
    const dv = new DataView(b.buffer);
    dv.setUint32(0, d.oid, true);
    vals.forEach((v, k) => (d.size === 4 ? dv.setInt32(4 + 4 * k, Number(v), true) : dv.setBigInt64(4 + 8 * k, v, true)));
    b[b.length - 1] = flags;
    return b;
  };
  return (text) => {
    const p = parseRange(text);
    if (!p) return out(RANGE_FLAGS.empty, null, null);
    let lo = p.lower.text === null ? null : read(p.lower.text);
    let hi = p.upper.text === null ? null : read(p.upper.text);
    let loInc = lo !== null && p.lower.inclusive;
    let hiInc = hi !== null && p.upper.inclusive;
    // range_serialize: the bounds in order, equal bounds not both inclusive are empty
    if (lo !== null && hi !== null) {
      if (lo > hi) throw new FormatError("DATUM_BAD_INPUT", "range lower bound must be less than or equal to range upper bound");
      if (lo === hi && !(loInc && hiInc)) return out(RANGE_FLAGS.empty, null, null);
    }
    // the canonical function: [lower, upper)
    if (lo !== null && !loInc && d.finite(lo)) {
      if (lo >= d.max) throw new FormatError("DATUM_BAD_INPUT", d.overflow);
      lo += 1n;
      loInc = true;
    }
    if (hi !== null && hiInc && d.finite(hi)) {
      if (hi >= d.max) throw new FormatError("DATUM_BAD_INPUT", d.overflow);
      hi += 1n;
      hiInc = false;
    }
    if (lo !== null && hi !== null && lo === hi && !(loInc && hiInc)) return out(RANGE_FLAGS.empty, null, null);
    const flags = (lo === null ? RANGE_FLAGS.lbInf : loInc ? RANGE_FLAGS.lbInc : 0) | (hi === null ? RANGE_FLAGS.ubInf : hiInc ? RANGE_FLAGS.ubInc : 0);
    return out(flags, lo, hi);
  };
}

/** range_in of int4range, int8range and daterange by type OID. */
export const RANGE_INPUT: [number, InputFunction][] = DISCRETE.map((d) => [d.oid, rangeInput(d)]);
