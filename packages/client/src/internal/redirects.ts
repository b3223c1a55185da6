// Redirects of a download, followed by hand: a platform that follows them
// itself goes anywhere — to `file:` or `data:`, from https: down to http:,
// twenty hops deep — and says nothing. JSON calls follow none: the request
// path refuses their 3xx. Loaded on a download's first redirect only, so it
// imports nothing but types: how to refuse a link is handed in.
import type { Reply } from "./types.js";

/** Hops a download may take before it is refused. */
export const MAX_REDIRECTS = 5;

export type FetchOnce = (url: string, init: RequestInit) => Promise<Reply>;

const isRedirect = (response: Reply) => response.status >= 300 && response.status < 400 && response.headers.has("location");

/**
 * Follows `response`'s redirects from `url`: at most {@link MAX_REDIRECTS}
 * hops, only to `http:`/`https:`, never from `https:` down to `http:`, and
 * `Authorization` only while the hops stay on the origin of `url`. Anything
 * else rejects with what `refuse` makes of the Location and why (the request
 * path's `FdxLinkError`, which no retry mends). A browser hides a redirect's `Location` (an opaque redirect):
 * there the request is made again and the platform follows, by its own
 * rules.
 */
export async function followRedirects(
  response: Reply,
  url: string,
  init: RequestInit,
  fetchOnce: FetchOnce,
  refuse: (location: string, why: string) => Error,
): Promise<Reply> {
  if (response.type === "opaqueredirect") return fetchOnce(url, { ...init, redirect: "follow" });
  let current = new URL(url);
  const origin = current.origin;
  let headers = init.headers;
  for (let hops = 0; isRedirect(response); hops++) {
    void response.body?.cancel().catch(() => undefined);
    const location = response.headers.get("location")!;
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw refuse(location, "not a valid URL");
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") throw refuse(location, "not an http(s) URL");
    if (current.protocol === "https:" && next.protocol === "http:") throw refuse(location, "it leaves https: for http:");
    if (next.username || next.password) throw refuse(location, "it carries credentials");
    if (hops === MAX_REDIRECTS) throw refuse(location, `more than ${MAX_REDIRECTS} redirects`);
    if (next.origin !== origin && headers !== undefined) {
      // The token stays with the origin the caller named; once left, it is not sent again.
      const without = new Headers(headers);
      without.delete("authorization");
      headers = without;
    }
    next.hash = "";
    current = next;
    response = await fetchOnce(current.href, { ...init, headers });
  }
  return response;
}
