// Key sets pgdisk did not generate, for bench/btree/public-keys.ts: read from what this machine's
// Debian packages ship (reproducible for a given set of installed packages), plus a generator,
// seeded and written out as SQL, for the shapes the issue names that no local file provides.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

export interface KeySet {
  name: string;
  label: string;
  /** where the keys come from, for the doc */
  origin: string;
  /** the proposal's size change for this shape (percent), if it gives one */
  proposal?: number;
  columns: string;
  /** index key list */
  keys: string[];
  /** rows of text values (one per column, tab-separated), or SQL that fills the table */
  rows?: string[];
  sql?: (table: string, rows: number) => string;
}

/** Every regular file under a directory, sorted (symlinks not followed). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      let st;
      try {
        st = statSync(p, { throwIfNoEntry: false });
      } catch {
        continue;
      }
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Each file's text under /usr/share/doc (gzip members inflated), as latin1 so that any byte survives. */
function eachDocText(f: (text: string) => void): void {
  for (const p of filesUnder("/usr/share/doc")) {
    let text: string;
    try {
      const b = readFileSync(p);
      text = (p.endsWith(".gz") ? gunzipSync(b) : b).toString("latin1");
    } catch {
      continue; // unreadable or not gzip after all
    }
    f(text);
  }
}

const unique = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();
/** COPY text format: escape backslashes (tabs and newlines never occur in these keys). */
const copyEscape = (s: string): string => s.replace(/\\/g, "\\\\");

