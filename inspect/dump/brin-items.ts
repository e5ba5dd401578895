// BRIN pages in a dump: a regular page's range summaries as brin_page_items shows them (each
// column's null bits and stored values, "{min .. max}" for minmax), a revmap page's TIDs as
// brin_revmap_data lists them.
import { FormatError } from "../../formats/schema/errors.js";
import { brinDeform, BrinTupleData, BRIN_EMPTY_RANGE_MASK, BRIN_PLACEHOLDER_MASK, BRIN_REVMAP_OFFSET, brinRevmapMaxItems, type BrinColumn } from "../../formats/am/brin.js";
import { ItemPointerData, tidKeyAt, tidTextAt } from "../../formats/page/item-pointer.js";
import type { BrinItemDump } from "./model.js";
import type { PageDumpContext } from "./page-dump.js";
import { datumTextAt } from "./datum-at.js";

/** The revmap page's TIDs, up to the last one that names a summary ((0,0) marks an unsummarised range). */
export function brinRevmap(page: Uint8Array): string[] {
  const tids: string[] = [];
  let last = -1;
  for (let i = 0, n = brinRevmapMaxItems(page.length); i < n; i++) {
    const at = BRIN_REVMAP_OFFSET + i * ItemPointerData.size;
    tids.push(tidTextAt(page, at));
    if (tidKeyAt(page, at) !== 0) last = i;
  }
  return tids.slice(0, last + 1);
}

/** The BrinTuple of `len` bytes at `off`, its values through the stored types of each column. Throws FormatError on damage. */
export function brinItem(page: Uint8Array, off: number, len: number, ctx: PageDumpContext): BrinItemDump {
  if (len < BrinTupleData.size) throw new FormatError("BRIN_TUPLE_SIZE", `a BRIN tuple of ${len} bytes is shorter than its header`, { offset: off });
  const info = BrinTupleData.get.bt_info(page, off);
  const desc = ctx.indexDesc;
  const types = ctx.values?.types;
  const stored = ctx.brinStored ?? [];
  const columns: BrinColumn[] = [];
  const whole = brinDeform(page, off, len, stored, columns);
  const out: BrinItemDump = { blknum: BrinTupleData.get.bt_blkno(page, off), placeholder: (info & BRIN_PLACEHOLDER_MASK) !== 0, empty: (info & BRIN_EMPTY_RANGE_MASK) !== 0, columns: [] };
  columns.forEach((c, k) => {
    let value: string | null = null;
    if (!c.allnulls && types && desc) {
      const texts = c.datums.map((d, j) => {
        const t = stored[k]![j]!;
        return datumTextAt(page, d.off, d.len, t.len, t.typid, j === 0 ? desc.attrs[k]!.typmod : -1, types) ?? "(external)";
      });
      value = `{${texts.join(" .. ")}}`;
    }
    out.columns.push({ attnum: k + 1, allnulls: c.allnulls, hasnulls: c.hasnulls, value });
  });
  // an opclass whose stored types pgdisk does not know ends the columns it can show; anything else is damage
  const unknownOpclass = columns.length > 0 && !columns[columns.length - 1]!.allnulls && !stored[columns.length - 1];
  if (!whole && unknownOpclass) out.columns.pop();
  else if (!whole) throw new FormatError("BRIN_TUPLE_SIZE", "the BRIN tuple's stored values run past its length", { offset: off });
  return out;
}
