// A deliberately small router: paths are matched segment by segment on their
// decoded values, so a tokenized id holding an encoded "/" stays one segment.

export interface RouteContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  /** The request body, read by the app within its size limit (empty when there is none). */
  body: Uint8Array;
  /** On statement calls made with an end user's id token: the accounts it grants. */
  grant?: { accounts: readonly string[] } | undefined;
}

export type Handler = (context: RouteContext) => Response | Promise<Response>;

export interface Route {
  /** Segments; `:name` captures one decoded segment. */
  pattern: readonly string[];
  handlers: Partial<Record<string, Handler>>;
  /** Versions accepted in the `:version` segment; others answer 501/1106. */
  versions: readonly string[];
  /** The maintenance path answers 405 in plain text. */
  plainTextMethodNotAllowed?: boolean;
  /** Statement calls: an end user's id token is accepted (or, with `requireUserTokens`, required). */
  userTokens?: boolean;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Decoded path segments, or `undefined` for a malformed percent-encoding. */
export function splitPath(path: string): string[] | undefined {
  try {
    return path.split("/").slice(1).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

export function matchRoute(routes: readonly Route[], segments: readonly string[]): RouteMatch | undefined {
  for (const route of routes) {
    if (route.pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = route.pattern.every((part, index) => {
      const segment = segments[index] as string;
      if (part.startsWith(":")) {
        params[part.slice(1)] = segment;
        return segment !== "";
      }
      return part === segment;
    });
    if (matches) return { route, params };
  }
  return undefined;
}

export function allowedMethods(route: Route): string[] {
  return Object.keys(route.handlers);
}
