// `mock.authorize`: the authorization pages gone through as a browser would,
// with no browser — the sign-in page, the sign-in form, the consent form — in
// a cookie jar of its own that lasts like a browser's (so a second call finds
// the user signed in, and `prompt=none` behaves as it would in a browser).

import type { SandboxUser } from "../seed.js";
import type { CookieJar } from "./cookies.js";
import { readError, readHiddenFields, readSignedInUser } from "./html.js";

/** Options of `mock.authorize`: who signs in, what they tick, or whether they say no. */
export interface AuthorizeOptions {
  /** The sandbox user who signs in. Default: `seed.users[0]`. */
  username?: string;
  /** The accounts ticked. Default: all of the user's accounts. */
  accounts?: string[];
  /** `true`: the user presses Deny (the callback carries `error=access_denied`). */
  deny?: boolean;
}

/** The authorization endpoint as a browser reaches it. */
export interface AuthorizationPages {
  page(params: URLSearchParams, jar: CookieJar): Promise<Response>;
  step(form: URLSearchParams, jar: CookieJar): Promise<Response>;
}

/** Where the pages end: the callback URL the browser is sent to. */
export async function authorizeWithoutBrowser(
  pages: AuthorizationPages,
  jar: CookieJar,
  params: URLSearchParams,
  users: readonly SandboxUser[],
  options: AuthorizeOptions,
): Promise<string> {
  const username = options.username ?? (users[0] as SandboxUser).username;
  const user = users.find((u) => u.username === username);
  if (!user) throw new RangeError(`Unknown sandbox user ${JSON.stringify(username)}`);
  const post = (fields: [string, string][]) => pages.step(new URLSearchParams(fields), jar);
  const finish = async (response: Response, step: string): Promise<string | Response> => {
    const location = response.headers.get("Location");
    if (location !== null) return location;
    if (response.status === 200) return response;
    throw new Error(`The sandbox IdP refused ${step}: ${readError(await response.text()) ?? `HTTP ${response.status}`}`);
  };

  let answer = await finish(await pages.page(params, jar), "the authorization request");
  if (typeof answer === "string") return answer;
  let html = await answer.text();
  if (options.deny) return (await post([...readHiddenFields(html), ["action", "deny"]])).headers.get("Location") as string;
  const signedInAs = readSignedInUser(html);
  if (signedInAs !== undefined && signedInAs !== user.username) {
    answer = await finish(await post([...readHiddenFields(html), ["action", "switch"]]), "another sign-in");
    html = await (answer as Response).text();
  }
  if (readSignedInUser(html) === undefined) {
    answer = await finish(
      await post([...readHiddenFields(html), ["username", user.username], ["password", user.password], ["action", "login"]]),
      "the sign-in",
    );
    html = await (answer as Response).text();
  }
  const accounts = options.accounts ?? user.accounts;
  answer = await finish(
    await post([...readHiddenFields(html), ...accounts.map((a): [string, string] => ["accounts", a]), ["action", "approve"]]),
    "the approval",
  );
  if (typeof answer === "string") return answer;
  throw new Error(`The sandbox IdP refused the approval: ${readError(await answer.text()) ?? `HTTP ${answer.status}`}`);
}
