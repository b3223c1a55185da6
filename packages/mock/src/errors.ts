// FDX error bodies of the service description, of FDX 5.2 and the real
// service's statement documentation where the description shows none, and the
// few choices of the mock (all documented in the package README).

/** An FDX error object (`code`, `message`, optional `debugMessage`). */
export interface FdxErrorBody {
  code: string | number;
  message: string;
  debugMessage?: string;
}

/** FDX's correlation header: echoed from the request, or a new UUID, on every answer. */
export const INTERACTION_ID = "x-fapi-interaction-id";

const CORS_EXPOSED = `Content-Length, Content-Type, Retry-After, ${INTERACTION_ID}`;

/** A JSON response; CORS headers are added once, in the app. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function fdxError(status: number, code: string | number, message: string, debugMessage?: string, headers?: Record<string, string>): Response {
  const body: FdxErrorBody = debugMessage === undefined ? { code, message } : { code, message, debugMessage };
  return json(status, body, headers);
}

export const invalidInput = (debugMessage?: string) => fdxError(400, "401", "Invalid Input", debugMessage);
export const unauthorized = (debugMessage: string) =>
  fdxError(401, "1205", "Unauthorized", debugMessage, { "WWW-Authenticate": 'Bearer realm="fdxkit-sandbox"' });
export const methodNotAllowed = (allow: readonly string[]) => fdxError(405, "1206", "Method Not Allowed", undefined, { Allow: allow.join(", ") });
export const tooManyRequests = (retryAfterSeconds: number) =>
  fdxError(429, "1207", "Too Many Requests", undefined, { "Retry-After": String(retryAfterSeconds) });
export const internalServerError = () => fdxError(500, "500", "Internal server error");
export const versionNotSupported = (version: string) =>
  fdxError(501, "1106", "FdxVersion not supported or not implemented", `Version ${version} is not implemented`);
export const scheduledMaintenance = () => fdxError(503, "503", "Scheduled Maintenance");
/** Unknown paths answer like the maintenance 404: the FDX `NotFound` code. */
export const notFound = () => fdxError(404, "NotFound", "resource not found");

// Maintenance details: bodies with only `code` and `message`, the 400 code an integer.
export const maintenanceInvalidInput = () => json(400, { code: 401, message: "Invalid input" });
export const maintenanceNotFound = () => json(404, { code: "NotFound", message: "resource not found" });
export const maintenanceMethodNotAllowed = (allow: readonly string[]) =>
  new Response("Method Not Allowed", { status: 405, headers: { "Content-Type": "text/plain; charset=utf-8", Allow: allow.join(", ") } });

// Statement calls: FDX 5.2's core API and the real service's statement
// documentation, with integer codes as that documentation shows them.
export const accountNotFound = (debugMessage: string) => fdxError(404, 701, "Account not found", debugMessage);
export const noStatements = (debugMessage: string) => fdxError(404, 1108, "Statements not found for given Account", debugMessage);
export const statementNotFound = (debugMessage: string) => fdxError(404, 1104, "Statement id not found for Account", debugMessage);
export const statementProcessing = () => fdxError(400, 1300, "Statement is Processing", "The statement document is still being produced");
export const invalidDate = (debugMessage: string) => fdxError(400, 702, "Invalid start or end date", debugMessage);
export const invalidDateRange = (debugMessage: string) => fdxError(400, 703, "Invalid date range", debugMessage);
export const contentTypeNotSupported = (available: readonly string[]) =>
  fdxError(406, 1203, "Content Type not Supported", `Available media types: ${available.join(", ")}`);
/** Bad `offset`, `limit` or cursor of a statement page (integer code, like the other statement errors). */
export const statementInvalidInput = (debugMessage: string) => fdxError(400, 401, "Invalid Input", debugMessage);

/**
 * An end user's token that expired, or whose consent ended (or, with
 * `requireUserTokens`, any other bearer on a statement call): the real
 * service's 401, with only these two keys.
 */
export const customerNotAuthorized = () =>
  json(401, { code: 602, message: "Customer not authorized" }, { "WWW-Authenticate": 'Bearer realm="fdxkit-sandbox", error="invalid_token"' });

// Limits of a shared sandbox.
export const payloadTooLarge = (limit: number) => fdxError(413, "413", "Payload Too Large", `The request body exceeds ${limit} bytes`);

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": CORS_EXPOSED,
};
