// A relation as a list of pages plus a minimap. Only the visible window's pages are read
// (and one sampled page per minimap cell), so the first screen of a 1 GB relation costs a few
// dozen block reads, and scrolling reads only what comes into view.
import { visibleTop, type Location } from "./navigation.js";
import type { MinimapCell, RelationPagesView } from "./rows.js";
import type { BrowseSession } from "./session.js";
import { bytesText } from "./format.js";

type RelationLoc = Extract<Location, { view: "relation" }>;

/** Minimap cells: each stands for a run of blocks and shows the first block of its run. */
export function minimap(session: BrowseSession, loc: RelationLoc, cells: number): MinimapCell[] {
  const h = session.relation(loc.rel);
  const total = h.nblocks - h.firstBlock;
  const n = Math.max(0, Math.min(cells, total));
  const out: MinimapCell[] = [];
  for (let c = 0; c < n; c++) {
    const from = h.firstBlock + Math.floor((c * total) / n);
    const to = h.firstBlock + Math.floor(((c + 1) * total) / n);
    const s = session.summary(loc.rel, from);
    out.push({ from, to, sample: from, am: s.am, kind: s.kind, fill: s.fill, problem: s.problems.length > 0 });
  }
  return out;
}

export function relationView(session: BrowseSession, loc: RelationLoc, listHeight: number, mapCells: number): RelationPagesView {
  const h = session.relation(loc.rel);
  const total = h.nblocks - h.firstBlock;
  const cursor = loc.cursor >= 0 ? Math.min(loc.cursor, Math.max(0, total - 1)) : 0;
  const top = visibleTop(cursor, loc.top, listHeight, total);
  const pages = [];
  for (let i = top; i < Math.min(total, top + Math.max(0, listHeight)); i++) pages.push(session.summary(loc.rel, h.firstBlock + i));
  const size = h.fork.segments.reduce((a, s) => a + s.size, 0);
  return {
    kind: "relation",
    title: h.name,
    subtitle: `${h.am}${h.relkind ? ` (relkind ${h.relkind})` : ""}  ${total} blocks  ${bytesText(size)}  ${h.fork.segments.length} segment${h.fork.segments.length === 1 ? "" : "s"}`,
    nblocks: h.nblocks,
    firstBlock: h.firstBlock,
    windowStart: h.firstBlock + top,
    pages,
    minimap: minimap(session, loc, mapCells),
    isIndex: h.relkind === "i",
  };
}
