// `pgdisk migrate …`: offline format conversions of a stopped cluster. `pgdisk migrate OPTIONS`
// runs the one engine (its default subcommand `convert`); `toast` and `btree` are its aliases.
import { Command } from "commander";
import { makeConvertCommand } from "../migrate/cli.js";
import { makeBtreeCommand } from "../migrate/btree/cli.js";
import { makeToastCommand } from "../migrate/toast/cli.js";

export function makeMigrateCommand(): Command {
  const migrate = new Command("migrate").description("convert a stopped cluster, into a new one or in place, to or from the proposed on-disk formats");
  migrate.addCommand(makeConvertCommand(), { isDefault: true });
  migrate.addCommand(makeBtreeCommand());
  migrate.addCommand(makeToastCommand());
  return migrate;
}
