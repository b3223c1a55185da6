/** FDX error codes of the service description (§7), as the strings `FdxApiError.code` holds. */
export const FdxErrorCode = {
  InvalidInput: "401",
  Unauthorized: "1205",
  MethodNotAllowed: "1206",
  TooManyRequests: "1207",
  InternalServerError: "500",
  VersionNotSupported: "1106",
  ScheduledMaintenance: "503",
  NotFound: "NotFound",
  /** An end user's token expired or was revoked (their consent ended): refresh it, or ask them to connect again. */
  CustomerNotAuthorized: "602",
} as const;

export type FdxErrorCode = (typeof FdxErrorCode)[keyof typeof FdxErrorCode];