/** A seeded shuffle, so the heap order is fixed but unrelated to key order. */
function shuffle<T>(xs: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rnd = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

const REGIONS = ["us-east-1", "us-east-2", "us-west-1", "us-west-2", "eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1", "eu-north-1", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "ap-northeast-2", "sa-east-1", "ca-central-1"];
const sqlArray = (xs: string[]): string => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(",")}]`;

/** The key sets: public ones first, then the generated shapes; `words` feeds the generator's names. */
export function keySets(maxRows: number): { sets: KeySet[]; words: string[] } {
  const paths = unique(
    readdirSync("/var/lib/dpkg/info")
      .filter((f) => f.endsWith(".list"))
      .sort()
      .flatMap((f) => readFileSync(join("/var/lib/dpkg/info", f), "latin1").split("\n"))
      .filter((l) => l.startsWith("/") && l !== "/."),
  );
  const urlSet = new Set<string>();
  const wordSet = new Set<string>();
  const emailSet = new Set<string>();
  eachDocText((text) => {
    for (const m of text.matchAll(/https?:\/\/[A-Za-z0-9][A-Za-z0-9._~%?=&#:+\/-]*/g)) urlSet.add(m[0].replace(/[.,:;)]+$/, ""));
    for (const m of text.matchAll(/[A-Za-z][A-Za-z'-]{2,}/g)) wordSet.add(m[0]);
    for (const m of text.matchAll(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[a-z]{2,}/g)) emailSet.add(m[0]);
  });
  const urls = unique(urlSet);
  const hosts = unique(urls.map((u) => /^https?:\/\/([A-Za-z0-9.-]+)/.exec(u)?.[1]?.toLowerCase() ?? "").filter((h) => h.includes(".")));
  const rdns = unique(urls.map((u) => {
    const m = /^https?:\/\/([A-Za-z0-9.-]+)(\/[^?#]*)?/.exec(u);
    if (!m || !m[1]!.includes(".")) return "";
    const segs = (m[2] ?? "").split("/").filter((s) => /^[A-Za-z0-9_-]+$/.test(s));
    return [...m[1]!.toLowerCase().split(".").reverse(), ...segs].join(".");
  }).filter(Boolean));
  const words = unique(wordSet);
  const emails = unique(emailSet);
  const take = (xs: string[], seed: number): string[] => shuffle(xs.slice(), seed).slice(0, maxRows).map(copyEscape);
  const sets: KeySet[] = [
    { name: "urls", label: "URLs", origin: `distinct http(s) URLs in the text of /usr/share/doc (${urls.length} found, ${hosts.length} hosts)`, proposal: -35, columns: "url text", keys: ["url"], rows: take(urls, 1) },
    { name: "paths", label: "file paths", origin: `distinct paths in /var/lib/dpkg/info/*.list (the installed packages' files; ${paths.length} found)`, proposal: -27, columns: "path text", keys: ["path"], rows: take(paths, 2) },
    { name: "rdns", label: "reverse-DNS names", origin: `the URLs' hosts reversed, then their plain path segments (${rdns.length} found)`, columns: "name text", keys: ["name"], rows: take(rdns, 3) },
    { name: "words", label: "words", origin: `distinct words (letters, ' and -, 3 or more) in /usr/share/doc (${words.length} found)`, columns: "word text", keys: ["word"], rows: take(words, 4) },
    { name: "emails", label: "emails", origin: `distinct e-mail addresses in /usr/share/doc (${emails.length} found)`, columns: "email text", keys: ["email"], rows: take(emails, 5) },
    {
      name: "tenant",
      label: "tenant-prefixed keys",
      origin: "generated (no local source): 5,000 tenants named by doc words, Zipf-like skew (tenant = 5000 u^3), 6 entity kinds, random ids",
      proposal: -18,
      columns: "k text",
      keys: ["k"],
      sql: (t, n) => `select setseed(0.2018);
create table ${t} as select g.i as id, lower(w.word) || '/' || (${sqlArray(["orders", "invoices", "users", "events", "sessions", "tickets"])})[1 + floor(random() * 6)::int] || '/' || floor(random() * 10000000)::bigint as k
  from (select i, 1 + floor(5000 * power(random(), 3))::int as tn from generate_series(1, ${n}) i) g join bench_words w on w.id = g.tn;`,
    },
    {
      name: "trsn",
      label: "(tenant_id, region, status, name)",
      origin: "generated (no local source): tenant_id over 5,000 with the same skew, 16 cloud regions, 5 statuses, a name of two doc words",
      proposal: -33,
      columns: "tenant_id int, region text, status text, name text",
      keys: ["tenant_id", "region", "status", "name"],
      sql: (t, n) => `select setseed(0.3033);
create table ${t} as select g.i as id, g.tn as tenant_id, (${sqlArray(REGIONS)})[1 + floor(random() * 16)::int] as region,
  (${sqlArray(["active", "pending", "suspended", "trial", "closed"])})[1 + floor(power(random(), 2) * 5)::int] as status, initcap(a.word) || ' ' || initcap(b.word) as name
  from (select i, 1 + floor(5000 * power(random(), 3))::int as tn, 1 + floor(random() * (select count(*) from bench_words))::int as wa, 1 + floor(random() * (select count(*) from bench_words))::int as wb from generate_series(1, ${n}) i) g
  join bench_words a on a.id = g.wa join bench_words b on b.id = g.wb;`,
    },
    {
      name: "jsonb",
      label: "JSONB (status, placed)",
      origin: "generated (no local source): orders as jsonb, 6 statuses, placed = a timestamptz over two years as ISO text with milliseconds",
      proposal: -24,
      columns: "doc jsonb",
      keys: ["(doc ->> 'status')", "(doc ->> 'placed')"],
      sql: (t, n) => `select setseed(0.2424);
create table ${t} as select i as id, jsonb_build_object('status', (${sqlArray(["placed", "paid", "packed", "shipped", "delivered", "cancelled"])})[1 + floor(random() * 6)::int],
  'placed', to_char(timestamptz '2023-01-01 00:00:00+00' + random() * interval '730 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'total', round((random() * 500)::numeric, 2)) as doc
  from generate_series(1, ${n}) i;`,
    },
  ];
  return { sets, words: shuffle(words.slice(), 6).map(copyEscape) };
}
