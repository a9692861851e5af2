#!/usr/bin/env node
// `npx marea listen|trigger` (docs/webhooks.md, "Local development: marea listen"): runs the TypeScript CLI through
// tsx, with no build step.
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const cli = await tsImport("./marea-cli.ts", {
  parentURL: import.meta.url,
  tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)),
});
process.exitCode = await cli.main(process.argv.slice(2));
