// Inline compressed datum header (varattrib_4b.va_compressed): src/include/varatt.h.
import { defineStruct, register, u32, type InferStruct } from "../schema/index.js";

export const VarattCompressedHeader = register(
  defineStruct("varattrib_4b.va_compressed", "src/include/varatt.h", [
    u32("va_header", "(total length << 2) | 0b10"),
    u32("va_tcinfo", "low 30 bits: raw size without header; top 2 bits: method (0 pglz, 1 lz4)"),
  ] as const),
);
export type VarattCompressedHeaderValue = InferStruct<typeof VarattCompressedHeader>;
export const tcinfoRawSize = (tcinfo: number): number => tcinfo & 0x3fffffff;
export const tcinfoMethod = (tcinfo: number): number => tcinfo >>> 30;
