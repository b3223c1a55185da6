import { startMockServer } from "@fdxkit/mock";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
const mock = await startMockServer({ port: 0, token: "t", rateLimit: { limit: 20, windowMs: 1000 }, latencyMs: 20 });
const accounts = mock.seed.accounts.slice(0, 3).map((a) => a.accountId);
for (let i = 0; i < 4; i++) {
  mock.reset();
  const r = await promisify(execFile)(process.execPath, ["../packages/cli/dist/cli.js", "statements", "export", "--provider", "sandbox-bank", ...accounts.flatMap(a=>["--account",a]), "--from", "2024-11-01", "--to", "2026-10-31", "--out", "/tmp/pace-out-" + i, "--base-url", mock.baseUrl, "--products-url", mock.productsUrl, "--token", "t", "--json"], { encoding: "utf8" });
  const s = JSON.parse(r.stdout);
  console.log(Math.round(s.elapsedMs), JSON.stringify(s.rateLimit), r.stderr.split("\n").filter(l => /Rate|Pacing|Concurrency/.test(l)).join(" | "));
}
await mock.close();
