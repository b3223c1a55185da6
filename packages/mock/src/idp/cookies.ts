// The IdP's cookies: what one browser sent, and what to set in it. The
// authorization pages read and write them through a CookieJar, so the same
// code serves a real browser (Cookie and Set-Cookie headers) and the
// browserless `mock.authorize` (a jar in memory, which also works where a
// page's scripts may not set the Cookie header).

/** One browser's cookies for the IdP. */
export interface CookieJar {
  get(name: string): string | undefined;
  /** Sets a cookie for the browser's session; `undefined` removes it. */
  set(name: string, value: string | undefined): void;
}

/** The cookies of a `Cookie` request header (the first of a repeated name wins, as RFC 6265 §5.4 orders them). */
export function parseCookieHeader(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? "").split(";")) {
    const equals = pair.indexOf("=");
    if (equals < 0) continue;
    const name = pair.slice(0, equals).trim();
    if (name !== "" && !cookies.has(name)) cookies.set(name, pair.slice(equals + 1).trim());
  }
  return cookies;
}

/** Where the IdP's cookies apply: its path, and `Secure` when it is served over https. */
export interface CookieScope {
  path: string;
  secure: boolean;
}

/** The cookies of one HTTP request; what is set goes out as `Set-Cookie` headers on the answer. */
export class RequestCookies implements CookieJar {
  readonly #sent: Map<string, string>;
  readonly #scope: CookieScope;
  readonly #changes = new Map<string, string | undefined>();

  constructor(header: string | null, scope: CookieScope) {
    this.#sent = parseCookieHeader(header);
    this.#scope = scope;
  }

  get(name: string): string | undefined {
    return this.#changes.has(name) ? this.#changes.get(name) : this.#sent.get(name);
  }

  set(name: string, value: string | undefined): void {
    this.#changes.set(name, value);
  }

  /** Adds the `Set-Cookie` headers of what was set; HttpOnly and SameSite=Lax so no script and no other site's form carries them. */
  applyTo(response: Response): Response {
    for (const [name, value] of this.#changes) {
      const attributes = [
        `Path=${this.#scope.path}`,
        "HttpOnly",
        "SameSite=Lax",
        ...(this.#scope.secure ? ["Secure"] : []),
        ...(value === undefined ? ["Max-Age=0"] : []),
      ];
      response.headers.append("Set-Cookie", [`${name}=${value ?? ""}`, ...attributes].join("; "));
    }
    return response;
  }
}

/** A browser's cookie jar in memory (one per mock instance, for `mock.authorize`). */
export class MemoryCookieJar implements CookieJar {
  readonly #cookies = new Map<string, string>();

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  set(name: string, value: string | undefined): void {
    if (value === undefined) this.#cookies.delete(name);
    else this.#cookies.set(name, value);
  }

  clear(): void {
    this.#cookies.clear();
  }
}
