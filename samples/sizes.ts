// Size profiles: how many rows of each kind a sample cluster gets.
// The content promised by every profile is the same (see samples/README.md); sizes differ only in counts.

export type SizeName = "tiny" | "small" | "large";
export const SIZE_NAMES: readonly SizeName[] = ["tiny", "small", "large"];

export interface SizeProfile {
  name: SizeName;
  /** one line for `samples list-sizes` */
  purpose: string;
  /** rough on-disk size of the finished cluster (data directory) */
  approxDisk: string;
  /** toast_docs: random values per chunk tier, on top of the fixed chunk-boundary values */
  toast: { single: number; multi: number; over100: number; over1000: number };
  /** compressed_docs: values per compression method (pglz and lz4 each) */
  compressed: { inline: number; external: number; big: number };
  embeddings: number;
  links: number;
  places: number;
  accounts: number;
  evolving: number;
  types: number;
}

export const SIZES: Record<SizeName, SizeProfile> = {
  tiny: {
    name: "tiny",
    purpose: "tests: every promised shape, a few rows each",
    approxDisk: "~70 MB",
    toast: { single: 500, multi: 6, over100: 1, over1000: 0 },
    compressed: { inline: 4, external: 3, big: 1 },
    embeddings: 24,
    links: 5000,
    places: 2000,
    accounts: 2000,
    evolving: 400,
    types: 300,
  },
  small: {
    name: "small",
    purpose: "quick benchmarks and manual exploration",
    approxDisk: "~170 MB",
    toast: { single: 300, multi: 300, over100: 10, over1000: 2 },
    compressed: { inline: 200, external: 30, big: 2 },
    embeddings: 2000,
    links: 30000,
    places: 15000,
    accounts: 20000,
    evolving: 10000,
    types: 10000,
  },
  large: {
    name: "large",
    purpose: "benchmarks at a realistic scale",
    approxDisk: "~1.5 GB",
    toast: { single: 5000, multi: 4000, over100: 100, over1000: 15 },
    compressed: { inline: 4000, external: 400, big: 15 },
    embeddings: 40000,
    links: 500000,
    places: 200000,
    accounts: 300000,
    evolving: 200000,
    types: 100000,
  },
};

export function isSizeName(s: string): s is SizeName {
  return (SIZE_NAMES as readonly string[]).includes(s);
}
