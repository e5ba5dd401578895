// The browser's navigation model without ink: history, cursor and scrolling, prompts, the go
// prompt's grammar, the key map and the splitting of key bursts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { at, clampCursor, HISTORY_LIMIT, initialState, navigate, parseGoInput, relKey, visibleTop, type Location, type NavState, type RelRef } from "../../inspect/browse/navigation.js";
import { keyCommand, splitKeys, footerHints } from "../../inspect/browse/keys.js";
import { effectiveCursor, type RowsView } from "../../inspect/browse/rows.js";
import { screenLayout } from "../../inspect/browse/layout.js";

const rel: RelRef = { db: 16384, oid: 16446, label: "public.toast_docs" };
const other: RelRef = { db: 16384, oid: 16449, label: "pg_toast.pg_toast_16446" };
const tree = at({ view: "tree" });
const pageLoc = (block: number): Location => at({ view: "page", rel, block });

function run(s: NavState, ...actions: Parameters<typeof navigate>[1][]): NavState {
  return actions.reduce(navigate, s);
}

test("go pushes history; back and forward walk it; a new go clears forward", () => {
  let s = initialState(tree);
  s = run(s, { type: "go", to: at({ view: "relation", rel }) }, { type: "go", to: pageLoc(0) }, { type: "go", to: at({ view: "item", rel, block: 0, item: 4 }) });
  assert.equal(s.loc.view, "item");
  assert.deepEqual(s.back.map((l) => l.view), ["tree", "relation", "page"]);
  s = run(s, { type: "back" }, { type: "back" });
  assert.equal(s.loc.view, "relation");
  assert.deepEqual(s.forward.map((l) => l.view), ["page", "item"]);
  s = navigate(s, { type: "forward" });
  assert.equal(s.loc.view, "page");
  assert.deepEqual(s.forward.map((l) => l.view), ["item"]);
  s = navigate(s, { type: "go", to: at({ view: "hex", rel, block: 0 }) });
  assert.deepEqual(s.forward, []);
  assert.deepEqual(s.back.map((l) => l.view), ["tree", "relation", "page"]);
});

test("back restores the cursor and scroll position the view had", () => {
  let s = initialState(at({ view: "relation", rel }));
  s = navigate(s, { type: "move", from: 0, delta: 40, total: 291, height: 15 });
  assert.equal(s.loc.cursor, 40);
  assert.equal(s.loc.top, 26);
  s = run(s, { type: "go", to: pageLoc(40) }, { type: "back" });
  assert.equal(s.loc.view, "relation");
  assert.equal(s.loc.cursor, 40);
  assert.equal(s.loc.top, 26);
});

test("back or forward with nothing there says so and stays", () => {
  const s = initialState(tree);
  const b = navigate(s, { type: "back" });
  assert.equal(b.loc, s.loc);
  assert.match(b.message!.text, /nothing to go back to/);
  const f = navigate(s, { type: "forward" });
  assert.match(f.message!.text, /nothing to go forward to/);
});

test("history is bounded", () => {
  let s = initialState(tree);
  for (let i = 0; i < HISTORY_LIMIT + 50; i++) s = navigate(s, { type: "go", to: pageLoc(i) });
  assert.equal(s.back.length, HISTORY_LIMIT);
  assert.equal((s.back[s.back.length - 1] as { block: number }).block, HISTORY_LIMIT + 48);
});

test("moves clamp to the list and scroll the window minimally", () => {
  let s = initialState(at({ view: "relation", rel }));
  s = navigate(s, { type: "move", from: 0, delta: -5, total: 10, height: 4 });
  assert.deepEqual([s.loc.cursor, s.loc.top], [0, 0]);
  s = navigate(s, { type: "move", from: 0, delta: 3, total: 10, height: 4 });
  assert.deepEqual([s.loc.cursor, s.loc.top], [3, 0]);
  s = navigate(s, { type: "move", from: 3, delta: 1, total: 10, height: 4 });
  assert.deepEqual([s.loc.cursor, s.loc.top], [4, 1]);
  s = navigate(s, { type: "move", from: 4, delta: 100, total: 10, height: 4 });
  assert.deepEqual([s.loc.cursor, s.loc.top], [9, 6]);
  s = navigate(s, { type: "move", from: 9, delta: -7, total: 10, height: 4 });
  assert.deepEqual([s.loc.cursor, s.loc.top], [2, 2]);
  // An empty list keeps the cursor at 0.
  assert.equal(navigate(s, { type: "move", from: 0, delta: 1, total: 0, height: 4 }).loc.cursor, 0);
});

