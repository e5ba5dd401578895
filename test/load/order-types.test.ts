// `pgdisk load` sorts the keys of btree indexes on an enum (with odd OIDs from ALTER TYPE ADD
// VALUE BEFORE, ordered by pg_enum.enumsortorder), an inet, an int4[] (NULL elements, several
// dimensions, lower bounds), an int4range (empty, infinite, exclusive bounds made canonical) and
// a two-column (enum DESC, int4[]) index with the catalog-aware comparators: each index it
// writes equals the server's REINDEX of the loaded table page for page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { comparePages, copyRoot, indexPath, reindexCopy, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { pgdiskLoad, removeTwins } from "./helpers.js";

const DB = "app";
const INDEXES = ["k_e", "k_ip", "k_a", "k_ea", "k_r"];
const LABELS = ["sad", "ok", "happy", "meh", "ecstatic", "angry", "fine"];

const SETUP = `
create type mood as enum ('sad', 'ok', 'happy');
alter type mood add value 'meh' before 'ok';
alter type mood add value 'ecstatic' after 'happy';
alter type mood add value 'angry' before 'sad';
alter type mood add value 'fine' before 'happy';
create table k (n int4, e mood, ip inet, a int4[], r int4range);
insert into k select g, (enum_range(null::mood))[1 + g % 7], ('10.0.' || g % 256 || '.' || g % 7 || '/' || (16 + g % 17))::inet, array[g % 5, null], int4range(g % 20, g % 20 + g % 4) from generate_series(1, 300) g;
create index k_e on k (e);
create index k_ip on k (ip);
create index k_a on k (a);
create index k_ea on k (e desc, a);
create index k_r on k (r);
`;

let srv: PgServer;
let dir = "";
let loadedRoot = "";
let load: ReturnType<typeof pgdiskLoad>;

function rows(): string {
  const r = new Rng(20261202, "load-order-types");
  const nul = (s: string): string => (r.chance(0.08) ? "\\N" : s);
  const ip = (): string =>
    r.pick([
      () => `${r.int(0, 255)}.${r.int(0, 255)}.${r.int(0, 3)}.${r.int(0, 255)}${r.chance(0.5) ? `/${r.int(8, 32)}` : ""}`,
      () => `2001:db8:${r.int(0, 65535).toString(16)}::${r.int(0, 65535).toString(16)}${r.chance(0.5) ? `/${r.int(0, 128)}` : ""}`,
      () => `::ffff:10.0.0.${r.int(0, 255)}`,
      () => r.pick(["0.0.0.0/0", "::/0", "10.0.0.0/8", "10.0.0.1/8", "255.255.255.255"]),
    ])();
  const el = (): string => (r.chance(0.15) ? "NULL" : String(r.int(-20, 20)));
  const arr = (): string =>
    r.pick([
      () => `{${el()}}`,
      () => `{${el()},${el()},${el()}}`,
      () => `{{${el()},${el()}},{${el()},${el()}}}`,
      () => "{}",
      () => {
        const lo = r.int(-2, 3);
        return `[${lo}:${lo + 1}]={${el()},${el()}}`;
      },
    ])();
  const bound = (): string => (r.chance(0.1) ? "" : String(r.int(-30, 30)));
  const range = (): string => {
    if (r.chance(0.08)) return "empty";
    let [lo, hi] = [bound(), bound()];
    if (lo !== "" && hi !== "" && Number(lo) > Number(hi)) [lo, hi] = [hi, lo];
    return `${r.pick(["[", "("])}${lo},${hi}${r.pick(["]", ")"])}`;
  };
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++) lines.push([String(1000 + i), nul(r.pick(LABELS)), nul(ip()), nul(arr()), nul(range())].join("\t"));
  return lines.join("\n") + "\n";
}

before(async () => {
  srv = await stoppedCluster(SETUP, { checksums: true, db: DB });
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-order-"));
  chmodSync(dir, 0o755);
  const file = join(dir, "k.tsv");
  writeForPg(file, rows());
  loadedRoot = copyRoot(srv.root, "loaded");
  load = pgdiskLoad(["--pgdata", join(loadedRoot, "data"), "-d", DB, "-t", "k", "--json", file]);
});

after(() => removeTwins(srv, [loadedRoot], dir));

test("indexes on an enum, an inet, an int4[] and an int4range equal the server's REINDEX after pgdisk load", () => {
  assert.equal(load.status, 0, load.stderr);
  assert.deepEqual(
    JSON.parse(load.stdout).indexes.map((i: { index: string; existingEntries: number; newEntries: number }) => [i.index, i.existingEntries, i.newEntries]),
    INDEXES.map((n) => [`public.${n}`, 300, 4000]),
  );
  const pgdata = join(loadedRoot, "data");
  const re = reindexCopy(loadedRoot, DB, INDEXES);
  try {
    for (const name of INDEXES) {
      const cmp = comparePages(readFileSync(indexPath(pgdata, DB, name)), re.files.get(name)!);
      assert.deepEqual({ name, pages: cmp.pages, differing: cmp.differing.slice(0, 5) }, { name, pages: cmp.theirPages, differing: [] });
      assert.ok(cmp.pages > 3, `${name}: ${cmp.pages} pages`);
    }
  } finally {
    removeRoot(re.root);
  }
});
