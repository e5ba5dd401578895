// Shown instead of the browser when the terminal cannot hold it; q still quits.
import { Text } from "ink";

export function TooSmall({ columns, rows, minColumns, minRows }: { columns: number; rows: number; minColumns: number; minRows: number }) {
  return (
    <Text wrap="truncate-end">
      {`terminal ${columns}x${rows} is too small (need ${minColumns}x${minRows}); q quits`}
    </Text>
  );
}
