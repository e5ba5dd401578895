// Geometric types (src/backend/utils/adt/geo_ops.c); coordinates print like float8.
// point (x,y); lseg [(..),(..)]; box (..),(..); line {A,B,C}; circle <(x,y),r>;
// path: int32 npts, int32 closed, int32 pad, points -> (..) closed or [..] open;
// polygon: int32 npts, 32-byte bounding box, points -> ((..),...).
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { float8Text } from "./floats.js";
import { expectAtLeast, expectLength, view } from "./util.js";

function points(d: Uint8Array, at: number, n: number): string[] {
  const dv = view(d);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`(${float8Text(dv.getFloat64(at + 16 * i, true))},${float8Text(dv.getFloat64(at + 16 * i + 8, true))})`);
  return out;
}

function counted(d: Uint8Array, type: string, pointsAt: number): number {
  expectAtLeast(d, pointsAt, type);
  const n = view(d).getInt32(0, true);
  if (n < 0 || pointsAt + 16 * n !== d.length) throw new FormatError("GEOMETRY_BAD_LENGTH", `${type} with ${n} points cannot be ${d.length} bytes`);
  return n;
}

export const GEOMETRY_DECODERS: DecoderTable = {
  600: (d) => (expectLength(d, 16, "point"), points(d, 0, 1)[0]!),
  601: (d) => (expectLength(d, 32, "lseg"), `[${points(d, 0, 2).join(",")}]`),
  603: (d) => (expectLength(d, 32, "box"), points(d, 0, 2).join(",")),
  628: (d) => {
    expectLength(d, 24, "line");
    const dv = view(d);
    return `{${[0, 8, 16].map((o) => float8Text(dv.getFloat64(o, true))).join(",")}}`;
  },
  718: (d) => (expectLength(d, 24, "circle"), `<${points(d, 0, 1)[0]},${float8Text(view(d).getFloat64(16, true))}>`),
  602: (d) => {
    const n = counted(d, "path", 12);
    const p = points(d, 12, n).join(",");
    return view(d).getInt32(4, true) ? `(${p})` : `[${p}]`;
  },
  604: (d) => `(${points(d, 36, counted(d, "polygon", 36)).join(",")})`,
};
