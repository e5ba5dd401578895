// Index pages (and FSM/VM pages) in a dump: btree items as bt_page_items shows them, with keys
// decoded through the index's descriptor; other access methods' special spaces decoded.
import { FormatError, findingFrom, type Finding } from "../../formats/schema/errors.js";
import { detectPageKind, type AmName } from "../../formats/am/detect.js";
import { BrinSpecialSpace, BrinMetaPageData, BRIN_PAGETYPE_META } from "../../formats/am/brin.js";
import { GinPageOpaqueData } from "../../formats/am/gin.js";
import { GISTPageOpaqueData } from "../../formats/am/gist.js";
import { HashPageOpaqueData, HashMetaPageData } from "../../formats/am/hash.js";
import { SpGistPageOpaqueData } from "../../formats/am/spgist.js";
import { btMetap, btPageItems, btPageStats, btItemAt } from "../../formats/nbtree/page-items.js";
import { isPivot, isPosting, nattsOf } from "../../formats/nbtree/index-tuple.js";
import { BTP_LEAF } from "../../formats/nbtree/opaque.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { datumToText } from "../../formats/datum/index.js";
import { tidText } from "../../formats/page/item-pointer.js";
import { itemIdWord, maxOffsetNumber, pageView, pdSpecial } from "../../formats/page/page.js";
import { LP_FLAG_NAMES, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import type { DumpItem, DumpPage, DumpValue } from "./model.js";
import type { PageDumpContext } from "./page-dump.js";

const AMS = new Set(["heap", "btree", "hash", "gist", "gin", "spgist", "brin", "sequence"]);

export function detectKind(page: Uint8Array, am?: string): { am: string; kind: string; problem?: string } {
  if (am === "fsm" || am === "vm") return { am, kind: am };
  const k = detectPageKind(page, am && AMS.has(am) ? (am as AmName) : undefined);
  return { am: k.am, kind: k.kind, problem: k.problem };
}

const plain = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v]));

export function dumpIndexPage(page: Uint8Array, out: DumpPage, ctx: PageDumpContext, badItems: Set<number>, findings: Finding[], hasItems = true): void {
  const dv = pageView(page);
  const loc = { file: ctx.file, block: out.block };
  const special = pdSpecial(dv);
  try {
    switch (out.am) {
      case "btree":
        return dumpBtree(page, out, ctx, badItems, findings);
      case "hash":
        out.special = plain(HashPageOpaqueData.decode(page, special));
        if (out.kind === "meta") out.meta = plain(HashMetaPageData.decode(page, 24));
        break;
      case "gist":
        out.special = plain(GISTPageOpaqueData.decode(page, special));
        break;
      case "gin":
        out.special = plain(GinPageOpaqueData.decode(page, special));
        break;
      case "spgist":
        out.special = plain(SpGistPageOpaqueData.decode(page, special));
        break;
      case "brin": {
        const s = BrinSpecialSpace.decode(page, special);
        out.special = plain(s);
        if (dv.getUint16(page.length - 2, true) === BRIN_PAGETYPE_META) out.meta = plain(BrinMetaPageData.decode(page, 24));
        break;
      }
    }
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    findings.push(findingFrom(e, "error", loc));
  }
  if (!hasItems) return;
  const n = maxOffsetNumber(dv);
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const item: DumpItem = { lp: i, lp_off: lpOff(w), lp_flags: lpFlags(w), flag: LP_FLAG_NAMES[lpFlags(w)], lp_len: lpLen(w) };
    if (ctx.hex && !badItems.has(i) && item.lp_len) item.hex = Buffer.from(page.subarray(item.lp_off, item.lp_off + item.lp_len)).toString("hex");
    out.items.push(item);
  }
}

function dumpBtree(page: Uint8Array, out: DumpPage, ctx: PageDumpContext, badItems: Set<number>, findings: Finding[]): void {
  const loc = { file: ctx.file, block: out.block };
  if (out.kind === "meta") {
    out.meta = { ...btMetap(page) };
    return;
  }
  out.special = { ...btPageStats(page, out.block) };
  const dv = pageView(page);
  const flags = dv.getUint16(pdSpecial(dv) + 12, true);
  const rightmost = dv.getUint32(pdSpecial(dv) + 4, true) === 0;
  const leaf = (flags & BTP_LEAF) !== 0;
  let rows: ReturnType<typeof btPageItems> = null;
  try {
    rows = badItems.size ? null : btPageItems(page, ctx.pageSize);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    findings.push(findingFrom(e, "error", loc));
  }
  const n = maxOffsetNumber(dv);
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const item: DumpItem = { lp: i, lp_off: lpOff(w), lp_flags: lpFlags(w), flag: LP_FLAG_NAMES[lpFlags(w)], lp_len: lpLen(w) };
    out.items.push(item);
    const r = rows ? rows[i - 1] : undefined;
    if (!r) continue;
    const tuple = btItemAt(page, i);
    const pivot = isPivot(tuple);
    const kind = i === 1 && !rightmost ? "highkey" : pivot && (tuple[6] | (tuple[7] << 8)) === 0x2008 && !leaf ? "minus-infinity" : pivot ? "pivot" : isPosting(tuple) ? "posting" : "tuple";
    item.btree = {
      ctid: tidText(r.ctid),
      nulls: r.nulls,
      vars: r.vars,
      data: r.data,
      dead: r.dead,
      htid: r.htid ? tidText(r.htid) : null,
      tids: r.tids ? r.tids.map(tidText) : null,
      kind,
    };
    if (ctx.indexDesc && ctx.values && kind !== "minus-infinity") {
      try {
        const natts = pivot ? nattsOf(tuple, ctx.indexDesc.attrs.length) : ctx.indexDesc.attrs.length;
        const slots = deformIndexTuple(tuple, ctx.indexDesc, natts);
        item.btree.keys = slots.map((s, k): DumpValue => {
          const a = ctx.indexDesc!.attrs[k];
          const v: DumpValue = { attnum: a.attnum, name: a.name, type: ctx.values!.types(a.typid)?.name ?? String(a.typid), isnull: s.isnull };
          if (s.missing) v.missing = true;
          if (!s.isnull && !s.missing) {
            const d = datumBytes(tuple, s);
            if (d.kind === "inline") v.value = datumToText(d.bytes, ctx.values!.decodeAs ? ctx.values!.decodeAs(a.typid) : a.typid, a.typmod, ctx.values!.types);
            else v.storage = "external";
          }
          return v;
        });
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        findings.push(findingFrom(e, "error", { ...loc, item: i, offset: item.lp_off }));
      }
    }
  }
}
