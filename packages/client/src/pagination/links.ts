import { FdxLinkError } from "../core/error.js";
import { clip, redactText } from "../core/redact.js";

/**
 * Resolves an href the server returned (a page link, a download link) against `origin`, that of `productsUrl`, and
 * refuses any that would carry the bearer token elsewhere. The service's hrefs are relative to the host, so never to a
 * path prefix of `productsUrl`; the href is not re-encoded, since fetch's URL parser is the only normalisation it needs.
 * `secrets` is what an error must not quote: the server may have put the token in the href.
 *
 * @throws FdxLinkError for a foreign origin (protocol-relative `//host` included),
 *   a scheme other than http(s), embedded credentials, or an unparsable href.
 */
export function resolveHref(href: string, origin: string, secrets: () => readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(href, `${origin}/`);
  } catch {
    throw refuseLink(href, "not a valid URL", secrets());
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refuseLink(href, "not an http(s) URL", secrets());
  if (url.origin !== origin) throw refuseLink(href, `it leaves ${origin}`, secrets());
  if (url.username || url.password) throw refuseLink(href, "it carries credentials", secrets());
  // Cleared only when the href has one (an empty "#" included): clearing re-serialises the URL.
  // Stryker disable next-line ConditionalExpression,StringLiteral: clearing an absent fragment gives the same URL; the check only saves the work
  if (href.includes("#")) url.hash = "";
  return url;
}

/** The error for a link that is not followed; the href is quoted, redacted and then cut short (it can be long or hostile). */
export function refuseLink(href: string, why: string, secrets: readonly string[]): FdxLinkError {
  return new FdxLinkError(redactText(`Refusing link ${JSON.stringify(clip(href, secrets))}: ${why}`, secrets), redactText(href, secrets));
}
