// Identifiers in the SQL files pgdisk writes for the patched server: quoted unless plain lower case.
import type { RelationInfo } from "../formats/catalog/cluster.js";

export const quoteIdent = (s: string): string => (/^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`);
export const qualifiedIdent = (rel: RelationInfo): string => `${quoteIdent(rel.namespaceName)}.${quoteIdent(rel.name)}`;
