// Direct TOAST value shapes (new-formats.md §1.3): how many slices a stored size makes, which
// tier that is, and the tree's levels and node spans, all in integers.

/** DIRECT_TOAST_TREE_THRESHOLD: values of more slices than this are trees. */
export const DIRECT_TOAST_TREE_THRESHOLD = 100;
/** DIRECT_TOAST_FANOUT: children per internal node (greedy groups of 50). */
export const DIRECT_TOAST_FANOUT = 50;

export type DirectTier = "single" | "flat" | "tree";

/** n = ceil(S / chunk): the number of data slices (and of plain chunks) of S stored bytes. */
export const sliceCount = (storedSize: number, maxChunk: number): number => Math.floor((storedSize - 1) / maxChunk) + 1;

/** Length of slice i of a value of `storedSize` bytes. */
export const sliceLength = (i: number, storedSize: number, maxChunk: number): number => Math.min(maxChunk, storedSize - i * maxChunk);

export function tierOf(n: number): DirectTier {
  return n <= 1 ? "single" : n <= DIRECT_TOAST_TREE_THRESHOLD ? "flat" : "tree";
}

/** L: the smallest integer with 50^L >= n (0 for n = 1). */
export function treeLevels(n: number): number {
  let L = 0;
  for (let cap = 1; cap < n; cap *= DIRECT_TOAST_FANOUT) L++;
  return L;
}

/** Nodes at each internal level 1..L of a tree of n leaves (index 0 = level 1). */
export function nodesPerLevel(n: number): number[] {
  const out: number[] = [];
  let below = n;
  while (below > 1 || out.length === 0) {
    below = Math.ceil(below / DIRECT_TOAST_FANOUT);
    out.push(below);
    if (below === 1) break;
  }
  return out;
}

/** Chunks a direct value of n slices occupies: leaves (and the flat root) plus internal nodes. */
export function directChunkCount(n: number): number {
  if (n <= DIRECT_TOAST_TREE_THRESHOLD) return n;
  return n + nodesPerLevel(n).reduce((a, b) => a + b, 0);
}
