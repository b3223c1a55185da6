import { readFile } from "node:fs/promises";
import { UsageError } from "../errors.js";

/**
 * The accounts of a run: each `--account`, then each line of
 * `--accounts-file` (blank lines and lines starting with `#` skipped,
 * surrounding spaces trimmed), first occurrence kept, order preserved.
 */
export async function readAccounts(flags: readonly string[], file: string | undefined): Promise<string[]> {
  const ids: string[] = [];
  for (const flag of flags) {
    const id = flag.trim();
    if (id === "") throw new UsageError("--account: must not be empty");
    ids.push(id);
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`--accounts-file: cannot read ${JSON.stringify(file)}${code ? ` (${code})` : ""}`);
    }
    for (const line of text.split(/\r?\n/)) {
      const id = line.trim();
      if (id !== "" && !id.startsWith("#")) ids.push(id);
    }
  }
  if (ids.length === 0) {
    throw new UsageError(
      file === undefined
        ? "give the accounts to export: --account ID (repeatable) or --accounts-file FILE"
        : `--accounts-file: no account ids in ${JSON.stringify(file)}`,
    );
  }
  return [...new Set(ids)];
}
