// A relation: the minimap, then the visible window of its page list.
import { Box, Text } from "ink";
import type { PageSummary, RelationPagesView } from "../rows.js";
import { Minimap } from "./Minimap.js";
import { kindColour } from "../palette.js";

export interface RelationViewProps {
  view: RelationPagesView;
  cursor: number;
  height: number;
  width: number;
  mapLines: number;
}

function bar(fill: number, width: number): string {
  const n = Math.round(fill * width);
  return "█".repeat(n) + "·".repeat(Math.max(0, width - n));
}

function PageLine({ p, selected, digits, barWidth }: { p: PageSummary; selected: boolean; digits: number; barWidth: number }) {
  const kind = `${p.am}/${p.kind}${p.level !== undefined && p.level > 0 ? ` L${p.level}` : ""}`;
  return (
    <Text wrap="truncate-end" inverse={selected}>
      <Text color={p.problems.length ? "red" : undefined}>{selected ? "›" : " "}{p.problems.length ? "!" : " "}</Text>
      <Text color="cyan">{String(p.block).padStart(digits)}</Text>
      {"  "}
      <Text color={kindColour(p.am, p.kind)}>{kind.padEnd(18)}</Text>
      {String(p.items).padStart(5)} {String(p.freeSpace).padStart(6)}  <Text color={kindColour(p.am, p.kind)}>{bar(p.fill, barWidth)}</Text>
      {` ${String(Math.round(p.fill * 100)).padStart(3)}%`}
      {p.problems.length ? <Text color="red">{`  ${p.problems.join(" ")}`}</Text> : null}
    </Text>
  );
}

export function RelationView({ view, cursor, height, width, mapLines }: RelationViewProps) {
  const digits = Math.max(5, String(view.nblocks).length);
  const barWidth = Math.max(4, Math.min(20, width - digits - 44));
  const cursorBlock = view.firstBlock + cursor;
  const visibleTo = view.windowStart + view.pages.length;
  return (
    <Box flexDirection="column" width={width}>
      <Minimap cells={view.minimap} lines={mapLines} width={width} cursorBlock={cursorBlock} visibleFrom={view.windowStart} visibleTo={visibleTo} />
      <Text dimColor wrap="truncate-end">
        {`  minimap: ${view.minimap.length} cells, ${view.minimap.length ? Math.ceil((view.nblocks - view.firstBlock) / view.minimap.length) : 0} block(s) each, height = fill`}
      </Text>
      <Text bold wrap="truncate-end">
        {`  ${"block".padStart(digits)}  ${"kind".padEnd(18)}${"items".padStart(5)} ${"free".padStart(6)}  fill`}
      </Text>
      <Box flexDirection="column" height={height}>
        {view.pages.map((p) => (
          <PageLine key={p.block} p={p} selected={p.block === cursorBlock} digits={digits} barWidth={barWidth} />
        ))}
      </Box>
    </Box>
  );
}
