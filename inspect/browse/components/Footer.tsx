// The keys of the current view: as many as fit the width, the last one (quit) always shown.
import { Text } from "ink";
import { fitHints } from "../keys.js";

export function Footer({ hints, width = 80 }: { hints: [string, string][]; width?: number }) {
  return (
    <Text wrap="truncate-end">
      {fitHints(hints, width).map(([k, what], i) => (
        <Text key={k}>
          {i ? "  " : ""}
          <Text inverse>{` ${k} `}</Text>
          {` ${what}`}
        </Text>
      ))}
    </Text>
  );
}
