// The full-screen browser: title, the current view, status line, footer.
import { useEffect } from "react";
import { Box, useApp, useInput } from "ink";
import { useBrowser } from "../hooks/use-browser.js";
import { useTerminalSize, type TerminalSize } from "../hooks/use-terminal-size.js";
import { at, describeLocation, initialState, type Location } from "../navigation.js";
import { footerHints } from "../keys.js";
import { MIN_COLUMNS, MIN_ROWS } from "../layout.js";
import { defaultExpanded } from "../tree.js";
import type { BrowseSession } from "../session.js";
import { TitleBar } from "./TitleBar.js";
import { RowList } from "./RowList.js";
import { RelationView } from "./RelationView.js";
import { HexView } from "./HexView.js";
import { TextView } from "./TextView.js";
import { ErrorPanel } from "./ErrorPanel.js";
import { StatusLine } from "./StatusLine.js";
import { Footer } from "./Footer.js";
import { TooSmall } from "./TooSmall.js";

export interface BrowseAppProps {
  session: BrowseSession;
  /** where to start (default: the relation named on the command line, else the tree) */
  start?: Location;
  /** a fixed terminal size (tests); default: the terminal's, following resizes */
  size?: TerminalSize;
}

export function BrowseApp({ session, start, size }: BrowseAppProps) {
  const dims = useTerminalSize(size);
  const b = useBrowser(session, () => initialState(start ?? (session.startRel ? at({ view: "relation", rel: session.startRel }) : at({ view: "tree" })), defaultExpanded(session)), dims);
  const { exit } = useApp();
  useEffect(() => {
    if (b.state.quit) exit();
  }, [b.state.quit, exit]);
  useInput(b.onKey);
  const { screen, view, state } = b;
  if (screen.tooSmall) return <TooSmall columns={dims.columns} rows={dims.rows} minColumns={MIN_COLUMNS} minRows={MIN_ROWS} />;
  const w = screen.columns;
  let body;
  let hint: string | undefined;
  switch (view.kind) {
    case "rows": {
      const row = view.rows[b.cursor];
      hint = row?.target ? `⏎ ${describeLocation(row.target)}` : row?.toggle ? "⏎ expand / collapse" : undefined;
      body = <RowList rows={view.rows} cursor={b.cursor} top={b.top} height={screen.list} width={w} labelWidth={view.labelWidth} />;
      break;
    }
    case "relation":
      hint = view.nblocks > view.firstBlock ? `⏎ block ${view.firstBlock + b.cursor}   x hex` : "the relation is empty";
      body = <RelationView view={view} cursor={b.cursor} height={screen.list} width={w} mapLines={screen.mapLines} />;
      break;
    case "hex":
      body = <HexView view={view} cursor={b.cursor} top={b.top} height={screen.list} width={w} bytesPerLine={screen.hexWidth} />;
      hint = "⏎ or x: this field in the page/item view";
      break;
    case "text":
      hint = `lines ${b.top + 1}-${Math.min(view.lines.length, b.top + screen.list)} of ${view.lines.length}`;
      body = <TextView lines={view.lines} top={b.top} height={screen.list} width={w} />;
      break;
    case "error":
      body = <ErrorPanel title={view.title} message={view.message} hint={view.hint} width={w} height={screen.body} />;
      break;
  }
  return (
    <Box flexDirection="column" width={w} height={screen.lines}>
      <TitleBar title={view.title} subtitle={"subtitle" in view ? view.subtitle : undefined} width={w} />
      <Box flexDirection="column" height={screen.body}>
        {body}
      </Box>
      <StatusLine prompt={state.prompt} message={state.message} hint={hint} width={w} />
      <Footer hints={footerHints(state.loc.view, state.prompt !== undefined, { index: b.isIndex })} width={w} />
    </Box>
  );
}
