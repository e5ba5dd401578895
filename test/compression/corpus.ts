// Seeded test corpus for the compression tests: text (inserted as `text`) and binary (as `bytea`).
// Everything derives from a seed, so a failure names a reproducible sample.

import { mulberry32 } from "../../samples/prng.js";

export type Rng = () => number;

/** A seeded stream (samples/prng.ts). */
export const rng: (seed: number) => Rng = mulberry32;
export const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

export interface Sample {
  name: string;
  kind: "text" | "bytes";
  /** for text samples */
  text?: string;
  data: Uint8Array;
}

const enc = new TextEncoder();

function textSample(name: string, text: string): Sample {
  return { name, kind: "text", text, data: enc.encode(text) };
}
function bytesSample(name: string, data: Uint8Array): Sample {
  return { name, kind: "bytes", data };
}

/** UTF-8 length of the UTF-16 code unit at i (a surrogate pair counts 4 at its first half). */
function unitBytes(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
}
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += unitBytes(s, i);
  return n;
}

/** Cut a string to at most n UTF-8 bytes without splitting a character. */
function cutBytes(s: string, n: number): string {
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const b = unitBytes(s, i);
    if (bytes + b > n) break;
    bytes += b;
    i += b === 4 ? 2 : 1;
  }
  return s.slice(0, i);
}

function fill(n: number, part: () => string): string {
  const parts: string[] = [];
  let len = 0;
  while (len < n) {
    const p = part();
    parts.push(p);
    len += utf8Length(p);
  }
  return cutBytes(parts.join(""), n);
}

const ASCII_WORDS = "the of and to in is was for that with as on by at from his her an which or are this be had not have it but were they one all their there been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three".split(" ");
const UTF8_WORDS = "привет мир данные значение таблица строка ключ γεια σου κόσμε δεδομένα τιμή πίνακας 数据库 压缩 表格 字符串 测试 東京 日本語 データ 圧縮 🙂 🚀 🐘 ✓ € £ ümlaut naïve façade Ωmega ½ ⅔ ∑ ∞ ≠ ≤ 한국어 데이터 압축 עברית נתונים العربية بيانات".split(" ");

function words(r: Rng, n: number, vocab: readonly string[]): string {
  return fill(n, () => pick(r, vocab) + (r() < 0.1 ? ".\n" : " "));
}

function randomUnicode(r: Rng, n: number): string {
  return fill(n, () => {
    const band = r();
    let cp: number;
    if (band < 0.25) cp = int(r, 0x21, 0x7e);
    else if (band < 0.5) cp = int(r, 0xa0, 0x7ff);
    else if (band < 0.85) {
      cp = int(r, 0x800, 0xfffd);
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x4e00 + (cp & 0xfff);
    } else cp = int(r, 0x10000, 0x10fff0);
    return String.fromCodePoint(cp);
  });
}

function randomPrintable(r: Rng, n: number): string {
  const codes = new Uint8Array(n);
  for (let i = 0; i < n; i++) codes[i] = int(r, 0x20, 0x7e);
  return Buffer.from(codes).toString("latin1");
}

function smallAlphabet(r: Rng, n: number, alphabet: string): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(alphabet[Math.floor(r() * alphabet.length)]);
  return parts.join("");
}

function json(r: Rng, n: number): string {
  let id = int(r, 1, 1000);
  return fill(n, () => {
    id += int(r, 1, 3);
    const tags = Array.from({ length: int(r, 0, 3) }, () => pick(r, ["red", "green", "blue", "überfall", "数据", "ok"]));
    return JSON.stringify({ id, name: pick(r, ASCII_WORDS) + "_" + int(r, 0, 99), score: Math.round(r() * 1e4) / 100, active: r() < 0.5, tags, note: r() < 0.3 ? pick(r, UTF8_WORDS) : null }) + (r() < 0.5 ? ",\n" : ",");
  });
}

function logLines(r: Rng, n: number): string {
  let t = 1700000000;
  return fill(n, () => {
    t += int(r, 0, 5);
    return `2024-01-${String(int(r, 1, 28)).padStart(2, "0")} ${t} [${pick(r, ["INFO", "WARN", "DEBUG", "ERROR"])}] pid=${int(r, 100, 999)} ${pick(r, ASCII_WORDS)} ${pick(r, ASCII_WORDS)} took ${int(r, 0, 5000)}ms\n`;
  });
}

