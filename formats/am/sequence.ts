// The special space of a sequence's single page (src/backend/commands/sequence.c): PageInit with
// sizeof(sequence_magic) = 4, MAXALIGNed to 8, so the magic is followed by 4 zero bytes.
import { bool, defineStruct, i64, pad, register, u32, type InferStruct } from "../schema/index.js";

export const SequenceMagic = register(
  defineStruct("sequence_magic", "src/backend/commands/sequence.c", [
    u32("magic", "SEQ_MAGIC 0x1717"),
    pad("pad", 4),
  ] as const),
);
export type SequenceMagicValue = InferStruct<typeof SequenceMagic>;
export const SEQ_MAGIC = 0x1717;

/** FormData_pg_sequence_data (src/include/commands/sequence.h): the data of the sequence's one heap tuple. */
export const SequenceData = register(
  defineStruct("FormData_pg_sequence_data", "src/include/commands/sequence.h", [
    i64("last_value", "last value returned (or the start value before the first nextval)"),
    i64("log_cnt", "values that may be returned before a new WAL record"),
    bool("is_called", "whether last_value has been returned"),
  ] as const),
);
