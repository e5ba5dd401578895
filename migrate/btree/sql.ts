// The SQL a patched server would run after a btree conversion: catalogs are not changed offline,
// so the reloption that says an index holds BTP_PREFIX pages is left for the server.
import type { RelationInfo } from "../../formats/catalog/cluster.js";
import type { ConvertMode, TargetFormat } from "./convert.js";
import type { PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";
import { qualifiedIdent } from "../sql-ident.js";

export function btreeSql(o: { to: TargetFormat; mode: ConvertMode; policy: PrefixPolicyName }, database: string, rels: readonly RelationInfo[]): string {
  return [
    `-- pgdisk migrate btree: ${o.mode} to ${o.to}${o.to === "prefix" ? ` (policy ${o.policy})` : ""}, database ${database}`,
    "-- Catalogs are not changed offline; run this on the patched server that reads BTP_PREFIX pages.",
    ...rels.map((rel) => (o.to === "prefix" ? `ALTER INDEX ${qualifiedIdent(rel)} SET (prefix_compression = on);` : `ALTER INDEX ${qualifiedIdent(rel)} RESET (prefix_compression);`)),
    "",
  ].join("\n");
}
