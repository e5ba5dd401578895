// What a command does in the current view: the navigation actions it produces, worked out from
// the view model (rows, targets, hex regions) and the engine. No React here: the hook only
// dispatches what this returns, and tests drive it directly.
import { FormatError } from "../../formats/schema/errors.js";
import type { Command } from "./keys.js";
import { at, parseGoInput, relOf, visibleTop, type Action, type Location, type NavState, type RelRef } from "./navigation.js";
import { effectiveCursor, rowCount, type ViewModel } from "./rows.js";
import type { ScreenLayout } from "./layout.js";
import type { BrowseSession } from "./session.js";
import type { HexRegion } from "./hex-layout.js";

/** The hex line holding a region's first byte, and the window top that shows it. */
function hexSelect(loc: Location, regions: HexRegion[], index: number, screen: ScreenLayout, bytes: number): Action {
  const i = Math.max(0, Math.min(regions.length - 1, index));
  const r = regions[i];
  const totalLines = Math.ceil(bytes / screen.hexWidth);
  const first = Math.floor(r.start / screen.hexWidth);
  const last = Math.floor((r.end - 1) / screen.hexWidth);
  let top = visibleTop(last, loc.top, screen.list, totalLines);
  top = visibleTop(first, top, screen.list, totalLines);
  return { type: "select", cursor: i, top };
}

/** Where a hex region's field is shown in the structured views. */
export function structuredTarget(loc: Extract<Location, { view: "hex" }>, r: HexRegion): Location {
  return r.view === "item" && r.item !== undefined
    ? at({ view: "item", rel: loc.rel, block: loc.block, item: r.item, focus: r.row })
    : at({ view: "page", rel: loc.rel, block: loc.block, focus: r.row });
}

/** The database a name typed at the prompt is looked up in. */
function currentDb(session: BrowseSession, s: NavState, vm: ViewModel): number | undefined {
  const rel = relOf(s.loc);
  if (rel && "db" in rel) return rel.db;
  if (s.loc.view === "tree" && vm.kind === "rows") {
    const row = vm.rows[effectiveCursor(s.loc, vm)];
    const m = row && /^(?:db|ns|rel):(\d+)/.exec(row.key);
    if (m) return Number(m[1]);
  }
  return session.startDb;
}

function blockOf(loc: Location): number | undefined {
  return "block" in loc ? loc.block : undefined;
}

function pageLike(loc: Location, rel: RelRef, block: number): Location {
  return loc.view === "hex" ? at({ view: "hex", rel, block }) : at({ view: "page", rel, block });
}

export function commandActions(session: BrowseSession, s: NavState, cmd: Command, screen: ScreenLayout, vm: ViewModel): Action[] {
  try {
    return actions(session, s, cmd, screen, vm);
  } catch (e) {
    if (e instanceof FormatError) return [{ type: "message", text: `${e.code}: ${e.message}`, error: true }];
    throw e;
  }
}