test("a move drops the focus key; select places cursor and top directly", () => {
  let s = initialState(at({ view: "item", rel, block: 0, item: 4, focus: "item.4.t_infomask" }));
  s = navigate(s, { type: "move", from: 7, delta: 1, total: 20, height: 10 });
  assert.equal(s.loc.focus, undefined);
  assert.equal(s.loc.cursor, 8);
  s = navigate(initialState(at({ view: "hex", rel, block: 0, focus: "lp.1" })), { type: "select", cursor: 30, top: 12 });
  assert.deepEqual([s.loc.cursor, s.loc.top, s.loc.focus], [30, 12, undefined]);
});

test("visibleTop and clampCursor", () => {
  assert.equal(visibleTop(0, 0, 5, 3), 0);
  assert.equal(visibleTop(7, 0, 5, 100), 3);
  assert.equal(visibleTop(7, 5, 5, 100), 5);
  assert.equal(visibleTop(2, 5, 5, 100), 2);
  assert.equal(visibleTop(99, 0, 5, 100), 95);
  assert.equal(visibleTop(8, 50, 5, 10), 5); // a stale top past the end is pulled back
  assert.equal(visibleTop(3, 50, 5, 10), 3);
  assert.equal(visibleTop(0, 0, 0, 10), 0);
  assert.equal(clampCursor(12, 10), 9);
  assert.equal(clampCursor(-1, 10), 0);
});

test("the prompt collects text, erases, and closes; toggles flip tree nodes", () => {
  let s = initialState(tree, ["db:5"]);
  s = run(s, { type: "promptOpen", kind: "go" }, { type: "promptType", text: "(0," }, { type: "promptType", text: "44" }, { type: "promptErase" });
  assert.deepEqual(s.prompt, { kind: "go", text: "(0,4" });
  s = navigate(s, { type: "promptClose" });
  assert.equal(s.prompt, undefined);
  assert.equal(navigate(s, { type: "promptType", text: "x" }).prompt, undefined);
  s = run(s, { type: "toggle", key: "db:16384" }, { type: "toggle", key: "db:5" });
  assert.deepEqual(s.expanded, ["db:16384"]);
  assert.equal(navigate(s, { type: "quit" }).quit, true);
});

test("go prompt grammar: block, TID, relation name, errors", () => {
  assert.deepEqual(parseGoInput("3"), { kind: "block", block: 3 });
  assert.deepEqual(parseGoInput(" 12 "), { kind: "block", block: 12 });
  assert.deepEqual(parseGoInput("(0,4)"), { kind: "tid", block: 0, offset: 4 });
  assert.deepEqual(parseGoInput("7, 2"), { kind: "tid", block: 7, offset: 2 });
  assert.deepEqual(parseGoInput("toast_docs"), { kind: "relation", name: "toast_docs" });
  assert.deepEqual(parseGoInput("archive.places"), { kind: "relation", name: "archive.places" });
  assert.equal(parseGoInput("(0,0)").kind, "error");
  assert.equal(parseGoInput("").kind, "error");
  assert.equal(parseGoInput("3-4").kind, "error");
});

test("relKey tells relations apart", () => {
  assert.notEqual(relKey(rel), relKey(other));
  assert.equal(relKey({ file: "/x/1", label: "a" }), relKey({ file: "/x/1", label: "b" }));
});

