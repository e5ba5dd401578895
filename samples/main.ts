// Standalone entry point: `npx tsx samples/main.ts make --size tiny --out DIR` (same as
// `pgdisk samples make ...` once the pgdisk CLI registers makeSamplesCommand()).
import { makeSamplesCommand } from "./cli.js";

await makeSamplesCommand().parseAsync(process.argv);
