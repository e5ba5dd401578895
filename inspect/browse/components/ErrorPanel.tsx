// Why a view cannot be shown (a damaged page, a missing file), and what to do.
import { Box, Text } from "ink";

export function ErrorPanel({ title, message, hint, width, height }: { title: string; message: string; hint?: string; width: number; height: number }) {
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text color="red" bold wrap="truncate-end">
        {title}
      </Text>
      <Text wrap="wrap">{message.split("\n").slice(0, Math.max(1, height - 3)).join("\n")}</Text>
      {hint ? <Text dimColor>{hint}</Text> : null}
    </Box>
  );
}
