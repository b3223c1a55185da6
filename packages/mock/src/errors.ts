// FDX error bodies of the service description (§7), plus the codes the mock
// chose where the description shows none (documented in the package README).

/** An FDX error object (`code`, `message`, optional `debugMessage`). */
export interface FdxErrorBody {
  code: string | number;
  message: string;
  debugMessage?: string;
}

const CORS_EXPOSED = "Content-Length, Content-Type, Retry-After";

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
export const methodNotAllowed = (allow: readonly string[]) =>
  fdxError(405, "1206", "Method Not Allowed", undefined, { Allow: allow.join(", ") });
export const tooManyRequests = (retryAfterSeconds: number) =>
  fdxError(429, "1207", "Too Many Requests", undefined, { "Retry-After": String(retryAfterSeconds) });
export const internalServerError = () => fdxError(500, "500", "Internal server error");
export const versionNotSupported = (version: string) =>
  fdxError(501, "1106", "FdxVersion not supported or not implemented", `Version ${version} is not implemented`);
export const scheduledMaintenance = () => fdxError(503, "503", "Scheduled Maintenance");
/** Unknown paths answer like the maintenance 404: the FDX `NotFound` code. */
export const notFound = () => fdxError(404, "NotFound", "resource not found");

// Maintenance details (§7): bodies with only `code` and `message`, the 400 code an integer.
export const maintenanceInvalidInput = () => json(400, { code: 401, message: "Invalid input" });
export const maintenanceNotFound = () => json(404, { code: "NotFound", message: "resource not found" });
export const maintenanceMethodNotAllowed = (allow: readonly string[]) =>
  new Response("Method Not Allowed", { status: 405, headers: { "Content-Type": "text/plain; charset=utf-8", Allow: allow.join(", ") } });

// Choices of the mock where the service description shows no error.
export const consentNotFound = (id: string) => fdxError(404, "1104", "Consent not found", `No consent grant with id ${JSON.stringify(id)}`);
export const accountNotFound = (debugMessage: string) => fdxError(404, "701", "Account not found", debugMessage);
export const statementNotFound = (debugMessage: string) => fdxError(404, "1108", "Statement not found", debugMessage);
export const invalidDateRange = (debugMessage: string) => fdxError(400, "703", "Invalid date range", debugMessage);
export const notAcceptable = (available: readonly string[]) =>
  fdxError(406, "406", "Not Acceptable", `Available media types: ${available.join(", ")}`);

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": CORS_EXPOSED,
};
