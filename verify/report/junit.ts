// JUnit XML of a verify run, the dialect Jenkins, GitLab, GitHub (dorny/test-reporter,
// mikepenz/action-junit-report) and Azure DevOps render: one <testsuite> per database (lone
// files: "files"), one <testcase> per relation, a <failure> carrying the relation's errors,
// warnings and notes in <system-out>.
import type { RelationReport } from "../relation.js";
import type { VerifyRun } from "../run.js";
import { findingText, relationLabel } from "./text.js";

// XML 1.0 allows tab, newline, carriage return and the printable ranges only
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlEscape(s: string): string {
  return s.replace(INVALID_XML, "\uFFFD").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

const secs = (ms: number): string => (ms / 1000).toFixed(3);

function testcase(r: RelationReport): string {
  const classname = r.database ? `${r.database}.${r.schema}` : "files";
  const name = `${r.database ? r.name : relationLabel(r)} (${r.am})`;
  const errors = r.findings.filter((f) => f.severity === "error");
  const others = r.findings.filter((f) => f.severity !== "error");
  const lines = [`    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(name)}" time="${secs(r.ms)}">`];
  if (errors.length) {
    const first = errors[0];
    const msg = `${errors.length} error${errors.length === 1 ? "" : "s"}: [${first.code}] ${first.message}`;
    lines.push(`      <failure message="${xmlEscape(msg)}" type="${xmlEscape(first.code)}">${xmlEscape(errors.map((f) => findingText(r, f)).join("\n"))}</failure>`);
  }
  const out = [`file: ${r.file}`, `blocks: ${r.blocks}`, `checks: ${r.checks.join(", ")}`, ...others.map((f) => findingText(r, f))];
  lines.push(`      <system-out>${xmlEscape(out.join("\n"))}</system-out>`);
  lines.push("    </testcase>");
  return lines.join("\n");
}

export function renderJunit(run: VerifyRun): string {
  const suites = new Map<string, RelationReport[]>();
  for (const r of run.reports) {
    const key = r.database ?? "files";
    if (!suites.has(key)) suites.set(key, []);
    suites.get(key)!.push(r);
  }
  const s = run.summary;
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="pgdisk verify" tests="${s.relations}" failures="${s.corruptRelations}" errors="0" time="${secs(s.ms)}">`];
  for (const [name, rs] of suites) {
    const failures = rs.filter((r) => r.status === "corrupt").length;
    const time = rs.reduce((t, r) => t + r.ms, 0);
    out.push(`  <testsuite name="${xmlEscape(name)}" tests="${rs.length}" failures="${failures}" errors="0" skipped="0" time="${secs(time)}">`);
    for (const r of rs) out.push(testcase(r));
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}
