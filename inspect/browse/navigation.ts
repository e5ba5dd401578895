// The browser's navigation model: where the user is (a Location), the back/forward history,
// the open prompt and the status message. A pure reducer, tested without ink; the hook feeds it
// actions that already carry what it needs from the engine (row counts, targets).

/** A relation: one of a database's (by pg_class OID), or a lone file named on the command line. */
export type RelRef = { db: number; oid: number; label: string } | { file: string; label: string };

export const relKey = (r: RelRef): string => ("file" in r ? `file:${r.file}` : `${r.db}/${r.oid}`);
export const sameRel = (a: RelRef, b: RelRef): boolean => relKey(a) === relKey(b);

interface Cursor {
  /** selected row; -1 = not placed yet (the view's default row, or `focus`) */
  cursor: number;
  /** first visible row */
  top: number;
  /** a row key to select when the view is first shown (hex region key, field key) */
  focus?: string;
}

export type Location =
  | ({ view: "tree" } & Cursor)
  | ({ view: "relation"; rel: RelRef } & Cursor)
  | ({ view: "page"; rel: RelRef; block: number } & Cursor)
  | ({ view: "item"; rel: RelRef; block: number; item: number } & Cursor)
  | ({ view: "hex"; rel: RelRef; block: number } & Cursor)
  | ({ view: "toast"; rel: RelRef; block: number; item: number; attnum: number } & Cursor)
  | ({ view: "text"; rel: RelRef; block: number; item: number; attnum: number } & Cursor)
  | ({ view: "search"; rel: RelRef; key: string } & Cursor);

export type ViewName = Location["view"];

export interface Prompt {
  kind: "go" | "search";
  text: string;
}

export interface NavState {
  loc: Location;
  back: Location[];
  forward: Location[];
  prompt?: Prompt;
  message?: { text: string; error: boolean };
  /** expanded tree nodes */
  expanded: string[];
  quit: boolean;
}

export type Action =
  /** move the selection by `delta` rows from `from` (the effective cursor) in a list of `total` rows, `height` visible */
  | { type: "move"; from: number; delta: number; total: number; height: number }
  /** place the selection and the window top directly (hex view: the top counts hex lines) */
  | { type: "select"; cursor: number; top: number }
  | { type: "go"; to: Location }
  | { type: "back" }
  | { type: "forward" }
  | { type: "toggle"; key: string }
  | { type: "promptOpen"; kind: Prompt["kind"] }
  | { type: "promptType"; text: string }
  | { type: "promptErase" }
  | { type: "promptClose" }
  | { type: "message"; text: string; error?: boolean }
  | { type: "quit" };

export const HISTORY_LIMIT = 200;

export function initialState(loc: Location, expanded: string[] = []): NavState {
  return { loc, back: [], forward: [], expanded, quit: false };
}

/** A location as written by hand: cursor and top optional. */
export type LocationInput = Location extends infer L ? (L extends Location ? Omit<L, "cursor" | "top"> & Partial<Cursor> : never) : never;

/** A location with the cursor not yet placed. */
export function at(loc: LocationInput): Location {
  return { cursor: -1, top: 0, ...loc } as Location;
}

/** The first row to show so that `cursor` is visible, moving the window as little as possible. */
export function visibleTop(cursor: number, top: number, height: number, total: number): number {
  const h = Math.max(1, height);
  let t = Math.min(Math.max(0, top), Math.max(0, total - h));
  if (cursor < t) t = cursor;
  else if (cursor >= t + h) t = cursor - h + 1;
  return Math.max(0, Math.min(t, Math.max(0, total - h)));
}

export function clampCursor(c: number, total: number): number {
  return total <= 0 ? 0 : Math.max(0, Math.min(total - 1, c));
}

/** The location with its selection placed (a placed cursor wins over the focus key, so drop it). */
function placed(loc: Location, cursor: number, top: number): Location {
  const next = { ...loc, cursor, top };
  delete next.focus;
  return next;
}

