// The supported PostgreSQL releases and how a cluster's own files choose one: PG_VERSION (when
// present), pg_control_version and catalog_version_no must all name the same profile.
import { FormatError } from "../schema/errors.js";
import { pg13 } from "./pg13.js";
import { pg14 } from "./pg14.js";
import { pg15 } from "./pg15.js";
import { pg16 } from "./pg16.js";
import { pg17 } from "./pg17.js";
import { pg18 } from "./pg18.js";
import type { VersionProfile } from "./profile.js";

export type { CatalogName, VersionProfile } from "./profile.js";

/** Every supported release, oldest first. Adding a release: one profile file, listed here. */
export const PROFILES: readonly VersionProfile[] = [pg13, pg14, pg15, pg16, pg17, pg18];

/** The newest supported release (the default for new sample clusters). */
export const NEWEST_PROFILE: VersionProfile = PROFILES[PROFILES.length - 1]!;

/** "13 to 18": the range of supported major versions, for help texts */
export function supportedRangeText(): string {
  return `${PROFILES[0]!.major} to ${NEWEST_PROFILE.major}`;
}

/** "PostgreSQL 13, 14, 15, 16, 17 and 18" */
export function supportedReleasesText(): string {
  const majors = PROFILES.map((p) => String(p.major));
  return `PostgreSQL ${majors.slice(0, -1).join(", ")} and ${majors[majors.length - 1]}`;
}

export function profileByMajor(major: number): VersionProfile | undefined {
  return PROFILES.find((p) => p.major === major);
}

export function profileByCatalogVersion(catalogVersionNo: number): VersionProfile | undefined {
  return PROFILES.find((p) => p.catalogVersionNo === catalogVersionNo);
}

export interface ClusterVersionFacts {
  /** PG_VERSION's content, trimmed; undefined when the file is absent */
  pgVersion?: string;
  pgControlVersion: number;
  catalogVersionNo: number;
  /** the files the facts came from, for the error's location */
  versionFile: string;
  controlFile: string;
}

/**
 * The profile of a cluster. Throws CLUSTER_UNSUPPORTED_VERSION, naming the version found and the
 * supported ones, for newer or older releases, development catalog versions and files that disagree.
 */
export function profileForCluster(f: ClusterVersionFacts): VersionProfile {
  const supported = `pgdisk reads ${supportedReleasesText()}`;
  const profile = profileByCatalogVersion(f.catalogVersionNo);
  if (!profile) {
    const known = PROFILES.map((p) => `${p.catalogVersionNo} (${p.major})`).join(", ");
    throw new FormatError(
      "CLUSTER_UNSUPPORTED_VERSION",
      `${f.controlFile}: catalog version ${f.catalogVersionNo} is no supported release's (${known}): a development build or a newer release; ${supported}`,
      { file: f.controlFile },
    );
  }
  if (f.pgVersion !== undefined && f.pgVersion !== String(profile.major)) {
    throw new FormatError("CLUSTER_UNSUPPORTED_VERSION", `${f.versionFile} says PostgreSQL ${f.pgVersion} but ${f.controlFile} has PostgreSQL ${profile.major}'s catalog version ${f.catalogVersionNo}`, { file: f.versionFile });
  }
  if (f.pgControlVersion !== profile.pgControlVersion) {
    throw new FormatError(
      "CLUSTER_UNSUPPORTED_VERSION",
      `${f.controlFile}: pg_control version ${f.pgControlVersion} does not go with PostgreSQL ${profile.major}'s catalog version ${f.catalogVersionNo} (expected ${profile.pgControlVersion})`,
      { file: f.controlFile },
    );
  }
  return profile;
}
