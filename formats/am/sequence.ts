// The special space of a sequence's single page (src/backend/commands/sequence.c): PageInit with
// sizeof(sequence_magic) = 4, MAXALIGNed to 8, so the magic is followed by 4 zero bytes.
import { defineStruct, pad, register, u32, type InferStruct } from "../schema/index.js";

export const SequenceMagic = register(
  defineStruct("sequence_magic", "src/backend/commands/sequence.c", [
    u32("magic", "SEQ_MAGIC 0x1717"),
    pad("pad", 4),
  ] as const),
);
export type SequenceMagicValue = InferStruct<typeof SequenceMagic>;
export const SEQ_MAGIC = 0x1717;
