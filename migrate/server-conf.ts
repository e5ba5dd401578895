// A setting as the server's configuration files give it: postgresql.conf, then
// postgresql.auto.conf (ALTER SYSTEM); the last line that sets it wins. include files are not
// followed, and per-database or per-role settings (pg_db_role_setting) are not read.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DateOrder } from "../formats/datum/input-datetime.js";

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

/**
 * DateStyle's field order for input (check_datestyle): DMY for DMY, EURO or EUROPEAN, or for
 * GERMAN with no order given; YMD for YMD; MDY otherwise (initdb's default 'iso, mdy').
 */
export function dateOrderSetting(pgdata: string): DateOrder {
  const words = (confSetting(pgdata, "datestyle") ?? "iso, mdy").toLowerCase().split(/[\s,]+/).filter(Boolean);
  let order: DateOrder | undefined;
  for (const w of words) {
    if (w === "dmy" || w === "euro" || w === "european") order = "DMY";
    else if (w === "ymd") order = "YMD";
    else if (w === "mdy" || w === "us" || w === "noneuro" || w === "noneuropean") order = "MDY";
  }
  return order ?? (words.includes("german") ? "DMY" : "MDY");
}
