// uuid_out: 16 bytes as 8-4-4-4-12 lowercase hex groups.
import type { DecoderTable } from "./decoder.js";
import { expectLength, hex } from "./util.js";

export const UUID_DECODERS: DecoderTable = {
  2950: (d) => {
    expectLength(d, 16, "uuid");
    const h = hex(d);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  },
};
