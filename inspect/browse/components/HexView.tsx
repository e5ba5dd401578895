// The page in hex, every byte coloured by the field it belongs to, the selected field inverted,
// damaged ranges on red; the right column names the fields starting on each line, and the two
// bottom lines describe the selected field.
import { Box, Text } from "ink";
import type { HexPageView } from "../rows.js";
import type { HexRegion } from "../hex-layout.js";
import { CATEGORY_COLOUR } from "../palette.js";

export interface HexViewProps {
  view: HexPageView;
  cursor: number;
  top: number;
  height: number;
  width: number;
  bytesPerLine: number;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

interface Span {
  text: string;
  region: number;
}

function HexLine({ view, line, bytesPerLine, cursor, width, first }: { view: HexPageView; line: number; bytesPerLine: number; cursor: number; width: number; first: number }) {
  const start = line * bytesPerLine;
  const end = Math.min(view.bytes.length, start + bytesPerLine);
  const spans: Span[] = [];
  let r = first;
  for (let o = start; o < end; o++) {
    while (r < view.regions.length - 1 && view.regions[r].end <= o) r++;
    const sep = o === start ? "" : o - start === bytesPerLine / 2 ? "  " : " ";
    const last = spans[spans.length - 1];
    if (last && last.region === r) last.text += sep + HEX[view.bytes[o]];
    else {
      if (sep) spans.push({ text: sep, region: -1 });
      spans.push({ text: HEX[view.bytes[o]], region: r });
    }
  }
  const starting = view.regions.filter((x) => x.start >= start && x.start < end).map((x) => x.label);
  const labelWidth = Math.max(0, width - (6 + bytesPerLine * 3 + 2));
  const label = starting.length ? starting.join(", ") : `… ${view.regions[r]?.label ?? ""}`;
  return (
    <Text wrap="truncate-end">
      <Text dimColor>{start.toString(16).padStart(4, "0")}  </Text>
      {spans.map((s, i) => {
        if (s.region < 0) return <Text key={i}>{s.text}</Text>;
        const reg: HexRegion = view.regions[s.region];
        return (
          <Text key={i} color={CATEGORY_COLOUR[reg.category]} inverse={s.region === cursor} backgroundColor={reg.problem && s.region !== cursor ? "red" : undefined} dimColor={reg.category === "free" || reg.category === "padding"}>
            {s.text}
          </Text>
        );
      })}
      {" ".repeat(Math.max(0, (bytesPerLine - (end - start)) * 3))}
      {labelWidth > 3 ? <Text dimColor>{`  ${label}`.slice(0, labelWidth)}</Text> : null}
    </Text>
  );
}

export function HexView({ view, cursor, top, height, width, bytesPerLine }: HexViewProps) {
  const totalLines = Math.ceil(view.bytes.length / bytesPerLine);
  const lines = [];
  let first = 0;
  for (let l = top; l < Math.min(totalLines, top + height); l++) {
    while (first < view.regions.length - 1 && view.regions[first].end <= l * bytesPerLine) first++;
    lines.push(<HexLine key={l} view={view} line={l} bytesPerLine={bytesPerLine} cursor={cursor} width={width} first={first} />);
  }
  const sel = view.regions[cursor];
  return (
    <Box flexDirection="column" width={width}>
      <Box flexDirection="column" height={height}>
        {lines}
      </Box>
      {sel ? (
        <>
          <Text wrap="truncate-end">
            <Text color={CATEGORY_COLOUR[sel.category]} bold>
              {sel.label}
            </Text>
            {`  bytes ${sel.start}..${sel.end - 1} (${sel.end - sel.start})`}
            {sel.value !== undefined ? `  = ${sel.value}` : ""}
            {sel.problem ? <Text color="red">  ! damaged or overlapping</Text> : null}
          </Text>
          <Text dimColor wrap="truncate-end">
            {sel.doc ?? `${sel.category}`}
          </Text>
        </>
      ) : (
        <Text dimColor>no bytes</Text>
      )}
    </Box>
  );
}