test("keys: navigation, prompt editing, and unknown keys", () => {
  assert.deepEqual(keyCommand("", { downArrow: true }, false), { type: "down" });
  assert.deepEqual(keyCommand("j", {}, false), { type: "down" });
  assert.deepEqual(keyCommand("", { return: true }, false), { type: "activate" });
  assert.deepEqual(keyCommand("", { leftArrow: true }, false), { type: "back" });
  assert.deepEqual(keyCommand("", { backspace: true }, false), { type: "back" });
  assert.deepEqual(keyCommand("", { delete: true }, false), { type: "back" }); // what most terminals send for Backspace
  assert.deepEqual(keyCommand("", { rightArrow: true }, false), { type: "forward" });
  assert.deepEqual(keyCommand("g", {}, false), { type: "prompt", kind: "go" });
  assert.deepEqual(keyCommand(":", {}, false), { type: "prompt", kind: "go" });
  assert.deepEqual(keyCommand("/", {}, false), { type: "prompt", kind: "search" });
  assert.deepEqual(keyCommand("x", {}, false), { type: "hex" });
  assert.deepEqual(keyCommand("q", {}, false), { type: "quit" });
  assert.deepEqual(keyCommand("]", {}, false), { type: "nextBlock" });
  assert.deepEqual(keyCommand(">", {}, false), { type: "rightSibling" });
  assert.deepEqual(keyCommand("Z", {}, false), { type: "none" });
  // In the prompt, letters are text, q included.
  assert.deepEqual(keyCommand("q", {}, true), { type: "promptChar", text: "q" });
  assert.deepEqual(keyCommand("", { delete: true }, true), { type: "promptErase" });
  assert.deepEqual(keyCommand("", { return: true }, true), { type: "promptSubmit" });
  assert.deepEqual(keyCommand("", { escape: true }, true), { type: "promptCancel" });
});

test("a burst of typed keys is split into single keys", () => {
  const ks = splitKeys("g3\r", {});
  assert.deepEqual(ks.map((k) => k.input || (k.key.return ? "⏎" : "?")), ["g", "3", "⏎"]);
  assert.deepEqual(splitKeys("q", {}), [{ input: "q", key: {} }]);
  assert.deepEqual(splitKeys("", { downArrow: true }).length, 1);
  assert.equal(splitKeys("a\u007fb", {})[1].key.delete, true);
});

test("footer hints fit the view and offer search on indexes only", () => {
  assert.ok(footerHints("page", false, { index: true }).some(([k]) => k === "/"), "search offered on an index");
  assert.ok(!footerHints("page", false).some(([k]) => k === "/"), "no search on a table");
  assert.deepEqual(footerHints("tree", true)[0], ["⏎", "go"]);
});

test("the effective cursor: placed, else focus (row key, then hex key), else the default", () => {
  const v: RowsView = {
    kind: "rows",
    title: "",
    labelWidth: 10,
    defaultCursor: 2,
    rows: [
      { key: "a", text: "" },
      { key: "b", text: "", hex: "item.1.t_ctid.bi_hi" },
      { key: "c", text: "" },
    ],
  };
  assert.equal(effectiveCursor({ cursor: -1 }, v), 2);
  assert.equal(effectiveCursor({ cursor: 1 }, v), 1);
  assert.equal(effectiveCursor({ cursor: 9 }, v), 2);
  assert.equal(effectiveCursor({ cursor: -1, focus: "a" }, v), 0);
  assert.equal(effectiveCursor({ cursor: -1, focus: "item.1.t_ctid.bi_hi" }, v), 1);
  assert.equal(effectiveCursor({ cursor: -1, focus: "zzz" }, v), 2);
});

test("screen layout: 80x24 gives 19 body lines; tiny terminals are flagged, never negative", () => {
  const l = screenLayout(80, 24, "page");
  assert.equal(l.lines, 23);
  assert.equal(l.body, 19);
  assert.equal(l.hexWidth, 16);
  assert.equal(l.tooSmall, false);
  assert.equal(screenLayout(80, 24, "relation").list, 15);
  assert.equal(screenLayout(80, 24, "hex").list, 17);
  for (const [c, r] of [[0, 0], [1, 1], [10, 3], [39, 30], [200, 2]]) {
    const t = screenLayout(c, r, "relation");
    assert.ok(t.list >= 1 && t.body >= 1 && t.mapCells >= 1, `${c}x${r}`);
  }
  assert.equal(screenLayout(10, 3, "tree").tooSmall, true);
});
