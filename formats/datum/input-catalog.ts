// Input functions by type OID: the built-in types pgdisk load encodes from text (formats/datum's
// input*.ts modules; enums, domains and arrays are resolved per column by input-types.ts).
import { boolIn, byteaIn, charIn, dateIn, float4In, float8In, integer, jsonIn, lengthLimited, nameIn, numericIn, oidIn, textIn, timeIn, timestampIn, timetzIn, uuidIn, type InputFunction } from "./input.js";
import { intervalIn } from "./input-interval.js";
import { NETWORK_INPUT } from "./input-network.js";
import { jsonbIn } from "./input-jsonb.js";
import { RANGE_INPUT } from "./input-range.js";

/** Input functions by type OID. */
export const INPUT_FUNCTIONS: ReadonlyMap<number, InputFunction> = new Map<number, InputFunction>([
  [16, boolIn],
  [21, integer("smallint", 2)],
  [23, integer("integer", 4)],
  [20, integer("bigint", 8)],
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
  [1114, timestampIn(false)],
  [1184, timestampIn(true)],
  ...NETWORK_INPUT,
  ...RANGE_INPUT,
]);
