// byteaout with bytea_output = hex (the default): \x followed by two lowercase hex digits a byte.
import type { DecoderTable } from "./decoder.js";
import { hex } from "./util.js";

export const BYTEA_DECODERS: DecoderTable = {
  17: (d) => "\\x" + hex(d),
};
