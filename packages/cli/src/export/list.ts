import { FdxUnauthorizedError, type Statement } from "@fdxkit/client";
import { FdxReauthorizationRequiredError } from "@fdxkit/client/auth";
import { statementIdentity } from "./filename.js";
import type { ExportPlan } from "./plan.js";
import type { ExportRecord } from "./record.js";
import type { AccountState, ExportOptions, Item } from "./types.js";
import type { Window } from "./windows.js";

/**
 * The statements to handle, account by account and window by window, read
 * lazily: a page is requested when a worker pulls past the last one. A
 * statement is handed out once per account (by id, else by link: `statementIdentity`) however
 * many windows list it. An account whose list fails is recorded and the next
 * one goes on; refused credentials end the listing for every account.
 */
export async function* listItems(options: ExportOptions, plan: ExportPlan, record: ExportRecord): AsyncGenerator<Item> {
  for (const account of plan.accounts) {
    const seen = new Set<string>();
    for (const window of plan.windows) {
      try {
        for await (const statement of listWindow(options, account, window)) {
          const identity = statementIdentity(statement);
          if (identity !== undefined) {
            if (seen.has(identity)) {
              record.duplicate();
              continue;
            }
            seen.add(identity);
          }
          record.listed(account.summary);
          yield { account, statement };
        }
      } catch (error) {
        if (options.signal.aborted) return;
        // Refused credentials, or an end user's connection that needs their approval again: no account will fare better.
        if (error instanceof FdxUnauthorizedError || error instanceof FdxReauthorizationRequiredError) {
          record.fatal(error);
          return;
        }
        record.listFailed(account.summary, error);
        break;
      }
    }
    record.listDone(account.summary);
  }
}

/** One account's statements in one window, page by page. */
async function* listWindow(options: ExportOptions, account: AccountState, window: Window): AsyncGenerator<Statement> {
  const { client, providerId, signal } = options;
  const paginator = client.statements.list(
    { providerId, accountId: account.summary.accountId, startTime: window.start, endTime: window.end },
    // A job nobody waits on: providers that prioritise by it serve their users first.
    { signal, actorType: "batch" },
  );
  // A first page answered 404 with FDX code 1108 (no statements at all) is an empty list to the client.
  for await (const page of paginator.pages()) yield* page.statements;
}
