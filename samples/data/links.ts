// web_links: B-tree key shapes. URLs and file paths with long shared prefixes, a multi-column
// (tenant_id, region, status, name) key, a low-cardinality column whose duplicates become posting
// lists, a nullable DESC key, INCLUDE columns, a partial index and an expression index on jsonb.
// Two indexes exist before the load (built by inserts: page splits, half-full pages, posting lists
// made by deduplication passes); the rest are built afterwards (sorted build).
import type { Field } from "../copy.js";
import type { Rng } from "../prng.js";
import type { GenContext, TableReport } from "../loader.js";
import { isoAt, pad, WORDS } from "./words.js";

const HOSTS = [
  "https://www.example-commerce-platform.com",
  "https://shop.example-commerce-platform.com",
  "https://docs.internal.example.org",
  "http://legacy.example.net",
];
const CATEGORIES = [
  "/catalog/electronics/computers/laptops/",
  "/catalog/electronics/computers/desktops/",
  "/catalog/electronics/phones/accessories/",
  "/catalog/home-and-garden/furniture/outdoor/",
  "/catalog/home-and-garden/kitchen/appliances/",
  "/articles/2023/engineering/databases/postgresql/",
  "/articles/2024/engineering/databases/postgresql/",
];
const PROJECTS = ["project-alpha", "project-beta", "project-gamma", "billing-service", "search-indexer"];
const SUBDIRS = [
  "src/main/java/com/example/platform/service/",
  "src/main/java/com/example/platform/repository/",
  "src/test/java/com/example/platform/service/",
  "src/main/resources/config/",
  "docs/architecture/decisions/",
];
const EXTS = [".java", ".yaml", ".md", ".json", ".xml"];
export const REGIONS = ["eu-central-1", "eu-west-1", "us-east-1", "us-east-2", "us-west-2", "ap-southeast-1"];
// Weighted: most rows are active, so the status index is mostly long posting lists.
const STATUSES = ["active", "active", "active", "active", "active", "active", "archived", "archived", "pending", "error"];

function url(r: Rng, id: number): string {
  const q = r.chance(0.2) ? `?utm_source=newsletter&utm_campaign=spring-${r.int(2020, 2024)}` : "";
  return `${r.pick(HOSTS)}${r.pick(CATEGORIES)}product-${pad(r.int(1, id * 3 + 10), 8)}${q}`;
}

function path(r: Rng, tenant: number): string {
  return `/srv/storage/tenants/tenant-${pad(tenant, 5)}/projects/${r.pick(PROJECTS)}/${r.pick(SUBDIRS)}${r.pick(WORDS)}${pad(r.int(0, 9999), 4)}${r.pick(EXTS)}`;
}

function* rows(ctx: GenContext): Generator<Field[]> {
  const r = ctx.rng;
  const n = ctx.profile.links;
  const tenants = Math.max(10, Math.floor(n / 200));
  for (let id = 1; id <= n; id++) {
    // Skewed tenants: low ids are much more common (duplicates in the multi-column key).
    const tenant = Math.min(tenants, 1 + Math.floor(tenants * r.float() ** 2));
    const status = r.pick(STATUSES);
    const score = r.chance(0.15) ? null : String(r.int(0, 1000));
    const doc = r.chance(0.05)
      ? null
      : JSON.stringify({
          status: r.chance(0.9) ? status : r.pick(STATUSES),
          visits: r.int(0, 100000),
          tags: [r.pick(WORDS), r.pick(WORDS)],
          owner: { tenant, region: r.pick(REGIONS) },
        });
    yield [
      String(id),
      url(r, id),
      path(r, tenant),
      String(tenant),
      r.pick(REGIONS),
      status,
      `${r.pick(WORDS)}-${r.pick(WORDS)}-${r.int(1, 500)}`,
      score,
      isoAt(id * 37 + r.int(0, 30)),
      doc,
    ];
  }
}

export function buildLinks(ctx: GenContext): TableReport[] {
  const { db } = ctx;
  db.sql(`
    CREATE TABLE public.web_links (
      id bigint PRIMARY KEY,
      url text NOT NULL,
      path text NOT NULL,
      tenant_id int NOT NULL,
      region text NOT NULL,
      status text NOT NULL,
      name text NOT NULL,
      score int,
      created_at timestamptz NOT NULL,
      doc jsonb
    );
    CREATE INDEX web_links_url_idx ON public.web_links (url);
    CREATE INDEX web_links_status_idx ON public.web_links (status);
  `);
  const n = db.copy(
    "public.web_links",
    ["id", "url", "path", "tenant_id", "region", "status", "name", "score", "created_at", "doc"],
    rows(ctx),
  );
  ctx.progress("web_links: building indexes");
  db.sql(`
    SET maintenance_work_mem = '256MB';
    CREATE INDEX web_links_path_idx ON public.web_links (path);
    CREATE INDEX web_links_tenant_idx ON public.web_links (tenant_id, region, status, name);
    CREATE INDEX web_links_score_desc_idx ON public.web_links (score DESC NULLS LAST);
    CREATE INDEX web_links_created_incl_idx ON public.web_links (created_at) INCLUDE (status, score);
    CREATE INDEX web_links_doc_status_idx ON public.web_links ((doc->>'status'));
    CREATE INDEX web_links_errors_idx ON public.web_links (url) WHERE status = 'error';
    CREATE UNIQUE INDEX web_links_tenant_path_id_idx ON public.web_links (tenant_id, path, id);
    VACUUM ANALYZE public.web_links;
  `);
  return [
    {
      database: db.name,
      schema: "public",
      name: "web_links",
      rows: n,
      orderBy: "id",
      scanSafe: true,
      description: "B-tree key shapes: long shared prefixes, multi-column, posting lists, NULLs, DESC, INCLUDE, partial, jsonb expression",
    },
  ];
}
