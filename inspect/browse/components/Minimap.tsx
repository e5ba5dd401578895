// A strip of cells standing for runs of blocks: glyph height = fill, colour = page kind; the
// cell holding the selected block is inverted, the visible window underlined.
import { Box, Text } from "ink";
import type { MinimapCell } from "../rows.js";
import { fillGlyph, kindColour } from "../palette.js";

export interface MinimapProps {
  cells: MinimapCell[];
  lines: number;
  width: number;
  cursorBlock: number;
  visibleFrom: number;
  visibleTo: number;
}

export function Minimap({ cells, lines, width, cursorBlock, visibleFrom, visibleTo }: MinimapProps) {
  const perLine = Math.max(1, width - 2);
  const out = [];
  for (let l = 0; l < lines; l++) {
    const slice = cells.slice(l * perLine, (l + 1) * perLine);
    out.push(
      <Text key={l} wrap="truncate-end">
        {" "}
        {slice.map((c) => (
          <Text
            key={c.from}
            color={c.problem ? "red" : kindColour(c.am, c.kind)}
            inverse={cursorBlock >= c.from && cursorBlock < Math.max(c.to, c.from + 1)}
            underline={c.to > visibleFrom && c.from < visibleTo}
          >
            {c.problem ? "!" : fillGlyph(c.fill, c.kind)}
          </Text>
        ))}
      </Text>,
    );
  }
  return <Box flexDirection="column" width={width}>{out}</Box>;
}
