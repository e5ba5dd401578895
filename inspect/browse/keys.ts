// Keys to commands, and the footer's key hints per view. Pure: the hook turns commands into
// navigation actions with the current view's rows.
import type { ViewName } from "./navigation.js";

/** The subset of ink's Key this module reads. */
export interface KeyInfo {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  tab?: boolean;
}

export type Command =
  | { type: "up" | "down" | "pageUp" | "pageDown" | "home" | "end" }
  | { type: "activate" | "toggle" | "back" | "forward" | "hex" | "tree" | "quit" }
  | { type: "prevBlock" | "nextBlock" | "leftSibling" | "rightSibling" }
  | { type: "prompt"; kind: "go" | "search" }
  | { type: "promptChar"; text: string }
  | { type: "promptErase" | "promptSubmit" | "promptCancel" }
  | { type: "none" };

export function keyCommand(input: string, key: KeyInfo, promptOpen: boolean): Command {
  if (promptOpen) {
    if (key.return) return { type: "promptSubmit" };
    if (key.escape) return { type: "promptCancel" };
    if (key.backspace || key.delete) return { type: "promptErase" };
    if (key.ctrl && input === "c") return { type: "quit" };
    // Printable text only (a paste arrives as one string).
    const text = input.replace(/[\u0000-\u001f\u007f]/g, "");
    return text ? { type: "promptChar", text } : { type: "none" };
  }
  if (key.upArrow || input === "k") return { type: "up" };
  if (key.downArrow || input === "j") return { type: "down" };
  if (key.pageUp) return { type: "pageUp" };
  if (key.pageDown || input === " ") return { type: "pageDown" };
  if (key.home) return { type: "home" };
  if (key.end || input === "G") return { type: "end" };
  if (key.return) return { type: "activate" };
  if (key.leftArrow || key.backspace || key.delete || input === "h") return { type: "back" };
  if (key.rightArrow || input === "l") return { type: "forward" };
  if (key.escape) return { type: "back" };
  if (key.tab || input === "+" || input === "-") return { type: "toggle" };
  if (input === "q" || (key.ctrl && input === "c")) return { type: "quit" };
  if (input === "x") return { type: "hex" };
  if (input === "t") return { type: "tree" };
  if (input === "g" || input === ":") return { type: "prompt", kind: "go" };
  if (input === "/") return { type: "prompt", kind: "search" };
  if (input === "[") return { type: "prevBlock" };
  if (input === "]") return { type: "nextBlock" };
  if (input === "<") return { type: "leftSibling" };
  if (input === ">") return { type: "rightSibling" };
  return { type: "none" };
}

/** Key hints for the footer, most useful first (the footer truncates at the terminal width). */
export function footerHints(view: ViewName, promptOpen: boolean, opts: { index?: boolean } = {}): [string, string][] {
  if (promptOpen) return [["⏎", "go"], ["esc", "cancel"], ["⌫", "erase"]];
  const common: [string, string][] = [["←/⌫", "back"], ["→", "fwd"]];
  const tail: [string, string][] = [["g", "go"], ...(opts.index ? ([["/", "search"]] as [string, string][]) : []), ["q", "quit"]];
  switch (view) {
    case "tree":
      return [["↑↓", "move"], ["⏎", "open"], ["tab", "expand"], ["g", "go"], ["q", "quit"]];
    case "relation":
      return [["↑↓", "move"], ["⏎", "page"], ...common, ...tail];
    case "page":
      return [["↑↓", "move"], ["⏎", "open"], ["x", "hex"], ["[ ]", "block"], ...(opts.index ? ([["< >", "sibling"]] as [string, string][]) : []), ...common, ...tail];
    case "item":
      return [["↑↓", "move"], ["⏎", "follow"], ["x", "hex"], ...common, ...tail];
    case "hex":
      return [["↑↓", "field"], ["⏎/x", "to field"], ["[ ]", "block"], ...common, ...tail];
    case "toast":
      return [["↑↓", "move"], ["⏎", "follow"], ...common, ...tail];
    case "text":
      return [["↑↓", "scroll"], ["PgUp/PgDn", "page"], ...common, ["q", "quit"]];
    case "search":
      return [["↑↓", "move"], ["⏎", "open"], ...common, ...tail];
  }
}

/**
 * Split a burst of typed characters (a paste, or keys sent faster than they are read, which
 * ink delivers as one input string) into single keys, Enter and the editing keys included.
 */
export function splitKeys(input: string, key: KeyInfo): { input: string; key: KeyInfo }[] {
  const special = key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown || key.home || key.end || key.escape || key.ctrl;
  if (input.length <= 1 || special) return [{ input, key }];
  return [...input].map((ch) => {
    if (ch === "\r" || ch === "\n") return { input: "", key: { return: true } };
    if (ch === "\u007f") return { input: "", key: { delete: true } };
    if (ch === "\b") return { input: "", key: { backspace: true } };
    if (ch === "\t") return { input: "", key: { tab: true } };
    return { input: ch, key: {} };
  });
}

const hintWidth = ([k, what]: [string, string]): number => k.length + what.length + 5;

/** The footer hints that fit in `width` columns, keeping the last. */
export function fitHints(hints: [string, string][], width: number): [string, string][] {
  if (!hints.length) return [];
  const last = hints[hints.length - 1];
  let used = hintWidth(last);
  const out: [string, string][] = [];
  for (const h of hints.slice(0, -1)) {
    if (used + hintWidth(h) > width) break;
    out.push(h);
    used += hintWidth(h);
  }
  return [...out, last];
}
