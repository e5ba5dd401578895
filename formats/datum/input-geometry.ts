// The geometric input functions (src/backend/utils/adt/geo_ops.c: point_in, lseg_in, box_in,
// line_in, circle_in, path_in, poly_in), the inverse of geometry.ts. Coordinates are read as
// float8in reads them (whitespace around each, NaN and the infinities); a pair is "x,y" or
// "(x,y)"; a list of points takes one pair of parentheses or brackets around it, or none.
// box_in puts the upper right corner first; poly_in computes the bounding box; line_in's
// two-point form ("[(x1,y1),(x2,y2)]") derives the coefficients as line_construct does, in
// float8 arithmetic with float.h's overflow and underflow checks.
import { FormatError } from "../schema/errors.js";
import { float8In, type InputFunction } from "./input.js";
import { isSpace } from "./util.js";
import { floatRangeError } from "./float-arith.js";

/** strtod's decimal form, and the words it reads (glibc: case-insensitive, with a sign). */
const NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /([+-]?)(infinity|inf|nan)/iy;

/** A scan of one geometric value's text, failing with the type's syntax error. */
class GeoText {
  p = 0;
  constructor(
    readonly s: string,
    readonly type: string,
  ) {}

  bad(): FormatError {
    return new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type ${this.type}: "${this.s}"`);
  }

  skipSpace(): void {
    while (isSpace(this.s[this.p])) this.p++;
  }

  /** float8in_internal with an end pointer: spaces, a number, spaces. */
  float(): number {
    this.skipSpace();
    let v: number;
    WORD.lastIndex = NUMBER.lastIndex = this.p;
    const w = WORD.exec(this.s);
    if (w) {
      v = w[2]!.toLowerCase() === "nan" ? NaN : w[1] === "-" ? -Infinity : Infinity;
      this.p = WORD.lastIndex;
    } else {
      const m = NUMBER.exec(this.s);
      if (!m) throw this.bad();
      // the number strtod would take, read (and range-checked) by float8in itself
      v = new DataView(float8In(m[0], { typmod: -1 }).buffer).getFloat64(0, true);
      this.p = NUMBER.lastIndex;
    }
    this.skipSpace();
    return v;
  }

  /** pair_decode: "x,y" or "(x,y)", spaces after a closing parenthesis consumed. */
  pair(out: number[]): void {
    this.skipSpace();
    const delim = this.s[this.p] === "(";
    if (delim) this.p++;
    out.push(this.float());
    if (this.s[this.p++] !== ",") throw this.bad();
    out.push(this.float());
    if (delim) {
      if (this.s[this.p++] !== ")") throw this.bad();
      this.skipSpace();
    }
  }

  /** path_decode: `npts` pairs; returns whether the list was open ("[...]", only when `openType`). */
  points(openType: boolean, npts: number, out: number[]): boolean {
    let depth = 0;
    this.skipSpace();
    const open = this.s[this.p] === "[";
    if (open) {
      if (!openType) throw this.bad();
      depth++;
      this.p++;
    } else if (this.s[this.p] === "(") {
      let q = this.p + 1;
      while (isSpace(this.s[q])) q++;
      // "((" opens the list; so does a single "(" that is the only one in the text
      if (this.s[q] === "(" || this.s.lastIndexOf("(") === this.p) {
        depth++;
        this.p = q;
      }
    }
    for (let i = 0; i < npts; i++) {
      this.pair(out);
      if (this.s[this.p] === ",") this.p++;
    }
    while (depth > 0) {
      const c = this.s[this.p];
      if (c !== ")" && !(c === "]" && open && depth === 1)) throw this.bad();
      depth--;
      this.p++;
      this.skipSpace();
    }
    return open;
  }

  end(): void {
    if (this.p !== this.s.length) throw this.bad();
  }
}

/** pair_count: the points of a list of "x,y" pairs, from its commas (-1: an even count). */
function pairCount(s: string): number {
  let n = 0;
  for (let i = s.indexOf(","); i >= 0; i = s.indexOf(",", i + 1)) n++;
  return n % 2 ? (n + 1) / 2 : -1;
}

/** float8_lt: NaN sorts above every number (and equals NaN). */
const float8Lt = (a: number, b: number): boolean => (Number.isNaN(a) ? false : Number.isNaN(b) ? true : a < b);

function float8s(values: readonly number[], ints: readonly number[] = []): Uint8Array {
  const out = new Uint8Array(4 * ints.length + 8 * values.length);
  const dv = new DataView(out.buffer);
  ints.forEach((v, i) => dv.setInt32(4 * i, v, true));
  values.forEach((v, i) => dv.setFloat64(4 * ints.length + 8 * i, v, true));
  return out;
}

const pointIn: InputFunction = (text) => {
  const g = new GeoText(text, "point");
  const xy: number[] = [];
  g.pair(xy);
  g.end();
  return float8s(xy);
};

const lsegIn: InputFunction = (text) => {
  const g = new GeoText(text, "lseg");
  const p: number[] = [];
  g.points(true, 2, p);
  g.end();
  return float8s(p);
};

/** box_in: the corners read as given, then each coordinate pair swapped so that the first corner is the upper right one. */
const boxIn: InputFunction = (text) => {
  const g = new GeoText(text, "box");
  const p: number[] = [];
  g.points(false, 2, p);
  g.end();
  const [hx, hy, lx, ly] = p as [number, number, number, number];
  const [x2, x1] = float8Lt(hx, lx) ? [lx, hx] : [hx, lx];
  const [y2, y1] = float8Lt(hy, ly) ? [ly, hy] : [hy, ly];
  return float8s([x2, y2, x1, y1]);
};

/** geo_decls.h's EPSILON: coordinates this close are equal (FPeq, FPzero) */
const EPSILON = 1e-6;
const fpEq = (a: number, b: number): boolean => a === b || Math.abs(a - b) <= EPSILON;
/** float8_mi, float8_mul, float8_div (utils/float.h): IEEE results, with the overflow, underflow and zero-divide errors */
const checked = (r: number, a: number, b: number, zeroOk: boolean): number => {
  const error = floatRangeError(r, a, b, zeroOk);
  if (error) throw new FormatError("DATUM_BAD_INPUT", error);
  return r;
};
const float8Mi = (a: number, b: number): number => checked(a - b, a, b, true);
const float8Mul = (a: number, b: number): number => checked(a * b, a, b, a === 0 || b === 0);
const float8Div = (a: number, b: number): number => {
  if (b === 0 && !Number.isNaN(a)) throw new FormatError("DATUM_BAD_INPUT", "division by zero");
  return checked(a / b, a, b, a === 0 || !Number.isFinite(b));
};
/** float8_eq: NaN equals NaN */
const float8Eq = (a: number, b: number): boolean => (Number.isNaN(a) ? Number.isNaN(b) : a === b);

/**
 * line_in: "{A,B,C}" (A and B may not both be zero: FPzero, within 1e-6), or two distinct points
 * as a path of two, the line through them by point_sl's slope (infinite or zero when the x or y
 * coordinates are FPeq) and line_construct's coefficients.
 */
const lineIn: InputFunction = (text) => {
  const g = new GeoText(text, "line");
  g.skipSpace();
  if (g.s[g.p] !== "{") {
    const p: number[] = [];
    g.points(true, 2, p);
    g.end();
    const [x1, y1, x2, y2] = p as [number, number, number, number];
    const nan = [x1, y1, x2, y2].some(Number.isNaN);
    if (nan ? float8Eq(x1, x2) && float8Eq(y1, y2) : fpEq(x1, x2) && fpEq(y1, y2))
      throw new FormatError("DATUM_BAD_INPUT", "invalid line specification: must be two distinct points");
    const m = fpEq(x1, x2) ? Infinity : fpEq(y1, y2) ? 0 : float8Div(float8Mi(y1, y2), float8Mi(x1, x2));
    if (m === Infinity || m === -Infinity) return float8s([-1, 0, x1]);
    if (m === 0) return float8s([0, -1, y1]);
    // "mx - y + yinter = 0"; a zero C is stored as +0
    const c = float8Mi(y1, float8Mul(m, x1));
    return float8s([m, -1, c === 0 ? 0 : c]);
  }
  g.p++;
  const abc: number[] = [];
  for (let i = 0; i < 3; i++) {
    abc.push(g.float());
    if (g.s[g.p++] !== (i < 2 ? "," : "}")) throw g.bad();
  }
  g.skipSpace();
  g.end();
  if (Math.abs(abc[0]!) <= EPSILON && Math.abs(abc[1]!) <= EPSILON) throw new FormatError("DATUM_BAD_INPUT", "invalid line specification: A and B cannot both be zero");
  return float8s(abc);
};

/** circle_in: "<(x,y),r>", "((x,y),r)", "(x,y),r" or "x,y,r"; a negative radius is refused. */
const circleIn: InputFunction = (text) => {
  const g = new GeoText(text, "circle");
  let depth = 0;
  g.skipSpace();
  if (g.s[g.p] === "<") {
    depth++;
    g.p++;
  } else if (g.s[g.p] === "(") {
    let q = g.p + 1;
    while (isSpace(g.s[q])) q++;
    if (g.s[q] === "(") {
      depth++;
      g.p = q;
    }
  }
  const c: number[] = [];
  g.pair(c);
  if (g.s[g.p] === ",") g.p++;
  c.push(g.float());
  if (c[2]! < 0) throw g.bad();
  while (depth > 0) {
    const ch = g.s[g.p];
    if (ch !== ")" && !(ch === ">" && depth === 1)) throw g.bad();
    depth--;
    g.p++;
    g.skipSpace();
  }
  g.end();
  return float8s(c);
};

/** path_in: npts, closed, a zero pad word, the points; "[...]" is open, anything else closed. */
const pathIn: InputFunction = (text) => {
  const npts = pairCount(text);
  const g = new GeoText(text, "path");
  if (npts <= 0) throw g.bad();
  g.skipSpace();
  let depth = 0;
  // a single leading parenthesis (the only one) encloses the list
  if (g.s[g.p] === "(" && g.s.lastIndexOf("(") === g.p) {
    g.p++;
    depth++;
  }
  const p: number[] = [];
  const open = g.points(true, npts, p);
  if (depth >= 1) {
    if (g.s[g.p++] !== ")") throw g.bad();
    g.skipSpace();
  }
  g.end();
  return float8s(p, [npts, open ? 0 : 1, 0]);
};

/** poly_in: npts, the bounding box (upper right, lower left; a NaN coordinate is the largest), the points. */
const polyIn: InputFunction = (text) => {
  const npts = pairCount(text);
  const g = new GeoText(text, "polygon");
  if (npts <= 0) throw g.bad();
  const p: number[] = [];
  g.points(false, npts, p);
  g.end();
  let [x1, y1] = [p[0]!, p[1]!];
  let [x2, y2] = [x1, y1];
  for (let i = 2; i < p.length; i += 2) {
    const [x, y] = [p[i]!, p[i + 1]!];
    if (float8Lt(x, x1)) x1 = x;
    if (float8Lt(x2, x)) x2 = x;
    if (float8Lt(y, y1)) y1 = y;
    if (float8Lt(y2, y)) y2 = y;
  }
  return float8s([x2, y2, x1, y1, ...p], [npts]);
};

export const GEOMETRY_INPUT: [number, InputFunction][] = [
  [600, pointIn],
  [601, lsegIn],
  [603, boxIn],
  [628, lineIn],
  [718, circleIn],
  [602, pathIn],
  [604, polyIn],
];
