// A window of rows with one selected: label column, text, dim note; links and problems marked.
import { Box, Text } from "ink";
import type { Row } from "../rows.js";

export interface RowListProps {
  rows: Row[];
  cursor: number;
  top: number;
  height: number;
  width: number;
  labelWidth: number;
}

function RowLine({ row, selected, labelWidth }: { row: Row; selected: boolean; labelWidth: number }) {
  const indent = "  ".repeat(row.indent ?? 0);
  const label = row.label !== undefined ? `${indent}${row.label}`.padEnd(labelWidth) + " " : indent;
  const colour = row.style === "problem" ? "red" : row.style === "heading" ? "yellow" : undefined;
  return (
    <Text wrap="truncate-end" inverse={selected}>
      <Text color={row.problem ? "red" : undefined}>{selected ? "›" : " "}{row.problem ? "!" : " "}</Text>
      <Text color={row.style === "heading" ? "yellow" : "cyan"} bold={row.style === "heading"}>
        {label}
      </Text>
      <Text color={colour} bold={row.style === "heading"} dimColor={row.style === "dim"}>
        {row.text}
      </Text>
      {row.note ? <Text dimColor>{`  ${row.note}`}</Text> : null}
    </Text>
  );
}

export function RowList({ rows, cursor, top, height, width, labelWidth }: RowListProps) {
  const visible = rows.slice(top, top + height);
  return (
    <Box flexDirection="column" width={width} height={height}>
      {visible.map((r, i) => (
        <RowLine key={r.key} row={r} selected={top + i === cursor} labelWidth={labelWidth} />
      ))}
    </Box>
  );
}
