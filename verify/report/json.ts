// JSON rendering of a verify run (schema: docs/verify-json.md). Plain data, stable key order.
import type { VerifyOptions } from "../relation.js";
import type { VerifyRun } from "../run.js";

export const VERIFY_JSON_FORMAT_VERSION = 1;

export interface VerifyJson {
  tool: "pgdisk verify";
  formatVersion: number;
  pgdata: string | null;
  options: VerifyOptions & { jobs: number };
  summary: VerifyRun["summary"];
  relations: VerifyRun["reports"];
}

export function toJson(run: VerifyRun, options: VerifyOptions & { jobs: number }): VerifyJson {
  return {
    tool: "pgdisk verify",
    formatVersion: VERIFY_JSON_FORMAT_VERSION,
    pgdata: run.pgdata ?? null,
    options,
    summary: run.summary,
    relations: run.reports,
  };
}

export function renderJson(run: VerifyRun, options: VerifyOptions & { jobs: number }): string {
  return JSON.stringify(toJson(run, options), null, 2) + "\n";
}
