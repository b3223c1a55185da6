// Which redirect URIs the sandbox IdP sends a browser back to.

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Whether `candidate` is a registered redirect URI: a loopback one (`http:`
 * to 127.0.0.1, [::1] or localhost) matches on any port with exactly the
 * same path and query (RFC 8252 §7.3); any other matches exactly.
 */
export function isRegisteredRedirectUri(candidate: string, registered: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  return registered.some((entry) => {
    if (entry === candidate) return true;
    const known = new URL(entry);
    if (known.protocol !== "http:" || !LOOPBACK_HOSTS.has(known.hostname)) return false;
    // Rebuilt from the parts that must match, with the candidate's port: any
    // other difference (case, dot segments, userinfo, a fragment) fails.
    return url.protocol === "http:" && url.hostname === known.hostname && candidate === `http://${url.host}${known.pathname}${known.search}`;
  });
}
