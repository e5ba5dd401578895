// The line above the footer: the open prompt, else the last message, else what Enter would do.
import { Text } from "ink";
import type { Prompt } from "../navigation.js";

export function StatusLine({ prompt, message, hint, width }: { prompt?: Prompt; message?: { text: string; error: boolean }; hint?: string; width: number }) {
  if (prompt) {
    const ask = prompt.kind === "go" ? "go to (block, TID b,o, or relation name)" : "search index for key";
    return (
      <Text wrap="truncate-start">
        <Text color="yellow" bold>{`${ask}: `}</Text>
        {prompt.text}
        <Text inverse> </Text>
      </Text>
    );
  }
  if (message) {
    return (
      <Text color={message.error ? "red" : "yellow"} wrap="truncate-end">
        {message.text.slice(0, width * 2)}
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate-end">
      {hint ?? ""}
    </Text>
  );
}
