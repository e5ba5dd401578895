// A setting as the server's configuration files give it: postgresql.conf, then
// postgresql.auto.conf (ALTER SYSTEM); the last line that sets it wins. include files are not
// followed, and per-database or per-role settings (pg_db_role_setting) are not read.
import { readFileSync } from "node:fs";
import { join } from "node:path";

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
