// JUnit XML of a verify run, the dialect Jenkins, GitLab, GitHub (dorny/test-reporter,
// mikepenz/action-junit-report) and Azure DevOps render: one <testsuite> per database (lone
// files: "files"), one <testcase> per relation (and relation directory), a <failure> carrying
// the relation's errors, <skipped> when a check could not run (a <failure> with
// --fail-on-not-checked), warnings and notes in <system-out>.
import type { RelationReport } from "../relation.js";
import type { VerifyRun } from "../run.js";
import { findingText, relationLabel } from "./text.js";
import { isNotChecked } from "../../formats/codes/checks.js";

// XML 1.0 allows tab, newline, carriage return and the printable ranges only
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlEscape(s: string): string {
  return s.replace(INVALID_XML, "\uFFFD").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

const secs = (ms: number): string => (ms / 1000).toFixed(3);

export interface JunitOptions {
  /** a relation with a not-checked note fails (--fail-on-not-checked) instead of being skipped */
  failOnNotChecked?: boolean;
}

/** How a relation's testcase ends: failed (errors, or not-checked notes that fail), skipped (not-checked notes), passed. */
function outcome(r: RelationReport, o: JunitOptions): "failure" | "skipped" | "passed" {
  if (r.findings.some((f) => f.severity === "error")) return "failure";
  if (!r.findings.some((f) => isNotChecked(f.code))) return "passed";
  return o.failOnNotChecked ? "failure" : "skipped";
}

function testcase(r: RelationReport, o: JunitOptions): string {
  const classname = r.database && r.am !== "directory" ? `${r.database}.${r.schema}` : r.database ?? "files";
  const name = `${r.database && r.am !== "directory" ? r.name : relationLabel(r)} (${r.am})`;
  const notChecked = r.findings.filter((f) => isNotChecked(f.code));
  const failing = r.findings.filter((f) => f.severity === "error" || (o.failOnNotChecked && isNotChecked(f.code)));
  const others = r.findings.filter((f) => !failing.includes(f));
  const lines = [`    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(name)}" time="${secs(r.ms)}">`];
  const end = outcome(r, o);
  if (end === "failure") {
    const first = failing[0];
    const errors = failing.filter((f) => f.severity === "error").length;
    const counts = [errors ? `${errors} error${errors === 1 ? "" : "s"}` : "", failing.length > errors ? `${failing.length - errors} not checked` : ""].filter(Boolean).join(", ");
    lines.push(`      <failure message="${xmlEscape(`${counts}: [${first.code}] ${first.message}`)}" type="${xmlEscape(first.code)}">${xmlEscape(failing.map((f) => findingText(r, f)).join("\n"))}</failure>`);
  } else if (end === "skipped") {
    const first = notChecked[0];
    lines.push(`      <skipped message="${xmlEscape(`${notChecked.length} not checked: [${first.code}] ${first.message}`)}"/>`);
  }
  const out = [`file: ${r.file}`, `blocks: ${r.blocks}`, `checks: ${r.checks.join(", ")}`, ...others.map((f) => findingText(r, f))];
  lines.push(`      <system-out>${xmlEscape(out.join("\n"))}</system-out>`);
  lines.push("    </testcase>");
  return lines.join("\n");
}

export function renderJunit(run: VerifyRun, o: JunitOptions = {}): string {
  const suites = new Map<string, RelationReport[]>();
  for (const r of run.reports) {
    const key = r.database ?? "files";
    if (!suites.has(key)) suites.set(key, []);
    suites.get(key)!.push(r);
  }
  const s = run.summary;
  const count = (rs: RelationReport[], end: string): number => rs.filter((r) => outcome(r, o) === end).length;
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="pgdisk verify (notes: ${s.notChecked} not checked)" tests="${run.reports.length}" failures="${count(run.reports, "failure")}" errors="0" skipped="${count(run.reports, "skipped")}" time="${secs(s.ms)}">`];
  for (const [name, rs] of suites) {
    const time = rs.reduce((t, r) => t + r.ms, 0);
    out.push(`  <testsuite name="${xmlEscape(name)}" tests="${rs.length}" failures="${count(rs, "failure")}" errors="0" skipped="${count(rs, "skipped")}" time="${secs(time)}">`);
    for (const r of rs) out.push(testcase(r, o));
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}
