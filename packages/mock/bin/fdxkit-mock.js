#!/usr/bin/env node
// The bin is this committed file rather than dist/cli.js itself: a workspace
// install links bins before anything is built, and a bin pointing at a missing
// file makes every fresh `pnpm install` warn. Published, dist is always there.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  console.error("fdxkit-mock: dist/cli.js is not built yet. In the repository run `npx -y pnpm@10 fdxkit-mock`, which builds it first.");
  process.exit(1);
}
await import(cli.href);
