// Small fixed-format types: tidout, pg_lsn_out, bit_out/varbit_out, cash_out (lc_monetary C),
// pg_snapshot_out / txid_snapshot_out.
import { readTid, tidText } from "../page/item-pointer.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { expectAtLeast, expectLength, view } from "./util.js";

function varbitText(d: Uint8Array): string {
  expectAtLeast(d, 4, "varbit");
  const nbits = view(d).getInt32(0, true);
  if (nbits < 0 || 4 + Math.ceil(nbits / 8) > d.length) throw new FormatError("VARBIT_BAD_LENGTH", `bit string of ${nbits} bits does not fit in ${d.length - 4} bytes`);
  let s = "";
  for (let i = 0; i < nbits; i++) s += (d[4 + (i >> 3)]! >> (7 - (i & 7))) & 1 ? "1" : "0";
  return s;
}

/** cash_out as printed under lc_monetary = C: "$1,234.56", "-$0.01". */
function moneyText(d: Uint8Array): string {
  expectLength(d, 8, "money");
  const v = view(d).getBigInt64(0, true);
  const a = (v < 0n ? -v : v).toString().padStart(3, "0");
  const int = a.slice(0, -2).replace(/\B(?=(\d{3})+$)/g, ",");
  return `${v < 0n ? "-" : ""}$${int}.${a.slice(-2)}`;
}

/** pg_snapshot: int32 nxip, then 8-byte xmin, xmax and xip[] (FullTransactionIds). */
function snapshotText(d: Uint8Array): string {
  expectAtLeast(d, 20, "pg_snapshot");
  const dv = view(d);
  const nxip = dv.getInt32(0, true);
  if (nxip < 0 || 20 + 8 * nxip !== d.length) throw new FormatError("SNAPSHOT_BAD_LENGTH", `pg_snapshot with ${nxip} xips cannot be ${d.length} bytes`);
  const xip: string[] = [];
  for (let i = 0; i < nxip; i++) xip.push(String(dv.getBigUint64(20 + 8 * i, true)));
  return `${dv.getBigUint64(4, true)}:${dv.getBigUint64(12, true)}:${xip.join(",")}`;
}

export const MISC_DECODERS: DecoderTable = {
  27: (d) => (expectLength(d, 6, "tid"), tidText(readTid(view(d), 0))),
  3220: (d) => {
    expectLength(d, 8, "pg_lsn");
    const dv = view(d);
    return `${dv.getUint32(4, true).toString(16).toUpperCase()}/${dv.getUint32(0, true).toString(16).toUpperCase()}`;
  },
  1560: varbitText, // bit
  1562: varbitText, // varbit
  790: moneyText,
  5038: snapshotText, // pg_snapshot
  2970: snapshotText, // txid_snapshot
};
