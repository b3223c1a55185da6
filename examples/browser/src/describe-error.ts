import { FdxApiError, FdxConnectionError, FdxError, FdxLinkError, FdxValidationError } from "@fdxkit/client";

/** What the page shows for a failed call: a headline and the details an operator would ask for. */
export interface ErrorView {
  headline: string;
  details: string[];
}

export function describeError(error: unknown): ErrorView {
  if (error instanceof FdxApiError) {
    // status, FDX code and the server's user-facing message: enough to branch on or to report.
    return {
      headline: `${error.name}: HTTP ${error.status}, FDX code ${error.code ?? "(none)"}`,
      details: [error.message, `${error.method} ${error.url}`],
    };
  }
  if (error instanceof FdxValidationError) {
    return { headline: `${error.name}: nothing was sent`, details: error.issues.map((i) => `${i.path || "input"}: ${i.message}`) };
  }
  if (error instanceof FdxConnectionError) {
    // In a browser this is also how a CORS refusal looks: fetch gives no details.
    return { headline: `${error.name}: no response`, details: [error.message, "Is the server running, and does it allow this origin (CORS)?"] };
  }
  if (error instanceof FdxLinkError) return { headline: `${error.name}: link refused`, details: [error.message] };
  if (error instanceof FdxError) return { headline: error.name, details: [error.message] };
  return { headline: "Unexpected error", details: [String(error)] };
}
