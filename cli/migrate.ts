// `pgdisk migrate …`: offline format conversions, each written into a copy of the input cluster.
// Each conversion registers its own subcommand here.
import { Command } from "commander";
import { makeBtreeCommand } from "../migrate/btree/cli.js";
import { makeToastCommand } from "../migrate/toast/cli.js";

export function makeMigrateCommand(): Command {
  const migrate = new Command("migrate").description("convert a stopped cluster, in a copy, to or from the proposed on-disk formats");
  migrate.addCommand(makeBtreeCommand());
  migrate.addCommand(makeToastCommand());
  return migrate;
}
