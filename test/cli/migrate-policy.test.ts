// `--policy` of `pgdisk migrate` and `pgdisk migrate btree` offers every encoder policy that
// formats/nbtree/prefix-policy.ts has (one list), and refuses a name it does not have.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Command, CommanderError } from "commander";
import { addBtreeModeOptions } from "../../migrate/cli.js";
import { PREFIX_POLICIES, PREFIX_POLICY_NAMES } from "../../formats/nbtree/prefix-policy.js";

const parse = (args: string[]): Record<string, unknown> => {
  const cmd = addBtreeModeOptions(new Command("t")).exitOverride().configureOutput({ writeErr: () => {} });
  cmd.parse(args, { from: "user" });
  return cmd.opts();
};

test("--policy accepts every encoder policy, lead by default", () => {
  assert.deepEqual(PREFIX_POLICY_NAMES, Object.keys(PREFIX_POLICIES));
  assert.ok(PREFIX_POLICY_NAMES.includes("greedy"));
  for (const p of PREFIX_POLICY_NAMES) assert.equal(parse(["--policy", p]).policy, p);
  assert.equal(parse([]).policy, "lead");
});

test("--policy refuses a name the encoder does not have", () => {
  assert.throws(() => parse(["--policy", "optimal"]), (e: unknown) => e instanceof CommanderError && e.code === "commander.invalidArgument");
});
