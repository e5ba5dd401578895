// accounts: a table whose history stays on disk (never vacuumed): HOT updates (fillfactor 80
// leaves room on each page), non-HOT updates of an indexed column, a HOT chain of several versions
// made in one transaction, committed DELETEs, aborted INSERT/UPDATE/DELETE, and a committed
// transaction with a rolled-back subtransaction.
// Nothing reads the table after the churn: every heap scan or index fetch on a running server may
// prune dead tuples (heap_page_prune_opt). The live row count is therefore computed here.
import type { Field } from "../copy.js";
import type { GenContext, TableReport } from "../loader.js";
import { pad, words } from "./words.js";

function* rows(ctx: GenContext, from: number, to: number): Generator<Field[]> {
  const r = ctx.rng;
  for (let id = from; id <= to; id++) {
    yield [String(id), `user${pad(id, 7)}@example.com`, String(r.int(-5000, 1_000_000)), words(r, r.int(2, 8)), "1"];
  }
}

export function buildChurn(ctx: GenContext): TableReport[] {
  const { db } = ctx;
  const n = ctx.profile.accounts;
  const k = Math.max(5, Math.floor(n / 100)); // rows per late insert batch
  db.sql(`
    CREATE TABLE public.accounts (
      id int PRIMARY KEY,
      email text NOT NULL,
      balance bigint NOT NULL,
      note text,
      version int NOT NULL
    ) WITH (fillfactor = 80);
    CREATE UNIQUE INDEX accounts_email_idx ON public.accounts (email);
  `);
  const cols = ["id", "email", "balance", "note", "version"];
  db.copy("public.accounts", cols, rows(ctx, 1, n));
  ctx.progress("accounts: updates, deletes, aborted transactions");
  // Late inserts come from the same stream, generated before any SQL that depends on them.
  const committed = [...rows(ctx, n + 1, n + k)];
  const rolledBackSub = [...rows(ctx, n + k + 1, n + 2 * k)];
  const aborted = [...rows(ctx, n + 2 * k + 1, n + 3 * k)];
  const values = (rs: Field[][]) =>
    rs.map((f) => `(${f[0]}, '${f[1]}', ${f[2]}, '${f[3]}', ${f[4]})`).join(",\n");
  // Order matters: each statement that scans the table prunes what earlier transactions left
  // dead, so the committed deletes and updates come last among the scanning statements, and the
  // aborted inserts (prunable as soon as they abort) after all scans.
  db.sql(`
    -- HOT: no indexed column changes, and the page has room.
    UPDATE public.accounts SET balance = balance + id % 100, version = version + 1 WHERE id % 4 = 0;
    -- Not HOT: the indexed email changes. Its scan prunes the previous statement's dead versions
    -- (redirect and unused line pointers).
    UPDATE public.accounts SET email = 'moved.' || email, version = version + 1 WHERE id % 9 = 0;
    -- Aborted update (HOT and not) and delete: xmax set by an aborted transaction.
    BEGIN;
    UPDATE public.accounts SET balance = 0 WHERE id % 15 = 2;
    UPDATE public.accounts SET email = 'aborted.' || email WHERE id % 45 = 7;
    DELETE FROM public.accounts WHERE id % 17 = 5;
    ROLLBACK;
    -- Committed deletes and updates, left dead: nothing scans the table afterwards.
    BEGIN;
    DELETE FROM public.accounts WHERE id % 10 = 3;
    UPDATE public.accounts SET note = note || ' (reviewed)', version = version + 1 WHERE id % 7 = 1;
    -- A HOT chain of four versions of the same rows, all in this transaction.
    UPDATE public.accounts SET version = version + 1 WHERE id IN (2, 6, 14);
    UPDATE public.accounts SET version = version + 1 WHERE id IN (2, 6, 14);
    UPDATE public.accounts SET version = version + 1 WHERE id IN (2, 6, 14);
    COMMIT;
    -- Inserts only from here on (no scans): a committed transaction with an aborted
    -- subtransaction, then an aborted transaction.
    BEGIN;
    INSERT INTO public.accounts VALUES ${values(committed)};
    SAVEPOINT late;
    INSERT INTO public.accounts VALUES ${values(rolledBackSub)};
    ROLLBACK TO SAVEPOINT late;
    COMMIT;
    BEGIN;
    INSERT INTO public.accounts VALUES ${values(aborted)};
    ROLLBACK;
  `);
  let deleted = 0;
  for (let id = 1; id <= n; id++) if (id % 10 === 3) deleted++;
  return [
    {
      database: db.name,
      schema: "public",
      name: "accounts",
      rows: n - deleted + k,
      orderBy: "id",
      scanSafe: false,
      description: "unvacuumed: HOT and non-HOT updates, deletes, aborted inserts/updates/deletes, aborted subtransaction",
    },
  ];
}
