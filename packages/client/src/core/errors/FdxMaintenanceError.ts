import { FdxApiError } from "./FdxApiError.js";

/** HTTP 503: scheduled maintenance (FDX code 503). Retried automatically. */
export class FdxMaintenanceError extends FdxApiError {
  static override readonly kind: string = "FdxMaintenanceError";
}
