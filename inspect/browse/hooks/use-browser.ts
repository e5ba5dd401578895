// The browser's state: the navigation reducer, the current view model (built by the engine for
// the visible window), and the key handler. Components only draw what this returns.
import { useCallback, useMemo, useRef, useState } from "react";
import type { Key } from "ink";
import { keyCommand, splitKeys } from "../keys.js";
import { commandActions } from "../controller.js";
import { navigate, relOf, visibleTop, type NavState } from "../navigation.js";
import { effectiveCursor, rowCount, type ViewModel } from "../rows.js";
import { screenLayout, type ScreenLayout } from "../layout.js";
import { buildView } from "../views.js";
import type { BrowseSession } from "../session.js";
import type { TerminalSize } from "./use-terminal-size.js";

export interface Browser {
  state: NavState;
  screen: ScreenLayout;
  view: ViewModel;
  /** selected row (hex: region; text: first visible line) */
  cursor: number;
  /** first visible row (hex: hex line) */
  top: number;
  onKey: (input: string, key: Key) => void;
  /** the current relation is an index (the footer offers / search) */
  isIndex: boolean;
}

function topFor(state: NavState, view: ViewModel, cursor: number, screen: ScreenLayout): number {
  const loc = state.loc;
  if (view.kind === "hex") {
    const totalLines = Math.ceil(view.bytes.length / screen.hexWidth);
    const r = view.regions[cursor];
    if (!r) return 0;
    const line = Math.floor(r.start / screen.hexWidth);
    const wanted = loc.cursor >= 0 ? loc.top : Math.max(0, line - Math.floor(screen.list / 3));
    return visibleTop(line, wanted, screen.list, totalLines);
  }
  if (view.kind === "text") return Math.min(cursor, Math.max(0, rowCount(view) - screen.list));
  return visibleTop(cursor, loc.top, screen.list, rowCount(view));
}

export function useBrowser(session: BrowseSession, init: () => NavState, size: TerminalSize): Browser {
  const [state, setState] = useState(init);
  const screen = screenLayout(size.columns, size.rows, state.loc.view);
  const view = useMemo(
    () => buildView(session, state.loc, screen, state.expanded),
    // The view depends on the screen only through these.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [session, state.loc, state.expanded, screen.columns, screen.list, screen.mapCells],
  );
  const cursor = effectiveCursor(state.loc, view);
  const top = topFor(state, view, cursor, screen);
  // Keys can arrive faster than renders: each key acts on the state the previous key left,
  // with that state's view (built from the session's caches when it was never drawn).
  const latest = useRef(state);
  const drawn = useRef({ state, view });
  drawn.current = { state, view };
  const sizeRef = useRef(size);
  sizeRef.current = size;
  const onKey = useCallback(
    (input: string, key: Key) => {
      let s = latest.current;
      for (const k of splitKeys(input, key)) {
        const sc = screenLayout(sizeRef.current.columns, sizeRef.current.rows, s.loc.view);
        const v = drawn.current.state === s ? drawn.current.view : buildView(session, s.loc, sc, s.expanded);
        try {
          for (const a of commandActions(session, s, keyCommand(k.input, k.key, s.prompt !== undefined), sc, v)) s = navigate(s, a);
        } catch (e) {
          // A bug must not take the terminal down with it: say so and stay.
          s = navigate(s, { type: "message", text: `internal error (please report): ${(e as Error)?.message ?? String(e)}`, error: true });
        }
      }
      latest.current = s;
      setState(s);
    },
    [session],
  );
  const rel = relOf(state.loc);
  let isIndex = false;
  try {
    isIndex = rel ? session.relation(rel).relkind === "i" : false;
  } catch {
    isIndex = false; // the view shows why the relation cannot be opened
  }
  return { state, screen, view, cursor, top, onKey, isIndex };
}
