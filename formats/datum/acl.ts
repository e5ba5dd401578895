// aclitemout (src/backend/utils/adt/acl.c): "grantee=privileges/grantor". AclItem is
// ai_grantee (0 = PUBLIC, printed as nothing), ai_grantor, and ai_privs: the privilege bits in
// its low half, the grant option bits in its high half, each option printed as `*` after its
// letter. ai_privs is a uint32 up to PostgreSQL 15 and a uint64 from 16 (the datum's length
// tells which). A role the catalog does not hold prints as its OID.
import { defineStruct, register, u32, u64 } from "../schema/index.js";
import type { DecodeContext, DecoderTable } from "./decoder.js";
import { expectLength, view } from "./util.js";

export const AclItemStruct = register(
  defineStruct("AclItem", "src/include/utils/acl.h", [
    u32("ai_grantee", "role the privileges are granted to (0: PUBLIC)"),
    u32("ai_grantor", "role that granted them"),
    u32("ai_privs", "privilege bits (low 16) and their grant options (high 16)"),
  ] as const),
);

/** AclItem from PostgreSQL 16, where AclMode is 64 bits. */
export const AclItem16Struct = register(
  defineStruct("AclItem (PostgreSQL 16+)", "src/include/utils/acl.h", [
    u32("ai_grantee", "role the privileges are granted to (0: PUBLIC)"),
    u32("ai_grantor", "role that granted them"),
    u64("ai_privs", "privilege bits (low 32) and their grant options (high 32)"),
  ] as const),
);

/** ACL_ALL_RIGHTS_STR: one letter per privilege bit (m, MAINTAIN, is PostgreSQL 17's bit 14). */
const RIGHTS = "arwdDxtXUCTcsAm";

/** putid: a role name is quoted unless every character is an ASCII letter, digit or underscore. */
function roleText(ctx: DecodeContext, oid: number): string {
  const name = ctx.catalog?.roleName(oid);
  if (name === undefined) return String(oid);
  return /^[A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function aclitemText(d: Uint8Array, ctx: DecodeContext): string {
  const wide = d.length === AclItem16Struct.size;
  if (!wide) expectLength(d, AclItemStruct.size, "aclitem");
  const S = wide ? AclItem16Struct : AclItemStruct;
  const dv = view(d);
  const grantee = dv.getUint32(S.offsets.ai_grantee, true);
  // the privilege and grant option words (both halves fit a uint32 for every known privilege)
  const [privs, options] = wide ? [dv.getUint32(S.offsets.ai_privs, true), dv.getUint32(S.offsets.ai_privs + 4, true)] : [dv.getUint32(S.offsets.ai_privs, true) & 0xffff, dv.getUint32(S.offsets.ai_privs, true) >>> 16];
  let s = grantee === 0 ? "" : roleText(ctx, grantee);
  s += "=";
  for (let i = 0; i < RIGHTS.length; i++) {
    if (privs & (1 << i)) s += RIGHTS[i];
    if (options & (1 << i)) s += "*";
  }
  return `${s}/${roleText(ctx, dv.getUint32(S.offsets.ai_grantor, true))}`;
}

export const ACL_DECODERS: DecoderTable = { 1033: aclitemText };