function actions(session: BrowseSession, s: NavState, cmd: Command, screen: ScreenLayout, vm: ViewModel): Action[] {
  const loc = s.loc;
  const cursor = effectiveCursor(loc, vm);
  const total = rowCount(vm);
  const move = (delta: number): Action[] => {
    if (vm.kind === "hex") {
      if (cmd.type === "pageUp" || cmd.type === "pageDown") {
        const r = vm.regions[cursor];
        const target = Math.max(0, Math.min(vm.bytes.length - 1, r.start + Math.sign(delta) * screen.list * screen.hexWidth));
        const i = vm.regions.findIndex((x) => x.end > target);
        return [hexSelect(loc, vm.regions, i < 0 ? vm.regions.length - 1 : i, screen, vm.bytes.length)];
      }
      return [hexSelect(loc, vm.regions, cursor + delta, screen, vm.bytes.length)];
    }
    if (vm.kind === "text") {
      // The cursor of a text view is its first visible line.
      const lastTop = Math.max(0, total - screen.list);
      return [{ type: "move", from: Math.min(cursor, lastTop), delta, total: lastTop + 1, height: 1 }];
    }
    return [{ type: "move", from: cursor, delta, total, height: screen.list }];
  };
  switch (cmd.type) {
    case "none":
      return [];
    case "up":
      return move(-1);
    case "down":
      return move(1);
    case "pageUp":
      return move(-Math.max(1, screen.list - 1));
    case "pageDown":
      return move(Math.max(1, screen.list - 1));
    case "home":
      return move(-total);
    case "end":
      return move(total);
    case "back":
      return [{ type: "back" }];
    case "forward":
      return [{ type: "forward" }];
    case "quit":
      return [{ type: "quit" }];
    case "tree":
      return loc.view === "tree" ? [] : [{ type: "go", to: at({ view: "tree" }) }];
    case "toggle": {
      if (vm.kind !== "rows") return [];
      const row = vm.rows[cursor];
      return row?.toggle ? [{ type: "toggle", key: row.toggle }] : [];
    }
    case "activate": {
      if (vm.kind === "rows") {
        const row = vm.rows[cursor];
        if (row?.target) return [{ type: "go", to: row.target }];
        if (row?.toggle) return [{ type: "toggle", key: row.toggle }];
        return [];
      }
      if (vm.kind === "relation" && loc.view === "relation") {
        if (total === 0) return [{ type: "message", text: "the relation has no blocks", error: false }];
        return [{ type: "go", to: at({ view: "page", rel: loc.rel, block: vm.firstBlock + cursor }) }];
      }
      if (vm.kind === "hex" && loc.view === "hex") return [{ type: "go", to: structuredTarget(loc, vm.regions[cursor]) }];
      if (vm.kind === "error") return [{ type: "back" }];
      return [];
    }
    case "hex": {
      if (loc.view === "hex" && vm.kind === "hex") return [{ type: "go", to: structuredTarget(loc, vm.regions[cursor]) }];
      if (loc.view === "relation" && vm.kind === "relation" && total > 0) return [{ type: "go", to: at({ view: "hex", rel: loc.rel, block: vm.firstBlock + cursor }) }];
      if ((loc.view === "page" || loc.view === "item") && vm.kind === "rows") {
        const row = vm.rows[cursor];
        return [{ type: "go", to: at({ view: "hex", rel: loc.rel, block: loc.block, focus: row?.hex ?? (loc.view === "item" ? `lp.${loc.item}` : undefined) }) }];
      }
      return [{ type: "message", text: "x shows a page in hex: open a page first", error: false }];
    }
    case "prevBlock":
    case "nextBlock": {
      const rel = relOf(loc);
      const b = blockOf(loc);
      if (!rel || b === undefined || loc.view === "toast" || loc.view === "text") return [{ type: "message", text: "[ and ] step through the blocks of a page view", error: false }];
      const h = session.relation(rel);
      const next = b + (cmd.type === "nextBlock" ? 1 : -1);
      if (next < h.firstBlock || next >= h.nblocks) return [{ type: "message", text: `no block ${next}: ${h.name} has blocks ${h.firstBlock}..${h.nblocks - 1}`, error: false }];
      return [{ type: "go", to: pageLike(loc, rel, next) }];
    }
    case "leftSibling":
    case "rightSibling": {
      const rel = relOf(loc);
      const b = blockOf(loc);
      if (!rel || b === undefined) return [];
      const d = session.page(rel, b);
      if (d.am !== "btree" || !d.special) return [{ type: "message", text: "< and > follow btree sibling links", error: false }];
      const to = Number(cmd.type === "leftSibling" ? d.special.btpo_prev : d.special.btpo_next);
      if (!to) return [{ type: "message", text: `block ${b} is the ${cmd.type === "leftSibling" ? "leftmost" : "rightmost"} page of its level`, error: false }];
      return [{ type: "go", to: pageLike(loc, rel, to) }];
    }
    case "prompt":
      return [{ type: "promptOpen", kind: cmd.kind }];
    case "promptChar":
      return [{ type: "promptType", text: cmd.text }];
    case "promptErase":
      return [{ type: "promptErase" }];
    case "promptCancel":
      return [{ type: "promptClose" }];
    case "promptSubmit":
      try {
        return [{ type: "promptClose" }, ...submit(session, s, vm)];
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        return [{ type: "promptClose" }, { type: "message", text: `${e.code}: ${e.message}`, error: true }];
      }
  }
}

function submit(session: BrowseSession, s: NavState, vm: ViewModel): Action[] {
  const p = s.prompt;
  if (!p) return [];
  const rel = relOf(s.loc);
  if (p.kind === "search") {
    if (!p.text.trim()) return [];
    if (!rel) return [{ type: "message", text: "open a btree index to search it (indexes are under their tables in the tree)", error: true }];
    const h = session.relation(rel);
    if (h.am !== "btree") return [{ type: "message", text: `/ searches btree indexes; ${h.name} is ${h.relkind === "i" ? `a ${h.am} index` : "not an index"}`, error: true }];
    return [{ type: "go", to: at({ view: "search", rel, key: p.text }) }];
  }
  const g = parseGoInput(p.text);
  switch (g.kind) {
    case "error":
      return [{ type: "message", text: g.message, error: true }];
    case "relation": {
      const db = currentDb(session, s, vm);
      if (db === undefined) return [{ type: "message", text: "a lone file has no catalog to look names up in", error: true }];
      try {
        return [{ type: "go", to: at({ view: "relation", rel: session.findRelation(db, g.name) }) }];
      } catch (e) {
        // Not in the database under the cursor: try the one the browser opened.
        if (!(e instanceof FormatError) || session.startDb === undefined || session.startDb === db) throw e;
        return [{ type: "go", to: at({ view: "relation", rel: session.findRelation(session.startDb, g.name) }) }];
      }
    }
    case "block":
    case "tid": {
      if (!rel) return [{ type: "message", text: "open a relation first, then go to a block or TID in it", error: true }];
      const h = session.relation(rel);
      if (g.block < h.firstBlock || g.block >= h.nblocks) return [{ type: "message", text: `no block ${g.block}: ${h.name} has blocks ${h.firstBlock}..${h.nblocks - 1}`, error: true }];
      if (g.kind === "block") return [{ type: "go", to: s.loc.view === "hex" ? at({ view: "hex", rel, block: g.block }) : at({ view: "page", rel, block: g.block }) }];
      return [{ type: "go", to: at({ view: "item", rel, block: g.block, item: g.offset }) }];
    }
  }
}
