// The keys of the current view.
import { Text } from "ink";

export function Footer({ hints }: { hints: [string, string][] }) {
  return (
    <Text wrap="truncate-end">
      {hints.map(([k, what], i) => (
        <Text key={k}>
          {i ? "  " : ""}
          <Text inverse>{` ${k} `}</Text>
          {` ${what}`}
        </Text>
      ))}
    </Text>
  );
}
