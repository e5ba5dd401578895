// Input functions by type OID: the built-in types pgdisk load encodes from text (formats/datum's
// input*.ts modules; enums, domains and arrays are resolved per column by input-types.ts).
import { boolIn, byteaIn, charIn, dateIn, float4In, float8In, integer, jsonIn, lengthLimited, nameIn, numericIn, oidIn, textIn, timeIn, timestampIn, timetzIn, uuidIn, type InputFunction } from "./input.js";
import { intervalIn } from "./input-interval.js";
import { NETWORK_INPUT } from "./input-network.js";
import { GEOMETRY_INPUT } from "./input-geometry.js";
import { MISC_INPUT } from "./input-misc.js";
import { XID_INPUT } from "./input-contrib.js";
import { TEXTSEARCH_INPUT } from "./input-textsearch.js";
import { jsonbIn } from "./input-jsonb.js";
import { multirangeInput, nextDate, nextInt32, nextInt64, rangeInput, valueCompare, type RangeSubtype } from "./input-range.js";
import { cmpInt32, cmpInt64 } from "../order/scalar.js";
import { cmpNumericPayload } from "../order/numeric.js";

const compareInt32 = valueCompare(cmpInt32);
const compareInt64 = valueCompare(cmpInt64);
// numeric values are payloads (no varlena header): the payload form of numeric_cmp
const compareNumeric = valueCompare(cmpNumericPayload);

const int4In = integer("integer", 4);
const int8In = integer("bigint", 8);
const timestampWithoutZoneIn = timestampIn(false);
const timestampWithZoneIn = timestampIn(true);

/** The built-in ranges (pg_range.dat): range OID, multirange OID, subtype layout, its comparison and, when discrete, its step. */
const BUILTIN_RANGES: [number, number, RangeSubtype][] = [
  [3904, 4451, { oid: 23, len: 4, align: "i", input: int4In, compare: compareInt32, next: nextInt32 }],
  [3926, 4536, { oid: 20, len: 8, align: "d", input: int8In, compare: compareInt64, next: nextInt64 }],
  [3912, 4535, { oid: 1082, len: 4, align: "i", input: dateIn, compare: compareInt32, next: nextDate }],
  [3906, 4532, { oid: 1700, len: -1, align: "i", input: numericIn, compare: compareNumeric }],
  [3908, 4533, { oid: 1114, len: 8, align: "d", input: timestampWithoutZoneIn, compare: compareInt64 }],
  [3910, 4534, { oid: 1184, len: 8, align: "d", input: timestampWithZoneIn, compare: compareInt64 }],
];

/** Input functions by type OID. */
export const INPUT_FUNCTIONS: ReadonlyMap<number, InputFunction> = new Map<number, InputFunction>([
  [16, boolIn],
  [21, integer("smallint", 2)],
  [23, int4In],
  [20, int8In],
  [26, oidIn],
  [700, float4In],
  [701, float8In],
  [1700, numericIn],
  [25, textIn],
  [1043, lengthLimited("character varying", false)],
  [1042, lengthLimited("character", true)],
  [19, nameIn],
  [18, charIn],
  [17, byteaIn],
  [2950, uuidIn],
  [114, jsonIn],
  [3802, jsonbIn],
  [1082, dateIn],
  [1083, timeIn],
  [1266, timetzIn],
  [1186, intervalIn],
  [1114, timestampWithoutZoneIn],
  [1184, timestampWithZoneIn],
  ...NETWORK_INPUT,
  ...GEOMETRY_INPUT,
  ...MISC_INPUT,
  ...XID_INPUT,
  ...TEXTSEARCH_INPUT,
  ...BUILTIN_RANGES.flatMap(([range, multirange, st]): [number, InputFunction][] => [
    [range, rangeInput(range, st)],
    [multirange, multirangeInput(multirange, st)],
  ]),
]);
