// A setting as the server's configuration files give it: postgresql.conf, then
// postgresql.auto.conf (ALTER SYSTEM); the last line that sets it wins. include files are not
// followed. sessionSetting puts a database's own setting (ALTER DATABASE ... SET) over them, as
// a session of that database starts with it; per-role settings are not read (an offline writer
// has no role).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DateOrder } from "../formats/datum/input-datetime.js";
import type { DatabaseCatalog } from "../formats/catalog/cluster.js";
import { PG_DB_ROLE_SETTING_OID } from "../formats/catalog/bootstrap.js";

export function confSetting(pgdata: string, name: string): string | undefined {
  let value: string | undefined;
  const line = new RegExp(`^\\s*${name}\\s*=?\\s*(?:'((?:[^']|'')*)'|([^\\s#]+))`, "gmi");
  for (const f of ["postgresql.conf", "postgresql.auto.conf"]) {
    let text: string;
    try {
      text = readFileSync(join(pgdata, f), "utf8");
    } catch {
      continue;
    }
    for (const m of text.matchAll(line)) value = m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2];
  }
  return value;
}

/** A setting as a session of the database starts: its pg_db_role_setting row for every role (setrole 0), else the configuration files. */
export function sessionSetting(cat: DatabaseCatalog, name: string): string | undefined {
  for (const r of cat.catalogRows(PG_DB_ROLE_SETTING_OID, ["setdatabase", "setrole", "setconfig"])) {
    if (r.setdatabase !== cat.db.oid || r.setrole !== 0 || !Array.isArray(r.setconfig)) continue;
    // entries are "name=value", names as the server lowercases them; the last one wins
    let value: string | undefined;
    for (const entry of r.setconfig as (string | null)[]) {
      const eq = entry?.indexOf("=") ?? -1;
      if (entry && eq > 0 && entry.slice(0, eq).toLowerCase() === name.toLowerCase()) value = entry.slice(eq + 1);
    }
    if (value !== undefined) return value;
  }
  return confSetting(cat.cluster.pgdata, name);
}

/**
 * DateStyle's field order for input (check_datestyle) in a session of the database: DMY for
 * DMY, EURO or EUROPEAN, or for GERMAN with no order given; YMD for YMD; MDY otherwise
 * (initdb's default 'iso, mdy').
 */
export function dateOrderSetting(cat: DatabaseCatalog): DateOrder {
  const words = (sessionSetting(cat, "datestyle") ?? "iso, mdy").toLowerCase().split(/[\s,]+/).filter(Boolean);
  let order: DateOrder | undefined;
  for (const w of words) {
    if (w === "dmy" || w === "euro" || w === "european") order = "DMY";
    else if (w === "ymd") order = "YMD";
    else if (w === "mdy" || w === "us" || w === "noneuro" || w === "noneuropean") order = "MDY";
  }
  return order ?? (words.includes("german") ? "DMY" : "MDY");
}
