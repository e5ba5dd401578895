// Word lists and text builders shared by the generators. Text of a chosen compressibility:
// `phrases` repeats a few sentences (compresses very well), `mixedText` mixes words with random
// tokens (compresses to roughly half), and Rng.base64 gives incompressible text.
import type { Rng } from "../prng.js";

export const WORDS = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
  "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
  "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "amber", "basalt", "cedar", "dune",
  "ember", "fjord", "granite", "harbor", "island", "jade", "kelp", "lagoon", "meadow", "nectar",
  "orchid", "pebble", "quartz", "river", "summit", "tundra", "umber", "valley", "willow", "zephyr",
  "invoice", "shipment", "customer", "warehouse", "ledger", "payment", "refund", "account", "order", "report",
] as const;

const SENTENCES = [
  "The quarterly report lists every shipment that left the warehouse before noon. ",
  "Customers who paid by invoice receive their goods after the payment clears. ",
  "Each ledger entry records the account, the amount and the posting date. ",
  "Refunds are processed in the order they were requested by the customer. ",
  "The river valley meadow was quiet except for the willow trees in the wind. ",
  "Granite and basalt were cut at the summit quarry and carried to the harbor. ",
  "Please review the attached order and confirm the delivery address. ",
  "Our support team answers questions about accounts, orders and payments. ",
];

/** Exactly `n` characters of highly repetitive prose (a few sentences in random order). */
export function phrases(rng: Rng, n: number): string {
  const parts: string[] = [];
  let len = 0;
  while (len < n) {
    const s = rng.pick(SENTENCES);
    parts.push(s);
    len += s.length;
  }
  return parts.join("").slice(0, n);
}

/** Exactly `n` characters of words interleaved with random hex tokens: compresses to ~40-60%. */
export function mixedText(rng: Rng, n: number): string {
  const parts: string[] = [];
  let len = 0;
  while (len < n) {
    const s = rng.chance(0.5) ? `${rng.pick(WORDS)} ${rng.pick(WORDS)} ` : `#${rng.hex(rng.int(4, 12))} `;
    parts.push(s);
    len += s.length;
  }
  return parts.join("").slice(0, n);
}

/** `k` random words joined by spaces. */
export function words(rng: Rng, k: number): string {
  const out: string[] = [];
  for (let i = 0; i < k; i++) out.push(rng.pick(WORDS));
  return out.join(" ");
}

export const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/** ISO timestamp (UTC) `seconds` after 2020-01-01. */
export function isoAt(seconds: number): string {
  return new Date(Date.UTC(2020, 0, 1) + Math.floor(seconds) * 1000).toISOString().replace("T", " ").replace(".000Z", "+00");
}
