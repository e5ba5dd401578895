// The top two lines: where we are, and a one-line summary of it.
import { Box, Text } from "ink";

export function TitleBar({ title, subtitle, width }: { title: string; subtitle?: string; width: number }) {
  return (
    <Box flexDirection="column" width={width}>
      <Text inverse bold wrap="truncate-end">
        {` pgdisk browse › ${title}`.padEnd(width)}
      </Text>
      <Text dimColor wrap="truncate-end">
        {` ${subtitle ?? ""}`}
      </Text>
    </Box>
  );
}