function randomBytes(r: Rng, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

/** Binary with structure: records of counters, floats and bytes >= 0x80. */
function binaryRecords(r: Rng, n: number): Uint8Array {
  const b = new Uint8Array(n);
  const dv = new DataView(b.buffer);
  let i = 0;
  let k = int(r, 0, 1000);
  while (i + 16 <= n) {
    dv.setUint32(i, k++, true);
    dv.setFloat64(i + 4, Math.round(r() * 100) / 4, true);
    b[i + 12] = 0xff;
    b[i + 13] = pick(r, [0x80, 0x81, 0xfe, 0x00]);
    b[i + 14] = int(r, 0xf0, 0xff);
    b[i + 15] = 0x9c;
    i += 16;
  }
  for (; i < n; i++) b[i] = 0xee;
  return b;
}

function highAlphabet(r: Rng, n: number, alphabet: number[]): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = alphabet[Math.floor(r() * alphabet.length)];
  return b;
}

function concatBytes(...xs: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(xs.reduce((s, x) => s + x.length, 0));
  let o = 0;
  for (const x of xs) {
    out.set(x, o);
    o += x.length;
  }
  return out;
}

export interface CorpusOptions {
  seed?: number;
  /** largest sample size (the server test uses ~1 MB) */
  maxSize?: number;
}

/** The corpus: text and binary samples from 24 bytes to maxSize. */
export function corpus(opts: CorpusOptions = {}): Sample[] {
  const r = rng(opts.seed ?? 20240615);
  const maxSize = opts.maxSize ?? 1_000_000;
  const out: Sample[] = [];
  const sizes = [24, 31, 32, 33, 40, 64, 100, 127, 128, 129, 255, 256, 511, 512, 1000, 1023, 1024, 1025, 1500, 2000, 2100, 3000, 4095, 4096, 4097, 5000, 8192, 10000, 20000, 65536, 100000, 300000, 1_000_000].filter((s) => s <= maxSize);

  for (const n of [24, 30, 31, 32, 33, 34, 40, 64, 200, 3000, 10000, 200000].filter((s) => s <= maxSize)) out.push(textSample(`a*${n}`, "a".repeat(n)));
  for (const n of [32, 33, 100, 3000, 50000]) if (n <= maxSize) out.push(textSample(`abcdefgh*${n}`, cutBytes("abcdefgh".repeat(Math.ceil(n / 8)), n)));
  for (const n of [40, 500, 5000, 100000].filter((s) => s <= maxSize)) out.push(textSample(`fox*${n}`, cutBytes("The quick brown fox jumps over the lazy dog. ".repeat(Math.ceil(n / 45)), n)));

  for (const n of sizes) {
    out.push(textSample(`words/${n}`, words(r, n, ASCII_WORDS)));
    out.push(textSample(`utf8/${n}`, words(r, n, UTF8_WORDS)));
    out.push(textSample(`json/${n}`, json(r, n)));
    if (n >= 64) out.push(textSample(`log/${n}`, logLines(r, n)));
    out.push(textSample(`unicode-random/${n}`, randomUnicode(r, n)));
    if (n <= 20000) out.push(textSample(`printable-random/${n}`, randomPrintable(r, n)));
    out.push(bytesSample(`bytes-random/${n}`, randomBytes(r, n)));
    out.push(bytesSample(`bytes-records/${n}`, binaryRecords(r, n)));
    if (n <= 300000) out.push(bytesSample(`bytes-high/${n}`, highAlphabet(r, n, [0x80, 0xff, 0xfe, 0x7f, 0x00, 0xc3])));
  }

  // small values near the compress / don't-compress borders (pglz 25% rule, toast's "saves > 2 bytes")
  for (let i = 0; i < 160; i++) {
    const n = int(r, 24, 90);
    const alphabet = pick(r, ["ab", "abc", "abcd", "abcdef", "abcdefgh", "0123456789abcdef", "ÄÖÜ", "日本", "xyz "]);
    out.push(textSample(`small-alpha${i}/${n}`, cutBytes(smallAlphabet(r, n, alphabet), n)));
  }
  for (let i = 0; i < 40; i++) {
    const n = int(r, 24, 200);
    out.push(bytesSample(`small-high${i}/${n}`, highAlphabet(r, n, [0x80, 0xff, 0x81, 0xfe].slice(0, int(r, 2, 4)))));
  }
  // random prefix + repetitive tail: first_success_by (1024) and result_max edges
  for (const k of [900, 1000, 1020, 1024, 1030, 1100, 2000]) {
    if (k + 3000 > maxSize) continue;
    out.push(textSample(`random${k}+rep`, randomPrintable(r, k) + "xyz".repeat(1000)));
  }
  for (let i = 0; i < 24; i++) {
    const n = int(r, 200, 6000);
    const randomShare = 0.55 + r() * 0.4;
    const k = Math.floor(n * randomShare);
    out.push(bytesSample(`mix${i}/${n}@${k}`, concatBytes(randomBytes(r, k), highAlphabet(r, n - k, [0x61, 0x62]))));
    out.push(textSample(`mixtext${i}/${n}@${k}`, randomPrintable(r, k) + words(r, n - k, ASCII_WORDS)));
  }
  return out;
}
