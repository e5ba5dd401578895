// The browser's view models: plain data built by the engine from dump data, rendered by the
// components. A view is a list of rows (with optional link targets and page byte ranges), the
// page list of a relation (built for the visible window only), a hex page, or a text.
import type { Location } from "./navigation.js";
import type { HexRegion } from "./hex-layout.js";

export type RowStyle = "heading" | "field" | "link" | "problem" | "dim";

export interface Row {
  /** stable id within the view; a field's key is also its hex region key */
  key: string;
  /** left column (padded to the view's labelWidth) */
  label?: string;
  text: string;
  /** dim trailing note */
  note?: string;
  style?: RowStyle;
  indent?: number;
  /** Enter follows this */
  target?: Location;
  /** Tab (and Enter when there is no target) expands or collapses this tree node */
  toggle?: string;
  /** a finding concerns this row */
  problem?: boolean;
  /** key of the hex region this row stands for (x opens the hex view there) */
  hex?: string;
}

export interface PageSummary {
  block: number;
  am: string;
  kind: string;
  isNew: boolean;
  items: number;
  freeSpace: number;
  pageSize: number;
  /** used fraction of the page, 0..1 (0 for a new page) */
  fill: number;
  /** btree level (0 = leaf) */
  level?: number;
  problems: string[];
}

export interface MinimapCell {
  /** blocks [from, to) this cell stands for; `sample` is the block read for it */
  from: number;
  to: number;
  sample: number;
  am: string;
  kind: string;
  fill: number;
  problem: boolean;
}

export interface RowsView {
  kind: "rows";
  title: string;
  subtitle?: string;
  rows: Row[];
  /** row selected when the view is entered without a cursor */
  defaultCursor: number;
  labelWidth: number;
}

export interface RelationPagesView {
  kind: "relation";
  title: string;
  subtitle?: string;
  nblocks: number;
  firstBlock: number;
  /** the visible window: summaries of blocks [windowStart, windowStart + pages.length) */
  windowStart: number;
  pages: PageSummary[];
  minimap: MinimapCell[];
  isIndex: boolean;
}

export interface HexPageView {
  kind: "hex";
  title: string;
  subtitle?: string;
  bytes: Uint8Array;
  regions: HexRegion[];
  defaultCursor: number;
}

export interface TextPageView {
  kind: "text";
  title: string;
  subtitle?: string;
  lines: string[];
}

export interface ErrorView {
  kind: "error";
  title: string;
  message: string;
  hint?: string;
}

export type ViewModel = RowsView | RelationPagesView | HexPageView | TextPageView | ErrorView;

/** Number of selectable rows of a view. */
export function rowCount(v: ViewModel): number {
  switch (v.kind) {
    case "rows":
      return v.rows.length;
    case "relation":
      return v.nblocks - v.firstBlock;
    case "hex":
      return v.regions.length;
    case "text":
      return v.lines.length;
    case "error":
      return 0;
  }
}

/** The selected row: the location's cursor, else its focus key, else the view's default. */
export function effectiveCursor(loc: { cursor: number; focus?: string }, v: ViewModel): number {
  const n = rowCount(v);
  if (n === 0) return 0;
  if (loc.cursor >= 0) return Math.min(loc.cursor, n - 1);
  if (loc.focus !== undefined) {
    const f = loc.focus;
    if (v.kind === "rows") {
      let i = v.rows.findIndex((r) => r.key === f);
      if (i < 0) i = v.rows.findIndex((r) => r.hex === f);
      if (i >= 0) return i;
    }
    if (v.kind === "hex") {
      const i = v.regions.findIndex((r) => r.key === f);
      if (i >= 0) return i;
    }
  }
  if (v.kind === "rows" || v.kind === "hex") return Math.min(Math.max(0, v.defaultCursor), n - 1);
  return 0;
}
