// Search a btree index of the browsed cluster by the value of its first key column.
import { FormatError } from "../../formats/schema/errors.js";
import { btreeDescend, btreeLeafScan, keyComparator, textKeyMatcher, type BtreeSearchResult } from "./btree-search.js";
import { relKey, type RelRef } from "./navigation.js";
import type { BrowseSession } from "./session.js";

export interface IndexSearch extends BtreeSearchResult {
  index: string;
  column: string;
  key: string;
  /** why the descent could not be used */
  why?: string;
}

/** Strip one pair of single quotes, as a user may type a literal: 'abc'. */
export function unquote(key: string): string {
  const t = key.trim();
  return t.length >= 2 && t.startsWith("'") && t.endsWith("'") ? t.slice(1, -1).replace(/''/g, "'") : t;
}

export function searchIndex(session: BrowseSession, ref: RelRef, rawKey: string): IndexSearch {
  return session.cached(`search:${relKey(ref)}:${rawKey}`, () => run(session, ref, rawKey));
}

function run(session: BrowseSession, ref: RelRef, rawKey: string): IndexSearch {
  const h = session.relation(ref);
  if (h.am !== "btree") throw new FormatError("BROWSE_SEARCH_UNSUPPORTED", `search works on btree indexes; ${h.name} is ${h.relkind === "i" ? `a ${h.am} index` : `not an index (${h.am})`}`, {});
  const desc = h.ctx.indexDesc;
  if (!desc || !desc.attrs.length || !h.types) throw new FormatError("BROWSE_NO_DESCRIPTOR", `${h.name} has no catalog descriptor to decode its keys`, {});
  const key = unquote(rawKey);
  const a = desc.attrs[0];
  const typid = h.decodeAs ? h.decodeAs(a.typid) : a.typid;
  const read = (b: number): Uint8Array => session.readPage(ref, b);
  const col = {
    desc,
    typid,
    collation: h.index?.collations[0] ?? 0,
    option: h.index?.options[0] ?? 0,
    dbCollate: h.catalog?.db.collate ?? "",
  };
  const base = { index: h.name, column: a.name, key };
  const c = keyComparator(col, key);
  if ("cmp" in c) return { ...base, ...btreeDescend(read, c.cmp, desc.attrs.length) };
  return { ...base, ...btreeLeafScan(read, textKeyMatcher(desc, typid, h.types, key)), why: c.unsupported };
}
