import { FdxLinkError } from "../core/errors/index.js";

/**
 * Resolves an href the server returned (a page link, a statement's download
 * link) against the origin of `productsUrl`, and refuses any that would carry
 * the bearer token elsewhere.
 *
 * The service's hrefs are "relative to the host", so a host-relative href
 * resolves against the origin, never against a path prefix of `productsUrl`.
 * The href itself is not re-encoded or reordered: the URL parser fetch uses
 * anyway is the only normalisation it sees.
 *
 * @throws FdxLinkError for a foreign origin (protocol-relative `//host` included),
 *   a scheme other than http(s), embedded credentials, or an unparsable href.
 */
export function resolveHref(href: string, productsUrl: string): URL {
  const origin = new URL(productsUrl).origin;
  let url: URL;
  try {
    url = new URL(href, `${origin}/`);
  } catch {
    throw new FdxLinkError(`Refusing link ${quote(href)}: not a valid URL`, href);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FdxLinkError(`Refusing link ${quote(href)}: only http(s) links are followed`, href);
  }
  if (url.origin !== origin) {
    throw new FdxLinkError(`Refusing link ${quote(href)}: it leaves ${origin}, and the bearer token stays there`, href);
  }
  if (url.username || url.password) {
    throw new FdxLinkError(`Refusing link ${quote(href)}: it carries credentials`, href);
  }
  url.hash = "";
  return url;
}

// An href can be long or hostile: keep messages readable.
function quote(href: string): string {
  return JSON.stringify(href.length > 200 ? `${href.slice(0, 200)}…` : href);
}