export function navigate(s: NavState, a: Action): NavState {
  switch (a.type) {
    case "move": {
      const cursor = clampCursor(a.from + a.delta, a.total);
      return { ...s, loc: placed(s.loc, cursor, visibleTop(cursor, s.loc.top, a.height, a.total)), message: undefined };
    }
    case "select":
      return { ...s, loc: placed(s.loc, Math.max(0, a.cursor), Math.max(0, a.top)), message: undefined };
    case "go":
      return { ...s, loc: a.to, back: [...s.back, s.loc].slice(-HISTORY_LIMIT), forward: [], prompt: undefined, message: undefined };
    case "back": {
      if (!s.back.length) return { ...s, message: { text: "nothing to go back to", error: false } };
      const prev = s.back[s.back.length - 1];
      return { ...s, loc: prev, back: s.back.slice(0, -1), forward: [s.loc, ...s.forward].slice(0, HISTORY_LIMIT), message: undefined };
    }
    case "forward": {
      if (!s.forward.length) return { ...s, message: { text: "nothing to go forward to", error: false } };
      const [next, ...rest] = s.forward;
      return { ...s, loc: next, back: [...s.back, s.loc].slice(-HISTORY_LIMIT), forward: rest, message: undefined };
    }
    case "toggle":
      return { ...s, expanded: s.expanded.includes(a.key) ? s.expanded.filter((k) => k !== a.key) : [...s.expanded, a.key] };
    case "promptOpen":
      return { ...s, prompt: { kind: a.kind, text: "" }, message: undefined };
    case "promptType":
      return s.prompt ? { ...s, prompt: { ...s.prompt, text: s.prompt.text + a.text } } : s;
    case "promptErase":
      return s.prompt ? { ...s, prompt: { ...s.prompt, text: s.prompt.text.slice(0, -1) } } : s;
    case "promptClose":
      return { ...s, prompt: undefined };
    case "message":
      return { ...s, message: { text: a.text, error: a.error ?? false } };
    case "quit":
      return { ...s, quit: true };
  }
}

/** The relation a location is about, if any. */
export function relOf(loc: Location): RelRef | undefined {
  return loc.view === "tree" ? undefined : loc.rel;
}

/** What the go prompt asks for: a block, a TID, or a relation name. */
export type GoTarget = { kind: "block"; block: number } | { kind: "tid"; block: number; offset: number } | { kind: "relation"; name: string } | { kind: "error"; message: string };

export function parseGoInput(text: string): GoTarget {
  const t = text.trim();
  if (!t) return { kind: "error", message: "type a block number, a TID (block,offset) or a relation name" };
  if (/^\d+$/.test(t)) return { kind: "block", block: Number(t) };
  const m = /^\(?\s*(\d+)\s*,\s*(\d+)\s*\)?$/.exec(t);
  if (m) {
    const offset = Number(m[2]);
    if (offset < 1) return { kind: "error", message: `offset numbers start at 1: "${t}"` };
    return { kind: "tid", block: Number(m[1]), offset };
  }
  if (/^[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)?$/.test(t)) return { kind: "relation", name: t };
  return { kind: "error", message: `"${t}" is not a block number, a TID (block,offset) or a relation name` };
}

/** A few words about a location, for the status line ("⏎ item (0,4) of public.t"). */
export function describeLocation(loc: Location): string {
  switch (loc.view) {
    case "tree":
      return "the cluster tree";
    case "relation":
      return `pages of ${loc.rel.label}`;
    case "page":
      return `block ${loc.block} of ${loc.rel.label}`;
    case "item":
      return `item (${loc.block},${loc.item}) of ${loc.rel.label}`;
    case "hex":
      return `block ${loc.block} of ${loc.rel.label} in hex`;
    case "toast":
      return `the TOAST chunks of attribute ${loc.attnum} of (${loc.block},${loc.item})`;
    case "text":
      return `the whole value of attribute ${loc.attnum} of (${loc.block},${loc.item})`;
    case "search":
      return `search ${loc.rel.label} for '${loc.key}'`;
  }
}
