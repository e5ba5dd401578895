// Screen geometry: how many lines each part of the browser gets at a terminal size. Pure, so
// the hook (scrolling) and the components (drawing) agree.
import type { ViewName } from "./navigation.js";

export interface ScreenLayout {
  columns: number;
  /** lines drawn: one less than the terminal, so ink never clears the whole screen per frame */
  lines: number;
  /** lines between the title bar and the status line */
  body: number;
  /** rows of the selectable list inside the body */
  list: number;
  /** minimap cells (relation view) */
  mapCells: number;
  mapLines: number;
  /** bytes per hex line */
  hexWidth: number;
  tooSmall: boolean;
}

export const MIN_COLUMNS = 40;
export const MIN_ROWS = 8;
/** title, subtitle, status, footer */
const CHROME = 4;

export function screenLayout(columns: number, rows: number, view: ViewName): ScreenLayout {
  const cols = Math.max(1, Math.floor(columns || 80));
  const lines = Math.max(1, Math.floor(rows || 24) - 1);
  const tooSmall = cols < MIN_COLUMNS || lines < MIN_ROWS - 1;
  const body = Math.max(1, lines - CHROME);
  const mapLines = body >= 12 ? 2 : 1;
  const mapCells = Math.max(1, (cols - 2) * mapLines);
  let list = body;
  if (view === "relation") list = Math.max(1, body - mapLines - 2); // minimap, its legend, column header
  if (view === "hex") list = Math.max(1, body - 2); // two lines describing the selected field
  return { columns: cols, lines, body, list, mapCells, mapLines, hexWidth: cols >= 76 ? 16 : 8, tooSmall };
}
