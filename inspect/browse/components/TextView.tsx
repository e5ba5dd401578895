// A long value, wrapped, scrolled by its first visible line.
import { Box, Text } from "ink";

export function TextView({ lines, top, height, width }: { lines: string[]; top: number; height: number; width: number }) {
  return (
    <Box flexDirection="column" width={width} height={height}>
      {lines.slice(top, top + height).map((l, i) => (
        <Text key={top + i} wrap="truncate-end">
          {l}
        </Text>
      ))}
    </Box>
  );
}
