import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { readAccounts } from "../../src/export/accounts.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-accounts-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("readAccounts", () => {
  it("takes --account flags, then the file's lines, skipping blanks and comments, each id once", async () => {
    const file = join(dir, "accounts.txt");
    await writeFile(file, "# nightly list\r\nACC-2\n\n   \n  ACC-3  \nACC-1\n# ACC-9\nACC-4");
    expect(await readAccounts(["ACC-1", "ACC-2"], file)).toEqual(["ACC-1", "ACC-2", "ACC-3", "ACC-4"]);
  });

  it("names the flag when there is nothing to export or the file cannot be read", async () => {
    await expect(readAccounts([], undefined)).rejects.toThrow(/--account ID \(repeatable\) or --accounts-file FILE/);
    const empty = join(dir, "empty.txt");
    await writeFile(empty, "# none yet\n\n");
    await expect(readAccounts([], empty)).rejects.toThrow(/^--accounts-file: no account ids in/);
    await expect(readAccounts([], join(dir, "missing.txt"))).rejects.toThrow(/^--accounts-file: cannot read .*missing\.txt" \(ENOENT\)$/);
    await expect(readAccounts([" "], undefined)).rejects.toBeInstanceOf(UsageError);
  });
});
